//! Help-center walkthroughs from a project's own docs: nothing meant for someone else
//! (agents, contributors, maintainers, the repository page), the docs' markup understood
//! rather than escaped, the docs site's order, and titles written from the content. Every
//! article is checked with the reference MDX compiler.

use domain::Surface;
use testkit::Repo;

use crate::fixture::{article, help_and_dev_docs};
use crate::mdx_js::assert_compiles;

/// The help-center body of `feature` in `repo`, compiled by the reference compiler.
pub(crate) fn help_center(repo: &Repo, feature: &str) -> String {
    let (output, _) = help_and_dev_docs(repo, feature);
    let articles: Vec<(String, String)> = output
        .articles
        .iter()
        .map(|a| (a.surface.to_string(), a.mdx_body.clone()))
        .collect();
    assert_compiles(&articles);
    article(&output, Surface::HelpCenter).mdx_body.clone()
}

const USAGE: &str = "# Tool\n\nTool turns notes into pages.\n\n## Installation\n\n```sh\npip install tool\n```\n\n## Usage\n\nRun `tool build` in the folder of your notes.\n";

#[test]
fn text_for_agents_contributors_and_maintainers_is_never_shown() {
    let mut repo = Repo::new();
    let readme = format!(
        "<!-- hide-in-docs -->\n<p align=\"center\"><img src=\"logo.png\" alt=\"Logo\"></p>\n<!-- /hide-in-docs -->\n\n{USAGE}\n<!-- github-only -->\n\n## Sponsors\n\nOur sponsors keep the lights on.\n"
    );
    repo.write("README.md", &readme)
        .write(
            "AGENTS.md",
            "# Agent guide\n\n## Usage\n\nAlways run `make lint` before you answer.\n",
        )
        .write(
            "CLAUDE.md",
            "# Claude\n\n1. Read the codebase first.\n2. Write tests.\n",
        )
        .write(
            ".agents/skills/release/SKILL.md",
            "---\nname: release\n---\n# Release\n\nUse this skill when the user asks for a release.\n\n```sh\nmake release\n```\n",
        )
        .write(
            "CONTRIBUTING.md",
            "# Contributing\n\n## Setup\n\n```sh\ngit clone x\n```\n",
        )
        .write(
            "docs/MAINTAINING.md",
            "# Maintaining\n\n## Release steps\n\n1. Bump the version.\n2. Tag it.\n",
        )
        .write(
            "docs/guide.md",
            "# Guide\n\nWrite notes in Markdown.\n",
        )
        .write("tool.py", "def build():\n    \"\"\"Builds.\"\"\"\n");
    repo.commit("feat: tool");
    let body = help_center(&repo, ".");
    for gone in [
        "make lint",
        "Read the codebase",
        "Use this skill",
        "make release",
        "git clone",
        "Bump the version",
        "Sponsors",
        "lights on",
        "logo.png",
        "hide-in-docs",
    ] {
        assert!(!body.contains(gone), "{gone}:\n{body}");
    }
    for kept in ["pip install tool", "tool build", "Write notes in Markdown."] {
        assert!(body.contains(kept), "{kept}:\n{body}");
    }
}

#[test]
fn walls_of_linked_logos_are_dropped_and_screenshots_kept() {
    let mut repo = Repo::new();
    let sponsors = (1..=4)
        .map(|i| format!("[<img src=\"https://tool.dev/assets/s{i}.png\" alt=\"Company {i}\" />](https://sponsor{i}.example.com/)"))
        .collect::<Vec<_>>()
        .join("\n");
    // A menu of the other languages, the current one (Go) without a link.
    let languages = ["Java", "Python", "Rust"]
        .iter()
        .map(|l| format!("[<img src=\"logos/{l}.svg\" alt=\"\" />{l}](https://{l}.tool.dev/)"))
        .chain(["<a class=\"item\"><img src=\"logos/go.svg\" alt=\"\" />Go</a>".to_string()])
        .collect::<Vec<_>>()
        .join("\n");
    let centred = "<p align=\"center\">\n<a href=\"https://a.example\"><img src=\"a.png\" alt=\"A\"></a>\n<a href=\"https://b.example\"><img src=\"b.png\" alt=\"B\"></a>\n<a href=\"https://c.example\"><img src=\"c.png\" alt=\"C\"></a>\n</p>";
    let screenshots = "![The editor](shots/editor.png)\n![The preview](shots/preview.png)\n[![The export](shots/export.png)](shots/export.png)";
    let diagram = "[![How notes become pages](diagram.svg)](https://tool.dev/architecture)";
    let page = format!(
        "# Tool\n\nTool turns notes into pages.\n\n**Gold sponsors:**<br />\n\n<br />\n{sponsors}\n\n<p align=\"center\"><strong>Not using notes? Other languages!</strong></p>\n<div class=\"grid\">\n{languages}\n</div>\n\n{centred}\n\n## Usage\n\nRun `tool build` in the folder of your notes.\n\n{screenshots}\n\n{diagram}\n\nThe pages are in `site/`.\n"
    );
    repo.write("README.md", &page)
        .write("tool.py", "def build():\n    \"\"\"Builds.\"\"\"\n");
    repo.commit("feat: tool");
    let body = help_center(&repo, ".");
    for gone in [
        "sponsor1.example.com",
        "Company 4",
        "Gold sponsors",
        "Other languages",
        "Python.tool.dev",
        "logos/go.svg",
        "c.example",
    ] {
        assert!(!body.contains(gone), "{gone}:\n{body}");
    }
    for kept in [
        "shots/editor.png",
        "shots/preview.png",
        "shots/export.png",
        "diagram.svg",
        "tool build",
        "site/",
    ] {
        assert!(body.contains(kept), "{kept}:\n{body}");
    }
}

