use domain::Surface;
use pipeline::{Change, ChangeKind, DriftChecker, Provenance, RunRequest, run};

use crate::fixture::{Product, SERVER_GO, WRITER_RS, product, request};

fn provenance(p: &Product) -> Provenance {
    let output = run(
        &RunRequest {
            commit: None,
            surfaces: Some(&[Surface::DevDocs]),
            ..request(&p.repo.path, "csv-export")
        },
        &mut pipeline::DiscardLog,
    )
    .unwrap();
    output.articles[0].provenance.clone()
}

fn check(p: &Product, provenance: &Provenance) -> Vec<Change> {
    let checker = DriftChecker::open(&p.repo.path, &pipeline::Limits::default()).unwrap();
    assert_eq!(
        checker.head_commit(),
        p.repo.git.head().unwrap().target().unwrap().to_string()
    );
    checker.check(provenance).unwrap()
}

#[test]
fn unchanged_sources_are_not_drift() {
    let mut p = product();
    let recorded = provenance(&p);
    assert!(check(&p, &recorded).is_empty());
    p.repo
        .write("src/other/lib.rs", "pub fn other() -> u8 { 2 }\n");
    p.repo.commit("feat(other): unrelated");
    assert!(check(&p, &recorded).is_empty());
    // The provenance survives a JSON round trip (the caller stores it as JSON).
    let json = serde_json::to_string(&recorded).unwrap();
    assert_eq!(serde_json::from_str::<Provenance>(&json).unwrap(), recorded);
}

#[test]
fn a_moved_symbol_with_unchanged_tokens_is_not_drift() {
    let mut p = product();
    let recorded = provenance(&p);
    // Move `Quote` above `CsvWriter`, reformat `new`, and add ordinary comments.
    let quote = "/// How cells are quoted.\npub enum Quote {\n    Always,\n    Minimal,\n}\n";
    let moved = WRITER_RS
        .replace(quote, "")
        .replace("/// Maximum rows", &format!("{quote}\n// A comment that is not documentation.\n/// Maximum rows"))
        .replace("    pub fn new(out: W) -> Self {\n        CsvWriter { out, rows: 0 }\n    }", "    pub fn new(out: W)   ->   Self {\n        // start empty\n        CsvWriter {\n            out,\n            rows: 0\n        }\n    }");
    assert_ne!(moved, WRITER_RS);
    p.repo.write("src/export/writer.rs", &moved);
    p.repo.commit("refactor: reorder the writer");
    assert_ne!(
        p.repo.blob_id("src/export/writer.rs"),
        recorded
            .files
            .iter()
            .find(|f| f.path == "src/export/writer.rs")
            .unwrap()
            .blob
    );
    assert_eq!(check(&p, &recorded), Vec::<Change>::new());
}

#[test]
fn a_modified_symbol_is_drift() {
    let mut p = product();
    let recorded = provenance(&p);
    let changed = WRITER_RS
        .replace("self.rows += 1;", "self.rows += 2;")
        .replace("fn helper(&self) -> usize", "fn helper(&self) -> u64");
    p.repo.write("src/export/writer.rs", &changed);
    p.repo.commit("fix: count rows twice");
    let changes = check(&p, &recorded);
    assert_eq!(
        changes,
        vec![Change {
            path: "src/export/writer.rs".into(),
            kind: ChangeKind::Modified,
            symbols: vec!["CsvWriter::write_row".into()],
            new_path: None,
        }]
    );
    let json = serde_json::to_value(&changes[0]).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"path": "src/export/writer.rs", "kind": "modified", "symbols": ["CsvWriter::write_row"]})
    );

    // A changed doc comment is drift too: the article shows it.
    let mut q = product();
    let recorded = provenance(&q);
    q.repo.write(
        "src/export/server.go",
        SERVER_GO.replace(
            "// ExportHandler serves CSV",
            "// ExportHandler streams CSV",
        ),
    );
    q.repo.commit("docs: reword");
    let changes = check(&q, &recorded);
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].symbols, ["ExportHandler"]);
}

