use domain::{ArticleStatus, LogLevel, LogStage, Surface};
use pipeline::{PipelineError, RunOutput, RunRequest, run, validate_mdx};
use std::collections::BTreeMap;
use std::path::Path;

use crate::Recorded;
use crate::fixture::{Product, article, product, request};

fn run_feature(
    repo: &Path,
    feature: &str,
    since: Option<&str>,
    surfaces: Option<&[Surface]>,
) -> (RunOutput, Recorded) {
    let versions = BTreeMap::from([(Surface::DevDocs, 3)]);
    let mut log = Recorded::default();
    let output = run(
        &RunRequest {
            commit: None,
            since_commit: since,
            surfaces,
            versions: &versions,
            ..request(repo, feature)
        },
        &mut log,
    )
    .unwrap();
    (output, log)
}

/// The product's `csv-export` feature on `surfaces`, from its whole history.
fn csv_export(p: &Product, surfaces: &[Surface]) -> (RunOutput, Recorded) {
    run_feature(&p.repo.path, "csv-export", None, Some(surfaces))
}

/// The product's changelog of the commits after `since`.
fn changelog_since(p: &Product, since: &str) -> (RunOutput, Recorded) {
    run_feature(
        &p.repo.path,
        "csv-export",
        Some(since),
        Some(&[Surface::Changelog]),
    )
}

#[test]
fn every_surface_is_valid_mdx_with_frontmatter() {
    let p = product();
    let (output, _) = run_feature(&p.repo.path, "csv-export", None, None);
    let head = p.commits.last().unwrap();
    assert_eq!(&output.commit, head);
    assert_eq!(output.feature.id, "csv-export");
    let surfaces: Vec<Surface> = output.articles.iter().map(|a| a.surface).collect();
    assert_eq!(surfaces, Surface::ALL);
    for a in &output.articles {
        validate_mdx(&a.mdx_body).unwrap_or_else(|e| panic!("{}: {e}\n{}", a.surface, a.mdx_body));
        let body = &a.mdx_body;
        assert!(body.starts_with("---\ntitle: "), "{body}");
        assert!(body.contains(&format!("\ntitle: \"{}\"\n", a.title)));
        assert!(body.contains("\nfeature: \"csv-export\"\n"));
        assert!(body.contains(&format!("\nsurface: \"{}\"\n", a.surface)));
        assert!(body.contains(&format!("\nsource_commit: \"{head}\"\n")));
        let version = if a.surface == Surface::DevDocs { 3 } else { 1 };
        assert!(body.contains(&format!("\nversion: {version}\n")), "{body}");
        assert!(!a.description.is_empty());
        assert_eq!(a.provenance.commit, *head);
    }
}

