//! The bounds of `pipeline::Limits` on what a repository can make a run or a drift check do:
//! each cap either fails with a message naming it, or (one oversized file) skips with a warning.

use domain::{LogLevel, LogStage, Surface};
use pipeline::{ChangeKind, DriftChecker, Limits, PipelineError, RunOutput, RunRequest, run};
use std::time::{Duration, Instant};
use testkit::Repo;

use crate::Recorded;
use crate::fixture::request;

fn dev_docs(output: &RunOutput) -> &pipeline::GeneratedArticle {
    output
        .articles
        .iter()
        .find(|a| a.surface == Surface::DevDocs)
        .expect("a dev-docs article")
}

fn run_with(
    repo: &Repo,
    feature: &str,
    limits: &Limits,
) -> (Result<RunOutput, PipelineError>, Recorded) {
    let mut log = Recorded::default();
    let result = run(
        &RunRequest {
            commit: None,
            limits,
            ..request(&repo.path, feature)
        },
        &mut log,
    );
    (result, log)
}

/// Asserts that the run failed on `cap`, that the message names it and `detail`, and that the
/// failure was logged at level error in `stage`.
fn assert_cap(
    (result, log): (Result<RunOutput, PipelineError>, Recorded),
    cap: &str,
    detail: &str,
    stage: LogStage,
) {
    let err = result.expect_err("the run must fail on the cap");
    match &err {
        PipelineError::LimitExceeded { limit, .. } => assert_eq!(*limit, cap, "{err}"),
        other => panic!("expected LimitExceeded on {cap}, got {other}"),
    }
    let message = err.to_string();
    assert!(
        message.contains(cap) && message.contains(detail),
        "{message}"
    );
    assert!(
        log.0
            .iter()
            .any(|(l, s, m, _)| *l == LogLevel::Error && *s == stage && *m == message),
        "{:?}",
        log.0
    );
}

fn documented_fns(count: usize) -> String {
    (0..count)
        .map(|i| format!("/// Function {i}.\npub fn f{i}() {{}}\n"))
        .collect()
}

#[test]
fn more_files_than_max_feature_files_fail_the_run() {
    let mut repo = Repo::new();
    for i in 0..6 {
        repo.write(&format!("src/m{i}.rs"), "pub fn x() {}\n");
    }
    repo.commit("feat: six modules");
    let limits = Limits {
        max_feature_files: 5,
        ..Limits::default()
    };
    assert_cap(
        run_with(&repo, "src", &limits),
        "max_feature_files",
        "feature 'src'",
        LogStage::Collect,
    );
    let limits = Limits {
        max_feature_files: 6,
        ..Limits::default()
    };
    run_with(&repo, "src", &limits).0.unwrap();
}

/// A package whose test folders hold far more files than the limit (Svelte's has 8,413 under
/// `tests/`) is still documented: its own files are all kept, test folders fill what the cap
/// leaves, and the run log says how many were left out. Past twenty times the cap the walk
/// stops and the run fails.
#[test]
fn test_folders_past_max_feature_files_are_left_out_with_a_warning() {
    let mut repo = Repo::new();
    for i in 0..3 {
        repo.write(&format!("pkg/src/m{i}.rs"), "/// A thing.\npub fn x() {}\n");
    }
    for i in 0..8 {
        repo.write(
            &format!("pkg/tests/samples/s{i}/main.svelte"),
            "<p>hi</p>\n",
        );
    }
    repo.write("pkg/fixtures/a.json", "{}\n")
        .write("pkg/src/__snapshots__/m0.snap", "x\n");
    repo.commit("feat: a package with many test samples");
    let limits = Limits {
        max_feature_files: 5,
        ..Limits::default()
    };
    let (result, log) = run_with(&repo, "pkg", &limits);
    let output = result.expect("test folders past the cap do not fail the run");
    assert!(
        dev_docs(&output).mdx_body.contains("m0"),
        "the package's own files are read"
    );
    let warned: Vec<_> = log
        .0
        .iter()
        .filter(|(l, s, m, _)| {
            *l == LogLevel::Warn && *s == LogStage::Collect && m.contains("max_feature_files")
        })
        .collect();
    assert_eq!(warned.len(), 1, "{:?}", log.0);
    // 10 files in test folders, 2 of them kept beside the package's 3.
    assert_eq!(warned[0].3["left_out"], 8, "{:?}", warned[0]);

    // Other files past the cap still fail the run, whatever the tests.
    for i in 3..6 {
        repo.write(&format!("pkg/src/m{i}.rs"), "pub fn x() {}\n");
    }
    repo.commit("feat: more modules");
    assert_cap(
        run_with(&repo, "pkg", &limits),
        "max_feature_files",
        "feature 'pkg' matches more files",
        LogStage::Collect,
    );

    // The walk itself is bounded: twenty times the cap, tests included.
    let limits = Limits {
        max_feature_files: 1,
        ..Limits::default()
    };
    let mut repo = Repo::new();
    repo.write("pkg/lib.rs", "pub fn x() {}\n");
    for i in 0..20 {
        repo.write(&format!("pkg/tests/t{i}.rs"), "#[test]\nfn t() {}\n");
    }
    repo.commit("feat: twenty tests");
    assert_cap(
        run_with(&repo, "pkg", &limits),
        "max_feature_files",
        "20 times the limit",
        LogStage::Collect,
    );
}

