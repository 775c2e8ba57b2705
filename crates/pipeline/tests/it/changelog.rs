//! Release notes and release posts on repositories with version tags: sections per release,
//! groups by Conventional Commits type, what is always left out, reverts, breaking changes,
//! links, the `[changelog]` settings, renames, and the blog post of the newest release.

use domain::Surface;
use pipeline::{PipelineError, RunOutput, RunRequest, run, validate_mdx};
use testkit::Repo;

use crate::Recorded;
use crate::fixture::request;

/// A repository with one source file under `src/`, so that `src` is an implicit feature.
fn repo() -> Repo {
    let mut repo = Repo::new();
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.commit("feat: first version");
    repo
}

/// A change under `src/` committed with `message`.
fn change(repo: &mut Repo, message: &str) -> String {
    change_as(repo, message, "Ada Lovelace")
}

fn change_as(repo: &mut Repo, message: &str, author: &str) -> String {
    let n = repo.read("src/lib.rs").lines().count();
    repo.write(
        "src/lib.rs",
        format!("{}pub fn f{n}() {{}}\n", repo.read("src/lib.rs")),
    );
    repo.commit_as(message, author)
}

fn tag(repo: &Repo, name: &str) {
    let head = repo.git.head().unwrap().peel_to_commit().unwrap();
    repo.git
        .tag_lightweight(name, head.as_object(), false)
        .unwrap();
}

fn body(repo: &Repo, feature: &str, since: Option<&str>, surface: Surface) -> String {
    let (output, _) = generate(repo, feature, since, surface);
    let body = output.articles[0].mdx_body.clone();
    validate_mdx(&body).unwrap_or_else(|e| panic!("{e}\n{body}"));
    body
}

fn generate(
    repo: &Repo,
    feature: &str,
    since: Option<&str>,
    surface: Surface,
) -> (RunOutput, Recorded) {
    let mut log = Recorded::default();
    let surfaces = [surface];
    let output = run(
        &RunRequest {
            commit: None,
            since_commit: since,
            surfaces: Some(&surfaces),
            ..request(&repo.path, feature)
        },
        &mut log,
    )
    .unwrap();
    (output, log)
}

fn changelog(repo: &Repo) -> String {
    body(repo, "src", None, Surface::Changelog)
}

fn changelog_since(repo: &Repo, since: &str) -> String {
    body(repo, "src", Some(since), Surface::Changelog)
}

fn position(body: &str, s: &str) -> usize {
    body.find(s)
        .unwrap_or_else(|| panic!("missing {s:?}:\n{body}"))
}

fn with_manifest(repo: &mut Repo, manifest: &str) {
    repo.write(".content-pipeline/features.toml", manifest);
    repo.commit("chore: settings");
}

#[test]
fn a_first_run_has_one_section_per_release_newest_first_and_as_many_as_the_setting_says() {
    let mut repo = repo();
    with_manifest(&mut repo, "[changelog]\nreleases = 3\n");
    tag(&repo, "v0.1.0");
    change(&mut repo, "feat: in 0.2");
    tag(&repo, "0.2.0");
    change(&mut repo, "feat: in 0.3");
    tag(&repo, "v0.3.0");
    // A release that does not touch the feature is no section and does not count.
    repo.write("README.md", "x\n");
    repo.commit("feat: elsewhere");
    tag(&repo, "v0.3.1");
    // Nor does one of a chore and its release commit: nothing in it is listed.
    change(&mut repo, "chore: tidy src");
    change(&mut repo, "chore(release): 0.3.2");
    tag(&repo, "v0.3.2");
    change(&mut repo, "feat: in 0.4");
    tag(&repo, "v0.4.0");
    tag(&repo, "not-a-version");
    change(&mut repo, "fix: after the newest tag");
    let body = changelog(&repo);
    let unreleased = position(&body, "<Update label=\"Unreleased\"");
    let v4 = position(&body, "<Update label=\"0.4.0\" description=\"2023-11-15\">");
    let v3 = position(&body, "<Update label=\"0.3.0\"");
    let v2 = position(&body, "<Update label=\"0.2.0\"");
    assert!(unreleased < v4 && v4 < v3 && v3 < v2, "{body}");
    assert!(body.contains("- After the newest tag"));
    assert!(!body.contains("0.3.1") && !body.contains("elsewhere"));
    assert!(!body.contains("0.3.2") && !body.contains("tidy"));
    assert!(
        !body.contains("<Update label=\"0.1.0\"") && !body.contains("first version"),
        "{body}"
    );
}