#[test]
fn dev_docs_list_public_symbols_of_every_language() {
    let p = product();
    let (output, _) = csv_export(&p, &[Surface::DevDocs]);
    let body = &article(&output, Surface::DevDocs).mdx_body;
    for name in [
        "`CsvWriter`",
        "`CsvWriter::new`",
        "`CsvWriter::write_row`",
        "`Sink`",
        "`Sink::accept`",
        "`Quote`",
        "`MAX_ROWS`",
        "`Exporter`",
        "`Exporter.to_rows`",
        "`export_csv`",
        "`DEFAULT_DELIMITER`",
        "`exportReport`",
        "`ExportOptions`",
        "`Format`",
        "`DEFAULT_TIMEOUT`",
        "`ExportClient`",
        "`ExportClient.download`",
        "`ExportHandler`",
        "`Options.Validate`",
        "`Options`",
        "`MaxRows`",
    ] {
        assert!(has_heading(body, name), "missing {name}:\n{body}");
    }
    for private in [
        "helper",
        "private_helper",
        "internal",
        "_hidden",
        "_secret",
        "_private",
        "secret",
        "notExported",
    ] {
        assert!(
            !body.contains(&format!("`{private}`")),
            "{private} is not public:\n{body}"
        );
        assert!(
            !body.contains(&format!(".{private}`")),
            "{private} is not public:\n{body}"
        );
    }
    // One section per module, named as its language names it, types with their members.
    for heading in [
        "### `crate::export::writer`",
        "### `export.formats`",
        "### `package export`",
        "### `src/export/client.ts`",
        "#### Struct `CsvWriter`",
        "##### Method `CsvWriter::write_row`",
        "#### Class `Exporter`",
        "#### Interface `ExportOptions`",
        "#### Trait `Sink`",
        "#### Constant `MAX_ROWS`",
    ] {
        assert!(body.contains(heading), "missing {heading}");
    }
    assert!(body.contains("```rust\npub fn write_row(&mut self, cells: &[&str]) -> std::io::Result<Vec<String>>\n```"), "{body}");
    assert!(body.contains("```python\ndef export_csv(report, *, delimiter=\",\") -> str\n```"));
    assert!(
        body.contains("```typescript\nasync function exportReport(id: string): Promise<Blob>\n```")
    );
    assert!(body.contains("```go\nfunc (o *Options) Validate() error\n```"));
    // The whole doc comment, made MDX-safe.
    assert!(
        body.contains(
            "Writes one row and returns a `Vec<String>` of \\{cells\\} when a \\< b. More text."
        ),
        "{body}"
    );
    assert!(body.contains("Downloads a report as CSV."));
    assert!(body.contains("Turns reports into rows."));
    assert!(body.contains("ExportHandler serves CSV exports over HTTP."));
    // Markdown prose, made MDX-safe.
    assert!(body.contains("## CSV export guide"));
    assert!(body.contains("Exports use \\{braces\\} and \\<angle\\> brackets."));
    assert!(body.contains("{/* internal note */}"));
    assert!(
        body.contains("\n### Limits\n"),
        "the guide's `##` sits right under its `##` title: {body}"
    );
    assert!(body.contains("let rows: Vec<Row> = {};"));

    let provenance = &article(&output, Surface::DevDocs).provenance;
    let writer = provenance
        .files
        .iter()
        .find(|f| f.path == "src/export/writer.rs")
        .unwrap();
    assert_eq!(writer.blob, p.repo.blob_id("src/export/writer.rs"));
    assert!(
        provenance
            .files
            .iter()
            .any(|f| f.path == "docs/export.md" && f.role == pipeline::FileRole::Prose)
    );
    assert!(
        !provenance
            .files
            .iter()
            .any(|f| f.path.starts_with("src/other"))
    );
    let write_row = provenance
        .symbols
        .iter()
        .find(|s| s.name == "CsvWriter::write_row")
        .unwrap();
    assert_eq!(write_row.kind, "method");
    assert_eq!(write_row.hash.len(), 32);
}

#[test]
fn changelog_groups_conventional_commits_with_breaking_changes_first() {
    let p = product();
    let (output, log) = csv_export(&p, &[Surface::Changelog]);
    let changelog = article(&output, Surface::Changelog);
    let body = &changelog.mdx_body;
    assert_eq!(output.articles.len(), 1);
    // No release tag: one "Unreleased" section, dated by HEAD.
    assert!(
        body.contains("<Update label=\"Unreleased\" description=\"2023-11-15\">"),
        "{body}"
    );
    let position = |s: &str| {
        body.find(s)
            .unwrap_or_else(|| panic!("missing {s}:\n{body}"))
    };
    let breaking = position("## Breaking changes");
    let added = position("## Added");
    let fixed = position("## Fixed");
    assert!(breaking < added && added < fixed);
    assert!(body.contains("- Drop the legacy XLS path (`"));
    assert!(body.contains("- **export:** Add CSV writer for \\<Report\\> \\{rows\\} (`"));
    assert!(
        body[added..fixed].contains("- Add the Go export handler (`"),
        "not a Conventional Commit: grouped by its verb, as git-cliff's keepachangelog.toml does: {body}"
    );
    assert!(body.contains("- Quote cells containing commas (`"));
    // A scope is no type: `fix(security)` is a fix.
    assert!(body[fixed..].contains("- **security:** Escape formula cells (`"));
    assert!(!body.contains("## Security") && !body.contains("## Changed"));
    assert!(
        !body.contains("unrelated change"),
        "commits outside the feature's paths"
    );
    assert!(body.contains(&format!("(`{}`)", &p.commits[0][..7])));
    let collect = log
        .0
        .iter()
        .find(|(_, s, m, _)| *s == LogStage::Collect && m == "collected files and commits")
        .unwrap();
    assert_eq!(collect.3["commits"], 5);
    assert_eq!(collect.3["files"], 5);
}

