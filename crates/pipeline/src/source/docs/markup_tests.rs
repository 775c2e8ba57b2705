//! Tests of `markup`: each construct read, and hostile inputs bounded.

use super::*;

fn md(text: &str) -> String {
    read(text).markdown
}

#[test]
fn myst_directives_become_admonitions_code_or_are_dropped() {
    let found = read(
        "```{note}\nInstall first.\n```\n\n:::{warning} Careful\n:class: x\nIt overwrites.\n:::\n\n```{code-block} python\n:linenos:\nimport x\n```\n\n```{eval-rst}\n.. autofunction:: pkg.fn\n```\n\n````{tip}\n```{toctree}\nintro\n```\nNested.\n````\n",
    );
    assert_eq!(
        found.markdown,
        ":::note\nInstall first.\n:::\n\n:::warning Careful\nIt overwrites.\n:::\n\n```python\nimport x\n```\n\n\n:::tip\nNested.\n:::"
    );
    assert_eq!(found.dropped, ["eval-rst", "toctree"]);
}

#[test]
fn doctest_directives_and_console_sessions_are_code() {
    let out = md(
        "The simplest possible usage is:\n\n```{doctest}\n>>> from attrs import define\n>>> C()\nC()\n```\n\nOr with options:\n\n:::{code-block} python\n:caption: x\nprint(1)\n:::\n\nA session:\n\n>>> 1 + 1\n2\n\nAfter.",
    );
    assert_eq!(
        out,
        "The simplest possible usage is:\n\n```pycon\n>>> from attrs import define\n>>> C()\nC()\n```\n\nOr with options:\n\n```python\nprint(1)\n```\n\nA session:\n\n```pycon\n>>> 1 + 1\n2\n```\n\nAfter."
    );
    // A body with a fence of its own gets a longer one.
    let out = md("```{doctest}\n>>> s = '```'\n```");
    assert!(out.starts_with("````pycon\n"), "{out}");
}

#[test]
fn an_introduction_to_a_dropped_directive_does_not_dangle() {
    let found = read("Here is the API:\n\n```{eval-rst}\n.. autofunction:: pkg.fn\n```\n\nNext.");
    assert_eq!(found.markdown, "Here is the API.\n\n\nNext.");
    assert_eq!(found.dropped, ["eval-rst"]);
}

#[test]
fn a_site_directive_around_a_console_session_keeps_its_commands() {
    // pip's own `{pip-cli}` directive: the commands are the page's point.
    let found = read(
        "Run:\n\n```{pip-cli}\n$ pip install sampleproject\n[...]\nSuccessfully installed\n```\n\n```{py-session}\n>>> import x\n```\n\n```{mermaid}\ngraph TD; A-->B\n```",
    );
    assert_eq!(
        found.markdown,
        "Run:\n\n```console\n$ pip install sampleproject\n[...]\nSuccessfully installed\n```\n\n```pycon\n>>> import x\n```\n"
    );
    assert_eq!(found.dropped, ["mermaid"]);
}

#[test]
fn site_generator_leftovers_are_dropped() {
    // Heading ids, attribute lists and template variables; code keeps its braces.
    assert_eq!(
        md(
            "## Plugin API {#plugin-api}\n\n### Create { #create .x }\n\n[Get started](#start){ .md-button .md-button--primary }\n\n![Logo](logo.png){: width=\"40\" }\n\nVersion: {{ mdbook-version }}\n\nName: {{ config.site_name | upper }}, built.\n\nUse `{#id}` and `{{ x }}`.\n\n```jinja\n{{ name }}\n```"
        ),
        "## Plugin API\n\n### Create\n\n[Get started](#start)\n\n![Logo](logo.png)\n\n\nName:, built.\n\nUse `{#id}` and `{{ x }}`.\n\n```jinja\n{{ name }}\n```"
    );
    // sphinx-design icons and `+++` breaks show as nothing; badges as their text.
    assert_eq!(
        md(
            "- {fa}`check,text-success mr-1` Follows the spec\n- {octicon}`check;1em;text-success mr-1` Fast {bdg-primary}`new`\n\n+++\n\nNext cell.\n\n+++ {\"tags\": []}\n"
        ),
        "-  Follows the spec\n-  Fast new\n\n\nNext cell.\n"
    );
    // Includes left unresolved are dropped, inside code or not; version placeholders go.
    let found = read(
        "```go\n--8<-- \"missing.go:main\"\n```\n\n{* docs_src/missing.py hl[3] *}\n\n```bash\nnpm i -D prettier@%PRETTIER_VERSION%\n```",
    );
    assert_eq!(
        found.markdown,
        "```go\n```\n\n\n```bash\nnpm i -D prettier\n```"
    );
    assert_eq!(found.dropped, ["--8<--", "{* *}"]);
}

