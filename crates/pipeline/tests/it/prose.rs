//! Which documents the help-center and dev-docs articles show, on a repository laid out like
//! an open-source library: a README with setext headings and its translations, project
//! documents, a design record, forge templates and guides.

use domain::{LogStage, Surface};
use pipeline::{FileRole, GeneratedArticle};
use testkit::Repo;

use crate::fixture::{article, help_and_dev_docs};

const README: &str = "tinyid\n======\n\nA tiny ID generator.\n\n## Table of Contents\n\n- [Install](#install)\n\n## Comparison with UUID\n\nThere are two differences:\n\n1. It uses a bigger alphabet, so IDs\n   are shorter.\n2. It is faster than `crypto.randomUUID`.\n\n## Install\n\n```sh\nnpm install tinyid\n```\n\n## Usage\n\n1. Import `tinyid` in your module.\n2. Call `tinyid()`:\n\n   ```js\n   tinyid()\n   ```\n\nSecurity notes\n--------------\n\nIDs are random.\n\n## License\n\nMIT\n";

const README_AR: &str = "# tinyid\n\n## المقارنة\n\n1. أبجدية أكبر.\n2. أسرع.\n";

fn library() -> Repo {
    let mut repo = Repo::new();
    repo.write("README.md", README)
        .write("README.ar.md", README_AR)
        .write("README.zh-CN.md", "# tinyid\n\n## 安装\n\n`npm i tinyid`\n")
        .write(
            "CHANGELOG.md",
            "# Change Log\n\n## 1.0.0\n\n- First release.\n",
        )
        .write(
            "CONTRIBUTING.md",
            "# How to contribute\n\nLegal requirements.\n",
        )
        .write(
            "SECURITY.md",
            "# Security Policy\n\nReport to x@example.com.\n",
        )
        .write(
            "rfcs/0001-alphabets.md",
            "- Start Date: 2020\n\n# Summary\n\nCustom alphabets.\n",
        )
        .write(".github/ISSUE_TEMPLATE/bug.md", "# Bug report\n\nSteps.\n")
        .write("docs/alphabets.md", "# Alphabets\n\nPick any alphabet.\n")
        .write("docs/api.md", "# API\n\n`tinyid(size)` returns an ID.\n")
        .write(
            "index.js",
            "/** Makes an ID. */\nexport function tinyid() {}\n",
        );
    repo.commit("feat: tinyid");
    repo
}

fn prose_files(article: &GeneratedArticle) -> Vec<&str> {
    article
        .provenance
        .files
        .iter()
        .filter(|f| f.role == FileRole::Prose)
        .map(|f| f.path.as_str())
        .collect()
}

#[test]
fn project_documents_translations_and_records_are_no_prose() {
    let repo = library();
    let (output, log) = help_and_dev_docs(&repo, ".");
    for surface in [Surface::HelpCenter, Surface::DevDocs] {
        let body = &article(&output, surface).mdx_body;
        for absent in [
            "First release",
            "Legal requirements",
            "Security Policy",
            "Custom alphabets",
            "Bug report",
            "أبجدية",
            "安装",
            "Table of Contents",
            "MIT",
        ] {
            assert!(!body.contains(absent), "{surface}: {absent} in\n{body}");
        }
        // The setext title is the document's; its setext sections are sections. The
        // developer docs show a JavaScript package's README first, as its overview (TypeDoc).
        let title = match surface {
            Surface::DevDocs => "\n## Overview\n",
            _ => "\n## tinyid\n",
        };
        assert!(body.contains(title), "{surface}: {body}");
        assert!(!body.contains("## README"), "{surface}: {body}");
    }
    let help = article(&output, Surface::HelpCenter);
    assert_eq!(prose_files(help), ["README.md", "docs/alphabets.md"]);
    let dev = article(&output, Surface::DevDocs);
    assert_eq!(
        prose_files(dev),
        ["README.md", "docs/alphabets.md", "docs/api.md"]
    );
    assert!(
        dev.mdx_body.contains("\n### Security notes\n"),
        "{}",
        dev.mdx_body
    );
    assert!(
        dev.mdx_body.contains("\n### Comparison with UUID\n"),
        "{}",
        dev.mdx_body
    );
    // The help center: the README's introduction and usage, guides; no reference.
    assert!(
        !help.mdx_body.contains("Comparison with UUID"),
        "{}",
        help.mdx_body
    );
    assert!(
        !help.mdx_body.contains("returns an ID"),
        "{}",
        help.mdx_body
    );
    assert!(
        help.mdx_body.contains("Pick any alphabet."),
        "{}",
        help.mdx_body
    );
    let left_out = log
        .0
        .iter()
        .find(|(_, stage, m, _)| *stage == LogStage::Extract && m.starts_with("left Markdown"))
        .map(|(_, _, _, data)| data["files"].clone());
    assert_eq!(left_out, Some(serde_json::json!(7)));
}