#[test]
fn more_bytes_than_max_feature_bytes_fail_the_run() {
    let mut repo = Repo::new();
    repo.write("src/a.rs", "// a\n".repeat(100))
        .write("src/logo.png", vec![0u8; 600]);
    repo.commit("feat: a module and a logo");
    let limits = Limits {
        max_feature_bytes: 1_000,
        ..Limits::default()
    };
    // Every file of the feature counts, read or not: the image too.
    assert_cap(
        run_with(&repo, "src", &limits),
        "max_feature_bytes",
        "feature 'src': 1100 bytes in 2 files",
        LogStage::Collect,
    );
}

#[test]
fn more_symbols_than_max_feature_symbols_fail_a_dev_docs_run() {
    let mut repo = Repo::new();
    repo.write("src/a.rs", documented_fns(2))
        .write("src/b.rs", documented_fns(2));
    repo.commit("feat: four functions");
    let limits = Limits {
        max_feature_symbols: 3,
        ..Limits::default()
    };
    let mut log = Recorded::default();
    let result = run(
        &RunRequest {
            commit: None,
            limits: &limits,
            surfaces: Some(&[Surface::DevDocs]),
            ..request(&repo.path, "src")
        },
        &mut log,
    );
    assert_cap(
        (result, log),
        "max_feature_symbols",
        "crossed at src/b.rs",
        LogStage::Render,
    );
}