#[test]
fn a_removed_symbol_and_changed_prose_are_drift() {
    let mut p = product();
    let recorded = provenance(&p);
    p.repo.write(
        "src/export/formats.py",
        p.repo
            .read("src/export/formats.py")
            .replace("def export_csv", "def export_text"),
    );
    p.repo
        .write("docs/export.md", "# CSV export guide\n\nRewritten.\n");
    p.repo.commit("feat: rename export_csv");
    let mut changes = check(&p, &recorded);
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    assert_eq!(changes.len(), 3, "{changes:?}");
    assert_eq!(changes[0].path, "docs/export.md");
    assert_eq!(changes[0].kind, ChangeKind::Modified);
    assert_eq!(changes[1].path, "src/export/formats.py");
    assert_eq!(changes[1].symbols, ["export_csv"]);
    // The new name is a symbol the article does not show yet.
    assert_eq!(changes[2].kind, ChangeKind::Added);
    assert_eq!(changes[2].symbols, ["export_text"]);
}

#[test]
fn a_deleted_file_is_drift() {
    let mut p = product();
    let recorded = provenance(&p);
    p.repo.remove("src/export/server.go");
    p.repo.commit("feat!: remove the Go handler");
    let changes = check(&p, &recorded);
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].path, "src/export/server.go");
    assert_eq!(changes[0].kind, ChangeKind::Deleted);
    for name in ["MaxRows", "Options", "Options.Validate", "ExportHandler"] {
        assert!(
            changes[0].symbols.iter().any(|s| s == name),
            "{name}: {:?}",
            changes[0].symbols
        );
    }
}

#[test]
fn a_renamed_file_is_drift() {
    let mut p = product();
    let recorded = provenance(&p);
    p.repo
        .rename("src/export/formats.py", "src/export/exporters.py");
    p.repo.commit("refactor: rename the formats module");
    let changes = check(&p, &recorded);
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].kind, ChangeKind::Renamed);
    assert_eq!(changes[0].path, "src/export/formats.py");
    assert_eq!(
        changes[0].new_path.as_deref(),
        Some("src/export/exporters.py")
    );
    assert!(changes[0].symbols.contains(&"export_csv".to_string()));
    assert_eq!(
        serde_json::to_value(&changes[0]).unwrap()["kind"],
        "renamed"
    );
}

/// Every article of the feature, by surface, as a run records it.
fn provenances(p: &Product) -> Vec<(Surface, Provenance)> {
    run(
        &request(&p.repo.path, "csv-export"),
        &mut pipeline::DiscardLog,
    )
    .unwrap()
    .articles
    .into_iter()
    .map(|a| (a.surface, a.provenance))
    .collect()
}

fn drifted(p: &Product, recorded: &[(Surface, Provenance)]) -> Vec<Surface> {
    recorded
        .iter()
        .filter(|(_, provenance)| !check(p, provenance).is_empty())
        .map(|(surface, _)| *surface)
        .collect()
}

#[test]
fn a_changed_signature_drifts_the_dev_docs_only() {
    let mut p = product();
    let recorded = provenances(&p);
    assert_eq!(recorded.len(), 4);
    p.repo.write(
        "src/export/writer.rs",
        WRITER_RS.replace("cells: &[&str]", "cells: &[String]"),
    );
    p.repo.commit("feat: rows of owned cells");
    assert_eq!(drifted(&p, &recorded), [Surface::DevDocs]);
}

#[test]
fn changed_docs_and_captures_drift_what_shows_them() {
    let mut p = product();
    let recorded = provenances(&p);
    p.repo
        .write("docs/export.md", "# CSV export guide\n\nRewritten.\n");
    p.repo.commit("docs: rewrite the guide");
    // The guide is shown by the walkthrough and by the reference; never by a record of history.
    let mut surfaces = drifted(&p, &recorded);
    surfaces.sort_by_key(|s| s.as_str());
    assert_eq!(surfaces, [Surface::DevDocs, Surface::HelpCenter]);

    let mut q = product();
    let recorded = provenances(&q);
    q.repo.write(
        "docs/captures/csv-export/01-open-reports.png",
        b"\x89PNG new capture",
    );
    q.repo.commit("docs: new capture");
    assert_eq!(drifted(&q, &recorded), [Surface::HelpCenter]);
}

