//! The help-center surface on repositories without manifest steps: walkthroughs derived from
//! the feature's documents, no article when nothing describes usage, and repository Markdown
//! converted (admonitions, HTML, headings, links) rather than pasted.

use domain::{LogLevel, LogStage, Surface};
use pipeline::{RunOutput, run};
use testkit::Repo;

use crate::fixture::{help_and_dev_docs, request};

pub const README: &str = r#"# Widgets

<p align="center"><img src="docs/logo.png" alt="Widgets logo"></p>

Widgets turns <kbd>reports</kbd> into files.

> [!NOTE]
> Needs Python 3.10 or later.

## Installation

```sh
pip install widgets
```

## Usage

1. Create a configuration:

   ```sh
   widgets init
   ```

2. Export a report. See [the options](docs/options.md#flags).
3. Open the result:

   ![Result](docs/result.png)

:::warning Data
Existing files are overwritten.
:::

## FAQ

#### Deep heading

<details><summary>Troubleshooting</summary>

!!! tip "Faster"
    Use `--jobs 4`.

</details>

## License

MIT
"#;

fn body(output: &RunOutput) -> Option<&str> {
    output
        .articles
        .iter()
        .find(|a| a.surface == Surface::HelpCenter)
        .map(|a| a.mdx_body.as_str())
}

pub fn widgets() -> Repo {
    let mut repo = Repo::new();
    repo.write("widgets/README.md", README)
        .write(
            "widgets/core.py",
            "def export(report):\n    \"\"\"Exports.\"\"\"\n",
        )
        .write("widgets/docs/logo.png", [0x89, b'P', b'N', b'G'])
        .write(
            "widgets/docs/options.md",
            "# Options\n\n## Flags\n\n`--jobs` sets the workers.\n",
        )
        .write("plain/lib.rs", "/// Adds.\npub fn add() {}\n")
        .write(
            "plain/NOTES.md",
            "# Notes\n\nDesign notes.\n\n- fast\n- small\n",
        );
    repo.commit("feat: widgets");
    repo
}

#[test]
fn a_readme_with_usage_gives_a_walkthrough_of_converted_steps() {
    let repo = widgets();
    repo.git
        .remote("origin", "git@github.com:acme/widgets.git")
        .unwrap();
    let (output, log) = help_and_dev_docs(&repo, "widgets");
    let commit = &output.commit;
    let body = body(&output).expect("a help-center article");
    assert_eq!(body.matches("<Steps>").count(), 1);
    let titles: Vec<&str> = body
        .lines()
        .filter_map(|l| l.strip_prefix("<Step title=\""))
        .collect();
    assert_eq!(
        titles,
        [
            "Installation\">",
            "Create a configuration\">",
            "Export a report\">",
            "Open the result\">"
        ]
    );
    assert!(body.contains("```sh\npip install widgets\n```"), "{body}");
    assert!(body.contains("```sh\nwidgets init\n```"), "{body}");
    let raw = format!("https://github.com/acme/widgets/raw/{commit}");
    // The options page is shown further down: the link lands on its section.
    assert!(body.contains("See [the options](#flags)."), "{body}");
    assert!(body.contains("\n## Options\n"), "{body}");
    assert!(
        body.contains(&format!("![Result]({raw}/widgets/docs/result.png)")),
        "{body}"
    );
    // The rest of the README, converted; its logo speaks to the repository page's visitors.
    assert!(!body.contains("logo.png"), "{body}");
    assert!(body.contains("turns <kbd>reports</kbd> into"), "{body}");
    assert!(
        body.contains("<Note>\n\nNeeds Python 3.10 or later.\n\n</Note>"),
        "{body}"
    );
    assert!(
        body.contains("<Warning>\n\n**Data**\n\nExisting files are overwritten.\n\n</Warning>"),
        "{body}"
    );
    assert!(
        body.contains("<details>\n\n<summary>Troubleshooting</summary>"),
        "{body}"
    );
    assert!(
        body.contains("<Tip>\n\n**Faster**\n\nUse `--jobs 4`."),
        "{body}"
    );
    assert!(
        body.contains("\n### FAQ\n"),
        "the doc's sections sit under its `##` title: {body}"
    );
    assert!(
        !body.contains("License"),
        "a section about the project is no help: {body}"
    );
    assert!(
        body.contains("\n### FAQ\n\n#### Deep heading\n"),
        "no jump from `###` to `#####`: {body}"
    );
    assert!(
        body.contains("\n### Usage\n\n<Warning>"),
        "what the steps do not hold stays under its heading: {body}"
    );
    // The usage sections are steps now, not repeated as prose.
    assert_eq!(body.matches("pip install widgets").count(), 1, "{body}");
    assert!(!body.contains("no walkthrough"), "{body}");
    assert!(log.0.iter().any(|(l, s, m, d)| *l == LogLevel::Info
        && *s == LogStage::Render
        && m.starts_with("derived the walkthrough from widgets/README.md")
        && d["steps"] == 4));
}

#[test]
fn nothing_about_usage_means_no_help_center_article() {
    let repo = widgets();
    let (output, log) = help_and_dev_docs(&repo, "plain");
    assert!(body(&output).is_none(), "no placeholder article");
    assert_eq!(output.articles.len(), 1, "the other surfaces are written");
    assert_eq!(output.articles[0].surface, Surface::DevDocs);
    assert!(log.0.iter().any(|(l, s, m, _)| *l == LogLevel::Info
        && *s == LogStage::Render
        && m.starts_with("no help-center article")));
    // Only the help center was asked for: the run succeeds with nothing to store.
    let output = run(
        &pipeline::RunRequest {
            commit: None,
            surfaces: Some(&[Surface::HelpCenter]),
            ..request(&repo.path, "plain")
        },
        &mut pipeline::DiscardLog,
    )
    .unwrap();
    assert!(output.articles.is_empty());
}

#[test]
fn without_a_forge_links_and_captures_point_at_the_service() {
    let repo = widgets();
    let (output, _) = help_and_dev_docs(&repo, "widgets");
    let body = body(&output).unwrap();
    assert!(
        body.contains("![Result](/widgets/docs/result.png)"),
        "{body}"
    );
    assert!(body.contains("[the options](#flags)"), "{body}");
}

#[test]
fn html_and_link_attacks_in_a_readme_are_refused_or_inert() {
    let mut repo = Repo::new();
    repo.write(
        "evil/README.md",
        "# Evil\n\n## Usage\n\n1. Click <a href=\"javascript:alert(1)\">here</a>.\n   {globalThis.X=1}\n2. <img src=x onerror=alert(1)> <script>alert(1)</script>\n3. [x](javascript:alert(1)) <details ontoggle=alert(1)><summary>s</summary>\n",
    );
    repo.commit("docs: evil");
    let (output, _) = help_and_dev_docs(&repo, "evil");
    let body = body(&output).unwrap();
    assert_eq!(body.matches("<Step title=").count(), 3, "{body}");
    // A step keeps its text as written, so the attacks may show, escaped, as inert text:
    // never as a link, an element or an attribute.
    let live = |pattern: &str| {
        body.match_indices(pattern)
            .any(|(i, _)| !body[..i].ends_with('\\'))
    };
    for pattern in ["](javascript:", "<script", "<details", "<img src=x"] {
        assert!(!live(pattern), "{pattern} in\n{body}");
    }
    for attribute in ["href=\"javascript:", "onerror"] {
        assert!(!body.contains(attribute), "{attribute} in\n{body}");
    }
    assert!(body.contains("\\{globalThis.X=1\\}"), "{body}");
}

#[test]
fn the_summary_is_the_description_and_is_not_repeated_in_the_body() {
    let mut repo = Repo::new();
    repo.write("src/lib.rs", "/// Adds.\npub fn add(a: i32, b: i32) -> i32 { a + b }\n")
        .write(
            ".content-pipeline/features.toml",
            "[[features]]\nid = \"numbers\"\ntitle = \"Numbers\"\nsummary = \"Small helpers for sums.\"\n\
             paths = [\"src/**\"]\n\n[[features.steps]]\ntitle = \"Add two numbers\"\nbody = \"Call `add(1, 2)`.\"\n",
        );
    repo.commit("feat: numbers");
    let (output, _) = help_and_dev_docs(&repo, "numbers");
    let body = body(&output).expect("a help-center article");
    assert!(
        body.contains("description: \"Small helpers for sums.\"")
            || body.contains("description: Small helpers for sums."),
        "{body}"
    );
    assert_eq!(body.matches("Small helpers for sums.").count(), 1, "{body}");
}

/// The repository's own feature (`.`) is described as its package describes itself.
#[test]
fn the_repository_is_described_by_its_package_manifest() {
    let mut repo = Repo::new();
    repo.write(
        "README.md",
        "# tinyid\n\n## Usage\n\n```sh\nnpm install tinyid\n```\n",
    )
    .write(
        "package.json",
        r#"{"name": "tinyid", "description": "A tiny,\n secure ID generator. Works anywhere <b>{x}</b>."}"#,
    )
    .write("index.js", "export function tinyid() {}\n");
    repo.commit("feat: tinyid");
    let (output, _) = help_and_dev_docs(&repo, ".");
    let help = crate::fixture::article(&output, Surface::HelpCenter);
    assert_eq!(help.title, "tinyid");
    assert_eq!(help.description, "A tiny, secure ID generator.");
    assert!(
        help.mdx_body
            .contains("A tiny, secure ID generator. Works anywhere \\<b\\>\\{x\\}\\</b\\>."),
        "the whole description, escaped: {}",
        help.mdx_body
    );

    // pyproject.toml when there is no package.json; none at all: the generic sentence.
    repo.remove("package.json").write(
        "pyproject.toml",
        "[project]\nname = \"itsdangerous\"\ndescription = \"Safely pass data to untrusted environments and back\"\n",
    );
    repo.commit("build: python");
    let (output, _) = help_and_dev_docs(&repo, ".");
    let help = crate::fixture::article(&output, Surface::HelpCenter);
    assert_eq!(
        help.description,
        "Safely pass data to untrusted environments and back."
    );
    repo.remove("pyproject.toml");
    repo.commit("build: no manifest");
    let (output, _) = help_and_dev_docs(&repo, ".");
    let help = crate::fixture::article(&output, Surface::HelpCenter);
    // Without one, what the steps do, never a placeholder ("How to use repo.").
    assert_eq!(help.description, "Getting started with tinyid: usage.");
}