#[test]
fn terminal_colours_and_icons_are_read() {
    let out = md(
        "```console\n$ python main.py\n<font color=\"#F4BF75\"><b>Usage: </b></font>main.py [OPTIONS]\n<font color=\"#A5A5A1\">Try </font>&apos;main.py --help&apos;\nMissing &apos;name&apos;.\n```\n\n```html\n<b>Bold</b> &amp;\n```\n\n| <i class=\"fas fa-magnifying-glass\"></i> | Search. |\n| <i class=\"clip-button\"></i> | Copy. |",
    );
    assert_eq!(
        out,
        "```console\n$ python main.py\nUsage: main.py [OPTIONS]\nTry 'main.py --help'\nMissing 'name'.\n```\n\n```html\n<b>Bold</b> &amp;\n```\n\n| *(magnifying glass icon)* | Search. |\n| *(clip icon)* | Copy. |"
    );
}

#[test]
fn links_without_text_are_titled_by_their_target() {
    assert_eq!(
        md("See [](using.md), [](#install) and [](https://x.org/a). ![](logo.png)"),
        "See [using](xref:doc?:using), [install](xref:ref?:install) and [https://x.org/a](https://x.org/a). ![](logo.png)"
    );
}

#[test]
fn pymdown_blocks_and_code_labels_are_read() {
    let out = md(
        "//// tab | Linux\n\n```bash\nsource .venv/bin/activate\n```\n\n////\n\n/// tip | Faster\nUse {func}`run`.\n///\n\n```ts [vite.config.ts]\nexport default {}\n```",
    );
    assert_eq!(
        out,
        "\n**Linux**\n\n\n```bash\nsource .venv/bin/activate\n```\n\n\n\n:::tip Faster\nUse `run`.\n\n:::\n\n\n\n**vite.config.ts**\n\n```ts\nexport default {}\n```"
    );
}

#[test]
fn roles_become_code_or_their_text() {
    assert_eq!(
        md(
            "Call {func}`pkg.fn` or :meth:`Client.get`, see {doc}`the guide <guide>` and :py:class:`~pkg.mod.Client`; `{func}` stays."
        ),
        "Call `pkg.fn` or `Client.get`, see [the guide](xref:doc:guide) and `Client`; `{func}` stays."
    );
}

#[test]
fn framework_imports_and_components_are_read() {
    let text = "import Tabs from '@theme/Tabs';\nimport TabItem from '@theme/TabItem';\nimport { Callout } from 'nextra/components'\n\n<Tabs groupId=\"lib\">\n<TabItem value=\"pip\" label=\"pip\">\n\n```sh\npip install x\n```\n\n</TabItem>\n<TabItem value=\"conda\">\n\nconda\n\n</TabItem>\n</Tabs>\n\n<Tabs items={['npm', \"yarn\"]}>\n  <Tab>\nnpm i\n  </Tab>\n  <Tab>\nyarn add\n  </Tab>\n</Tabs>\n\n<Callout type=\"warning\">\nCareful.\n</Callout>\n\nimport is a word.";
    let out = md(text);
    assert!(!out.contains("import Tabs"), "{out}");
    assert!(!out.contains("<Tab"), "{out}");
    assert!(out.contains("**pip**\n\n\n```sh"), "{out}");
    assert!(out.contains("**conda**"), "{out}");
    assert!(out.contains("**npm**") && out.contains("**yarn**"), "{out}");
    assert!(out.contains(":::warning\n\nCareful.\n\n:::"), "{out}");
    assert!(out.ends_with("import is a word."), "{out}");
}