#[test]
fn site_markup_is_understood_and_compiles() {
    let mut repo = Repo::new();
    repo.write("mkdocs.yml", "site_name: Tool\nnav:\n  - Home: index.md\n  - Quick start: quickstart.md\n  - Advanced: advanced.md\n")
        .write(
            "docs/advanced.md",
            "# Advanced\n\n## Usage\n\nUse {func}`tool.deep` with :meth:`Client.get`.\n",
        )
        .write(
            "docs/index.md",
            "# Tool\n\n<h2 align=\"center\">Fast notes</h2>\n<hr>\n\nTool turns notes into pages. See [Git][git-site] and [`Builder`].\n\n```{eval-rst}\n.. autofunction:: tool.build\n```\n\n[git-site]: https://git-scm.com\n",
        )
        .write(
            "docs/quickstart.md",
            "import Tabs from '@theme/Tabs';\nimport TabItem from '@theme/TabItem';\n\n# Quick start\n\n## Install\n\n<Tabs groupId=\"pm\">\n<TabItem value=\"pip\" label=\"pip\">\n\n```sh\npip install tool\n```\n\n</TabItem>\n</Tabs>\n\n## Build\n\n```{note}\nRun it in the notes folder.\n```\n\nRun {func}`tool.build`:\\\nit writes `site/`.\n\n> Example:\n>\n> ```sh\n> tool build --out site\n> ```\n",
        )
        .write("tool.py", "def build():\n    \"\"\"Builds.\"\"\"\n");
    repo.commit("feat: tool");
    let body = help_center(&repo, ".");
    for leaked in [
        "{func}",
        ":meth:",
        "eval-rst",
        "autofunction",
        "&#105;mport",
        "import Tabs",
        "\\<h2",
        "\\<hr",
        "<Tabs",
        "TabItem",
        "[git-site]",
        "\\`\\`\\`",
        "\\\\\n",
    ] {
        assert!(!body.contains(leaked), "{leaked}:\n{body}");
    }
    for kept in [
        "[Git](https://git-scm.com)",
        "`Builder`",
        "**pip**",
        "<Note>",
        "Run `tool.build`:\\\nit writes",
        "> ```sh\n> tool build --out site\n> ```",
        "`tool.deep` with `Client.get`",
    ] {
        assert!(body.contains(kept), "{kept}:\n{body}");
    }
    // The site's quick start is the walkthrough, before the advanced page.
    let quick = body.find("pip install tool").unwrap();
    let advanced = body.find("tool.deep").unwrap();
    assert!(quick < advanced, "{body}");
    assert!(body.find("Fast notes").unwrap() < advanced, "{body}");
}

