//! Hostile repositories (issue 8): each input goes through `pipeline::run` and either renders
//! as inert text or fails the run with a message naming what was refused.

use domain::Surface;
use pipeline::{PipelineError, RunOutput, RunRequest, run, validate_mdx};
use testkit::Repo;

use crate::fixture::request;

pub const LIVE: &str = "{(globalThis.X=1)}";

/// One feature with the given title, summary and step bodies; `files` are added under
/// `docs/` and belong to the feature.
pub fn repo(title: &str, summary: &str, steps: &[&str], files: &[(&str, &str)]) -> Repo {
    let mut feature = toml::Table::new();
    feature.insert("id".into(), "hostile".into());
    feature.insert("title".into(), title.into());
    feature.insert("summary".into(), summary.into());
    feature.insert("paths".into(), toml::Value::Array(vec!["docs/**".into()]));
    let steps: Vec<toml::Value> = steps
        .iter()
        .enumerate()
        .map(|(i, body)| {
            let mut step = toml::Table::new();
            step.insert("title".into(), format!("Step {i}").into());
            step.insert("body".into(), (*body).into());
            toml::Value::Table(step)
        })
        .collect();
    feature.insert("steps".into(), toml::Value::Array(steps));
    let mut manifest = toml::Table::new();
    manifest.insert(
        "features".into(),
        toml::Value::Array(vec![toml::Value::Table(feature)]),
    );
    let mut repo = Repo::new();
    repo.write(
        ".content-pipeline/features.toml",
        toml::to_string(&manifest).unwrap(),
    );
    repo.write("docs/readme.md", "# Guide\n\nPlain text.\n");
    for (path, content) in files {
        repo.write(&format!("docs/{path}"), content);
    }
    repo.commit("feat: hostile input");
    repo
}

pub fn run_with(repo: &Repo, limits: &pipeline::Limits) -> Result<RunOutput, PipelineError> {
    run(
        &RunRequest {
            commit: None,
            limits,
            ..request(&repo.path, "hostile")
        },
        &mut pipeline::DiscardLog,
    )
}

fn run_ok(repo: &Repo) -> RunOutput {
    let output = run_with(repo, &pipeline::Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    for article in &output.articles {
        validate_mdx(&article.mdx_body)
            .unwrap_or_else(|e| panic!("{}: {e}\n{}", article.surface, article.mdx_body));
    }
    output
}

fn body(output: &RunOutput, surface: Surface) -> &str {
    &output
        .articles
        .iter()
        .find(|a| a.surface == surface)
        .unwrap()
        .mdx_body
}

/// The payload appears only as escaped text or inside code.
fn assert_shown_not_run(body: &str) {
    let escaped = "\\{(globalThis.X=1)\\}";
    let in_code = format!("`{LIVE}`");
    let mut rest = body;
    while let Some(at) = rest.find(LIVE) {
        let before = &rest[..at];
        assert!(
            before.ends_with('\\')
                || rest[at..].starts_with(&in_code[1..]) && before.ends_with('`'),
            "the payload is live:\n{body}"
        );
        rest = &rest[at + LIVE.len()..];
    }
    assert!(body.contains(escaped) || body.contains(&in_code), "{body}");
}

/// Markdown reads "See `" and "`{…}`" as a code span holding the line break, then text: the
/// converter of Markdown joins the lines as it reads them (help center), plain text escapes
/// the lone backtick (a summary in a post); either way what follows stays text.
#[test]
fn a_code_span_across_a_line_break_is_read_as_markdown_reads_it_and_the_rest_stays_text() {
    let repo = repo(
        "T",
        &format!("See `\n`{LIVE}`"),
        &[&format!("See `\n`{LIVE}`")],
        &[],
    );
    let output = run_ok(&repo);
    for surface in [Surface::HelpCenter, Surface::Blog] {
        let body = body(&output, surface);
        assert!(
            body.contains("See ` `\\{") || body.contains("See \\`"),
            "{body}"
        );
        assert_shown_not_run(body);
    }
}

#[test]
fn an_indented_closing_fence_closes_the_code_block() {
    let steps = [
        format!("```\ncode\n    ```\n{LIVE}\n```"),
        format!("```\ncode\n\t```\n{LIVE}\n```"),
        format!("    ```\ncode\n```\n{LIVE}\n```"),
    ];
    let steps: Vec<&str> = steps.iter().map(String::as_str).collect();
    let output = run_ok(&repo("T", "S.", &steps, &[]));
    let help = body(&output, Surface::HelpCenter);
    assert_eq!(help.matches("\\{(globalThis.X=1)\\}").count(), 3, "{help}");
}

#[test]
fn an_html_comment_cannot_split_a_code_span_open() {
    let doc = format!("# Doc\n\na ` <!-- c --> `{LIVE}`\n");
    let output = run_ok(&repo("T", "S.", &[], &[("split.md", &doc)]));
    let docs = body(&output, Surface::DevDocs);
    assert!(
        docs.contains(&format!("a \\` {{/* c */}} `{LIVE}`")),
        "{docs}"
    );
}

#[test]
fn javascript_links_are_not_links() {
    let output = run_ok(&repo(
        "T",
        "S.",
        &["[x](javascript:alert(1)) and [y]( JavaScript&#58;alert(1))"],
        &[("links.md", "# L\n\n[z]\n\n[z]: javascript:alert(1)\n")],
    ));
    let help = body(&output, Surface::HelpCenter);
    assert!(help.contains("[x\\](javascript:alert(1))"), "{help}");
    let docs = body(&output, Surface::DevDocs);
    assert!(docs.contains("\\[z]: javascript:alert(1)"), "{docs}");
}

#[test]
fn control_characters_in_a_title_give_valid_yaml() {
    let output = run_ok(&repo("A\u{7f}B\u{85}C\u{9b} {x} <y>", "S.", &["Go."], &[]));
    let help = body(&output, Surface::HelpCenter);
    assert!(
        help.contains("\ntitle: \"A\\u007FB\\u0085C\\u009B \\u007Bx\\u007D \\u003Cy\\u003E\"\n"),
        "{help}"
    );
    assert!(!help.contains('\u{7f}'), "{help}");
}

/// The run's error; a run that succeeds is reported without its (possibly huge) articles.
fn failure(repo: &Repo, limits: &pipeline::Limits) -> PipelineError {
    match run_with(repo, limits) {
        Ok(output) => panic!(
            "the run succeeded: {:?}",
            output
                .articles
                .iter()
                .map(|a| (a.surface, a.mdx_body.len()))
                .collect::<Vec<_>>()
        ),
        Err(e) => e,
    }
}

fn limit(err: PipelineError) -> &'static str {
    match err {
        PipelineError::LimitExceeded { limit, .. } => limit,
        other => panic!("expected LimitExceeded, got {other}"),
    }
}

