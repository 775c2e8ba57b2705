#!/usr/bin/env python3
"""Count what a reader strikes out of generated help-center articles (READER-RUBRIC.md):
leaked markup and text meant for someone else. Counts only; a reader still scores the rest.

usage: count_strikes.py [--json] ARTICLE.mdx [ARTICLE.mdx ...]

Prints one line per article (each kind with its count and first quotes) and a total line.
Text inside fenced code blocks is never counted: commands and examples are kept as written.

Leaked markup:
  escaped_html    HTML shown as text: `\\<h2 align="center"\\>`, `\\</p\\>`, `&lt;div`
  myst_rest       MyST/reST roles and directives: {func}`x`, :class:`X`, ```{eval-rst}, `.. autofunction::`
  framework       a docs framework's imports and components: `import { Tabs } from …`, `<Tabs …>`,
                  MkDocs `=== "tab"` and `!!! note`, `:::note` left as text
  escaped_ticks   a code fence or span shown as escaped backticks: \\`\\`\\`
  line_break      a line-break backslash shown as a character: a line ending in `\\\\`
  unresolved_ref  a reference-style link whose definition was dropped: [Git][gitscm], \\[x\\]\\[y\\]
  repo_path_link  a link or image whose target is a path into the repository, not a URL or anchor
  pymdown_block   PyMdown Blocks left as text: `/// tip | Title`, `//// tab | Linux`, a bare `///`
  snippet         an include left unresolved, in code too: `--8<-- "path:section"`, `{* docs_src/x.py *}`
  attr_list       heading ids and attribute lists: `## Title {#id}`, `{ .md-button }`, `{: .class }`
  template_var    a site generator's variables: `{{ mdbook-version }}`, and `%NAME_VERSION%` in code too
  sphinx_design   sphinx-design/MyST leftovers: a bare `+++` line, an icon role's argument as code
                  (`check,text-success mr-1`), an empty icon `<i></i>`
  rest_leftover   reST in a Markdown article: a simple table's `==== ====` rule, a link's `\`_`
                  tail, a footnote `[#]_`, a literal block's stray ` :` at the end of a line
  code_label      a code block's tab label in its opening: ```` ```ts [vite.config.ts] ````
  code_html       HTML inside a code block: `<font color=…>`, `&apos;`
  empty_link      a link without text: `[](…)`
  mdbook_directive an mdBook preprocessor directive or variable, in code too: `{{#include x}}`,
                  `{{#PYO3_CRATE_VERSION}}`
  escaped_jsx     JSX expressions shown as text: `\\{' '\\}`, `style=\\{\\{`
  substitution    a reST/Sphinx substitution left as text: `|version|`, `|release|`
  definition_list a MyST definition list's `: ` line shown as text
  callout         markdown-callouts paragraphs left as text: `NOTE: …`, `> TIP: …`
  emoji_shortcode an emoji shortcode left as text: `:wink:`
  twoslash        twoslash directives in code: `// @filename: x.ts`, `// @include: x`, `// ---cut---`
  fence_meta      a docs plugin's flag on a fence: ```` ```bash npm2yarn ````, ```` ```ts twoslash ````

Text for someone else:
  badge           badges and shields (shields.io, badge.svg, badge.fury.io, travis/circleci/codecov)
  someone_else    instructions for contributors, maintainers or AI agents: AGENTS.md, CLAUDE.md,
                  SKILL.md, "Use this skill when", headings such as Contributing, Development,
                  Releasing, Maintainers, Code of Conduct, Sponsors
"""
import json
import re
import sys

FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
CHECKS = {
    # A tag's name is lower case: `\\<T\\>` is a type parameter shown as written.
    "escaped_html": re.compile(r"\\</?[a-z][\w-]*|&lt;/?[a-z]"),
    "myst_rest": re.compile(
        r"(?<![\w/.`-])\{[a-z][\w:.-]*\}`|\\\{[a-z][\w:.-]*\\\}`|(?<![\w`]):(?:[a-z]+:)?[a-z]+:`|^\s*\.\. [\w:-]+::|^\s*\\?`\\?`\\?`\s*\\?\{[a-z-]+\\?\}"
    ),
    "framework": re.compile(
        r"^\s*(?:\\?&#105;|i)mport\s.+\sfrom\s|^\s*export\s+(?:default|const)\s|\\?<(?:Tabs|TabItem|Tab|Callout|Admonition)\b|^\s*===\s+\"|^\s*(?:!!!|\?\?\?\+?)\s+\w|^\s*\\?:::+\s*\w",
        re.M,
    ),
    "escaped_ticks": re.compile(r"\\`\\`"),
    "line_break": re.compile(r"\\\\\s*$"),
    "unresolved_ref": re.compile(r"(?<![\\!])\[[^\]\n]+\]\[[^\]\n]*\]|\\\[[^\]\n]+\\?\]\\\[[^\]\n]*\\?\]"),
    "badge": re.compile(
        r"img\.shields\.io|badge\.svg|badge\.fury\.io|badgen\.net|travis-ci\.(?:org|com)/|circleci\.com/gh/.+\.svg|codecov\.io/.+(?:badge|graph)|/badges?/",
        re.I,
    ),
    "someone_else": re.compile(
        r"\b(?:AGENTS|CLAUDE|SKILL)\.md\b|use this skill when|^#{1,6}\s+(?:contributing|contributors?|development|developing|hacking|releasing|release process|maintainers?|maintaining|code of conduct|sponsors?|backers)\b",
        re.I,
    ),
}
LINK = re.compile(r"(?<!\\)!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)")
JSX_SRC = re.compile(r"<(?:img|a|Frame)\b[^>]*\s(?:src|href)=\"([^\"]+)\"")
URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|#)", re.I)
# Checked on every line, code included.
ANY_LINE = {
    "snippet": re.compile(r"-{2,}8<-{2,}|\\?\{\*\s.*\*\\?\}"),
    "template_var": re.compile(r"%[A-Z][A-Z0-9_]*VERSION[A-Z0-9_]*%"),
    "mdbook_directive": re.compile(r"\\?\{\\?\{#[A-Za-z_]"),
}
# Checked on code lines and fence openings only.
CODE = {
    "code_label": re.compile(r"^\s*(?:`{3,}|~{3,})[\w+#.-]*\s*(?:\{[^}]*\}\s*)?\[[^\]]+\]"),
    "code_html": re.compile(r"<font\b|&apos;|&quot;|<span style="),
    "twoslash": re.compile(r"^\s*//\s*(?:@(?:filename|include|errors|noErrors|target|module|jsx|strict|showEmit)\b|-{3}cut(?:-after)?-{3}|\s*\^[|?])"),
    "fence_meta": re.compile(r"^\s*(?:`{3,}|~{3,})[\w+#.-]*[\s,]+(?:.*\s)?(?:npm2yarn|twoslash|noplayground|focuscomment|hidelines=\S*)\b"),
}
# Checked on prose lines, beside CHECKS.
MORE = {
    "pymdown_block": re.compile(r"^\s*/{3,}(?:\s*[a-z][\w-]*(?:\s*\|.*)?)?\s*$"),
    "attr_list": re.compile(r"\\?\{:?\s*[#.][\w-]+[^{}\n]*\\?\}"),
    "sphinx_design": re.compile(r"^\s*\+\+\+\s*(?:\{.*\})?\s*$|`[a-z][\w-]*[,;][^`]*(?:text-[a-z]+|\bm[rlxy]-\d|\d+em)[^`]*`|<i>\s*</i>"),
    "rest_leftover": re.compile(r"^\s*={2,}(?:\s+={2,})+\s*$|\)\\?`_|\\?`[^`\n]*<https?://[^>\n]*>\\?`_|\[#\]_|\[\d+\]_|\S\s:$"),
    "empty_link": re.compile(r"(?<![!\\])\[\]\("),
    "escaped_jsx": re.compile(r"\\\{\s*'\s*'\s*\\\}|=\\\{\\\{"),
    "substitution": re.compile(r"(?<![\w|])\\?\|[A-Za-z][\w-]{0,30}\\?\|(?![\w|])"),
    "definition_list": re.compile(r"^:\s{1,4}\S"),
    "callout": re.compile(r"^\s*(?:>\s*)?(?:NOTE|TIP|WARNING|IMPORTANT|CAUTION|DANGER|INFO|HINT):\s"),
    "emoji_shortcode": re.compile(r"(?<![\w:/]):[a-z][a-z0-9_+-]{1,30}:(?![\w:/])"),
    "template_var": re.compile(r"\\?\{\\?\{-?\s*[A-Za-z_][\w.-]*[^{}\n]*?\\?\}\\?\}"),
}
LEAKED_MARKUP = list(dict.fromkeys(
    ["escaped_html", "myst_rest", "framework", "escaped_ticks", "line_break", "unresolved_ref", "repo_path_link"]
    + list(ANY_LINE) + list(CODE) + list(MORE)
))