#[test]
fn html_spread_over_lines_is_read_not_escaped() {
    let mut repo = Repo::new();
    let readme = "<h1 align=\"center\" style=\"border: 0\">\n  <img src=\"logo.svg\" width=\"120\">\n  <br>\n  Widgets\n</h1>\n\n<p align=\"center\">\n  <a href=\"https://ci.example/x\">\n    <img src=\"https://img.shields.io/badge/ci-passing-green.svg\" alt=\"CI\">\n  </a>\n</p>\n\n<p align=\"center\">\n<em>Widgets for {everyone}.</em>\n</p>\n\n<style>\n  h1 { display: none; }\n</style>\n\nWidgets turns notes into pages.\n\n## Installation\n\nIt can be installed by running:\n\n```sh\npip install widgets\n```\n\n<details>\n\t<summary class=\"more\">\n\t\tOther installers\n\t</summary>\n\t<br />\n\t<div>\n\t\t<iframe\n\t\t\tsrc=\"https://video.example/embed\"\n\t\t></iframe>\n\t</div>\n\tUse <b>conda</b> if you must.\n</details>\n\n<aside>\n\nWidgets needs Python 3.9.\n\n</aside>\n";
    repo.write("README.md", readme);
    repo.commit("docs: readme");
    let (output, _) = help_and_dev_docs(&repo, ".");
    let help = article(&output, Surface::HelpCenter);
    assert_eq!(help.title, "Widgets");
    assert_eq!(help.description, "Widgets turns notes into pages.");
    let body = help_center(&repo, ".");
    for gone in [
        "\\<",
        "&lt;",
        "shields.io",
        "logo.svg",
        "display: none",
        "iframe",
        "video.example",
        "It can be installed by running\"",
    ] {
        assert!(!body.contains(gone), "{gone:?} in:\n{body}");
    }
    for kept in [
        "<Step title=\"Installation\">",
        "<em>Widgets for \\{everyone\\}.</em>",
        "<summary>Other installers</summary>",
        "Use <b>conda</b> if you must.",
        "Widgets needs Python 3.9.",
    ] {
        assert!(body.contains(kept), "{kept:?} not in:\n{body}");
    }
}

#[test]
fn the_walkthrough_follows_the_sites_getting_started_path_across_pages() {
    let mut repo = Repo::new();
    repo.write(
        "mkdocs.yml",
        "site_name: Notes\nnav:\n  - Home: index.md\n  - Installation: installation.md\n  - Quick start: quickstart.md\n  - Your first site: first-site.md\n  - Writing pages: pages.md\n  - Advanced: advanced.md\n",
    )
    .write("docs/index.md", "# Notes\n\nNotes turns a folder of Markdown into a site.\n")
    .write(
        "docs/installation.md",
        "# Installation\n\nIt can be installed by running:\n\n```sh\npip install notes\n```\n\nOr, to include the optional search support, use:\n\n```sh\npip install notes[search]\n```\n",
    )
    .write(
        "docs/quickstart.md",
        "# Quick start\n\n## Create a project\n\n```sh\nnotes new blog\n```\n\n## Serve it\n\n```sh\nnotes serve\n```\n",
    )
    .write(
        "docs/first-site.md",
        "# Your first site\n\n## Add a page\n\nWrite `docs/about.md`.\n",
    )
    .write("docs/pages.md", "# Writing pages\n\n## Front matter\n\nUse `title:`.\n")
    .write("docs/advanced.md", "# Advanced\n\n## Plugins\n\nWrite a plugin.\n");
    repo.commit("docs: site");
    let (output, _) = help_and_dev_docs(&repo, ".");
    let help = article(&output, Surface::HelpCenter);
    assert_eq!(help.title, "Notes");
    assert_eq!(
        help.description,
        "Notes turns a folder of Markdown into a site."
    );
    let body = help_center(&repo, ".");
    let titles: Vec<&str> = body
        .lines()
        .filter_map(|l| l.strip_prefix("<Step title=\"")?.strip_suffix("\">"))
        .collect();
    // The site's pages in its order, each whole: the installation page (alternatives, no
    // sequence) is prose with both commands, the quick start's sections are the steps, and
    // the first task after it is its own page.
    assert_eq!(titles, ["Create a project", "Serve it"], "{body}");
    let steps = body.find("<Steps>").unwrap();
    let steps_end = body.find("</Steps>").unwrap();
    for install in ["pip install notes\n", "pip install notes[search]"] {
        assert!(body.find(install).unwrap() < steps, "{install}: {body}");
    }
    assert!(
        body.find("Write `docs/about.md`.").unwrap() > steps_end,
        "{body}"
    );
    for later in ["Write a plugin.", "Use `title:`."] {
        assert!(
            body.find(later).is_none_or(|at| at > steps_end),
            "{later}: {body}"
        );
    }
}