#[test]
fn changelog_and_blog_never_drift() {
    let mut p = product();
    let recorded: Vec<_> = provenances(&p)
        .into_iter()
        .filter(|(s, _)| matches!(s, Surface::Changelog | Surface::Blog))
        .collect();
    assert_eq!(recorded.len(), 2);
    for (_, provenance) in &recorded {
        assert!(provenance.files.is_empty() && provenance.symbols.is_empty());
    }
    p.repo.remove("src/export/server.go");
    p.repo
        .write("docs/export.md", "# CSV export guide\n\nRewritten.\n");
    p.repo.commit("feat!: drop the Go handler");
    assert_eq!(drifted(&p, &recorded), Vec::<Surface>::new());
}

#[test]
fn an_added_public_symbol_is_drift() {
    let mut p = product();
    let recorded = provenance(&p);
    p.repo.write(
        "src/export/server.go",
        format!(
            "{SERVER_GO}\n// StreamHandler streams rows as they are written.\nfunc StreamHandler(w Writer) {{}}\n\nfunc unexported() {{}}\n"
        ),
    );
    p.repo.commit("feat: stream exports");
    let changes = check(&p, &recorded);
    assert_eq!(
        changes,
        vec![Change {
            path: "src/export/server.go".into(),
            kind: ChangeKind::Added,
            symbols: vec!["StreamHandler".into()],
            new_path: None,
        }]
    );
    assert_eq!(serde_json::to_value(&changes[0]).unwrap()["kind"], "added");

    // A changed symbol and an added one in the same file are two changes.
    p.repo.write(
        "src/export/writer.rs",
        WRITER_RS
            .replace("self.rows += 1;", "self.rows += 2;")
            .replace("pub(crate) fn internal() {}", "pub fn flush_all() {}"),
    );
    p.repo.commit("feat: flush_all");
    let mut changes = check(&p, &recorded);
    changes.retain(|c| c.path == "src/export/writer.rs");
    assert_eq!(
        changes
            .iter()
            .map(|c| (c.kind, c.symbols.clone()))
            .collect::<Vec<_>>(),
        [
            (
                ChangeKind::Modified,
                vec!["CsvWriter::write_row".to_string()]
            ),
            (ChangeKind::Added, vec!["flush_all".to_string()]),
        ]
    );
}

#[test]
fn the_same_article_has_the_same_body_hash_whatever_its_version() {
    let p = product();
    let first = run(
        &request(&p.repo.path, "csv-export"),
        &mut pipeline::DiscardLog,
    )
    .unwrap();
    let versions = Surface::ALL.iter().map(|s| (*s, 7)).collect();
    let again = run(
        &RunRequest {
            commit: None,
            versions: &versions,
            ..request(&p.repo.path, "csv-export")
        },
        &mut pipeline::DiscardLog,
    )
    .unwrap();
    for (a, b) in first.articles.iter().zip(&again.articles) {
        assert_ne!(a.mdx_body, b.mdx_body, "the version differs");
        assert!(a.provenance.body_hash.is_some());
        assert_eq!(
            a.provenance.body_hash, b.provenance.body_hash,
            "{}",
            a.surface
        );
    }
    let mut q = product();
    q.repo.write(
        "src/export/writer.rs",
        WRITER_RS.replace("Rows are buffered.", "Rows are not buffered."),
    );
    q.repo.commit("docs: buffering");
    let changed = run(
        &request(&q.repo.path, "csv-export"),
        &mut pipeline::DiscardLog,
    )
    .unwrap();
    let hash = |o: &pipeline::RunOutput, s: Surface| {
        o.articles
            .iter()
            .find(|a| a.surface == s)
            .unwrap()
            .provenance
            .body_hash
            .clone()
    };
    assert_ne!(
        hash(&first, Surface::DevDocs),
        hash(&changed, Surface::DevDocs)
    );
}

