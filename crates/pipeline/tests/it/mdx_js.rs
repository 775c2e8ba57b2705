//! The reference compiler's view: articles generated from hostile repositories are compiled
//! and evaluated with `@mdx-js/mdx` 3 (tests/mdx-js/check.mjs) and nothing in them may run.
//! Skipped, with a visible SKIPPED line, when node or the npm packages are missing, unless
//! CONTENT_PIPELINE_REQUIRE_NODE=1 (set by .ci/run).

use serde_json::{Value, json};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::helpcenter::widgets;
use crate::hostile::{LIVE, repo, run_with};

fn harness() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mdx-js");
    let node = Command::new("node").arg("--version").output();
    let missing = match node {
        Ok(out) if out.status.success() => {
            if dir.join("node_modules/@mdx-js/mdx").is_dir() {
                return Some(dir);
            }
            format!("run `npm ci` in {}", dir.display())
        }
        _ => "node is not installed".to_string(),
    };
    if std::env::var("CONTENT_PIPELINE_REQUIRE_NODE").as_deref() == Ok("1") {
        panic!(
            "CONTENT_PIPELINE_REQUIRE_NODE=1 but the MDX reference compiler is missing: {missing}"
        );
    }
    // Straight to stderr: the test harness does not capture this, so the skip is seen.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED mdx_js: {missing} (set CONTENT_PIPELINE_REQUIRE_NODE=1 to fail instead)"
    );
    None
}

