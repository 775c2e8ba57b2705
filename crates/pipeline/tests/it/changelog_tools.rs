//! What a repository's changelog tools say: git-cliff's `cliff.toml`, release-please's
//! `changelog-sections`, commitizen's `change_type_map`, followed unless `[changelog]` gives
//! parsers of its own.

use domain::Surface;
use pipeline::{RunRequest, run, validate_mdx};
use testkit::Repo;

use crate::Recorded;
use crate::fixture::request;

/// A repository with `config` written at `path` and one commit under `src/` per message.
fn repo_with(path: &str, config: &str, messages: &[&str]) -> Repo {
    let mut repo = Repo::new();
    repo.write(path, config);
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.commit("Initial import");
    for (n, message) in messages.iter().enumerate() {
        let before = repo.read("src/lib.rs");
        repo.write("src/lib.rs", format!("{before}pub fn f{n}() {{}}\n"));
        repo.commit(message);
    }
    repo
}

/// The changelog of `src`, checked to be valid MDX, with what the run logged.
fn changelog(repo: &Repo) -> (String, Recorded) {
    let mut log = Recorded::default();
    let output = run(
        &RunRequest {
            commit: None,
            surfaces: Some(&[Surface::Changelog]),
            ..request(&repo.path, "src")
        },
        &mut log,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let body = output.articles[0].mdx_body.clone();
    validate_mdx(&body).unwrap_or_else(|e| panic!("{e}\n{body}"));
    (body, log)
}

/// The text of the group titled `title`, up to the next heading of its level.
fn group<'a>(body: &'a str, title: &str) -> &'a str {
    let marker = format!("## {title}\n");
    let start = body
        .find(&marker)
        .unwrap_or_else(|| panic!("no group {title}:\n{body}"))
        + marker.len();
    let rest = &body[start..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

const CLIFF: &str = r#"
[git]
conventional_commits = true
commit_parsers = [
  { message = "^feat", group = "<!-- 0 -->🚀 Features" },
  { message = "^chore\\(release\\)", skip = true },
  { body = ".*security", group = "<!-- 9 -->Security" },
  { message = "(", group = "Broken" },
  { message = "a{1000}{1000}", group = "Huge" },
  { message = "^chore", group = "<!-- 7 -->⚙️ Miscellaneous Tasks" },
]
"#;

#[test]
fn cliff_toml_groups_and_skips_commits_unless_the_manifest_gives_parsers() {
    let mut repo = repo_with(
        "cliff.toml",
        CLIFF,
        &[
            "feat: streaming reader",
            "chore: tidy the reader's buffers",
            "fix: one bug",
        ],
    );
    let (body, log) = changelog(&repo);
    assert!(
        group(&body, "🚀 Features").contains("Streaming reader"),
        "{body}"
    );
    assert!(
        group(&body, "⚙️ Miscellaneous Tasks").contains("Tidy the reader's buffers"),
        "{body}"
    );
    // What the tool does not group, the built-in rules do.
    assert!(group(&body, "Fixed").contains("One bug"), "{body}");
    for gone in ["<!--", "Broken", "Huge", "## Added"] {
        assert!(!body.contains(gone), "{gone}:\n{body}");
    }
    assert!(
        log.0
            .iter()
            .any(|(_, _, m, d)| m.contains("cliff.toml") && d["parsers"] == 3),
        "{:?}",
        log.0
    );

    repo.write(
        ".content-pipeline/features.toml",
        "[[changelog.parsers]]\ntype = \"chore\"\nskip = true\n",
    );
    repo.commit("Settings");
    let (body, _) = changelog(&repo);
    assert!(group(&body, "Added").contains("Streaming reader"), "{body}");
    assert!(
        !body.contains("Features") && !body.contains("Tidy"),
        "{body}"
    );
}

#[test]
fn release_please_sections_name_and_hide_types() {
    let repo = repo_with(
        "release-please-config.json",
        r#"{
  "packages": { ".": {} },
  "changelog-sections": [
    { "type": "feat", "section": "Features" },
    { "type": "refactor", "section": "Code Refactoring" },
    { "type": "perf", "section": "Performance Improvements", "hidden": true }
  ]
}"#,
        &[
            "feat: streaming reader",
            "refactor: split the reader",
            "perf: faster reads",
        ],
    );
    let (body, _) = changelog(&repo);
    assert!(
        group(&body, "Features").contains("Streaming reader"),
        "{body}"
    );
    assert!(
        group(&body, "Code Refactoring").contains("Split the reader"),
        "{body}"
    );
    assert!(!body.contains("Faster reads"), "{body}");
}

#[test]
fn commitizen_change_type_map_titles_the_groups() {
    let repo = repo_with(
        "pyproject.toml",
        "[project]\nname = \"reader\"\n\n[tool.commitizen]\nchange_type_map = { feat = \"New features\", fix = \"Bug fixes\" }\n",
        &["feat: streaming reader", "fix: one bug"],
    );
    let (body, _) = changelog(&repo);
    assert!(
        group(&body, "New features").contains("Streaming reader"),
        "{body}"
    );
    assert!(group(&body, "Bug fixes").contains("One bug"), "{body}");
}

#[test]
fn a_tool_file_past_its_cap_or_broken_is_not_followed() {
    let padding = "#".repeat(TOOL_FILE_CAP);
    let repo = repo_with(
        "cliff.toml",
        &format!("{CLIFF}\n{padding}\n"),
        &["feat: streaming reader"],
    );
    let (body, _) = changelog(&repo);
    assert!(group(&body, "Added").contains("Streaming reader"), "{body}");
    let repo = repo_with(
        "cliff.toml",
        "[git\ncommit_parsers = [",
        &["feat: streaming reader"],
    );
    let (body, _) = changelog(&repo);
    assert!(group(&body, "Added").contains("Streaming reader"), "{body}");
}

/// The size past which a tool's file is not read (the pipeline's `MAX_TOOL_FILE_BYTES`).
const TOOL_FILE_CAP: usize = 256 * 1024;