#[test]
fn changed_steps_drift_the_walkthrough_only() {
    let mut p = product();
    let recorded = provenances(&p);
    // Another feature's entry changes: not this walkthrough's steps.
    let manifest = p.repo.read(".content-pipeline/features.toml");
    p.repo.write(
        ".content-pipeline/features.toml",
        manifest.replace("title = \"Grounded walkthrough\"", "title = \"Grounded\""),
    );
    p.repo.commit("docs: rename a walkthrough");
    assert_eq!(drifted(&p, &recorded), Vec::<Surface>::new());
    // This feature's step changes.
    p.repo.write(
        ".content-pipeline/features.toml",
        manifest.replace(
            "Choose **Reports** in the sidebar.",
            "Choose **Reports** at the top.",
        ),
    );
    p.repo.commit("docs: the sidebar moved");
    assert_eq!(drifted(&p, &recorded), [Surface::HelpCenter]);
    let help = &recorded
        .iter()
        .find(|(s, _)| *s == Surface::HelpCenter)
        .unwrap()
        .1;
    assert_eq!(
        check(&p, help),
        vec![Change {
            path: pipeline::MANIFEST_PATH.into(),
            kind: ChangeKind::Modified,
            symbols: Vec::new(),
            new_path: None,
        }]
    );
}

#[test]
fn drift_reads_a_rust_file_as_the_run_documents_it() {
    let mut repo = testkit::Repo::new();
    repo.write("src/lib.rs", "pub mod kv;\n");
    repo.write(
        "src/kv/mod.rs",
        "mod value;\npub use self::value::Value as Val;\n",
    );
    repo.write(
        "src/kv/value.rs",
        "/// A value.\npub struct Value;\n\n/// Not re-exported.\npub struct Helper;\n",
    );
    repo.commit("feat: kv");
    let output = run(
        &RunRequest {
            commit: None,
            surfaces: Some(&[Surface::DevDocs]),
            ..request(&repo.path, "src/kv/value.rs")
        },
        &mut pipeline::DiscardLog,
    )
    .unwrap();
    let recorded = output.articles[0].provenance.clone();
    let names: Vec<&str> = recorded.symbols.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["Val"]);
    // A new item nothing re-exports, and a change to one, are no drift of the docs.
    repo.write(
        "src/kv/value.rs",
        "/// A value.\npub struct Value;\n\n/// Not re-exported.\npub struct Helper(u8);\n\npub fn new_helper() {}\n",
    );
    repo.commit("refactor: helpers");
    let checker = DriftChecker::open(&repo.path, &pipeline::Limits::default()).unwrap();
    assert_eq!(checker.check(&recorded).unwrap(), Vec::<Change>::new());
    // A change to the re-exported item is.
    repo.write("src/kv/value.rs", "/// A value.\npub struct Value(u8);\n");
    repo.commit("feat: value holds a byte");
    let checker = DriftChecker::open(&repo.path, &pipeline::Limits::default()).unwrap();
    let changes = checker.check(&recorded).unwrap();
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].symbols, ["Val"]);
}

#[test]
fn a_module_made_private_outside_the_feature_is_drift_of_its_items() {
    let mut repo = testkit::Repo::new();
    repo.write("src/lib.rs", "pub mod kv;\n")
        .write("src/kv.rs", "/// A key.\npub struct Key;\n");
    repo.commit("feat: kv");
    let output = run(
        &RunRequest {
            commit: None,
            surfaces: Some(&[Surface::DevDocs]),
            ..request(&repo.path, "src/kv.rs")
        },
        &mut pipeline::DiscardLog,
    )
    .unwrap();
    let recorded = output.articles[0].provenance.clone();
    assert!(
        recorded
            .files
            .iter()
            .any(|f| f.path == "src/lib.rs" && f.role == pipeline::FileRole::Module),
        "{recorded:?}"
    );
    assert_eq!(recorded.symbols.len(), 1);
    // A comment in the crate root changes no item's visibility.
    repo.write("src/lib.rs", "//! The crate.\npub mod kv;\n");
    repo.commit("docs: crate comment");
    let checker = DriftChecker::open(&repo.path, &pipeline::Limits::default()).unwrap();
    assert_eq!(checker.check(&recorded).unwrap(), Vec::<Change>::new());
    // `pub mod kv` → `mod kv`: `Key` is no longer public, though src/kv.rs did not change.
    repo.write("src/lib.rs", "//! The crate.\nmod kv;\n");
    repo.commit("refactor: kv is private");
    let checker = DriftChecker::open(&repo.path, &pipeline::Limits::default()).unwrap();
    let changes = checker.check(&recorded).unwrap();
    assert_eq!(
        changes,
        vec![Change {
            path: "src/kv.rs".into(),
            kind: ChangeKind::Modified,
            symbols: vec!["Key".into()],
            new_path: None,
        }]
    );
}