#[test]
fn the_primary_readme_usage_sections_give_the_steps() {
    let repo = library();
    let (output, log) = help_and_dev_docs(&repo, ".");
    let derived = log
        .0
        .iter()
        .find(|(_, _, m, _)| m.starts_with("derived the walkthrough"))
        .map(|(_, _, _, d)| (d["path"].clone(), d["rule"].clone()));
    assert_eq!(
        derived,
        Some((
            serde_json::json!("README.md"),
            serde_json::json!("usage sections")
        ))
    );
    let body = &article(&output, Surface::HelpCenter).mdx_body;
    let titles: Vec<&str> = body
        .lines()
        .filter_map(|l| l.strip_prefix("<Step title=\""))
        .collect();
    assert_eq!(
        titles,
        [
            "Install\">",
            "Import tinyid in your module\">",
            "Call tinyid()\">"
        ]
    );
    // Every step says something, and its inline code survives the plain title.
    assert!(!body.contains("\">\n\n</Step>"), "{body}");
    assert!(body.contains("Import `tinyid` in your module."), "{body}");
    assert!(
        body.contains("Call `tinyid()`:\n\n```js\ntinyid()\n```"),
        "{body}"
    );
}

#[test]
fn an_ordered_list_that_is_no_procedure_gives_no_steps() {
    let mut repo = Repo::new();
    repo.write(
        "lib/README.md",
        "# Lib\n\nTwo differences:\n\n1. Nano ID uses a bigger alphabet.\n2. Nano ID is faster than `uuid`.\n",
    )
    .write("lib/a.py", "def a():\n    \"\"\"A.\"\"\"\n")
    .write(
        "howto/README.md",
        "# Export\n\n1. Open **Reports**.\n2. Click `Export`.\n",
    );
    repo.commit("docs: lists");
    let (output, _) = help_and_dev_docs(&repo, "lib");
    assert!(
        output
            .articles
            .iter()
            .all(|a| a.surface != Surface::HelpCenter),
        "a comparison is no walkthrough"
    );
    let (output, log) = help_and_dev_docs(&repo, "howto");
    assert!(log.0.iter().any(
        |(_, _, m, d)| m.starts_with("derived the walkthrough") && d["rule"] == "ordered list"
    ));
    let body = &article(&output, Surface::HelpCenter).mdx_body;
    assert!(
        body.contains("<Step title=\"Open Reports\">\n\nOpen **Reports**."),
        "{body}"
    );
    assert!(
        body.contains("<Step title=\"Click Export\">\n\nClick `Export`."),
        "{body}"
    );
}

#[test]
fn prose_past_the_budget_is_cut_at_a_section_and_says_where_the_rest_is() {
    let mut repo = Repo::new();
    let part = "A sentence of the guide that explains one more thing. ".repeat(40);
    let guide: String = (1..=20)
        .map(|i| format!("## Part {i}\n\n{part}\n\n"))
        .collect();
    repo.write("pkg/docs/guide.md", format!("# Guide\n\n{guide}"))
        .write("pkg/docs/more.md", "# More\n\nMore text.\n")
        .write(
            "pkg/README.md",
            "# Pkg\n\n## Usage\n\n```sh\npkg run\n```\n",
        )
        .write("pkg/lib.py", "def run():\n    \"\"\"Runs.\"\"\"\n");
    repo.commit("docs: a long guide");
    let (output, _) = help_and_dev_docs(&repo, "pkg");
    for surface in [Surface::HelpCenter, Surface::DevDocs] {
        let body = &article(&output, surface).mdx_body;
        assert!(body.len() < 24 * 1024, "{surface}: {} bytes", body.len());
        assert!(
            body.contains("explains one more thing.\n\n*This page shows the beginning of guide.md; from “Part "),
            "{surface}: {body}"
        );
        assert!(body.contains("## More documentation"), "{surface}: {body}");
        assert!(body.contains("pkg/docs/more.md"), "{surface}: {body}");
        assert!(!body.contains("More text."), "{surface}: {body}");
    }
}

#[test]
fn a_root_go_package_says_no_filler_about_its_folder() {
    let mut repo = Repo::new();
    repo.write("go.mod", "module example.com/uuid\n")
        .write(
            "uuid.go",
            "// Package uuid makes UUIDs.\npackage uuid\n\n// New makes one.\nfunc New() string { return \"\" }\n",
        )
        .write("sub/sub.go", "package sub\n\n// X is x.\nfunc X() {}\n");
    repo.commit("feat: uuid");
    let (output, _) = help_and_dev_docs(&repo, ".");
    let body = &article(&output, Surface::DevDocs).mdx_body;
    assert!(!body.contains("In `.`."), "{body}");
    assert!(body.contains("In `sub`."), "{body}");
}