#[test]
fn changelog_since_a_commit_lists_only_later_commits() {
    let p = product();
    let since = p.commits[2].as_str();
    let (output, _) = changelog_since(&p, since);
    let body = &output.articles[0].mdx_body;
    assert!(body.contains("Drop the legacy XLS path"), "{body}");
    assert!(body.contains("Escape formula cells"));
    assert!(!body.contains("quote cells containing commas"));
    assert!(!body.contains("add CSV writer"));

    // Nothing since the previous run: no article, rather than one saying so (and so no new
    // version).
    let head = p.commits.last().unwrap();
    let (output, log) = changelog_since(&p, head);
    assert!(output.articles.is_empty(), "{:?}", output.articles);
    assert!(log.0.iter().any(|(l, s, m, _)| *l == LogLevel::Info
        && *s == LogStage::Render
        && m == "no changelog article: no listed change in the range"));

    // An unknown previous commit falls back to the whole history, with a warning.
    let (output, log) = changelog_since(&p, "0123456789012345678901234567890123456789");
    assert!(output.articles[0].mdx_body.contains("Add CSV writer"));
    assert!(
        log.0
            .iter()
            .any(|(l, s, _, _)| *l == LogLevel::Warn && *s == LogStage::Collect)
    );
}

#[test]
fn help_center_walks_through_steps_with_captures() {
    let p = product();
    let (output, _) = csv_export(&p, &[Surface::HelpCenter]);
    let help = article(&output, Surface::HelpCenter);
    let body = &help.mdx_body;
    assert!(!help.capture_grounded, "step 3's capture is missing");
    assert_eq!(help.status(), ArticleStatus::Draft);
    assert_eq!(body.matches("<Steps>").count(), 1);
    assert_eq!(body.matches("<Step title=").count(), 3);
    assert_eq!(
        body.matches("<Frame>").count(),
        2,
        "one frame per existing capture"
    );
    assert!(
        body.contains("<Step title=\"Pick &lt;CSV&gt; &#123;format&#125;\">"),
        "{body}"
    );
    assert!(body.contains(
        "<img src=\"/docs/captures/csv-export/01-open-reports.png\" alt=\"Open Reports\" />"
    ));
    assert!(body.contains("Choose **Reports** in the sidebar."));
    assert!(body.contains("Click `Export` then pick \\{format\\} \\<here\\>."));
    assert!(body.contains("```text\nVec<T> {x}\n```"));
    assert!(
        body.contains(
            "{/* Capture docs/captures/csv-export/03-missing.png does not exist at commit"
        )
    );
    assert!(
        body.contains(
            "Export any report as a CSV file. Works with \\{placeholders\\} & \\<tags\\>."
        )
    );
    assert!(
        help.provenance
            .files
            .iter()
            .any(|f| f.role == pipeline::FileRole::Capture)
    );

    let (grounded, _) = run_feature(&p.repo.path, "grounded", None, None);
    assert_eq!(grounded.articles.len(), 1);
    let help = &grounded.articles[0];
    assert!(help.capture_grounded);
    assert_eq!(help.status(), ArticleStatus::CaptureGrounded);
    assert_eq!(help.mdx_body.matches("<Frame>").count(), 2);
    validate_mdx(&help.mdx_body).unwrap();

    // Without steps, and with no document saying how to use it, there is no article.
    let (implicit, log) = run_feature(
        &p.repo.path,
        "src/export",
        None,
        Some(&[Surface::HelpCenter]),
    );
    assert!(implicit.articles.is_empty());
    assert!(log.0.iter().any(|(l, s, m, _)| *l == LogLevel::Info
        && *s == LogStage::Render
        && m.starts_with("no help-center article")));
}

#[test]
fn blog_announces_the_feature() {
    let p = product();
    let (output, _) = csv_export(&p, &[Surface::Blog]);
    let blog = &output.articles[0];
    // No release tag: the changes after the newest (none) are the news.
    assert_eq!(blog.title, "What's new in CSV export");
    let body = &blog.mdx_body;
    assert!(body.contains("Export any report as a CSV file."));
    assert!(body.contains("## What's new"));
    assert!(
        body.contains("- Add CSV writer for \\<Report\\> \\{rows\\}"),
        "{body}"
    );
    assert!(body.contains("## How to upgrade\n\n- **Drop the legacy XLS path**"));
    assert!(
        body.contains("- security: Escape formula cells\n"),
        "a scoped fix reads as a sentence too: {body}"
    );
    assert!(
        body.contains("Thanks to Ada Lovelace, Grace Hopper.")
            || body.contains("Thanks to Grace Hopper, Ada Lovelace."),
        "{body}"
    );
    assert!(!body.contains("spans"));
}

