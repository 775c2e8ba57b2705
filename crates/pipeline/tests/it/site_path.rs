//! A help-center article that follows the docs site's navigation: its getting-started path
//! whole and in order, steps only on the page that is a sequence, and the rest of the tree
//! listed; pages the navigation does not list are neither shown nor listed.

use domain::Surface;
use testkit::Repo;

use crate::fixture::{article, help_and_dev_docs};

use crate::walkthrough::help_center;

fn position(body: &str, text: &str) -> usize {
    body.find(text)
        .unwrap_or_else(|| panic!("{text:?} missing from:\n{body}"))
}

#[test]
fn the_article_follows_the_navigation_tree_and_lists_only_its_pages() {
    let mut repo = Repo::new();
    repo.write(
        "README.md",
        "# Shelf\n\nShelf keeps your books.\n\n## Install\n\n```sh\npip install shelf\n```\n",
    )
    .write(
        "mkdocs.yml",
        "site_name: Shelf\nnav:\n  - Home: index.md\n  - Getting started:\n    - Installation: install.md\n    - Quick start: quickstart.md\n  - Guides:\n    - Concepts: concepts.md\n  - Reference:\n    - CLI: reference/cli.md\n",
    )
    .write(
        "docs/index.md",
        "# Shelf\n\nShelf is a library manager for your books, with a command line and an API.\n",
    )
    .write(
        "docs/install.md",
        "# Installation\n\nShelf needs Python 3.10.\n\n```sh\npip install shelf\n```\n",
    )
    .write(
        "docs/quickstart.md",
        "# Quick start\n\n&nbsp;\n\n## What you'll learn\n\n- How to add a book\n\n## Prerequisites\n\nShelf installed.\n\n## Create a shelf\n\nRun this in an empty folder:\n\n```sh\nshelf init\n```\n\n### Where it lives\n\nThe shelf is `shelf.toml`.\n\n## Add a book\n\n```sh\nshelf add dune.epub\n```\n\n## List your books\n\n```sh\nshelf list\n```\n\n## Next steps\n\nRead the concepts.\n",
    )
    .write(
        "docs/concepts.md",
        "# Concepts\n\nA shelf holds books; a book has a title and a file.\n",
    )
    .write(
        "docs/reference/cli.md",
        "# CLI\n\n## init\n\nCreates a shelf.\n\n## add\n\nAdds a book.\n",
    )
    .write(
        "docs/internal/notes.md",
        "# Internal notes\n\nHow we cut releases.\n",
    )
    .write(
        "docs/fr/index.md",
        "# Shelf\n\nShelf garde vos livres.\n",
    )
    .write("shelf.py", "def init():\n    \"\"\"Creates a shelf.\"\"\"\n");
    repo.commit("feat: shelf");
    let body = help_center(&repo, ".");
    // The site's own pages, in its order, each once; the README says nothing the site does
    // not, so the install is shown once.
    let intro = position(&body, "Shelf is a library manager");
    let install = position(&body, "## Installation");
    let quick = position(&body, "## Quick start");
    assert!(intro < install && install < quick, "{body}");
    assert_eq!(body.matches("pip install shelf").count(), 1, "{body}");
    // The quick start's actions are the steps, each whole with its subsection; what frames
    // them is prose around them.
    let steps: Vec<&str> = body
        .lines()
        .filter_map(|l| l.strip_prefix("<Step title=\"")?.strip_suffix("\">"))
        .collect();
    assert_eq!(
        steps,
        ["Create a shelf", "Add a book", "List your books"],
        "{body}"
    );
    let create = position(&body, "<Step title=\"Create a shelf\">");
    let lives = position(&body, "The shelf is `shelf.toml`.");
    let add = position(&body, "<Step title=\"Add a book\">");
    assert!(create < lives && lives < add, "{body}");
    assert!(
        position(&body, "What you'll learn") < create,
        "the framing comes first: {body}"
    );
    assert!(!body.contains("&nbsp;"), "{body}");
    let next = position(&body, "## Next steps");
    assert!(next > add, "{body}");
    // The next page that fits follows whole; the reference is listed by its navigation
    // title; what the navigation does not list (internal notes, a translation) is neither
    // shown nor listed.
    assert!(position(&body, "A shelf holds books") > next, "{body}");
    let listing = &body[position(&body, "## More documentation")..];
    assert!(listing.contains("[CLI]"), "{listing}");
    for gone in ["Internal notes", "How we cut releases", "garde vos livres"] {
        assert!(!body.contains(gone), "{gone}: {body}");
    }
}