#[test]
fn a_later_run_covers_the_commits_since_the_previous_run_split_at_its_tags() {
    let mut repo = repo();
    for minor in 1..=5 {
        change(&mut repo, &format!("feat: feature {minor}"));
        tag(&repo, &format!("v1.{minor}.0"));
    }
    let since = change(&mut repo, "fix: before the previous run");
    change(&mut repo, "feat: feature 6");
    tag(&repo, "v1.6.0");
    change(&mut repo, "feat: feature 7");
    tag(&repo, "v1.7.0");
    let body = body(&repo, "src", Some(&since), Surface::Changelog);
    assert!(position(&body, "label=\"1.7.0\"") < position(&body, "label=\"1.6.0\""));
    assert_eq!(body.matches("<Update").count(), 2, "{body}");
    assert!(!body.contains("before the previous run"));
}

#[test]
fn monorepo_tags_are_read_with_their_prefix() {
    let mut repo = repo();
    with_manifest(&mut repo, "[changelog]\ntag_prefix = \"pkg@\"\n");
    change(&mut repo, "feat: one");
    tag(&repo, "pkg@1.0.0");
    change(&mut repo, "feat: two");
    tag(&repo, "other@2.0.0");
    change(&mut repo, "feat: three");
    tag(&repo, "pkg@1.1.0");
    let body = changelog(&repo);
    assert!(body.contains("<Update label=\"1.1.0\""), "{body}");
    assert!(!body.contains("2.0.0"));
    let section = &body[position(&body, "label=\"1.1.0\"")..position(&body, "label=\"1.0.0\"")];
    assert!(
        section.contains("Two") && section.contains("Three"),
        "{body}"
    );

    let mut repo = repo_with_tags_like("pkg-", &["pkg-v1.0.0", "pkg-v1.1.0-rc.1"]);
    let body = changelog(&repo);
    assert!(body.contains("label=\"1.1.0-rc.1\""), "{body}");
    with_manifest(
        &mut repo,
        "[changelog]\ntag_pattern = '^pkg-v(?P<version>.+)$'\nprereleases = false\n",
    );
    let body = changelog(&repo);
    assert!(!body.contains("label=\"1.1.0-rc.1\"") && body.contains("label=\"1.0.0\""));
    assert!(position(&body, "label=\"Unreleased\"") < position(&body, "- Before pkg-v1.1.0-rc.1"));
}

/// One `feat` commit per tag, with `[changelog] tag_prefix = prefix`.
fn repo_with_tags_like(prefix: &str, tags: &[&str]) -> Repo {
    let mut repo = repo();
    with_manifest(
        &mut repo,
        &format!("[changelog]\ntag_prefix = \"{prefix}\"\n"),
    );
    for name in tags {
        change(&mut repo, &format!("feat: before {name}"));
        tag(&repo, name);
    }
    repo
}

#[test]
fn commits_are_grouped_by_type_not_by_words() {
    let mut repo = repo();
    tag(&repo, "v1.0.0");
    for message in [
        "feat(cli): remove the confirmation prompt",
        "fix: parse empty files",
        "perf: cache the index",
        "refactor: split the parser",
        "deprecate: the v1 API",
        "feat: new flag\n\nDeprecated: the old flag",
        "security: reject path traversal",
        "fix: bump zlib\n\nSecurity: CVE-2024-0001",
        "docs(security): explain the threat model",
        "chore: tidy",
        "ci: cache",
        "build: bump the toolchain",
        "test: more cases",
        "style: format",
        "docs: typos",
    ] {
        change(&mut repo, message);
    }
    let body = changelog(&repo);
    let group = |title: &str| {
        let start = position(&body, &format!("## {title}\n"));
        let end = body[start + 3..]
            .find("\n## ")
            .map_or(body.len(), |e| start + 3 + e);
        body[start..end].to_string()
    };
    assert!(group("Added").contains("**cli:** Remove the confirmation prompt"));
    assert!(group("Added").contains("- New flag") || group("Deprecated").contains("New flag"));
    assert!(group("Fixed").contains("Parse empty files"));
    assert!(group("Performance").contains("Cache the index"));
    // A refactor moves code; its users see nothing (a breaking one is listed).
    assert!(!body.contains("Split the parser"), "{body}");
    assert!(group("Deprecated").contains("The v1 API"));
    assert!(group("Deprecated").contains("New flag"), "{body}");
    assert!(group("Security").contains("Reject path traversal"));
    assert!(group("Security").contains("Bump zlib"));
    for gone in [
        "threat model",
        "tidy",
        "- Cache (",
        "toolchain",
        "more cases",
        "format",
        "typos",
    ] {
        assert!(!body.contains(gone), "{gone} listed:\n{body}");
    }
    assert!(!body.contains("## Removed"));
    let order: Vec<usize> = ["Added", "Deprecated", "Fixed", "Performance", "Security"]
        .iter()
        .map(|t| position(&body, &format!("## {t}\n")))
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{body}");

    // `other = true`: a commit without a type whose verb says nothing goes to "Other".
    change(&mut repo, "Rework the reader");
    with_manifest(&mut repo, "[changelog]\nother = true\n");
    let body = changelog(&repo);
    let other = position(&body, "## Other\n");
    assert!(body[other..].contains("- Rework the reader"), "{body}");
    assert!(!body.contains("typos"));
}

