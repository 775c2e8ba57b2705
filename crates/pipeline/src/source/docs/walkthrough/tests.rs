//! Walkthroughs derived from documents of each shape.

use super::text::*;
use super::*;
use crate::source::docs::markdown::tests::doc;

fn titles(w: &Walkthrough) -> Vec<&str> {
    w.steps.iter().map(|s| s.title.as_str()).collect()
}

const README: &str = "Widgets does things.\n\n## Installation\n\n```sh\npip install widgets\n```\n\n## Usage\n\n1. Create a config:\n\n```sh\nwidgets init\n```\n\n2. **Run** it.\n   It prints a report.\n3. Open [the report](out/report.html).\n\n## Contributing\n\n1. Fork.\n2. Send a PR.\n";

#[test]
fn usage_sections_with_an_ordered_list_and_commands() {
    let w = derive(
        &[
            doc("docs/other.md", "1. a\n2. b"),
            doc("pkg/README.md", README),
        ],
        None,
    )
    .unwrap();
    assert_eq!(w.path, "pkg/README.md");
    assert_eq!(w.rule, "usage sections");
    assert_eq!(
        titles(&w),
        [
            "Installation",
            "Create a config",
            "Run it",
            "Open the report"
        ]
    );
    assert_eq!(w.steps[0].body, "```sh\npip install widgets\n```");
    assert_eq!(w.steps[1].body, "```sh\nwidgets init\n```");
    // The title lost the emphasis: the body keeps the sentence as written.
    assert_eq!(w.steps[2].body, "**Run** it. It prints a report.");
    assert_eq!(w.steps[3].body, "Open [the report](out/report.html).");
    let rest = without(README, &w.used);
    assert!(
        rest.starts_with("Widgets does things.\n\n## Contributing"),
        "{rest}"
    );
}

#[test]
fn headed_steps_come_first() {
    let md = "## Overview\n\nx\n\n## Step 1: Install\n\nget it\n\n## Step 2 - Configure\n\nset it\n\n### Details\n\nmore\n\n## Usage\n\nuse it";
    let w = derive(&[doc("docs/guide.md", md)], None).unwrap();
    assert_eq!(w.rule, "headed steps");
    assert_eq!(titles(&w), ["Install", "Configure"]);
    assert_eq!(w.steps[1].body, "set it\n\n### Details\n\nmore");
    let md = "### 1. Open\n\na\n\n### 2. Close\n\nb";
    assert_eq!(
        titles(&derive(&[doc("a.md", md)], None).unwrap()),
        ["Open", "Close"]
    );
}

#[test]
fn a_usage_section_split_by_subsections_or_code_blocks() {
    let md = "## Getting started\n\n### Install\n\n`npm i w`\n\n### Use it\n\nCall `w()`.\n";
    assert_eq!(
        titles(&derive(&[doc("README.md", md)], None).unwrap()),
        ["Install", "Use it"]
    );
    let md = "## Quick start\n\nInstall the tool: it is small.\n\n```console\n$ cargo install w\n```\n\n```rust\nw::run();\n```\n";
    let w = derive(&[doc("README.md", md)], None).unwrap();
    assert_eq!(titles(&w), ["Install the tool", "Quick start"]);
    assert_eq!(
        w.steps[0].body,
        "it is small.\n\n```console\n$ cargo install w\n```"
    );
}

#[test]
fn ordered_lists_and_shell_commands_elsewhere() {
    let w = derive(
        &[doc(
            "docs/export.md",
            "Intro.\n\n1. Open Reports.\n2. Click Export.\n",
        )],
        None,
    )
    .unwrap();
    assert_eq!(w.rule, "ordered list");
    assert_eq!(titles(&w), ["Open Reports", "Click Export"]);
    let w = derive(&[doc("docs/cli.md", "## Exporting\n\nExport everything\n```bash\nw export --all\n```\n\n## Development\n\n```sh\nmake test\n```\n")], None).unwrap();
    assert_eq!(w.rule, "shell commands");
    assert_eq!(titles(&w), ["Export everything"]);
}