#[test]
fn examples_in_doctest_and_code_directives_are_kept() {
    let mut repo = Repo::new();
    repo.write("docs/conf.py", "project = 'Tool'\n")
        .write(
            "docs/index.md",
            "# Tool\n\nTool turns notes into pages.\n\n```{toctree}\nexamples\n```\n",
        )
        .write(
            "docs/examples.md",
            "# Examples\n\n(basics)=\n\n## Basics\n\nThe simplest possible usage is:\n\n```{doctest}\n>>> from tool import build\n>>> build(\"notes\")\n'site'\n```\n\nOr with a fence of its own:\n\n:::{code-block} python\n:caption: build.py\nbuild(\"notes\", out=\"site\")\n:::\n\nA session:\n\n>>> build(\"x\")\n'x'\n\nThe API is:\n\n```{eval-rst}\n.. autofunction:: tool.build\n```\n",
        )
        .write("tool.py", "def build(notes):\n    \"\"\"Builds.\"\"\"\n");
    repo.commit("feat: tool");
    let body = help_center(&repo, ".");
    for kept in [
        ">>> from tool import build",
        "build(\"notes\", out=\"site\")",
        ">>> build(\"x\")",
        "The API is.",
    ] {
        assert!(body.contains(kept), "{kept}:\n{body}");
    }
    for leaked in [
        "{doctest}",
        "{code-block}",
        "(basics)=",
        "autofunction",
        "The API is:",
    ] {
        assert!(!body.contains(leaked), "{leaked}:\n{body}");
    }
}

#[test]
fn framework_components_and_book_directives_are_not_shown() {
    let mut repo = Repo::new();
    repo.write("book/book.toml", "[book]\ntitle = \"Tool\"\n")
        .write(
            "book/src/SUMMARY.md",
            "# Summary\n\n- [Tool](index.md)\n- [Getting started](start.md)\n",
        )
        .write(
            "book/src/index.md",
            "{{#title Tool — notes to pages}}\n\n# Tool\n\nTool turns notes into pages with <ExternalLinks.Markdown />, see <Link to=\"https://x.org\">the site</Link>.\n",
        )
        .write(
            "book/src/start.md",
            "# Getting started\n\n## Install\n\n<PackageTabs />\n\n```sh\ncargo add tool\n```\n\n## Build\n\n```rust\n# use tool::build;\n# fn main() {\nbuild(\"notes\");\n# }\n```\n\n```rust\n{{#rustdoc_include ../../examples/x.rs}}\n```\n\n::: tool.build\n    options:\n      heading: false\n",
        )
        .write("Cargo.toml", "[package]\nname = \"tool\"\nversion = \"0.1.0\"\n")
        .write("src/lib.rs", "/// Builds.\npub fn build(_notes: &str) {}\n");
    repo.commit("feat: tool");
    let body = help_center(&repo, ".");
    for leaked in [
        "ExternalLinks",
        "Link to",
        "PackageTabs",
        "{{#",
        "\\{\\{",
        "# fn main",
        "use tool::build",
        "::: tool.build",
        "options:",
    ] {
        assert!(!body.contains(leaked), "{leaked}:\n{body}");
    }
    for kept in ["cargo add tool", "build(\"notes\");", "the site"] {
        assert!(body.contains(kept), "{kept}:\n{body}");
    }
}

#[test]
fn a_sphinx_sites_restructuredtext_pages_are_read_as_prose() {
    let mut repo = Repo::new();
    repo.write("docs/conf.py", "project = 'Tool'\n")
        .write(
            "docs/index.rst",
            "Tool\n====\n\n.. currentmodule:: tool\n\nTool turns notes into pages with :func:`build`.\n\n.. code-block:: python\n\n    from tool import build\n    build(\"notes\")\n\nInstalling\n----------\n\nInstall it with pip::\n\n    pip install -U tool\n\n.. toctree::\n    :maxdepth: 2\n\n    escaping\n",
        )
        .write(
            "docs/escaping.rst",
            "Escaping\n========\n\nUse ``build`` on a folder:\n\n.. doctest::\n\n    >>> build(\"x\")\n    'x'\n\n.. note::\n\n    It overwrites `the output <https://tool.example/out>`_.\n",
        )
        .write("README.md", "# Tool\n\nTool turns notes into pages.\n")
        .write("tool.py", "def build(notes):\n    \"\"\"Builds.\"\"\"\n");
    repo.commit("feat: tool");
    let body = help_center(&repo, ".");
    for kept in [
        "pip install -U tool",
        "from tool import build",
        ">>> build(\"x\")",
        "`build`",
        "[the output](https://tool.example/out)",
        "<Note>",
    ] {
        assert!(body.contains(kept), "{kept}:\n{body}");
    }
    for leaked in [
        ".. ",
        "toctree",
        "currentmodule",
        ":func:",
        "``build``",
        "====",
        "----",
        "::\n",
    ] {
        assert!(!body.contains(leaked), "{leaked}:\n{body}");
    }
}