#[test]
fn past_max_feature_symbols_the_help_center_is_still_written_from_the_docs() {
    let mut repo = Repo::new();
    repo.write(
        "README.md",
        "# Tool\n\nTool turns notes into pages.\n\n## Usage\n\n```sh\ntool build notes/\n```\n",
    )
    .write("src/a.rs", documented_fns(2))
    .write("src/b.rs", documented_fns(2))
    .write("src/c.rs", documented_fns(2));
    repo.commit("feat: a tool with generated code");
    let limits = Limits {
        max_feature_symbols: 3,
        ..Limits::default()
    };
    let mut log = Recorded::default();
    let output = run(
        &RunRequest {
            commit: None,
            limits: &limits,
            surfaces: Some(&[Surface::HelpCenter, Surface::DevDocs]),
            ..request(&repo.path, ".")
        },
        &mut log,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let surfaces: Vec<Surface> = output.articles.iter().map(|a| a.surface).collect();
    assert_eq!(surfaces, [Surface::HelpCenter], "{:?}", log.0);
    let help = &output.articles[0].mdx_body;
    assert!(help.contains("tool build notes/"), "{help}");
    for (stage, said) in [
        (LogStage::Extract, "left the feature's code out"),
        (LogStage::Render, "no dev-docs article"),
    ] {
        assert!(
            log.0.iter().any(|(l, s, m, _)| *l == LogLevel::Warn
                && *s == stage
                && m.contains(said)
                && (stage == LogStage::Extract || m.contains("max_feature_symbols"))),
            "{said}: {:?}",
            log.0
        );
    }
}

#[test]
fn a_file_larger_than_max_file_bytes_is_skipped_with_a_warning() {
    let mut repo = Repo::new();
    repo.write("src/small.rs", documented_fns(1))
        .write("src/generated.rs", documented_fns(100));
    repo.commit("feat: a small and a generated module");
    let limits = Limits {
        max_file_bytes: 1_000,
        ..Limits::default()
    };
    let (result, log) = run_with(&repo, "src", &limits);
    let output = result.unwrap();
    // The reference is the article that documents symbols.
    let provenance = &dev_docs(&output).provenance;
    assert_eq!(provenance.symbols.len(), 1, "{provenance:?}");
    assert_eq!(provenance.symbols[0].path, "src/small.rs");
    let skipped = log
        .0
        .iter()
        .find(|(l, s, m, _)| {
            *l == LogLevel::Warn && *s == LogStage::Extract && m.contains("max_file_bytes")
        })
        .expect("a warning names the skipped file");
    assert_eq!(skipped.3["path"], "src/generated.rs");
    assert_eq!(skipped.3["max_file_bytes"], 1_000);
}

/// The warning that says a source file was left out for crossing `limit`: its details.
fn skipped_past(log: &Recorded, limit: &str) -> serde_json::Value {
    log.0
        .iter()
        .find(|(l, s, m, d)| {
            *l == LogLevel::Warn
                && *s == LogStage::Extract
                && m == "skipped a source file past a limit"
                && d["error"].as_str().is_some_and(|e| e.contains(limit))
        })
        .unwrap_or_else(|| panic!("a warning names the file past {limit}: {:?}", log.0))
        .3
        .clone()
}

#[test]
fn a_file_nested_deeper_than_max_nesting_depth_is_left_out_with_a_warning() {
    let mut repo = Repo::new();
    let deep = format!("x = 1\n{}{}\n", "[".repeat(300), "]".repeat(300));
    repo.write("src/ok.rs", documented_fns(1))
        .write("src/deep.py", deep)
        // Brackets inside strings open nothing: this file nests two levels.
        .write(
            "src/colors.go",
            format!(
                "package colors\n\n// Codes are terminal colours.\nvar Codes = []string{{\n{}}}\n",
                "\t\"\\x1b[33m\\x1b[1m[[[\",\n".repeat(200)
            ),
        );
    repo.commit("feat: deep lists");
    let (result, log) = run_with(&repo, "src", &Limits::default());
    let output = result.unwrap();
    let skipped = skipped_past(&log, "max_nesting_depth");
    assert_eq!(skipped["path"], "src/deep.py");
    assert!(
        skipped["error"]
            .as_str()
            .unwrap()
            .contains("src/deep.py, line 2"),
        "{skipped}"
    );
    let documented: Vec<_> = dev_docs(&output)
        .provenance
        .symbols
        .iter()
        .map(|s| s.path.clone())
        .collect();
    assert!(
        documented.contains(&"src/ok.rs".to_owned()),
        "{documented:?}"
    );
    assert!(
        documented.contains(&"src/colors.go".to_owned()),
        "{documented:?}"
    );
    let limits = Limits {
        max_nesting_depth: 300,
        ..Limits::default()
    };
    let (result, log) = run_with(&repo, "src", &limits);
    result.unwrap();
    assert!(
        !log.0
            .iter()
            .any(|(_, _, m, _)| m == "skipped a source file past a limit"),
        "{:?}",
        log.0
    );
}

#[test]
fn a_file_whose_parse_takes_longer_than_max_parse_millis_is_left_out_with_a_warning() {
    let mut repo = Repo::new();
    // 400 KB of tokens that never make an item: tree-sitter's error recovery at work.
    repo.write("src/garbage.rs", "pub\n".repeat(100_000));
    repo.commit("feat: garbage");
    let limits = Limits {
        max_parse_millis: 1,
        ..Limits::default()
    };
    let (result, log) = run_with(&repo, "src", &limits);
    assert_eq!(
        skipped_past(&log, "max_parse_millis")["path"],
        "src/garbage.rs"
    );
    if let Err(e) = result {
        assert!(!e.to_string().contains("max_parse_millis"), "{e}");
    }
}

#[test]
fn unclosed_brackets_are_refused_at_once_or_read_in_linear_time() {
    let mut repo = Repo::new();
    repo.write("src/ok.rs", documented_fns(1));
    for ext in ["rs", "py", "go"] {
        repo.write(&format!("src/hostile.{ext}"), "(".repeat(128_000));
    }
    // One bracket per line: a script of one 128 K line would be skipped as minified before
    // it reaches the parser.
    repo.write("src/hostile.ts", "(\n".repeat(128_000));
    repo.write("big/hostile.rs", "{".repeat(1024 * 1024 - 1));
    repo.commit("feat: unclosed brackets");

    // A 1 MiB file of unclosed brackets never reaches the parser.
    let (_, log) = run_with(&repo, "big", &Limits::default());
    let skipped = skipped_past(&log, "max_nesting_depth");
    assert_eq!(skipped["path"], "big/hostile.rs");

    // Allowed to nest that deep, 128 K unclosed brackets in each language are read in a
    // fraction of a second (they took minutes when a tree-sitter query walked the flat tree
    // of 128 K siblings); the bound here is generous, for slow machines.
    let limits = Limits {
        max_nesting_depth: 1_000_000,
        max_parse_millis: 60_000,
        ..Limits::default()
    };
    let started = Instant::now();
    let (result, log) = run_with(&repo, "src", &limits);
    let elapsed = started.elapsed();
    let output = result.unwrap();
    assert!(elapsed < Duration::from_secs(30), "{elapsed:?}");
    let extracted = log
        .0
        .iter()
        .find(|(_, s, m, _)| *s == LogStage::Extract && m == "extracted symbols and prose")
        .unwrap();
    assert_eq!(extracted.3["source_files"], 5);
    assert_eq!(dev_docs(&output).provenance.symbols.len(), 1);
}

#[test]
fn long_commit_messages_and_authors_are_cut_at_a_character_boundary() {
    let mut repo = Repo::new();
    repo.write("src/a.rs", documented_fns(1));
    // 2 MiB subjects of two-byte characters, after an odd prefix so that a cut at the byte
    // limit falls inside a character.
    let subject = format!("feat: x{}", "é".repeat(1024 * 1024));
    let author = format!("A{}", "ö".repeat(1024 * 1024));
    repo.commit_as(&subject, &author);
    let limits = Limits {
        max_commit_message_bytes: 1_000,
        ..Limits::default()
    };
    let (result, log) = run_with(&repo, "src", &limits);
    let output = result.unwrap();
    let changelog = output
        .articles
        .iter()
        .find(|a| a.surface == Surface::Changelog)
        .unwrap();
    assert!(
        changelog.mdx_body.len() < 20_000,
        "{}",
        changelog.mdx_body.len()
    );
    // "feat: x" is 7 bytes: 496 whole characters fit in the next 993.
    let kept = "é".repeat(496);
    assert!(
        changelog.mdx_body.contains(&format!("X{kept}")),
        "{}",
        changelog.mdx_body
    );
    assert!(!changelog.mdx_body.contains(&format!("X{kept}é")));
    let blog = output
        .articles
        .iter()
        .find(|a| a.surface == Surface::Blog)
        .unwrap();
    assert!(blog.mdx_body.len() < 20_000, "{}", blog.mdx_body.len());
    assert!(log.0.iter().any(|(l, s, m, d)| *l == LogLevel::Warn
        && *s == LogStage::Collect
        && m.contains("max_commit_message_bytes")
        && d["commits"] == 1));
}

#[test]
fn the_drift_checker_parses_within_the_same_bounds() {
    let mut repo = Repo::new();
    repo.write("src/a.rs", documented_fns(2));
    repo.commit("feat: two functions");
    let recorded = run(
        &RunRequest {
            commit: None,
            surfaces: Some(&[Surface::DevDocs]),
            ..request(&repo.path, "src")
        },
        &mut pipeline::DiscardLog,
    )
    .unwrap()
    .articles[0]
        .provenance
        .clone();
    assert_eq!(recorded.symbols.len(), 2);

    // Grown past max_file_bytes: its symbols cannot be read, so each documented one changed.
    repo.write(
        "src/a.rs",
        format!("{}{}", documented_fns(2), "// padding\n".repeat(200)),
    );
    repo.commit("chore: pad");
    let limits = Limits {
        max_file_bytes: 1_000,
        ..Limits::default()
    };
    let changes = DriftChecker::open(&repo.path, &limits)
        .unwrap()
        .check(&recorded)
        .unwrap();
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].kind, ChangeKind::Modified);
    assert_eq!(changes[0].symbols, ["f0", "f1"]);

    // Nested past max_nesting_depth: the check fails and says why.
    repo.write(
        "src/a.rs",
        format!("{}{}", documented_fns(2), "(".repeat(10_000)),
    );
    repo.commit("chore: brackets");
    let err = DriftChecker::open(&repo.path, &Limits::default())
        .unwrap()
        .check(&recorded)
        .unwrap_err();
    assert!(
        matches!(
            err,
            PipelineError::LimitExceeded {
                limit: "max_nesting_depth",
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("src/a.rs, line 5"), "{err}");
}

/// `src/lib.rs` → `a` → `b` → `c` → `d`, every module public, only `d` in the feature: its
/// four parents and the crate's manifest are read from outside it.
fn deep_crate() -> Repo {
    let mut repo = Repo::new();
    repo.write("Cargo.toml", "[package]\nname = \"deep\"\n")
        .write("src/lib.rs", "pub mod a;\n")
        .write("src/a.rs", "pub mod b;\n")
        .write("src/a/b.rs", "pub mod c;\n")
        .write("src/a/b/c.rs", "pub mod d;\n")
        .write("src/a/b/c/d.rs", documented_fns(1));
    repo.commit("feat: a deep module");
    repo
}

#[test]
fn files_read_outside_the_feature_for_its_modules_have_a_budget() {
    let repo = deep_crate();
    let limits = Limits {
        max_feature_files: 4,
        ..Limits::default()
    };
    assert_cap(
        run_with(&repo, "src/a/b/c/d.rs", &limits),
        "max_feature_files",
        "files read outside the feature for its module structure",
        LogStage::Extract,
    );
    let limits = Limits {
        max_feature_files: 5,
        ..Limits::default()
    };
    let output = run_with(&repo, "src/a/b/c/d.rs", &limits).0.unwrap();
    assert!(dev_docs(&output).mdx_body.contains("deep::a::b::c::d"));

    let limits = Limits {
        max_feature_bytes: 40,
        ..Limits::default()
    };
    assert_cap(
        run_with(&repo, "src/a/b/c/d.rs", &limits),
        "max_feature_bytes",
        "bytes read outside the feature",
        LogStage::Extract,
    );
}

#[test]
fn a_parent_module_outside_the_feature_is_parsed_within_the_per_file_bounds() {
    let mut repo = deep_crate();
    let recorded = run_with(&repo, "src/a/b/c/d.rs", &Limits::default())
        .0
        .unwrap();
    let recorded = dev_docs(&recorded).provenance.clone();
    repo.write("src/a.rs", format!("pub mod b;\n{}", "(".repeat(10_000)));
    repo.commit("chore: brackets in a parent");
    assert_cap(
        run_with(&repo, "src/a/b/c/d.rs", &Limits::default()),
        "max_nesting_depth",
        "src/a.rs, line 2",
        LogStage::Extract,
    );
    // The drift check reads the same parents within the same bounds.
    repo.write("src/a/b/c/d.rs", documented_fns(2));
    repo.commit("feat: a second function");
    let err = DriftChecker::open(&repo.path, &Limits::default())
        .unwrap()
        .check(&recorded)
        .unwrap_err();
    assert!(err.to_string().contains("src/a.rs, line 2"), "{err}");
}

#[test]
fn a_parent_module_is_counted_once_per_content_however_many_paths_hold_it() {
    let mut repo = Repo::new();
    let mut lib = String::new();
    for i in 0..6 {
        lib.push_str(&format!("pub mod d{i};\n"));
        repo.write(&format!("src/d{i}.rs"), "pub mod leaf;\n")
            .write(&format!("src/d{i}/leaf.rs"), documented_fns(1));
    }
    repo.write("src/lib.rs", lib).write(
        ".content-pipeline/features.toml",
        "[[features]]\nid = \"leaves\"\ntitle = \"Leaves\"\nsummary = \"Leaves.\"\npaths = [\"src/*/leaf.rs\"]\n",
    );
    repo.commit("feat: six folders with a leaf each");
    // Six files in the feature; outside it, lib.rs and one `pub mod leaf;` blob at six paths.
    let limits = Limits {
        max_feature_files: 6,
        ..Limits::default()
    };
    let output = run_with(&repo, "leaves", &limits).0.unwrap();
    assert!(dev_docs(&output).mdx_body.contains("d5::leaf"));
}