#[test]
fn a_document_named_like_a_procedure_is_one() {
    let docs = [
        doc("docs/contributing.md", "## Setup\n\n```sh\nmake dev\n```\n"),
        doc("docs/api.md", "1. a\n2. b\n"),
        doc(
            "docs/quick-start.md",
            "Hello.\n\n## Make a request\n\n```python\nget()\n```\n\n## Read it\n\nx\n",
        ),
    ];
    let w = derive(&docs, None).unwrap();
    assert_eq!(
        (w.path.as_str(), w.rule),
        ("docs/quick-start.md", "usage document")
    );
    assert_eq!(titles(&w), ["T", "Make a request", "Read it"]);
}

#[test]
fn nothing_about_usage_gives_no_walkthrough() {
    assert!(derive(&[], None).is_none());
    assert!(derive(&[doc("README.md", "# W\n\nA library.\n\n- fast\n- small\n\n```rust\nlet x = 1;\n```\n\n## License\n\n1. MIT\n2. Apache\n")], None).is_none());
    assert!(
        derive(
            &[doc(
                "CONTRIBUTING.md",
                "## Development\n\n1. Clone.\n2. `make`.\n"
            )],
            None
        )
        .is_none()
    );
}

#[test]
fn titles_are_plain_and_short() {
    assert_eq!(
        clean_title("**Run** `x` [the docs](a.md):"),
        "Run x the docs"
    );
    assert_eq!(
        clean_title("Press <kbd>Ctrl</kbd> <a href=\"x\">now</a> if a < b"),
        "Press Ctrl now if a < b"
    );
    let long = "word ".repeat(40);
    let title = clean_title(&long);
    assert!(
        title.chars().count() <= MAX_TITLE_CHARS && title.ends_with('…'),
        "{title}"
    );
    assert_eq!(step_number("Step 3: Deploy"), Some("Deploy"));
    assert_eq!(step_number("Steps"), None);
    assert_eq!(step_number("2) Go"), Some("Go"));
    assert_eq!(step_number("2024 plans"), None);
}

#[test]
fn one_example_under_a_heading_is_named_by_the_heading() {
    let readme = "# Signer\n\nSigns data.\n\n## A Simple Example\n\nHere's how you could generate a token for transmitting a user's id and name between web requests.\n\n```python\nfrom signer import sign\nsign(5)\n```\n\n## Donate\n\nPlease.\n";
    let w = derive(&[doc("README.md", readme)], None).expect("a walkthrough");
    assert_eq!(titles(&w), ["A Simple Example"]);
    assert!(
        w.steps[0].body.starts_with("Here's how you could generate a token for transmitting a user's id and name between web requests.\n\n```python"),
        "{}",
        w.steps[0].body
    );
}

#[test]
fn examples_of_an_api_reference_are_no_steps() {
    let readme = "# slugify\n\n## Install\n\n```sh\nnpm install slugify\n```\n\n## API\n\n### slugify(string, options?)\n\n#### Example\n\n```js\nslugify('a b')\n```\n\n### slugifyWithCounter()\n\n#### Use-case example of counter\n\nIf, for example, you have a document with multiple sections where each subsection has an example.\n\n```md\n## Section 1\n```\n";
    let w = derive(&[doc("README.md", readme)], None).expect("a walkthrough");
    assert_eq!(titles(&w), ["Install"]);
}

#[test]
fn steps_are_capped() {
    let md: String = (1..=50).map(|i| format!("{i}. Run job {i}\n")).collect();
    assert_eq!(
        derive(&[doc("a.md", &md)], None).unwrap().steps.len(),
        MAX_STEPS
    );
}

#[test]
fn half_sentences_are_no_titles_and_no_title_appears_twice() {
    let readme = "# httpx\n\n## Installation\n\nIt can be installed by running:\n\n```sh\npip install httpx\n```\n\nOr, to include the optional HTTP/2 support, use:\n\n```sh\npip install httpx[http2]\n```\n\nFirst, start by importing HTTPX:\n\n```pycon\n>>> import httpx\n```\n\nInstall the certificates.\n\n```sh\ncertifi-install --all\n```\n";
    let w = derive(&[doc("README.md", readme)], None).expect("a walkthrough");
    assert_eq!(
        titles(&w),
        [
            "Install with pip",
            "Import httpx",
            "Install the certificates"
        ]
    );
    // The sentences stay whole in the text, and the second pip command joins the first step.
    assert!(
        w.steps[0]
            .body
            .starts_with("It can be installed by running:")
    );
    assert!(
        w.steps[0]
            .body
            .contains("Or, to include the optional HTTP/2 support, use:")
    );
    assert!(w.steps[0].body.contains("pip install httpx[http2]"));
    assert!(is_fragment("It can be installed by running"));
    assert!(is_fragment("Install the package with"));
    assert!(!is_fragment("Install the certificates"));
    assert_eq!(
        command_title("$ cargo add serde", "console").as_deref(),
        Some("Install with Cargo")
    );
    assert_eq!(command_title("fn main() {}", "rust"), None);
    assert_eq!(
        command_title("mytool serve --port 8000", "sh").as_deref(),
        Some("Run mytool")
    );
}