/// The titles of the article's steps, in order.
fn step_titles(body: &str) -> Vec<&str> {
    body.lines()
        .filter_map(|l| l.strip_prefix("<Step title=\"")?.strip_suffix("\">"))
        .collect()
}

#[test]
fn a_tutorial_is_walked_by_its_sections_and_an_essay_after_it_is_no_step() {
    let mut repo = Repo::new();
    repo.write("book/book.toml", "[book]\ntitle = \"Bridge\"\n")
        .write(
            "book/src/SUMMARY.md",
            "# Summary\n\n- [Bridge](index.md)\n- [Tutorial](tutorial.md)\n- [Other tools](context.md)\n",
        )
        .write(
            "book/src/index.md",
            "# Bridge\n\nBridge makes calls between Rust and C++ safe.\n\nRead the core concepts first.\n",
        )
        .write(
            "book/src/tutorial.md",
            "# Tutorial: blob client\n\nThis tutorial builds a blob client.\n\n## Creating the project\n\nCreate a blank Cargo project:\n\n```sh\ncargo init demo\n```\n\nThen add the dependency.\n\n## Defining the boundary\n\nWe open with just the following module:\n\n```rust\n#[bridge]\nmod ffi {}\n```\n\nOpaque types may only be used behind a pointer.\n\n## Calling C++ from Rust\n\n```rust\nffi::new_client();\n```\n",
        )
        .write(
            "book/src/context.md",
            "# Context: other interop tools\n\nThere are many tools.\n\n## C++ vs C\n\nC is simpler than C++.\n\n## Role of Bridge\n\nIt fills a gap.\n",
        )
        .write("Cargo.toml", "[package]\nname = \"bridge\"\nversion = \"0.1.0\"\n")
        .write("src/lib.rs", "/// Bridges.\npub fn bridge() {}\n");
    repo.commit("docs: book");
    let body = help_center(&repo, ".");
    let titles = step_titles(&body);
    assert_eq!(
        titles,
        [
            "Creating the project",
            "Defining the boundary",
            "Calling C++ from Rust"
        ],
        "{body}"
    );
    let steps_start = body.find("<Steps>").unwrap();
    let steps_end = body.find("</Steps>").unwrap();
    // Each section's prose stays with its code, once.
    for within in [
        "Create a blank Cargo project",
        "cargo init demo",
        "Then add the dependency.",
        "We open with just the following module",
        "Opaque types may only be used behind a pointer.",
    ] {
        let at = body
            .find(within)
            .unwrap_or_else(|| panic!("{within}:\n{body}"));
        assert!(steps_start < at && at < steps_end, "{within}:\n{body}");
        assert_eq!(body.matches(within).count(), 1, "{within}:\n{body}");
    }
    // The essay is background after the steps; the site's opening page comes before them.
    assert!(
        body.find("C is simpler than C++.").unwrap() > steps_end,
        "{body}"
    );
    assert!(
        body.find("Read the core concepts first.").unwrap() < steps_start,
        "{body}"
    );
    // The page's own opening is prose before its steps, under the title the book gives it.
    let tutorial = body.find("## Tutorial\n").unwrap();
    let opening = body.find("This tutorial builds a blob client.").unwrap();
    assert!(tutorial < opening && opening < steps_start, "{body}");
}