#[test]
fn a_page_that_explains_is_prose_and_a_weighted_site_follows_its_sections_weights() {
    let mut repo = Repo::new();
    let page = |title: &str, weight: u32, text: &str| {
        format!("+++\ntitle = \"{title}\"\nweight = {weight}\n+++\n\n{text}\n")
    };
    repo.write("docs/config.toml", "base_url = \"https://example.org\"\ntitle = \"Forge\"\n")
        .write("README.md", "# forge (formerly Anvil)\n\nA site builder.\n")
        .write(
            "docs/content/documentation/content/_index.md",
            page("Content", 2, ""),
        )
        .write(
            "docs/content/documentation/content/page.md",
            page("Page", 1, "A page is a Markdown file with front matter."),
        )
        .write(
            "docs/content/documentation/getting-started/_index.md",
            page("Getting Started", 1, ""),
        )
        .write(
            "docs/content/documentation/getting-started/overview.md",
            page(
                "Overview",
                5,
                "Forge builds sites from Markdown.\n\n## Initialize the site\n\n```sh\nforge init blog\n```\n\n## Build it\n\n```sh\nforge build\n```\n",
            ),
        )
        .write(
            "docs/content/documentation/getting-started/cli-usage.md",
            page(
                "CLI usage",
                15,
                "Forge has four commands.\n\n## init\n\nCreates a site.\n\n## build\n\nBuilds it.\n\n## serve\n\nServes it.\n",
            ),
        )
        .write(
            "docs/content/documentation/getting-started/installation.md",
            page("Installation", 10, "```sh\ncargo install forge\n```\n"),
        )
        .write(
            "test_site/content/posts/first.md",
            page("A test post", 1, "Only for the tests."),
        )
        .write("src/lib.rs", "//! Forge.\n\n/// Builds.\npub fn build() {}\n");
    repo.commit("feat: forge");
    let body = help_center(&repo, ".");
    // The section weighted 1 comes before the one weighted 2, whatever their names.
    let overview = position(&body, "Forge builds sites from Markdown.");
    let install = position(&body, "cargo install forge");
    assert!(overview < install, "{body}");
    assert!(
        body.find("A page is a Markdown file")
            .is_none_or(|page| page > install),
        "{body}"
    );
    // The CLI reference's commands are sections, not steps.
    assert!(!body.contains("<Step title=\"init\""), "{body}");
    assert!(!body.contains("A test post"), "{body}");
    // The site's own name, not the README's historical title.
    assert!(body.contains("title: \"Forge\""), "{body}");
    assert!(!body.contains("formerly Anvil"), "{body}");
}

#[test]
fn a_vitepress_sidebar_keyed_by_path_follows_the_nav_and_reference_folders_are_listed() {
    let mut repo = Repo::new();
    repo.write(
        "docs/.vitepress/config.ts",
        "export default defineConfig({\n  title: 'Probe',\n  themeConfig: {\n    nav: [{ text: 'Guide', link: '/guide/' }, { text: 'Advanced', link: '/advanced/' }],\n    sidebar: {\n      '/advanced': [{ text: 'Pools', link: '/advanced/' }],\n      '/guide': [{ text: 'Getting Started', link: '/guide/' }, { text: 'Features', link: '/guide/features' }, { text: 'probe run', link: '/cli/run' }],\n    },\n  },\n})\n",
    )
    .write(
        "docs/guide/index.md",
        "# Getting Started\n\nProbe runs your checks in parallel.\n\n## Install Probe\n\n```sh\nnpm install -D probe\n```\n\n## Write a check\n\nCreate `sum.check.ts`.\n\n## Run it\n\n```sh\nnpx probe\n```\n",
    )
    .write("docs/guide/features.md", "# Features\n\nWatch mode reruns what changed.\n")
    .write("docs/advanced/index.md", "# Pools\n\nPool workers tune the runner.\n")
    .write("docs/cli/run.md", "# probe run\n\nRuns the checks once.\n")
    .write("package.json", "{\"name\": \"probe\", \"version\": \"1.0.0\"}\n")
    .write("index.js", "export function check() {}\n");
    repo.commit("docs: site");
    let body = help_center(&repo, ".");
    // The nav's first part (the guide) leads, though its sidebar is written second.
    let start = position(&body, "Probe runs your checks in parallel.");
    let steps = position(&body, "<Step title=\"Install Probe\">");
    assert!(start < steps, "{body}");
    let features = position(&body, "Watch mode reruns");
    assert!(features > steps, "{body}");
    assert!(
        body.find("Pool workers").is_none_or(|at| at > features),
        "{body}"
    );
    // A command's reference page is listed, not shown.
    let listing = position(&body, "## More documentation");
    assert!(position(&body, "[probe run](") > listing, "{body}");
    assert!(!body.contains("Runs the checks once."), "{body}");
}