#[test]
fn content_tabs_become_labelled_paragraphs() {
    assert_eq!(
        md(
            "=== \"pip\"\n\n    ```bash\n    pip install x\n    ```\n\n=== \"uv\"\n    uv add x\n\nAfter.\n\n```\n=== \"kept\"\n```"
        ),
        "**pip**\n\n\n```bash\npip install x\n```\n\n**uv**\n\nuv add x\n\nAfter.\n\n```\n=== \"kept\"\n```"
    );
}

#[test]
fn tabs_within_tabs_and_icons_in_labels() {
    assert_eq!(
        md(
            "=== \":material-microsoft-windows: Windows x86_64\"\n\n    === \"Using WinGet\"\n\n        Run:\n\n        ```\n        winget install x\n        ```\n"
        ),
        "**Windows x86_64**\n\n\n**Using WinGet**\n\n\nRun:\n\n```\nwinget install x\n```"
    );
}

#[test]
fn docusaurus_code_tabs_become_labelled_blocks() {
    assert_eq!(
        md(
            "<!--DOCUSAURUS_CODE_TABS-->\n<!--class + makeObservable-->\n\n```js\n<!--not a label-->\n```\n\n<!--factory-->\n```js\nf()\n```\n<!--END_DOCUSAURUS_CODE_TABS-->\n\nAfter."
        ),
        "**class + makeObservable**\n\n\n```js\n<!--not a label-->\n```\n\n**factory**\n\n```js\nf()\n```\n\nAfter."
    );
}

#[test]
fn html_headings_and_rules() {
    assert_eq!(
        md("<h2 align=\"center\">Usage</h2>\n<hr>\n<HR />\ntext\n<h3>a</h2>"),
        "## Usage\ntext\n<h3>a</h2>"
    );
}

#[test]
fn reference_links_are_resolved_from_anywhere() {
    let text = "## Install\n\nUse [Git][git-site] and see [examples], [Docs][] or [`Handler`] and [`Known`].\n\n```\n[x]: not-a-definition\n```\n\n## License\n\n[git-site]: https://git-scm.com\n[Examples]: examples/ \"Ex\"\n[docs]: <https://docs.rs/x>\n[`Known`]: crate::Known\n";
    let out = md(text);
    assert!(out.contains("Use [Git](https://git-scm.com) and see [examples](examples/), [Docs](https://docs.rs/x) or `Handler` and [`Known`](crate::Known)."), "{out}");
    assert!(out.contains("[x]: not-a-definition"), "{out}");
    assert!(!out.contains("[git-site]:"), "{out}");
    // Not references: inline links, undefined labels, task boxes.
    assert_eq!(md("[a](b) [c] - [ ] task"), "[a](b) [c] - [ ] task");
    assert_eq!(
        md(
            "the [docs for `std::fmt`][std::fmt].\n\n[std::fmt]: https://doc.rust-lang.org/std/fmt/"
        ),
        "the [docs for `std::fmt`](https://doc.rust-lang.org/std/fmt/).\n"
    );
    // A full reference whose label is code.
    assert_eq!(
        md(
            "See the [clap docs][`clap`] and [`Error`][`std::error::Error`].\n\n[`clap`]: https://docs.rs/clap\n[`std::error::Error`]: https://doc.rust-lang.org/std/error/trait.Error.html"
        ),
        "See the [clap docs](https://docs.rs/clap) and [`Error`](https://doc.rust-lang.org/std/error/trait.Error.html).\n"
    );
}