#[test]
fn numbered_steps_keep_what_they_need_first_and_every_numbered_step() {
    let mut repo = Repo::new();
    repo.write("book/book.toml", "[book]\ntitle = \"Bench\"\n")
        .write(
            "book/src/SUMMARY.md",
            "# Summary\n\n- [Bench](index.md)\n- [Getting Started](getting_started.md)\n- [User Guide](user_guide.md)\n",
        )
        .write("book/src/index.md", "# Bench\n\nBench measures code.\n")
        .write(
            "book/src/getting_started.md",
            "# Getting Started\n\nThis walks you through a first benchmark of this library:\n\n```rust\npub fn fibonacci(n: u64) -> u64 { n }\n```\n\n### Step 1 - Add Dependency\n\n```toml\n[dev-dependencies]\nbench = \"1\"\n```\n\n### Step 2 - Add Benchmark\n\n```rust\nuse mycrate::fibonacci;\n```\n\n### Step 3 - Run Benchmark\n\n```sh\ncargo bench\n```\n\n### Details\n\nThe benchmark calls fibonacci with a black box.\n\n### Step 4 - Optimize\n\n```rust\npub fn fibonacci(n: u64) -> u64 { n + 0 }\n```\n",
        )
        .write(
            "book/src/user_guide.md",
            "# User Guide\n\nThis chapter covers the output produced by benchmarks.\n",
        )
        .write("Cargo.toml", "[package]\nname = \"mycrate\"\nversion = \"0.1.0\"\n")
        .write("src/lib.rs", "/// Fib.\npub fn fibonacci(n: u64) -> u64 { n }\n");
    repo.commit("docs: book");
    let body = help_center(&repo, ".");
    assert_eq!(
        step_titles(&body),
        [
            "Add Dependency",
            "Add Benchmark",
            "Run Benchmark",
            "Optimize"
        ],
        "{body}"
    );
    // What the page says before its first step is prose before the steps; a section between
    // two steps belongs to the one before it.
    let steps = body.find("<Steps>").unwrap();
    let steps_end = body.find("</Steps>").unwrap();
    assert!(
        body.find("pub fn fibonacci(n: u64) -> u64 { n }").unwrap() < steps,
        "{body}"
    );
    for within in ["The benchmark calls fibonacci with a black box.", "n + 0"] {
        let at = body.find(within).unwrap();
        assert!(steps < at && at < steps_end, "{within}:\n{body}");
    }
    // The book's table of contents is no page of it.
    assert!(!body.contains("SUMMARY"), "{body}");
    // A chapter's blurb is no step.
    assert!(
        body.find("This chapter covers the output").unwrap() > steps_end,
        "{body}"
    );
}

#[test]
fn links_point_at_the_file_the_site_means_or_are_text() {
    let mut repo = Repo::new();
    repo.write("mkdocs.yml", "site_name: Tool\nnav:\n  - Home: index.md\n  - Quick start: quickstart.md\n  - Validators: api-validators.md\n  - FAQ: faq.md\n")
        .write("docs/index.md", "# Tool\n\nTool checks data.\n")
        .write(
            "docs/quickstart.md",
            "# Quick start\n\n## Install\n\n```sh\npip install tool\n```\n\nCheck [the validators](api-validators) and [the FAQ](faq.html#slow), or the [index](genindex), or [nothing](missing/page.md).\n\nTools grew slowly.[^history]\n\n![Diagram](@site/static/img/flow.png)\n\n[^history]: The word is that `namedtuple`s came first.\n",
        )
        .write("docs/api-validators.md", "# Validators\n\nThey check.\n")
        .write("docs/faq.md", "# FAQ\n\n## Slow\n\nIt is not.\n")
        .write("website/static/img/flow.png", "png")
        .write("tool.py", "def check():\n    \"\"\"Checks.\"\"\"\n");
    repo.commit("docs: site");
    repo.git
        .remote("origin", "https://github.com/acme/tool.git")
        .unwrap();
    let (output, _) = help_and_dev_docs(&repo, ".");
    let commit = &output.commit;
    let body = help_center(&repo, ".");
    let raw = format!("https://github.com/acme/tool/raw/{commit}");
    let blob = format!("https://github.com/acme/tool/blob/{commit}");
    for link in [
        // Pages the article lists (API reference, answers), not shows: the pages themselves.
        format!("[the validators]({blob}/docs/api-validators.md)"),
        format!("[the FAQ]({blob}/docs/faq.md#slow)"),
        format!("![Diagram]({raw}/website/static/img/flow.png)"),
        "or the index, or nothing.".to_string(),
        "[^history]: The word is that `namedtuple`s came first.".to_string(),
    ] {
        assert!(body.contains(&link), "{link}:\n{body}");
    }
    assert!(!body.contains("genindex"), "{body}");
}

#[test]
fn a_walkthrough_cut_at_its_step_limit_keeps_the_rest_of_its_page() {
    let mut repo = Repo::new();
    let sections: String = (1..=15)
        .map(|i| format!("## Part {i}\n\nRun part {i}:\n\n```sh\ntool part{i}\n```\n\n"))
        .collect();
    repo.write(
        "mkdocs.yml",
        "site_name: Tool\nnav:\n  - Home: index.md\n  - Quick start: quickstart.md\n",
    )
    .write("docs/index.md", "# Tool\n\nTool turns notes into pages.\n")
    .write("docs/quickstart.md", format!("# Quick start\n\n{sections}"));
    repo.commit("docs: site");
    let body = help_center(&repo, ".");
    assert_eq!(step_titles(&body).len(), 12, "{body}");
    let steps_end = body.find("</Steps>").unwrap();
    // The sections past the limit are shown after the steps, not lost.
    for later in ["tool part13", "tool part14", "tool part15"] {
        let at = body
            .find(later)
            .unwrap_or_else(|| panic!("{later}:\n{body}"));
        assert!(at > steps_end, "{later}:\n{body}");
    }
    assert!(body.contains("Part 13"), "{body}");
}