/// A repository that does not write Conventional Commits (the `log` crate, Nano ID): its
/// commits are grouped by their leading verb, as git-cliff's keepachangelog.toml does, and
/// its housekeeping (by subject or by the files changed) is left out.
#[test]
fn commits_without_a_type_are_grouped_by_their_leading_verb() {
    let mut repo = repo();
    tag(&repo, "5.1.16");
    for message in [
        "Add `customAlphabet()` size check",
        "Support Node.js 24",
        "Removed Node.js 18 and 20 support",
        "Drop the callback API",
        "Fix alphabet duplication (#601)",
        "Fix CVE-2024-0001 in the pool",
        "Port nope-id optimizations.",
        "macros: fix the level filter",
        "Update dependencies",
        "Bump fast-uri from 3.1.0 to 3.1.2",
        "Update dependency eslint to v9",
        "Fix typo",
        "Review: fixed other comparisons",
        "Release 6.0.0 version",
        "prepare for 0.4.33 release",
        "start version 2.1.2",
        "chore: tidy",
    ] {
        change(&mut repo, message);
    }
    // Commits that change documentation, CI or tests alone are housekeeping whatever they
    // say.
    repo.write("README.md", "# nanoid\n");
    repo.commit("Add a benchmark table");
    repo.write(".github/workflows/test.yml", "on: push\n");
    repo.commit("Remove Node.js 18 from CI matrix");
    repo.write("tests/pool.rs", "#[test]\nfn t() {}\n");
    repo.commit("Fix flaky pool test");
    repo.write("tox.ini", "[tox]\n")
        .write("requirements/tests.txt", "pytest\n")
        .write(".readthedocs.yaml", "version: 2\n");
    repo.commit("Test with Python 3.13");
    change_as(&mut repo, "Fix the thing Renovate found", "renovate[bot]");
    tag(&repo, "6.0.0");
    let body = body(&repo, ".", None, Surface::Changelog);
    let group = |title: &str| {
        let start = position(&body, &format!("## {title}\n"));
        let end = body[start + 3..]
            .find("\n## ")
            .map_or(body.len(), |e| start + 3 + e);
        body[start..end].to_string()
    };
    assert!(body.contains("<Update label=\"6.0.0\""), "{body}");
    assert!(
        group("Added").contains("- Add `customAlphabet()` size check"),
        "{body}"
    );
    assert!(group("Added").contains("- Support Node.js 24"));
    assert!(group("Removed").contains("- Removed Node.js 18 and 20 support"));
    // Public API dropped is a breaking change, on top of the release.
    assert!(
        group("Breaking changes").contains("- Drop the callback API"),
        "{body}"
    );
    assert!(
        group("Fixed").contains("- Fix alphabet duplication (#601)"),
        "{body}"
    );
    assert!(
        group("Fixed").contains("- **macros:** Fix the level filter"),
        "{body}"
    );
    assert!(group("Security").contains("- Fix CVE-2024-0001 in the pool"));
    assert!(
        group("Changed").contains("- Port nope-id optimizations ("),
        "{body}"
    );
    for gone in [
        "Update dependencies",
        "fast-uri",
        "eslint",
        "typo",
        "other comparisons",
        "Release 6.0.0",
        "prepare for",
        "start version",
        "Python 3.13",
        "tidy",
        "benchmark table",
        "CI matrix",
        "flaky",
        "Renovate",
    ] {
        assert!(!body.contains(gone), "{gone} listed:\n{body}");
    }

    // `unconventional = false`: git-cliff's `filter_unconventional`.
    with_manifest(&mut repo, "[changelog]\nunconventional = false\n");
    let body = changelog(&repo);
    assert!(
        !body.contains("Node.js") && !body.contains("macros"),
        "{body}"
    );
    assert!(body.contains("- First version"), "{body}");
}

