// Compiles and evaluates articles with the reference MDX compiler (@mdx-js/mdx 3), once as
// plain MDX and once with remark-gfm as docs sites use it, and reports whether anything in
// them ran. stdin: JSON [{name, mdx}]; stdout: JSON [{name, results: [{plugins, error, ran,
// urls}], title}]. Components are plain functions and the JSX runtime is our own, so the only
// code that can run is code the article carries.
import {evaluate} from '@mdx-js/mdx'
import remarkGfm from 'remark-gfm'
import yaml from 'js-yaml'

let ran = []
// What the hostile fixtures' payloads touch.
Object.defineProperty(globalThis, 'X', {
  configurable: true,
  get() { ran.push('read globalThis.X'); return undefined },
  set(v) { ran.push('set globalThis.X = ' + String(v)) },
})
globalThis.alert = (m) => { ran.push('alert(' + String(m) + ')') }

const Fragment = Symbol('Fragment')
const jsx = (type, props) => (typeof type === 'function' ? type(props) : {type, props})
const names = ['Steps', 'Step', 'Frame', 'Update', 'Note', 'Warning', 'Tip']
const components = Object.fromEntries(names.map((name) => [name, (props) => ({type: name, props})]))

// Every href/src in the rendered tree.
function urls(node, found) {
  if (Array.isArray(node)) { for (const child of node) urls(child, found); return found }
  if (!node || typeof node !== 'object') return found
  const props = node.props || {}
  for (const key of ['href', 'src']) if (typeof props[key] === 'string') found.push(props[key])
  urls(props.children, found)
  return found
}

function frontmatterTitle(mdx) {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(mdx)
  if (!match) return {error: 'no frontmatter'}
  try {
    return {title: yaml.load(match[1]).title}
  } catch (e) {
    return {error: String(e.message || e)}
  }
}

const input = JSON.parse(await new Promise((resolve) => {
  let data = ''
  process.stdin.setEncoding('utf8')
  process.stdin.on('data', (chunk) => { data += chunk })
  process.stdin.on('end', () => resolve(data))
}))

const out = []
for (const {name, mdx} of input) {
  const results = []
  for (const [plugins, remarkPlugins] of [['none', []], ['remark-gfm', [remarkGfm]]]) {
    ran = []
    let error = null
    let found = []
    try {
      const {default: Content} = await evaluate(mdx, {Fragment, jsx, jsxs: jsx, remarkPlugins})
      found = urls(Content({components}), [])
    } catch (e) {
      error = String(e.message || e)
    }
    results.push({plugins, error, ran, urls: found})
  }
  out.push({name, results, ...frontmatterTitle(mdx)})
}
process.stdout.write(JSON.stringify(out))