#[test]
fn the_description_is_the_docs_own_definition_without_a_back_reference() {
    let mut repo = Repo::new();
    repo.write(
        "mkdocs.yml",
        "site_name: Shelf\nnav:\n  - Home: index.md\n  - Introduction: intro.md\n  - Quick start: quickstart.md\n",
    )
    .write("README.md", "# Shelf\n\nShelf works offline too.\n")
    .write("docs/index.md", "---\nhero: true\n---\n")
    .write(
        "docs/intro.md",
        "# Introduction\n\nShelf started as a weekend project.\n\n## Why Shelf\n\nShelf, as described, is a library manager for your books.\n",
    )
    .write(
        "docs/quickstart.md",
        "# Quick start\n\n## Install Shelf\n\n```sh\npip install shelf\n```\n\n## Add a book\n\n```sh\nshelf add dune.epub\n```\n",
    )
    .write("shelf.py", "def add():\n    \"\"\"Adds a book.\"\"\"\n");
    repo.commit("docs: site");
    let (output, _) = help_and_dev_docs(&repo, ".");
    let help = article(&output, Surface::HelpCenter);
    assert_eq!(
        help.description,
        "Shelf is a library manager for your books."
    );
}

#[test]
fn a_sphinx_sections_own_toctree_is_part_of_the_tree() {
    let mut repo = Repo::new();
    repo.write("docs/conf.py", "project = 'Lamp'\n")
        .write(
            "docs/index.rst",
            "Lamp\n====\n\nLamp is a lighting controller for your home.\n\n.. toctree::\n\n   guide/index\n   faq\n",
        )
        .write(
            "docs/guide/index.rst",
            "User guide\n==========\n\nHow to use Lamp.\n\n.. toctree::\n\n   intro\n   install\n   rooms\n",
        )
        .write(
            "docs/guide/intro.rst",
            "Introduction\n============\n\nLamp turns lights on and off.\n\nSetup\n-----\n\nPlug it in.\n",
        )
        .write(
            "docs/guide/install.rst",
            "Installation\n============\n\nInstall it with pip::\n\n   pip install lamp\n",
        )
        .write(
            "docs/guide/rooms.rst",
            "Rooms\n=====\n\nA room groups lamps that switch together.\n\n>>> room = Room(\n...     'hall')\n...\n>>> room.name\n'hall'\n",
        )
        .write("docs/faq.rst", "FAQ\n===\n\nLamps answer questions.\n")
        .write("lamp.py", "def switch():\n    \"\"\"Switches.\"\"\"\n");
    repo.commit("docs: site");
    let body = help_center(&repo, ".");
    // The guide's own pages follow it, in its order, before the next page of the index.
    let guide = position(&body, "How to use Lamp.");
    let install = position(&body, "pip install lamp");
    let rooms = position(&body, "A room groups lamps");
    assert!(guide < install && install < rooms, "{body}");
    assert!(!body.contains("Lamps answer questions."), "{body}");
    // A doctest's continuation lines stay code, never a heading.
    assert!(
        body.contains("...     'hall')\n...\n>>> room.name"),
        "{body}"
    );
    assert!(!body.contains("### ..."), "{body}");
    // A page titled from its file name ("Intro") takes its own heading, shown once.
    assert_eq!(body.matches("Introduction").count(), 1, "{body}");
    assert!(body.contains("## Introduction\n"), "{body}");
}

#[test]
fn a_books_readme_is_its_introduction_when_the_summary_lists_it() {
    let mut repo = Repo::new();
    repo.write("guide/book.toml", "[book]\ntitle = \"Quill\"\n")
        .write(
            "guide/src/SUMMARY.md",
            "# Summary\n\n[Introduction](README.md)\n\n- [Installation](install.md)\n",
        )
        .write(
            "guide/src/README.md",
            "# Quill\n\nQuill is a note-taking tool for the terminal.\n",
        )
        .write(
            "guide/src/install.md",
            "# Installation\n\n```sh\ncargo install quill\n```\n",
        )
        .write(
            "Cargo.toml",
            "[package]\nname = \"quill\"\nversion = \"0.1.0\"\n",
        )
        .write(
            "src/lib.rs",
            "//! Quill.\n\n/// Writes.\npub fn write() {}\n",
        );
    repo.commit("docs: book");
    let body = help_center(&repo, ".");
    // Past the frontmatter, whose description says the same sentence.
    let (_, text) = body.split_once("\n---\n").unwrap_or(("", &body));
    let intro = position(text, "Quill is a note-taking tool for the terminal.");
    assert!(intro < position(text, "cargo install quill"), "{body}");
}