/// `Revert "Revert "…""` re-applies the change: listed as that change, its quotes balanced;
/// A revert of a revert re-applies the change; a revert cancels a change of its own release
/// only, so each release says what it shipped.
#[test]
fn a_revert_of_a_revert_reapplies_the_change() {
    let mut repo = repo();
    tag(&repo, "v1.0.0");
    let removal = change(&mut repo, "Remove build.rs file");
    tag(&repo, "v1.1.0");
    let revert = change(
        &mut repo,
        &format!("Revert \"Remove build.rs file\"\n\nThis reverts commit {removal}."),
    );
    tag(&repo, "v1.2.0");
    change(
        &mut repo,
        &format!("Revert \"Revert \"Remove build.rs file\"\"\n\nThis reverts commit {revert}."),
    );
    change(&mut repo, "Revert \"Say \"hello\"\"");
    tag(&repo, "v1.3.0");
    // From the revert on: the second revert re-applies the removal.
    let body = body(&repo, "src", Some(&revert), Surface::Changelog);
    assert!(
        body.contains("## Removed\n\n- Remove build.rs file ("),
        "{body}"
    );
    assert!(body.contains("## Reverted\n\n- Say \"hello\" ("), "{body}");
    assert!(
        !body.contains("Revert \"") && !body.contains("label=\"1.2.0\""),
        "{body}"
    );

    // From the removal on: 1.2.0 shipped the revert and 1.3.0 the removal again, each in
    // its own release.
    let since_removal = changelog_since(&repo, &removal);
    let v12 = position(&since_removal, "label=\"1.2.0\"");
    assert!(
        since_removal[v12..].contains("## Reverted\n\n- Remove build.rs file ("),
        "{since_removal}"
    );
    assert!(since_removal[..v12].contains("## Removed\n\n- Remove build.rs file ("));

    // Each in a release of its own: each release says what it shipped (the removal, its
    // revert, the removal again); a revert cancels only a change of its own release.
    let body = changelog(&repo);
    let v13 = position(&body, "label=\"1.3.0\"");
    let v12 = position(&body, "label=\"1.2.0\"");
    let v11 = position(&body, "label=\"1.1.0\"");
    assert!(body[v13..v12].contains("## Removed\n\n- Remove build.rs file ("));
    assert!(body[v12..v11].contains("## Reverted\n\n- Remove build.rs file ("));
    assert!(
        body[v11..].contains("## Removed\n\n- Remove build.rs file ("),
        "{body}"
    );
}

#[test]
fn release_commits_merges_and_bots_are_always_left_out() {
    let mut repo = repo();
    with_manifest(&mut repo, "[changelog]\nother = true\n");
    for message in [
        "chore(release): 1.2.0",
        "bump: version 1.2.3 → 1.2.4",
        "chore(main): release 2.0.1",
        "release: v1.2",
        "chore: release 1.3.0",
        "v1.3.1",
    ] {
        change(&mut repo, message);
    }
    change_as(&mut repo, "fix(deps): bump serde", "dependabot[bot]");
    change_as(
        &mut repo,
        "chore(deps): update rust crate x",
        "renovate[bot]",
    );
    change_as(&mut repo, "feat: generated", "github-actions[bot]");
    change(&mut repo, "feat: kept");
    let body = changelog(&repo);
    assert!(body.contains("- Kept"), "{body}");
    for gone in [
        "1.2.0",
        "1.2.4",
        "2.0.1",
        "v1.2",
        "1.3.0",
        "1.3.1",
        "serde",
        "crate x",
        "generated",
    ] {
        assert!(!body.contains(gone), "{gone} listed:\n{body}");
    }
}

#[test]
fn a_revert_cancels_the_reverted_commit_in_range_and_is_listed_otherwise() {
    let mut repo = repo();
    let old = change(&mut repo, "feat: old option");
    tag(&repo, "v1.0.0");
    let new = change(&mut repo, "feat(io): use mmap");
    change(
        &mut repo,
        &format!("revert: feat(io): use mmap\n\nThis reverts commit {new}."),
    );
    change(
        &mut repo,
        &format!("Revert \"feat: old option\"\n\nThis reverts commit {old}."),
    );
    let body = body(&repo, "src", Some(&old), Surface::Changelog);
    assert!(!body.contains("mmap"), "{body}");
    let reverted = position(&body, "## Reverted");
    assert!(body[reverted..].contains("- Old option"), "{body}");
    assert!(!body.contains("## Removed"));
}