#[test]
fn stages_are_logged_with_counts() {
    let p = product();
    let (_, log) = run_feature(&p.repo.path, "csv-export", None, None);
    let stages: Vec<LogStage> = log.0.iter().map(|(_, s, _, _)| *s).collect();
    for stage in [
        LogStage::Resolve,
        LogStage::Collect,
        LogStage::Extract,
        LogStage::Render,
        LogStage::Validate,
    ] {
        assert!(stages.contains(&stage), "no {} event", stage.as_str());
    }
    let first = |stage: LogStage| stages.iter().position(|s| *s == stage).unwrap();
    assert!(first(LogStage::Resolve) < first(LogStage::Collect));
    assert!(first(LogStage::Collect) < first(LogStage::Extract));
    assert!(first(LogStage::Extract) < first(LogStage::Render));
    assert!(first(LogStage::Render) < first(LogStage::Validate));
    let extract = log
        .0
        .iter()
        .find(|(_, s, _, d)| *s == LogStage::Extract && d.get("symbols").is_some())
        .unwrap();
    assert_eq!(extract.3["source_files"], 4);
    assert_eq!(extract.3["prose_files"], 1);
    assert!(extract.3["symbols"].as_u64().unwrap() >= 20);
    // Go: a constant, a struct with its exported field, a method and a function.
    assert_eq!(extract.3["symbols_by_language"]["go"], 5);
    assert_eq!(extract.3["captures_found"], 2);
    let rendered = log
        .0
        .iter()
        .filter(|(_, s, m, _)| *s == LogStage::Render && m.starts_with("rendered"))
        .count();
    assert_eq!(rendered, 4);
    assert!(log.0.iter().all(|(l, _, _, _)| *l != LogLevel::Error));
}

#[test]
fn repository_templates_override_the_built_in_ones() {
    let mut p = product();
    p.repo.write(
        ".content-pipeline/templates/blog.mdx.j2",
        "# {{ feature.title }} ships\n\n{{ feature.summary }}\n\n{% for c in commits %}- {{ c.description }}\n{% endfor %}\n{{ \"internal\" | comment }}\n",
    );
    p.repo.commit("docs: custom blog template");
    let (output, log) = csv_export(&p, &[Surface::Blog, Surface::Changelog]);
    let blog = article(&output, Surface::Blog);
    assert!(
        blog.mdx_body.contains("# CSV export ships"),
        "{}",
        blog.mdx_body
    );
    assert!(
        blog.mdx_body
            .contains("Works with \\{placeholders\\} & \\<tags\\>."),
        "values are escaped in repository templates too"
    );
    assert!(
        blog.mdx_body
            .contains("- add CSV writer for \\<Report\\> \\{rows\\}")
    );
    assert!(blog.mdx_body.contains("{/* internal */}"));
    assert!(
        blog.mdx_body.contains("\nsurface: \"blog\"\n"),
        "frontmatter is always added"
    );
    validate_mdx(&blog.mdx_body).unwrap();
    assert!(
        article(&output, Surface::Changelog)
            .mdx_body
            .contains("<Update"),
        "other surfaces keep the built-in template"
    );
    assert!(log.0.iter().any(|(_, s, m, d)| *s == LogStage::Render
        && m.starts_with("rendered the blog")
        && d["template"] == "repository"));
}