#[test]
fn code_annotations_and_long_or_referencing_sentences_are_no_step_titles() {
    let page = "# Settings\n\n## Installation\n\n```sh\npip install settings\n```\n\n## Usage\n\n```py\nclass S(Base):\n    key: str = Field(alias='k')  # (1)!\n    dsn: str  # (2)!\n```\n\n1. The environment variable name is overridden using validation_alias.\n2. The [AliasChoices][pydantic.AliasChoices] class allows you to have multiple names.\n\n## Configure\n\n1. The env_prefix config setting allows you to set a prefix for all environment variables at once.\n2. Set the [Secrets][secrets] directory.\n";
    let w = derive(&[doc("docs/index.md", page)], None).unwrap();
    let all = titles(&w);
    for title in &all {
        assert!(!title.contains("validation_alias"), "{all:?}");
        assert!(!title.contains('['), "{all:?}");
        assert!(title.split_whitespace().count() <= 10, "{all:?}");
    }
    assert!(all.contains(&"Installation"), "{all:?}");
    // Sentences that cannot name a step leave it to the heading and stay whole in its text.
    let list = "# Settings\n\n## Usage\n\n1. The env_prefix config setting allows you to set a prefix for all environment variables at once.\n2. Set the [Secrets][secrets] directory.\n";
    let w = derive(&[doc("docs/index.md", list)], None).unwrap();
    assert!(titles(&w).iter().all(|t| *t == "Usage"), "{:?}", titles(&w));
    let bodies: Vec<&str> = w.steps.iter().map(|s| s.body.as_str()).collect();
    assert!(
        bodies
            .iter()
            .any(|b| b.contains("set a prefix for all environment variables at once")),
        "{bodies:?}"
    );
    assert!(annotates("x = 1  # (1)!") && annotates("let x = 1; // (1)"));
    assert!(!annotates("f(1)") && !annotates("print('(1)')"));
    assert!(is_not_a_title("Set the [Secrets][secrets] directory"));
    assert!(!is_not_a_title("Install with pip"));
}

#[test]
fn plain_text_drops_emphasis_but_not_code_or_snake_case() {
    assert_eq!(
        super::plain_text("Do you like the _Black_ code style?"),
        "Do you like the Black code style?"
    );
    assert_eq!(
        super::plain_text("Set **max_line_length** in `__init__`"),
        "Set max_line_length in __init__"
    );
}

#[test]
fn section_numbers_go_with_the_step_numbers() {
    assert_eq!(
        without_section_numbers(
            "Text.\n\n#### 3.1. Model derived values\n\n```\n# 3.2. kept in code\n```\n\n## 2024 plans"
        ),
        "Text.\n\n#### Model derived values\n\n```\n# 3.2. kept in code\n```\n\n## 2024 plans"
    );
}

#[test]
fn an_index_blurb_is_no_walkthrough() {
    let w = derive(
        &[
            doc(
                "docs/examples.md",
                "This section has examples of using widgets. Each says what it does.",
            ),
            doc(
                "docs/quickstart.md",
                "## Install\n\n```sh\npip install widgets\n```\n\n## Run\n\n```sh\nwidgets run\n```\n",
            ),
        ],
        None,
    )
    .expect("a walkthrough");
    assert_eq!(w.path, "docs/quickstart.md");
}

#[test]
fn titles_read_escapes_and_character_references_once() {
    assert_eq!(
        plain_text("Box\\<T\\> &mdash; rust::Box\\<T\\>"),
        "Box<T> \u{2014} rust::Box<T>"
    );
    assert_eq!(
        plain_text("a&ensp;b &amp;lt; c &#91;T&#93; \\_x\\_"),
        "a b &lt; c [T] _x_"
    );
    assert_eq!(
        plain_text("<b>bold</b> & co &bogus; \\q"),
        "bold & co &bogus; \\q"
    );
}