#[test]
fn deep_markdown_fails_the_run_naming_the_cap() {
    // Within the prose an article shows (a larger document is cut or only listed), deeper
    // than the run allows.
    let limits = pipeline::Limits {
        max_nesting_depth: 64,
        ..pipeline::Limits::default()
    };
    let lists: String = (0..80)
        .map(|i| format!("{}- x\n", "  ".repeat(i)))
        .collect();
    for doc in [
        "> ".repeat(100),
        format!("{}x", "- ".repeat(100)),
        lists,
        "a**".repeat(100),
    ] {
        let repo = repo("T", "S.", &[], &[("deep.md", &doc)]);
        let err = failure(&repo, &limits);
        assert!(err.to_string().contains("max_nesting_depth"), "{err}");
        assert_eq!(limit(err), "max_nesting_depth");
    }
}

fn with_template(surface: &str, template: &str) -> Repo {
    let mut repo = repo("T", "S.", &[], &[]);
    repo.write(
        &format!(".content-pipeline/templates/{surface}.mdx.j2"),
        template,
    );
    repo.commit("docs: template");
    repo
}

#[test]
fn template_overrides_cannot_emit_code() {
    for (template, found) in [
        ("# Hi\n\nimport fs from 'node:fs'\n", "ESM"),
        ("export const x = globalThis.X = 1\n", "ESM"),
        ("Hi {{ '{globalThis.X=1}' | safe }}\n", "expression"),
        ("<script>alert(1)</script>\n", "<script>"),
        ("<Note onClick=\"alert(1)\">x</Note>\n", "onClick"),
        ("<Step title={globalThis.X=1}>x</Step>\n", "expression"),
        ("[x](javascript:alert(1))\n", "javascript:alert(1)"),
        (
            "<img src=\"javascript&#58;alert(1)\" alt=\"x\" />\n",
            "javascript:alert(1)",
        ),
    ] {
        let repo = with_template("blog", template);
        match failure(&repo, &pipeline::Limits::default()) {
            PipelineError::UnsafeMdx { surface, error } => {
                assert_eq!(surface, Surface::Blog);
                assert!(error.line > 1 && error.column >= 1, "{error}");
                assert!(error.message.contains(found), "{template}: {error}");
            }
            other => panic!("{template}: expected UnsafeMdx, got {other}"),
        }
    }
}

#[test]
fn template_evaluation_is_bounded() {
    let repo = with_template(
        "blog",
        "{% for i in range(3) %}{{ \"x\" * 99999999 }}{% endfor %}",
    );
    let err = failure(&repo, &pipeline::Limits::default());
    assert!(err.to_string().contains("blog.mdx.j2"), "{err}");
    assert_eq!(limit(err), "max_article_bytes");

    let repo = with_template(
        "blog",
        "{% for i in range(100) %}{{ \"x\" * 30000 }}{% endfor %}",
    );
    assert_eq!(
        limit(failure(&repo, &pipeline::Limits::default())),
        "max_article_bytes"
    );

    let repo = with_template(
        "blog",
        "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
    );
    let limits = pipeline::Limits {
        max_template_fuel: 100_000,
        ..pipeline::Limits::default()
    };
    let err = failure(&repo, &limits);
    assert!(
        err.to_string().contains("max_template_fuel = 100000"),
        "{err}"
    );
}