/// Runs check.mjs over `(name, mdx)` pairs.
fn evaluate(dir: &PathBuf, articles: &[(String, String)]) -> Vec<Value> {
    let input: Vec<Value> = articles
        .iter()
        .map(|(name, mdx)| json!({ "name": name, "mdx": mdx }))
        .collect();
    let mut child = Command::new("node")
        .arg("check.mjs")
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(&input).unwrap().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "check.mjs failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Compiles and evaluates `articles` with the reference compiler (when it is installed) and
/// fails on any compile error.
pub(crate) fn assert_compiles(articles: &[(String, String)]) {
    let Some(dir) = harness() else { return };
    for (report, (name, mdx)) in evaluate(&dir, articles).iter().zip(articles) {
        for result in report["results"].as_array().unwrap() {
            assert_eq!(result["error"], Value::Null, "{name}: {report}\n{mdx}");
        }
    }
}

fn allowed_url(url: &str) -> bool {
    let end = url.find(['/', '?', '#']).unwrap_or(url.len());
    !url[..end].contains(':')
        || ["http:", "https:", "mailto:"]
            .iter()
            .any(|s| url.to_ascii_lowercase().starts_with(s))
}

#[test]
fn no_generated_article_runs_code_in_the_reference_compiler() {
    let Some(dir) = harness() else { return };
    let title = format!("A\u{7f}B\u{85}C\u{9b} {LIVE} <Note> [x](javascript:alert(1))");
    let summary = format!("See `\n`{LIVE}`");
    let steps = [
        format!("```\ncode\n    ```\n{LIVE}\n```"),
        format!("```\ncode\n\t```\n{LIVE}\n```"),
        format!("    ```\ncode\n```\n{LIVE}\n```"),
        format!("- ```\n  a\n  ```\n{LIVE}\n```"),
        format!("~~~\n{LIVE}\n~~~"),
        format!("a ` <!-- c --> `{LIVE}`"),
        "[x](javascript:alert(1)) [y]( JavaScript&#58;alert(1)) [z](java\\script:alert(1))".into(),
        format!("| a |\n|---|\n| `{LIVE}|` |"),
        format!("import x from 'y'\nexport const a = {LIVE}"),
    ];
    let steps: Vec<&str> = steps.iter().map(String::as_str).collect();
    let docs = [
        ("split.md", format!("# Split\n\na ` <!-- c --> `{LIVE}`\n")),
        (
            "links.md",
            "# Links\n\n[z]\n\n[z]: javascript:alert(1)\n".into(),
        ),
        (
            "table.md",
            format!("# Table\n\n| a | b |\n|---|---|\n| `{LIVE}|` | <!-- x --> |\n"),
        ),
    ];
    let docs: Vec<(&str, &str)> = docs.iter().map(|(p, c)| (*p, c.as_str())).collect();
    let mut fixture = repo(&title, &summary, &steps, &docs);
    fixture.commit(&format!(
        "feat: x ` <!-- y --> `{LIVE}` [l](javascript:alert(1))"
    ));
    let output = run_with(&fixture, &pipeline::Limits::default()).unwrap_or_else(|e| panic!("{e}"));

    let mut articles: Vec<(String, String)> = output
        .articles
        .iter()
        .map(|a| (a.surface.to_string(), a.mdx_body.clone()))
        .collect();
    // The harness must see code when there is some.
    articles.push((
        "control".into(),
        format!("---\ntitle: \"c\"\n---\n\n{LIVE} [x](javascript:alert(1))\n"),
    ));
    let reports = evaluate(&dir, &articles);
    assert_eq!(reports.len(), articles.len());

    let control = &reports[articles.len() - 1];
    for result in control["results"].as_array().unwrap() {
        assert_eq!(result["ran"], json!(["set globalThis.X = 1"]), "{control}");
        assert_eq!(result["urls"], json!(["javascript:alert(1)"]), "{control}");
    }
    for (report, article) in reports.iter().zip(&output.articles) {
        for result in report["results"].as_array().unwrap() {
            assert_eq!(
                result["error"],
                Value::Null,
                "{report}\n{}",
                article.mdx_body
            );
            assert_eq!(result["ran"], json!([]), "{report}\n{}", article.mdx_body);
            for url in result["urls"].as_array().unwrap() {
                let url = url.as_str().unwrap();
                assert!(allowed_url(url), "{url} in {report}\n{}", article.mdx_body);
            }
        }
        assert_eq!(
            report["title"].as_str(),
            Some(article.title.as_str()),
            "the frontmatter is YAML holding the title: {report}"
        );
    }
}

#[test]
fn converted_repository_markdown_compiles_and_runs_nothing() {
    let Some(dir) = harness() else { return };
    let mut fixture = widgets();
    fixture.write(
        "widgets/docs/guide.md",
        format!(
            "# Guide\n\n<details><summary>Open <kbd>me</kbd></summary>\n\n> [!TIP]\n> Press <kbd>Ctrl</kbd><br>then <sup>1</sup>\n\n</details>\n\n<a href=\"javascript:alert(1)\">x</a> <img src=x onerror=\"alert(1)\"> <b onclick=\"alert(1)\">b</b>\n\n:::danger {LIVE}\n<script>alert(1)</script>\n:::\n\n!!! note \"{LIVE}\"\n    [rel](../README.md) ![i](shot.png)\n\n*a <b>c* d</b>\n"
        ),
    );
    fixture.commit("docs: guide");
    fixture
        .git
        .remote("origin", "https://github.com/acme/widgets.git")
        .unwrap();
    let output = pipeline::run(
        &pipeline::RunRequest {
            commit: None,
            surfaces: Some(&[domain::Surface::HelpCenter, domain::Surface::DevDocs]),
            ..crate::fixture::request(&fixture.path, "widgets")
        },
        &mut pipeline::DiscardLog,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.articles.len(), 2);
    let help = &output.articles[0].mdx_body;
    for kept in [
        "<Steps>",
        "<details>",
        "<kbd>me</kbd>",
        "<Tip>",
        "<br />",
        "<Warning>",
        "<Note>",
    ] {
        assert!(help.contains(kept), "{kept}:\n{help}");
    }
    let articles: Vec<(String, String)> = output
        .articles
        .iter()
        .map(|a| (a.surface.to_string(), a.mdx_body.clone()))
        .collect();
    for (report, (_, mdx)) in evaluate(&dir, &articles).iter().zip(&articles) {
        for result in report["results"].as_array().unwrap() {
            assert_eq!(result["error"], Value::Null, "{report}\n{mdx}");
            assert_eq!(result["ran"], json!([]), "{report}\n{mdx}");
            let urls = result["urls"].as_array().unwrap();
            assert!(
                urls.iter().any(|u| u
                    .as_str()
                    .unwrap()
                    .starts_with("https://github.com/acme/widgets/raw/")),
                "images point at the forge: {report}"
            );
            for url in urls {
                assert!(allowed_url(url.as_str().unwrap()), "{url}\n{mdx}");
            }
        }
    }
}

#[test]
fn developer_docs_with_anchors_and_links_compile_in_the_reference_compiler() {
    let Some(dir) = harness() else { return };
    let mut repo = testkit::Repo::new();
    repo.write(
        "lib/src/lib.rs",
        "//! Overview with {braces} <b>.\n\n/// A `Vec<T>` of {x}.\npub struct S {\n    /// F <a>.\n    pub f: Vec<u8>,\n    g: u8,\n}\n\n/// Adds.\n///\n/// ```\n/// let x = {1};\n/// ```\npub fn add() {}\n",
    );
    repo.git
        .remote("origin", "https://github.com/acme/w(i)dgets.git")
        .unwrap();
    repo.commit("feat: lib");
    let output = pipeline::run(
        &pipeline::RunRequest {
            commit: None,
            surfaces: Some(&[domain::Surface::DevDocs]),
            ..crate::fixture::request(&repo.path, "lib")
        },
        &mut pipeline::DiscardLog,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let body = output.articles[0].mdx_body.clone();
    assert!(body.contains("<a id=\"lib-src-lib-rs-S-f\" />"), "{body}");
    assert!(body.contains("](https://github.com/acme/"), "{body}");
    let reports = evaluate(&dir, &[("dev-docs".into(), body.clone())]);
    for result in reports[0]["results"].as_array().unwrap() {
        assert_eq!(result["error"], Value::Null, "{body}");
        assert_eq!(result["ran"], json!([]), "{body}");
    }
}

#[test]
fn shortened_developer_docs_compile_in_the_reference_compiler() {
    let Some(dir) = harness() else { return };
    let repo = crate::big::big_crate(12);
    let [_, first, tables, index] = crate::big::levels(&repo);
    let cut = crate::big::within(&repo, index.len() / 2);
    let articles: Vec<(String, String)> = [
        ("level 1", first),
        ("level 2", tables),
        ("level 3", index),
        ("level 3, cut", cut),
    ]
    .into_iter()
    .map(|(name, body)| (name.to_string(), body))
    .collect();
    for (report, (name, mdx)) in evaluate(&dir, &articles).iter().zip(&articles) {
        assert!(mdx.contains("This API is large"), "{name}:\n{mdx}");
        for result in report["results"].as_array().unwrap() {
            assert_eq!(result["error"], Value::Null, "{name}: {report}\n{mdx}");
            assert_eq!(result["ran"], json!([]), "{name}: {report}\n{mdx}");
        }
    }
}