#[test]
fn breaking_changes_keep_their_subject_with_the_footer_beneath_on_top() {
    let mut repo = repo();
    tag(&repo, "v1.0.0");
    change(&mut repo, "feat: add a flag");
    change(
        &mut repo,
        "refactor(api)!: take options by value\n\nBREAKING CHANGE: Writer::new now takes\nWriterOptions.",
    );
    change(&mut repo, "chore!: drop Node 16");
    let body = changelog(&repo);
    let breaking = position(&body, "## Breaking changes");
    assert!(breaking < position(&body, "## Added"));
    assert!(
        body.contains("- **api:** Take options by value (`"),
        "{body}"
    );
    assert!(
        body.contains("\n\n  Writer::new now takes WriterOptions.\n"),
        "{body}"
    );
    assert!(body[breaking..].contains("- Drop Node 16"));
}

#[test]
fn links_go_to_the_commit_the_pull_request_and_the_comparison() {
    let mut repo = repo();
    repo.git
        .remote("origin", "git@github.com:acme/widgets.git")
        .unwrap();
    tag(&repo, "v1.0.0");
    let sha = change(&mut repo, "feat: add [brackets] and <tags> (#42)");
    tag(&repo, "v1.1.0");
    let body = changelog(&repo);
    assert!(
        body.contains(&format!(
            "- Add [brackets] and \\<tags\\> ([#42](https://github.com/acme/widgets/pull/42)) ([`{}`](https://github.com/acme/widgets/commit/{sha}))",
            &sha[..7]
        )),
        "{body}"
    );
    assert!(
        body.contains(
            "[Compare v1.0.0...v1.1.0](https://github.com/acme/widgets/compare/v1.0.0...v1.1.0)"
        ),
        "{body}"
    );

    // Without a known forge, plain text.
    repo.git.remote_delete("origin").unwrap();
    let body = changelog(&repo);
    assert!(body.contains(&format!("(#42) (`{}`)", &sha[..7])), "{body}");
    assert!(!body.contains("Compare"));
}

#[test]
fn settings_add_groups_skip_commits_and_rename_scopes() {
    let mut repo = repo();
    with_manifest(
        &mut repo,
        r#"
[changelog]
scopes = { cli = "Command line" }

[[changelog.parsers]]
type = "deps"
group = "Dependencies"

[[changelog.parsers]]
subject = "(?i)wip"
skip = true

[[changelog.parsers]]
author = "^Grace"
skip = true
"#,
    );
    change(&mut repo, "deps: bump regex to 1.11");
    change(&mut repo, "feat(cli): add --quiet");
    change(&mut repo, "feat: WIP parser");
    change_as(&mut repo, "fix: by Grace", "Grace Hopper");
    let body = changelog(&repo);
    assert!(position(&body, "## Added") < position(&body, "## Dependencies"));
    assert!(body.contains("- Bump regex to 1.11"));
    assert!(body.contains("- **Command line:** Add --quiet"), "{body}");
    assert!(
        !body.contains("parser") && !body.contains("by Grace"),
        "{body}"
    );

    for (manifest, key) in [
        (
            "[[changelog.parsers]]\nsubject = \"(\"\nskip = true\n",
            "changelog.parsers[0].subject",
        ),
        (
            "[changelog]\ntag_pattern = \"[\"\n",
            "changelog.tag_pattern",
        ),
        (
            "[[changelog.parsers]]\ntype = \"a{1000}{1000}\"\nskip = true\n",
            "changelog.parsers[0].type",
        ),
        (
            "[[changelog.parsers]]\ntype = \"x\"\n",
            "changelog.parsers[0].group",
        ),
    ] {
        repo.write(".content-pipeline/features.toml", manifest);
        repo.commit("chore: bad settings");
        let err = run(
            &RunRequest {
                commit: None,
                surfaces: Some(&[Surface::Changelog]),
                ..request(&repo.path, "src")
            },
            &mut Recorded::default(),
        )
        .unwrap_err();
        assert!(
            matches!(&err, PipelineError::InvalidManifest(m) if m.contains(key)),
            "{manifest}: {err}"
        );
    }
}