#[test]
fn hostile_inputs_stay_bounded() {
    let deep = "````{note}\n".repeat(2_000);
    let _ = read(&deep);
    let brackets = "[".repeat(100_000);
    let _ = read(&format!("{brackets}\n[a]: b\n"));
    let roles = "{x}`".repeat(50_000);
    let _ = read(&roles);
}

#[test]
fn hugo_relrefs_link_to_their_page() {
    let out = md(
        "Refer to the [Introduction]({{< relref \"docs\" >}} \"Introduction\") and [packages]({{< relref \"pyproject#packages\" >}}).",
    );
    assert_eq!(
        out,
        "Refer to the [Introduction](docs \"Introduction\") and [packages](pyproject#packages)."
    );
}

#[test]
fn docusaurus_highlight_comments_leave_the_code() {
    let out = md(
        "```ts\nimport { a } from 'b'\n// highlight-next-line\nconst store = a()\n{/* highlight-start */}\n<App />\n{/* highlight-end */}\n// highlight is a word here\n```",
    );
    assert_eq!(
        out,
        "```ts\nimport { a } from 'b'\nconst store = a()\n<App />\n// highlight is a word here\n```"
    );
}

#[test]
fn docusaurus_file_markers_keep_only_the_file_the_site_shows() {
    let out = md(
        "```ts\n// file: app/store.ts noEmit\nexport const store = {}\n// file: index.tsx\nimport { store } from './app/store'\nrender(store)\n```",
    );
    assert_eq!(
        out,
        "```ts\nimport { store } from './app/store'\nrender(store)\n```"
    );
}

#[test]
fn twoslash_directives_and_cuts_leave_the_code_the_site_shows() {
    let out = md(
        "```ts twoslash\n// @filename: server.ts\n// @include: router\nimport { t } from './trpc'\n// ---cut---\nconst router = t.router({})\n//    ^?\n// @noErrors\nexport type AppRouter = typeof router\n// ---cut-after---\nconsole.log(router)\n```\n\nAfter.\n\n```ts\n// a plain comment stays\nlet x = 1\n```",
    );
    assert_eq!(
        out,
        "```ts\nconst router = t.router({})\nexport type AppRouter = typeof router\n```\n\nAfter.\n\n```ts\n// a plain comment stays\nlet x = 1\n```"
    );
}

#[test]
fn a_code_fence_keeps_its_language_without_the_sites_plugin_flags() {
    let out = md(
        "```bash npm2yarn\nnpm install --save-dev jest\n```\n\n```ts showLineNumbers title=\"a.ts\"\nlet a = 1\n```",
    );
    assert!(
        out.starts_with("```bash\nnpm install --save-dev jest\n```"),
        "{out}"
    );
    assert!(
        !out.contains("npm2yarn") && !out.contains("showLineNumbers"),
        "{out}"
    );
}

#[test]
fn twoslash_snippets_for_later_blocks_go_and_the_flag_with_them() {
    let out = md(
        "Set up:\n\n```twoslash include trpc\nimport { initTRPC } from '@trpc/server';\n```\n\n```ts twoslash title='server.ts'\n// @include: trpc\n// ---cut---\nconst t = initTRPC.create();\n```\n",
    );
    assert_eq!(
        out,
        "Set up:\n\n\n```ts title='server.ts'\nconst t = initTRPC.create();\n```"
    );
}

#[test]
fn a_reference_without_a_definition_is_its_text() {
    assert_eq!(
        md(
            "See [installer.records][] and [the guide][guide], [optional] and ![logo][img].\n\n[guide]: https://x.dev/guide\n"
        ),
        "See installer.records and [the guide](https://x.dev/guide), [optional] and ![logo][img].\n"
    );
}

#[test]
fn an_install_component_keeps_the_command_its_props_carry() {
    assert_eq!(
        md(
            "Install the packages:\n\n<InstallSnippet pkgs=\"@trpc/server @trpc/client\" />\n\n<InstallSnippet pkgs={packages} />\n<Chart data=\"x\" />\nDone."
        ),
        "Install the packages:\n\n\n```bash\nnpm install @trpc/server @trpc/client\n```\n\n\nDone."
    );
}