def body_start(lines):
    """The index of the first line after the front matter."""
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() == "---":
                return i + 1
    return 0


def prose_lines(text):
    """(line number, line) outside front matter and fenced code blocks."""
    lines = text.split("\n")
    start = body_start(lines)
    fence = None
    for n in range(start, len(lines)):
        line = lines[n]
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip()[len(m.group(1)):].strip():
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        yield n + 1, line


def all_lines(text):
    """(line number, line, whether it is code or a fence's opening) after the front matter."""
    prose = {n for n, _ in prose_lines(text)}
    lines = text.split("\n")
    start = body_start(lines)
    for n in range(start, len(lines)):
        yield n + 1, lines[n], (n + 1) not in prose


def without_code_spans(line):
    return re.sub(r"(?<!\\)(`+)(?!`).*?(?<!`)\1(?!`)", "``", line)


def count(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    found = {k: [] for k in list(CHECKS) + LEAKED_MARKUP}
    for n, line, code in all_lines(text):
        for kind, rx in ANY_LINE.items():
            for m in rx.finditer(line):
                found[kind].append(f"{n}: {m.group(0).strip()[:60]}")
        if code:
            for kind, rx in CODE.items():
                for m in rx.finditer(line):
                    found[kind].append(f"{n}: {m.group(0).strip()[:60]}")
    for n, line in prose_lines(text):
        plain = without_code_spans(line)
        for kind, rx in MORE.items():
            subject = line if kind == "sphinx_design" else plain
            for m in rx.finditer(subject):
                found[kind].append(f"{n}: {m.group(0).strip()[:60]}")
        for kind, rx in CHECKS.items():
            subject = line if kind in ("myst_rest", "escaped_ticks", "line_break") else plain
            for m in rx.finditer(subject):
                found[kind].append(f"{n}: {m.group(0).strip()[:60]}")
        for rx in (LINK, JSX_SRC):
            for m in rx.finditer(plain):
                target = m.group(1)
                if not URL.match(target):
                    found["repo_path_link"].append(f"{n}: {target[:60]}")
    return found


def main(argv):
    as_json = "--json" in argv
    paths = [a for a in argv if a != "--json"]
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    total = {}
    for path in paths:
        found = count(path)
        row = {k: len(v) for k, v in found.items()}
        row["leaked_markup"] = sum(row[k] for k in LEAKED_MARKUP)
        row["someone_else"] = row["badge"] + row["someone_else"]
        for k, v in row.items():
            total[k] = total.get(k, 0) + v
        if as_json:
            print(json.dumps({"article": path, "counts": row, "quotes": {k: v[:5] for k, v in found.items() if v}}))
        else:
            print(f"{path}: leaked_markup={row['leaked_markup']} someone_else={row['someone_else']}")
            for k, v in found.items():
                if v:
                    print(f"  {k} {len(v)}: " + " | ".join(v[:3]))
    print(("TOTAL " if not as_json else "") + json.dumps(total))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