#[test]
fn a_file_moved_into_the_feature_keeps_its_history() {
    let mut repo = Repo::new();
    repo.write(
        "old/parser.rs",
        "pub fn parse() {}\n// a long enough body to be similar\n",
    );
    repo.commit("feat: the parser, before the move");
    repo.write(
        "old/parser.rs",
        "pub fn parse() {}\n// a long enough body to be similar\n// fixed\n",
    );
    repo.commit("fix: the parser, still at its old path");
    repo.write("old/other.rs", "pub fn other() {}\n");
    repo.commit("feat: an unrelated file at the old place");
    repo.rename("old/parser.rs", "src/parser.rs");
    repo.commit("refactor: move the parser");
    let (output, log) = generate(&repo, "src", None, Surface::Changelog);
    let body = &output.articles[0].mdx_body;
    assert!(body.contains("The parser, before the move"), "{body}");
    assert!(body.contains("The parser, still at its old path"));
    assert!(!body.contains("unrelated file"));
    let collect = log
        .0
        .iter()
        .find(|(_, _, m, _)| m == "collected files and commits")
        .unwrap();
    assert_eq!(collect.3["renames_followed"], 1);
}

#[test]
fn the_blog_announces_the_newest_release() {
    let mut repo = repo();
    repo.git
        .remote("origin", "https://github.com/acme/widgets")
        .unwrap();
    tag(&repo, "v2.12.0");
    change(&mut repo, "feat(export): add CSV export");
    change(&mut repo, "feat: faster startup");
    change(&mut repo, "fix: one bug");
    change(&mut repo, "chore: unrelated subject");
    change_as(&mut repo, "fix(deps): bump", "dependabot[bot]");
    change_as(
        &mut repo,
        "feat(api)!: rename Widget to Gadget\n\nBREAKING CHANGE: use Gadget::new",
        "Grace Hopper",
    );
    tag(&repo, "v2.13.0");
    change(&mut repo, "feat: not released yet");
    let (output, _) = generate(&repo, "src", None, Surface::Blog);
    let blog = &output.articles[0];
    // The package's source folder is announced as the package (here without a manifest:
    // the repository folder's name), never by its path.
    assert_eq!(blog.title, "What's new in repo 2.13.0");
    let body = &blog.mdx_body;
    validate_mdx(body).unwrap();
    assert!(
        body.contains("repo 2.13.0 renames Widget to Gadget. It also brings two new features and fixes one bug. Read how to upgrade below."),
        "{body}"
    );
    assert!(
        body.contains("## What's new\n\n- Faster startup\n\n### export\n\n- Add CSV export\n"),
        "{body}"
    );
    assert!(body.contains("## Fixes\n\n- One bug\n"), "{body}");
    assert!(
        body.contains("## How to upgrade\n\n- **api: Rename Widget to Gadget**: use Gadget::new")
    );
    // "Learn more" goes to addresses that resolve for any reader: the forge's comparison
    // and the folder's source, never to sibling articles' guessed paths.
    let head = repo.head();
    assert!(
        body.contains(&format!(
            "## Learn more\n\n- [Every change from v2.12.0 to v2.13.0](https://github.com/acme/widgets/compare/v2.12.0...v2.13.0)\n- [The source of src](https://github.com/acme/widgets/blob/{head}/src)\n"
        )),
        "{body}"
    );
    assert!(!body.contains("](../") && !body.contains("](./"), "{body}");
    assert!(
        body.contains("Thanks to Grace Hopper, Ada Lovelace."),
        "{body}"
    );
    for gone in [
        "dependabot",
        "unrelated subject",
        "not released",
        "spans",
        "Introducing",
    ] {
        assert!(!body.contains(gone), "{gone}:\n{body}");
    }

    // A folder new in a later release is announced inside its package's release, which is
    // not the package's first: nothing is introduced.
    repo.write("src/new/mod.rs", "pub fn new() {}\n");
    repo.commit("feat(new): a new module");
    tag(&repo, "v2.14.0");
    let (output, _) = generate(&repo, "src/new", None, Surface::Blog);
    assert!(
        output.articles[0]
            .mdx_body
            .contains("(https://github.com/acme/widgets/blob/")
    );
    assert_eq!(
        output.articles[0].title,
        "What's new in src/new in repo 2.14.0"
    );
    assert!(
        output.articles[0]
            .mdx_body
            .contains("src/new in repo 2.14.0 brings a new module."),
        "{}",
        output.articles[0].mdx_body
    );
    let (output, _) = generate(&repo, "src", None, Surface::Blog);
    assert_eq!(output.articles[0].title, "What's new in repo 2.14.0");
}

