use domain::Surface;
use pipeline::{Change, ChangeKind, DriftChecker, Provenance, RunRequest, run};

use crate::fixture::{Product, SERVER_GO, WRITER_RS, product, request};

fn provenance(p: &Product) -> Provenance {
    let output = run(
        &RunRequest {
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
    assert_eq!(changes.len(), 2, "{changes:?}");
    assert_eq!(changes[0].path, "docs/export.md");
    assert_eq!(changes[0].kind, ChangeKind::Modified);
    assert_eq!(changes[1].path, "src/export/formats.py");
    assert_eq!(changes[1].symbols, ["export_csv"]);
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