#[test]
fn broken_templates_and_invalid_mdx_fail_the_run_with_a_position() {
    let mut p = product();
    p.repo.write(
        ".content-pipeline/templates/blog.mdx.j2",
        "{% for x in %}\n",
    );
    p.repo.commit("chore: break the blog template");
    let path = p.repo.path.clone();
    let blog = RunRequest {
        commit: None,
        surfaces: Some(&[Surface::Blog]),
        ..request(&path, "csv-export")
    };
    let mut log = Recorded::default();
    let err = run(&blog, &mut log).unwrap_err();
    assert!(matches!(err, PipelineError::InvalidTemplate(_)), "{err}");
    assert!(
        err.to_string()
            .contains(".content-pipeline/templates/blog.mdx.j2 (line 1)"),
        "{err}"
    );
    assert!(
        log.0
            .iter()
            .any(|(l, s, _, _)| *l == LogLevel::Error && *s == LogStage::Render)
    );

    p.repo.write(
        ".content-pipeline/templates/blog.mdx.j2",
        "Fine\n\n{{ '<Broken>' | safe }}\n",
    );
    p.repo.commit("chore: unclosed JSX in the blog template");
    let mut log = Recorded::default();
    match run(&blog, &mut log).unwrap_err() {
        PipelineError::InvalidMdx { surface, error } => {
            assert_eq!(surface, Surface::Blog);
            assert!(error.line >= 12, "{error}");
            assert!(error.message.contains("closing tag"), "{error}");
        }
        other => panic!("expected InvalidMdx, got {other}"),
    }
    assert!(
        log.0
            .iter()
            .any(|(l, s, _, _)| *l == LogLevel::Error && *s == LogStage::Validate)
    );
}

#[test]
fn a_vanished_repository_fails_clearly() {
    let err = run(
        &request(Path::new("/nonexistent/repo"), "x"),
        &mut pipeline::DiscardLog,
    )
    .unwrap_err();
    assert!(matches!(err, PipelineError::Repository(_)));
    assert!(err.to_string().contains("/nonexistent/repo"), "{err}");
}

#[test]
fn merged_branches_list_their_commits_not_the_merge() {
    let p = product();
    let main_head = p.repo.git.head().unwrap().peel_to_commit().unwrap();
    // A side branch from the first commit that changes the feature.
    let base = p
        .repo
        .git
        .find_commit(git2::Oid::from_str(&p.commits[0]).unwrap())
        .unwrap();
    let signature =
        git2::Signature::new("Linus", "l@example.com", &git2::Time::new(1_800_000_000, 0)).unwrap();
    let mut index = git2::Index::new().unwrap();
    index.read_tree(&base.tree().unwrap()).unwrap();
    let blob = p
        .repo
        .git
        .blob(b"/// Branch work.\npub fn branch() {}\n")
        .unwrap();
    let mut entry = index
        .get_path(Path::new("src/export/writer.rs"), 0)
        .unwrap();
    entry.id = blob;
    entry.path = b"src/export/branch.rs".to_vec();
    index.add(&entry).unwrap();
    let tree = p
        .repo
        .git
        .find_tree(index.write_tree_to(&p.repo.git).unwrap())
        .unwrap();
    let side = p
        .repo
        .git
        .commit(
            None,
            &signature,
            &signature,
            "feat(branch): side work",
            &tree,
            &[&base],
        )
        .unwrap();
    let side = p.repo.git.find_commit(side).unwrap();
    // Merge it into main: main's tree plus the new file.
    let mut index = git2::Index::new().unwrap();
    index.read_tree(&main_head.tree().unwrap()).unwrap();
    index.add(&entry).unwrap();
    let tree = p
        .repo
        .git
        .find_tree(index.write_tree_to(&p.repo.git).unwrap())
        .unwrap();
    p.repo
        .git
        .commit(
            Some("HEAD"),
            &signature,
            &signature,
            "Merge branch 'side'",
            &tree,
            &[&main_head, &side],
        )
        .unwrap();
    p.repo
        .git
        .checkout_head(Some(git2::build::CheckoutBuilder::new().force()))
        .unwrap();

    let (output, _) = csv_export(&p, &[Surface::Changelog, Surface::DevDocs]);
    let changelog = &article(&output, Surface::Changelog).mdx_body;
    assert!(changelog.contains("- **branch:** Side work"), "{changelog}");
    assert!(!changelog.contains("Merge branch"));
    assert!(has_heading(
        &article(&output, Surface::DevDocs).mdx_body,
        "`branch`"
    ));
}

/// Whether `body` has a heading whose text ends with `name` (`#### Struct `CsvWriter``).
fn has_heading(body: &str, name: &str) -> bool {
    body.lines()
        .any(|l| l.starts_with('#') && l.ends_with(&format!(" {name}")))
}