#[test]
fn tags_are_read_up_to_a_cap_and_the_log_says_so() {
    let mut repo = repo();
    change(&mut repo, "feat: tagged many times");
    // Written as packed refs, as a repository with many tags keeps them.
    let head = repo.head();
    let packed: String = (0..10_001)
        .map(|i| format!("{head} refs/tags/v0.0.{i}\n"))
        .collect();
    std::fs::write(repo.git.path().join("packed-refs"), packed).unwrap();
    let (output, log) = generate(&repo, "src", None, Surface::Changelog);
    assert!(output.articles[0].mdx_body.contains("Tagged many times"));
    assert!(
        log.0
            .iter()
            .any(|(_, _, m, d)| m.contains("more tags than are read") && d["max_tags"] == 10_000),
        "{:?}",
        log.0
    );
}

#[test]
fn a_tag_on_an_amended_release_commit_still_ends_its_release() {
    let mut repo = repo();
    tag(&repo, "v1.0.0");
    change(&mut repo, "feat: in 1.1");
    let release = change(&mut repo, "bump: version 1.0.0 → 1.1.0");
    // The tag is on a copy of the release commit that HEAD's history does not hold.
    let copy = {
        let release = repo.git.find_commit(release.parse().unwrap()).unwrap();
        repo.git
            .commit(
                None,
                &release.author(),
                &git2::Signature::now("CI", "ci@example.com").unwrap(),
                release.message().unwrap(),
                &release.tree().unwrap(),
                &[&release.parent(0).unwrap()],
            )
            .unwrap()
    };
    repo.git
        .tag_lightweight("v1.1.0", &repo.git.find_object(copy, None).unwrap(), false)
        .unwrap();
    change(&mut repo, "feat: after 1.1");
    let body = changelog(&repo);
    let unreleased = position(&body, "label=\"Unreleased\"");
    let v11 = position(&body, "label=\"1.1.0\"");
    assert!(unreleased < position(&body, "After 1.1") && position(&body, "After 1.1") < v11);
    assert!(v11 < position(&body, "- In 1.1"), "{body}");
}

#[test]
fn a_release_of_fixes_alone_lists_them_and_links_nothing_it_cannot_know() {
    let mut repo = repo();
    tag(&repo, "v1.0.0");
    change(&mut repo, "fix: one bug");
    change(&mut repo, "fix: another bug");
    tag(&repo, "v1.0.1");
    let (output, _) = generate(&repo, ".", None, Surface::Blog);
    let body = &output.articles[0].mdx_body;
    validate_mdx(body).unwrap();
    assert!(
        body.contains("repo 1.0.1 has a fix for another bug. It also fixes one other bug. Upgrading needs no code changes."),
        "{body}"
    );
    assert!(
        body.contains("## Fixes\n\n- Another bug\n- One bug\n"),
        "the body says what they fix: {body}"
    );
    // No forge: no address is known that a reader of the published post could open.
    assert!(
        !body.contains("Learn more") && !body.contains("]("),
        "{body}"
    );

    // With the package's own name, whatever the folder is called.
    repo.write(
        "Cargo.toml",
        "[package]\nname = \"widgets\"\nversion = \"1.0.2\"\n",
    );
    repo.commit("Add the crate manifest");
    change(&mut repo, "Fix the reader");
    tag(&repo, "v1.0.2");
    let (output, _) = generate(&repo, ".", None, Surface::Blog);
    assert_eq!(output.articles[0].title, "What's new in widgets 1.0.2");
    let body = &output.articles[0].mdx_body;
    assert!(
        body.contains("widgets 1.0.2 adds the crate manifest. It also fixes the reader."),
        "{body}"
    );
}

/// A release with nothing listed has no post and its feature no changelog: no filler such as
/// "refines what you already use" or "No changes".
#[test]
fn nothing_to_announce_writes_no_post_and_no_changelog() {
    let mut repo = repo();
    tag(&repo, "v1.0.0");
    change(&mut repo, "chore: tidy");
    change(&mut repo, "Update dependencies");
    tag(&repo, "v1.0.1");
    let since = repo.head();
    let surfaces = [Surface::Changelog, Surface::Blog];
    let mut log = Recorded::default();
    let output = run(
        &RunRequest {
            commit: None,
            since_commit: Some(&since),
            surfaces: Some(&surfaces),
            ..request(&repo.path, "src")
        },
        &mut log,
    )
    .unwrap();
    assert!(output.articles.is_empty(), "{:?}", output.articles);
    for surface in ["changelog", "blog"] {
        assert!(
            log.0
                .iter()
                .any(|(_, _, m, _)| m
                    == &format!("no {surface} article: no listed change in the range")),
            "{:?}",
            log.0
        );
    }
}