#[test]
fn the_overview_leads_and_upgrade_guides_older_releases_and_project_links_do_not() {
    let mut repo = Repo::new();
    repo.write(
        "mkdocs.yml",
        "site_name: Tool\nnav:\n  - Home: index.md\n  - Migrate: migrate-v1-to-v2.md\n  - v2:\n    - Getting started: v2/getting-started.md\n    - Concepts: v2/concepts.md\n  - v1:\n    - Getting started: v1/getting-started.md\n",
    )
    .write(
        "docs/index.md",
        "# Tool\n\nTool turns notes into pages.\n\n- [CONTRIBUTING](CONTRIBUTING.md)\n- [Code of conduct](https://example.org/x/CODE_OF_CONDUCT.md)\n- [Guide](v2/getting-started.md)\n",
    )
    .write("docs/CONTRIBUTING.md", "# Contributing\n\nSend patches.\n")
    .write(
        "docs/migrate-v1-to-v2.md",
        "# Migrating from v1\n\n## Renamed flags\n\n`--out` is now `--output`.\n",
    )
    .write(
        "docs/v2/getting-started.md",
        "# Getting started\n\n## Install\n\n```sh\npip install tool\n```\n",
    )
    .write(
        "docs/v2/concepts.md",
        "# Concepts\n\nA note becomes a page.\n",
    )
    .write(
        "docs/v1/getting-started.md",
        "# Getting started (v1)\n\n## Install the old one\n\n```sh\npip install tool==1.0\n```\n",
    );
    repo.commit("docs: site");
    let body = help_center(&repo, ".");
    let steps = body.find("<Steps>").unwrap();
    let steps_end = body.find("</Steps>").unwrap();
    assert!(
        body.find("Tool turns notes into pages.").unwrap() < steps,
        "{body}"
    );
    // An upgrade guide is no page of the getting-started path: it is listed after it.
    assert!(
        body.find("A note becomes a page.").unwrap() > steps_end,
        "{body}"
    );
    assert!(!body.contains("is now `--output`"), "{body}");
    let listing = body.find("## More documentation").unwrap();
    assert!(
        body.find("[Migrate](").is_some_and(|at| at > listing),
        "{body}"
    );
    for gone in [
        "tool==1.0",
        "CONTRIBUTING",
        "CODE_OF_CONDUCT",
        "Send patches",
    ] {
        assert!(!body.contains(gone), "{gone}:\n{body}");
    }
    assert!(body.contains("[Guide]("), "{body}");
}

#[test]
fn a_concepts_parts_and_a_page_that_explains_are_no_steps() {
    let mut repo = Repo::new();
    repo.write(
        "mkdocs.yml",
        "site_name: Tool\nnav:\n  - Getting started: getting-started.md\n  - Loggers: loggers.md\n  - Greet: greet.md\n",
    )
    .write(
        "docs/getting-started.md",
        "# Getting started\n\n## Install\n\n```sh\npip install tool\n```\n",
    )
    .write(
        "docs/loggers.md",
        "# Loggers\n\nA logger consists of three parts:\n\n1. A context dictionary that is merged.\n2. A list of processors that are called on every entry.\n3. And finally a logger that it's wrapping.\n\nThe `bind` method returns a new logger:\n\n```python\nlog = log.bind(x=1)\n```\n",
    )
    .write(
        "docs/greet.md",
        "# Greet\n\nStart by creating a file `greet.py` with the following code in it:\n\n```python\nprint('hello')\n```\n\nRun it:\n\n```sh\npython greet.py\n```\n",
    );
    repo.commit("docs: site");
    let body = help_center(&repo, ".");
    let titles = step_titles(&body);
    assert!(
        titles
            .iter()
            .all(|t| !t.contains("processors") && !t.contains("finally")),
        "{titles:?}\n{body}"
    );
    assert!(!titles.contains(&"Loggers"), "{titles:?}");
    // The steps are the getting-started page's; the page that explains and the next task
    // follow in the site's order, as pages.
    let steps_end = body.find("</Steps>").unwrap();
    let processors = body.find("A list of processors").unwrap();
    assert!(processors > steps_end, "{body}");
    assert!(body.find("python greet.py").unwrap() > processors, "{body}");
}