/// A release of refactors alone has no post, and neither list has them: moving code around
/// is nothing a reader can see or try (a breaking refactor is listed).
#[test]
fn refactors_are_not_news() {
    let mut repo = repo();
    tag(&repo, "v1.0.0");
    change(&mut repo, "refactor: split the reader into two modules");
    change(&mut repo, "Refactoring of the writer");
    change(&mut repo, "rt: refactor the scheduler");
    change(&mut repo, "chore: tidy");
    tag(&repo, "v1.0.1");
    // The post announces no release of refactors (here the first release is the newest
    // with something listed), and no article lists them.
    let (output, _) = generate(&repo, "src", None, Surface::Blog);
    assert!(
        output.articles.iter().all(|a| !a.title.contains("1.0.1")),
        "{:?}",
        output.articles
    );
    let (changelog, _) = generate(&repo, "src", None, Surface::Changelog);
    for article in output.articles.iter().chain(&changelog.articles) {
        for refactor in ["Split the reader", "Refactoring", "efactor the scheduler"] {
            assert!(!article.mdx_body.contains(refactor), "{}", article.mdx_body);
        }
    }

    // With a feature beside them, the post announces the feature and leaves them out.
    change(&mut repo, "feat: read TOML");
    change(&mut repo, "refactor: inline the buffer");
    change(&mut repo, "refactor!: rename Reader to Source");
    tag(&repo, "v1.1.0");
    let (output, _) = generate(&repo, "src", None, Surface::Blog);
    let body = &output.articles[0].mdx_body;
    validate_mdx(body).unwrap();
    assert!(
        body.contains(
            "repo 1.1.0 renames Reader to Source. It also brings one new feature. Read how to upgrade below."
        ),
        "{body}"
    );
    assert!(body.contains("- Read TOML"), "{body}");
    // A breaking refactor is news: readers must change their code.
    assert!(body.contains("Rename Reader to Source"), "{body}");
    assert!(!body.contains("nline the buffer"), "{body}");
    assert!(!body.contains("in the changelog."), "{body}");
}

#[test]
fn a_merged_pull_request_is_one_entry_under_its_title() {
    let mut repo = repo();
    let base = change(&mut repo, "feat: base");
    tag(&repo, "v1.0.0");
    // A pull request of three commits, one about tests only, merged from GitHub.
    change_as(&mut repo, "Fixed key comparison", "Matteo");
    repo.write("tests/keys.rs", "#[test]\nfn keys() {}\n");
    repo.commit_as("Review: test the comparison", "Matteo");
    let last = change_as(&mut repo, "Review: fixed other comparisons", "Matteo");
    repo.reset_to(&base);
    repo.merge(
        &last,
        "Merge pull request #732 from someone/fix-key-comparison\n\nFix key comparison",
    );
    // A merge that is no pull request groups nothing.
    let before = repo.head();
    let side = change(&mut repo, "feat: side branch work");
    repo.reset_to(&before);
    repo.merge(&side, "Merge branch 'side'");
    change(&mut repo, "fix: after the merges");
    let body = changelog(&repo);
    assert!(
        body.contains("- Fix key comparison (#732) ("),
        "the pull request's title:\n{body}"
    );
    for member in ["Fixed key comparison", "Review:"] {
        assert!(!body.contains(member), "{member} listed alone:\n{body}");
    }
    assert!(body.contains("- Side branch work"), "{body}");
    assert!(body.contains("- After the merges"), "{body}");

    // A pull request of Conventional Commits: its commits say more than its title, and are
    // listed one by one, as git-cliff lists them.
    let before = repo.head();
    change(&mut repo, "feat(io): read from stdin");
    let last = change(&mut repo, "fix(io): close the file");
    repo.reset_to(&before);
    repo.merge(
        &last,
        "Merge pull request #733 from someone/io\n\nStdin support",
    );
    let body = changelog(&repo);
    assert!(body.contains("- **io:** Read from stdin ("), "{body}");
    assert!(body.contains("- **io:** Close the file ("), "{body}");
    assert!(!body.contains("Stdin support"), "{body}");
}