#[test]
fn cross_references_extensions_and_leftovers_of_a_sphinx_site_are_read() {
    let mut repo = Repo::new();
    repo.write("docs/conf.py", "project = 'Tool'\n")
        .write(
            "docs/index.md",
            "# Tool\n\n[![CI](https://img.shields.io/badge/ci-green.svg)](https://ci.example)\n\n---\n\nTool turns notes into pages.\n\n<hr style=\"opacity:0.2\">\n\n## Basics\n\n```{toctree}\nquickstart\nconcepts\n```\n\n## Reference\n\n```{toctree}\napi\n```\n\n## Sponsors\n\nThanks to our sponsors.\n",
        )
        .write(
            "docs/quickstart.md",
            "# Quick start\n\n## Install\n\n```sh\npip install tool\n```\n\n## Build\n\n:warning: Run it in your notes folder, see {doc}`concepts` and {ref}`the renderers <renderers>`.\n\n```pycon\n>>> build('notes')  # doctest: +SKIP\n'site'\n```\n\n```rust,no_run\nlet x = 1;\n```\n",
        )
        .write(
            "docs/concepts.md",
            "# Concepts and Terms\n\n(renderers)=\n## Choosing a Renderer\n\nlogger\n: The object you call, with <cite>its</cite> methods.\n",
        );
    repo.commit("docs: site");
    let body = help_center(&repo, ".");
    for kept in [
        "[Concepts and Terms](#concepts-and-terms)",
        "[the renderers](#choosing-a-renderer)",
        "⚠️ Run it",
        ">>> build('notes')\n",
        "```rust\n",
        "- **logger**: The object you call, with its methods.",
        "Tool turns notes into pages.",
    ] {
        assert!(body.contains(kept), "{kept}:\n{body}");
    }
    for leaked in [
        "{doc}",
        "{ref}",
        "xref:",
        ":warning:",
        "doctest:",
        "no_run",
        "\\<hr",
        "\\<cite",
        "Reference",
        "Sponsors",
        "\n: The object",
    ] {
        assert!(!body.contains(leaked), "{leaked}:\n{body}");
    }
    // No rule is left where the badges were, below the frontmatter.
    let (_, content) = body.split_once("\n---\n").unwrap();
    assert!(!content.contains("---"), "{body}");
}

#[test]
fn test_data_and_blog_posts_are_no_documentation() {
    let mut repo = Repo::new();
    repo.write("README.md", USAGE)
        .write(
            "testdata/expected-doc.md",
            "# NAME\n\ntool - expected output\n",
        )
        .write(
            "website/blog/2024-01-01-release.md",
            "# Tool 2.0\n\nWe released it.\n",
        );
    repo.commit("docs: readme");
    let body = help_center(&repo, ".");
    assert!(body.contains("pip install tool"), "{body}");
    for gone in ["expected output", "We released it", "expected-doc"] {
        assert!(!body.contains(gone), "{gone}:\n{body}");
    }
}

#[test]
fn a_docusaurus_site_beside_its_docs_names_pages_by_their_ids() {
    let mut repo = Repo::new();
    repo.write(
        "website/sidebars.js",
        "module.exports = {\n  docs: {\n    Introduction: ['introduction/getting-started', 'introduction/installation'],\n    API: ['api/store'],\n  },\n};\n",
    )
    .write(
        "docs/introduction/GettingStarted.md",
        "---\nid: getting-started\ntitle: Getting Started with Tool\n---\n\nTool keeps the state of your app.\n",
    )
    .write(
        "docs/introduction/Installation.md",
        "---\nid: installation\ntitle: Installation\n---\n\n## Install\n\n```sh\nnpm install tool\n```\n",
    )
    .write("docs/api/Store.md", "---\nid: store\n---\n\n# Store\n\nThe store.\n")
    .write(
        "README.md",
        "# Tool\n\n## Install\n\n```sh\nnpm install tool-from-the-readme\n```\n",
    );
    repo.commit("docs: site");
    let body = help_center(&repo, ".");
    // The sidebar's order; an installation page is prose, not steps.
    let install = body.find("npm install tool\n").unwrap();
    assert!(
        body.find("Tool keeps the state of your app.").unwrap() < install,
        "{body}"
    );
    assert!(!body.contains("tool-from-the-readme"), "{body}");
}
