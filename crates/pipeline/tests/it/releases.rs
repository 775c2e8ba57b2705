//! Which release a change belongs to: the commits its tag reaches and no lower version's tag
//! does (maintenance branches, cherry-picks, pre-releases), per-package tags in monorepos,
//! how many releases a first run shows, and what a commit changed deciding whether it is
//! news (chores whatever their type, lint and typo commits, reverts, version bumps,
//! dependency updates).

use domain::Surface;
use pipeline::{RunRequest, run, validate_mdx};
use testkit::Repo;

use crate::Recorded;
use crate::fixture::request;
use crate::mdx_js::assert_compiles;

/// The changelog of `feature`, checked to be valid MDX and to compile.
fn changelog(repo: &Repo, feature: &str) -> String {
    let mut log = Recorded::default();
    let output = run(
        &RunRequest {
            commit: None,
            surfaces: Some(&[Surface::Changelog]),
            ..request(&repo.path, feature)
        },
        &mut log,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let body = output.articles[0].mdx_body.clone();
    validate_mdx(&body).unwrap_or_else(|e| panic!("{e}\n{body}"));
    assert_compiles(&[(feature.to_string(), body.clone())]);
    body
}

fn tag(repo: &Repo, name: &str) {
    let head = repo.git.head().unwrap().peel_to_commit().unwrap();
    repo.git
        .tag_lightweight(name, head.as_object(), false)
        .unwrap();
}

/// Appends a line to `path` and commits it with `message`.
fn append(repo: &mut Repo, path: &str, message: &str) -> String {
    let before = std::fs::read_to_string(repo.path.join(path)).unwrap_or_default();
    repo.write(path, format!("{before}// {message}\n"));
    repo.commit(message)
}

/// The text of the release section labelled `label`, up to the next one.
fn section<'a>(body: &'a str, label: &str) -> &'a str {
    let marker = format!("<Update label=\"{label}\"");
    let start = body
        .find(&marker)
        .unwrap_or_else(|| panic!("no section {label}:\n{body}"));
    let rest = &body[start + marker.len()..];
    let rest = &rest[rest.find('>').map_or(0, |i| i + 1)..];
    let end = rest.find("<Update label=").unwrap_or(rest.len());
    &rest[..end]
}

fn labels(body: &str) -> Vec<&str> {
    body.match_indices("<Update label=\"")
        .map(|(i, m)| {
            let rest = &body[i + m.len()..];
            &rest[..rest.find('"').unwrap()]
        })
        .collect()
}

#[test]
fn a_patch_release_of_a_maintenance_branch_lists_only_its_own_commits_and_a_cherry_pick_once() {
    let mut repo = Repo::new();
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.write("src/parse.rs", "pub fn parse() {}\n");
    let base = repo.commit("feat: first version");
    tag(&repo, "v1.2.0");
    append(&mut repo, "src/lib.rs", "feat: streaming reader");
    append(&mut repo, "src/lib.rs", "feat: async writer");
    repo.write("src/parse.rs", "pub fn parse() { /* empty input */ }\n");
    repo.commit("fix: crash on empty input");
    tag(&repo, "v1.3.0");
    let main = repo.head();
    // The 1.2 line: the fix cherry-picked (same change, later date), and one of its own.
    repo.reset_to(&base);
    repo.write("src/parse.rs", "pub fn parse() { /* empty input */ }\n");
    repo.commit("fix: crash on empty input");
    repo.write("src/old.rs", "pub fn old() {}\n");
    repo.commit("fix: only on the 1.2 line");
    tag(&repo, "v1.2.4");
    repo.reset_to(&main);
    append(&mut repo, "src/lib.rs", "feat: after 1.3");

    let body = changelog(&repo, "src");
    assert_eq!(
        labels(&body),
        ["Unreleased", "1.3.0", "1.2.4", "1.2.0"],
        "{body}"
    );
    let v124 = section(&body, "1.2.4");
    assert!(v124.contains("Only on the 1.2 line"), "{body}");
    assert!(v124.contains("Crash on empty input"), "{body}");
    assert!(!v124.contains("Streaming reader") && !v124.contains("Async writer"));
    let v130 = section(&body, "1.3.0");
    assert!(v130.contains("Streaming reader") && v130.contains("Async writer"));
    assert!(!v130.contains("1.2 line"), "{body}");
    assert_eq!(body.matches("Crash on empty input").count(), 1, "{body}");
    assert!(section(&body, "Unreleased").contains("After 1.3"));
}

#[test]
fn a_cherry_pick_under_another_title_is_listed_once_by_its_patch_id() {
    let mut repo = Repo::new();
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.write("src/parse.rs", "pub fn parse() {}\n");
    let base = repo.commit("feat: first version");
    tag(&repo, "v1.2.0");
    append(&mut repo, "src/lib.rs", "feat: streaming reader");
    repo.write("src/parse.rs", "pub fn parse() { /* empty input */ }\n");
    repo.commit("fix: crash on empty input (#12)");
    tag(&repo, "v1.3.0");
    let main = repo.head();
    // The same change on the 1.2 line, titled as its backport.
    repo.reset_to(&base);
    repo.write("src/parse.rs", "pub fn parse() { /* empty input */ }\n");
    repo.commit("Fix the crash on empty input on the 1.2 line");
    tag(&repo, "v1.2.1");
    repo.reset_to(&main);
    append(&mut repo, "src/lib.rs", "feat: after 1.3");

    let body = changelog(&repo, "src");
    assert_eq!(
        labels(&body),
        ["Unreleased", "1.3.0", "1.2.1", "1.2.0"],
        "{body}"
    );
    assert!(
        section(&body, "1.2.1").contains("Fix the crash on empty input on the 1.2 line"),
        "{body}"
    );
    let v130 = section(&body, "1.3.0");
    assert!(v130.contains("Streaming reader"), "{body}");
    assert!(!v130.contains("rash on empty input"), "{body}");
}

#[test]
fn a_maintenance_line_merged_back_lists_its_fixes_under_the_patch_release_only() {
    let mut repo = Repo::new();
    repo.write("src/lib.rs", "pub fn a() {}\n");
    let base = repo.commit("feat: first version");
    tag(&repo, "v2.0.0");
    append(&mut repo, "src/next.rs", "feat: next feature");
    let main = repo.head();
    repo.reset_to(&base);
    append(&mut repo, "src/lib.rs", "fix: patch fix");
    tag(&repo, "v2.0.1");
    let patch = repo.head();
    repo.reset_to(&main);
    // Merged into the main line, then released with it: newer by date than the patch fix.
    repo.write("src/lib.rs", "pub fn a() {}\n// fix: patch fix\n");
    let merge = {
        let head = repo.git.find_commit(main.parse().unwrap()).unwrap();
        let other = repo.git.find_commit(patch.parse().unwrap()).unwrap();
        let mut index = repo.git.index().unwrap();
        index
            .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
            .unwrap();
        let tree = repo.git.find_tree(index.write_tree().unwrap()).unwrap();
        let sig = git2::Signature::new("Ada", "a@example.com", &git2::Time::new(2_000_000_000, 0))
            .unwrap();
        repo.git
            .commit(
                Some("HEAD"),
                &sig,
                &sig,
                "Merge branch '2.0.x'",
                &tree,
                &[&head, &other],
            )
            .unwrap()
            .to_string()
    };
    repo.reset_to(&merge);
    tag(&repo, "v2.1.0");
    let body = changelog(&repo, "src");
    assert_eq!(labels(&body), ["2.1.0", "2.0.1", "2.0.0"], "{body}");
    assert!(section(&body, "2.1.0").contains("Next feature"));
    assert!(!section(&body, "2.1.0").contains("Patch fix"), "{body}");
    assert!(section(&body, "2.0.1").contains("Patch fix"));
}

#[test]
fn per_package_tags_of_a_monorepo_are_found_without_settings() {
    let mut repo = Repo::new();
    repo.write("packages/alpha/package.json", r#"{"name": "@scope/alpha"}"#);
    repo.write("packages/alpha/index.js", "export const a = 1;\n");
    repo.write("crates/beta/Cargo.toml", "[package]\nname = \"beta\"\n");
    repo.write("crates/beta/src/lib.rs", "pub fn b() {}\n");
    repo.write("go/mod/go.mod", "module example.com/x/go/mod\n");
    repo.write("go/mod/m.go", "package mod\n");
    repo.commit("feat: three packages");
    tag(&repo, "@scope/alpha@1.0.0");
    tag(&repo, "beta-v0.8.8");
    tag(&repo, "go/mod/v1.2.2");
    append(&mut repo, "packages/alpha/index.js", "feat: alpha streams");
    tag(&repo, "@scope/alpha@1.1.0");
    append(&mut repo, "crates/beta/src/lib.rs", "fix: beta overflow");
    tag(&repo, "beta-v0.8.9");
    append(&mut repo, "go/mod/m.go", "feat: go retries");
    tag(&repo, "go/mod/v1.2.3");
    append(&mut repo, "packages/alpha/index.js", "feat: alpha after");

    let alpha = changelog(&repo, "packages/alpha");
    assert_eq!(labels(&alpha), ["Unreleased", "1.1.0", "1.0.0"], "{alpha}");
    assert!(section(&alpha, "1.1.0").contains("Alpha streams"));
    assert!(!alpha.contains("0.8.9") && !alpha.contains("1.2.3"));
    let beta = changelog(&repo, "crates/beta");
    assert_eq!(labels(&beta), ["0.8.9", "0.8.8"], "{beta}");
    assert!(section(&beta, "0.8.9").contains("Beta overflow"));
    let go = changelog(&repo, "go/mod");
    assert_eq!(labels(&go), ["1.2.3", "1.2.2"], "{go}");
    assert!(section(&go, "1.2.3").contains("Go retries"));
}

#[test]
fn pre_releases_fold_into_their_final_release() {
    let mut repo = Repo::new();
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.commit("feat: first version");
    tag(&repo, "v1.0.0");
    append(&mut repo, "src/lib.rs", "feat: new engine");
    tag(&repo, "v2.0.0-rc.1");
    append(&mut repo, "src/lib.rs", "fix: engine startup");
    tag(&repo, "v2.0.0");
    append(&mut repo, "src/lib.rs", "feat: plugins");
    tag(&repo, "v2.1.0-beta.1");
    let body = changelog(&repo, "src");
    assert_eq!(labels(&body), ["2.1.0-beta.1", "2.0.0", "1.0.0"], "{body}");
    let v2 = section(&body, "2.0.0");
    assert!(
        v2.contains("New engine") && v2.contains("Engine startup"),
        "{body}"
    );
}

#[test]
fn a_first_run_shows_twenty_releases_by_default_and_the_setting_changes_it() {
    let mut repo = Repo::new();
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.commit("feat: first version");
    tag(&repo, "v1.0.0");
    for minor in 1..=24 {
        append(&mut repo, "src/lib.rs", &format!("feat: feature {minor}"));
        tag(&repo, &format!("v1.{minor}.0"));
    }
    let body = changelog(&repo, "src");
    assert_eq!(labels(&body).len(), 20, "{body}");
    assert_eq!(labels(&body)[19], "1.5.0");
    repo.write(
        ".content-pipeline/features.toml",
        "[changelog]\nreleases = 30\n",
    );
    repo.commit("chore: settings");
    let body = changelog(&repo, "src");
    assert_eq!(labels(&body).len(), 25, "{body}");
}

#[test]
fn a_release_of_a_dependency_update_alone_lists_it() {
    let mut repo = Repo::new();
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.commit("feat: first version");
    tag(&repo, "v1.0.0");
    repo.write("src/lib.rs", "pub fn a() {}\n// serde 1.0.2\n");
    repo.commit_as(
        "build(deps): bump serde from 1.0.1 to 1.0.2",
        "dependabot[bot]",
    );
    append(&mut repo, "src/lib.rs", "chore(release): 1.0.1");
    tag(&repo, "v1.0.1");
    append(&mut repo, "src/lib.rs", "feat: next");
    repo.write("src/lib.rs", "pub fn a() {}\n// serde 1.0.3\n");
    repo.commit_as(
        "build(deps): bump serde from 1.0.2 to 1.0.3",
        "dependabot[bot]",
    );
    tag(&repo, "v1.1.0");
    let body = changelog(&repo, "src");
    assert_eq!(labels(&body), ["1.1.0", "1.0.1", "1.0.0"], "{body}");
    let patch = section(&body, "1.0.1");
    assert!(patch.contains("## Dependencies"), "{body}");
    assert!(patch.contains("Bump serde from 1.0.1 to 1.0.2"), "{body}");
    // Beside real changes, dependency updates stay out.
    assert!(!section(&body, "1.1.0").contains("serde"), "{body}");
    assert!(!body.contains("dependabot"));
}

#[test]
fn chores_are_no_news_whatever_their_type() {
    let mut repo = Repo::new();
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.write("AGENTS.md", "# Agents\n");
    repo.commit("feat: first version");
    tag(&repo, "v1.0.0");
    append(&mut repo, "AGENTS.md", "feat: teach agents to release");
    append(&mut repo, ".agents/skills/x.md", "feat(agents): new skill");
    append(&mut repo, ".github/workflows/ci.yml", "fix: flaky CI job");
    append(&mut repo, "tests/parse.rs", "feat: test the parser");
    append(
        &mut repo,
        "CONTRIBUTING.md",
        "docs!: new contribution rules",
    );
    append(&mut repo, "src/lib.rs", "fix: lint");
    append(&mut repo, "src/lib.rs", "fix(clippy): needless borrow");
    append(&mut repo, "src/lib.rs", "fix: typo in error message");
    append(&mut repo, "src/lib.rs", "Minor tweaks");
    append(&mut repo, "src/lib.rs", "feat: real parser");
    append(&mut repo, "src/lib.rs", "v1.1.0");
    tag(&repo, "v1.1.0");
    let body = changelog(&repo, ".");
    let v11 = section(&body, "1.1.0");
    assert!(v11.contains("Real parser"), "{body}");
    for noise in [
        "agents",
        "skill",
        "CI",
        "test the parser",
        "contribution",
        "Lint",
        "borrow",
        "ypo",
        "weaks",
        "v1.1.0",
    ] {
        assert!(!v11.contains(noise), "{noise} listed:\n{body}");
    }
}

#[test]
fn version_bump_commits_are_never_entries() {
    let mut repo = Repo::new();
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.commit("feat: first version");
    tag(&repo, "v1.0.0");
    for subject in [
        "1.0.1",
        "v1.0.2",
        "Release 1.0.3",
        "chore(release): 1.0.4",
        "chore: v1.0.5",
        "Release pkg v1.0.6",
        "pkg@1.0.7",
        "Bump version to 1.0.8",
        "fix: real fix",
    ] {
        append(&mut repo, "src/lib.rs", subject);
    }
    tag(&repo, "v1.1.0");
    let body = changelog(&repo, "src");
    let v11 = section(&body, "1.1.0");
    assert!(v11.contains("Real fix"), "{body}");
    assert_eq!(v11.matches("\n- ").count(), 1, "{body}");
}

#[test]
fn a_revert_title_is_clean_and_a_revert_in_range_cancels_its_change() {
    let mut repo = Repo::new();
    repo.write("src/lib.rs", "pub fn a() {}\n");
    let old = append(&mut repo, "src/lib.rs", "feat: old option");
    tag(&repo, "v1.0.0");
    let new = append(&mut repo, "src/lib.rs", "feat: shiny cache");
    append(
        &mut repo,
        "src/lib.rs",
        &format!("Revert \"feat: shiny cache\" (#41)\n\nThis reverts commit {new}."),
    );
    append(
        &mut repo,
        "src/lib.rs",
        &format!("Revert \"feat: old option\" (#42)\n\nThis reverts commit {old}."),
    );
    append(&mut repo, "src/lib.rs", "Revert \"fix: a subject cut sho");
    tag(&repo, "v1.1.0");
    let body = changelog(&repo, "src");
    let v11 = section(&body, "1.1.0");
    assert!(!v11.contains("cache"), "{body}");
    assert!(v11.contains("- Old option (#42)"), "{body}");
    assert!(v11.contains("- A subject cut sho"), "{body}");
    assert!(!v11.contains('"'), "{body}");
}

#[test]
fn the_projects_own_changelog_gives_the_released_sections_and_commits_the_rest() {
    let mut repo = Repo::new();
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.commit("feat: first version");
    tag(&repo, "v0.9.0");
    append(&mut repo, "src/lib.rs", "refactor: split the parser");
    append(&mut repo, "src/lib.rs", "feat: streaming");
    tag(&repo, "v1.0.0");
    append(&mut repo, "src/lib.rs", "fix: a fix the file does not list");
    tag(&repo, "v1.0.1");
    append(&mut repo, "src/lib.rs", "chore: tidy");
    tag(&repo, "v1.0.2");
    append(&mut repo, "src/lib.rs", "feat: coming soon");
    repo.write(
        "CHANGELOG.md",
        "# Changelog\n\nAll notable changes.\n\n## [Unreleased]\n\n## [1.0.2]\n\n- Docs of the fix.\n\n\
         ## [1.0.0] - 2024-05-01\n\n\
         ### Removed\n\n- **Breaking:** `Reader::old` is gone; use [`Reader::new`][new].\n\n\
         ### Deprecated\n\n- `parse_v1`, to go in 2.0 <see below>.\n\n\
         ## [1.0.0-rc.1]\n\n- Folded.\n\n## [0.9.0] - 2024-01-02\n\n- First release.\n\n## [0.8.0] - 2023-12-01\n\n- Before tags.\n\n\
         [new]: https://docs.rs/x/latest/x/struct.Reader.html#method.new\n\
         [1.0.0]: https://example.com/compare/v0.9.0...v1.0.0\n",
    );
    repo.commit("docs: changelog");
    let body = changelog(&repo, "src");
    assert_eq!(
        labels(&body),
        ["Unreleased", "1.0.2", "1.0.1", "1.0.0", "0.9.0", "0.8.0"],
        "{body}"
    );
    let v1 = section(&body, "1.0.0");
    assert!(
        v1.contains("### Removed") || v1.contains("## Removed"),
        "{body}"
    );
    // A reference link is linked inline with the definition the file gave at its end.
    assert!(
        v1.contains(
            "use [`Reader::new`](https://docs.rs/x/latest/x/struct.Reader.html#method.new)."
        ),
        "{body}"
    );
    assert!(!v1.contains("[new]:"), "{body}");
    assert!(!v1.contains("[1.0.0]:"), "{body}");
    assert!(v1.contains("Deprecated") && v1.contains("parse\\_v1") || v1.contains("`parse_v1`"));
    // The file's words replace the commits of the releases it covers.
    assert!(
        !v1.contains("Streaming") && !v1.contains("parser"),
        "{body}"
    );
    assert!(section(&body, "0.9.0").contains("First release"));
    // A release the file lacks, and what is not released yet, come from the commits.
    assert!(section(&body, "1.0.1").contains("A fix the file does not list"));
    assert!(section(&body, "Unreleased").contains("Coming soon"));
    // A tagged release whose commits list nothing shows the file's section; a pre-release
    // folds into its final release.
    assert!(section(&body, "1.0.2").contains("Docs of the fix"));
    assert!(!body.contains("Folded"), "{body}");
    // A release before the project tagged any, within the first run's window.
    assert!(section(&body, "0.8.0").contains("Before tags"));
}

#[test]
fn a_post_names_its_version_caps_its_thanks_and_lists_deprecations_under_upgrading() {
    let mut repo = Repo::new();
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.commit("feat: first version");
    tag(&repo, "v1.0.0");
    for n in 0..12 {
        let before = std::fs::read_to_string(repo.path.join("src/lib.rs")).unwrap();
        repo.write("src/lib.rs", format!("{before}pub fn f{n}() {{}}\n"));
        repo.commit_as(&format!("feat: feature {n}"), &format!("Author {n}"));
    }
    append(&mut repo, "src/lib.rs", "deprecate: the v1 parser");
    tag(&repo, "v1.1.0");
    let mut log = Recorded::default();
    let output = run(
        &RunRequest {
            commit: None,
            surfaces: Some(&[Surface::Blog]),
            ..request(&repo.path, "src")
        },
        &mut log,
    )
    .unwrap();
    let post = &output.articles[0];
    validate_mdx(&post.mdx_body).unwrap();
    assert_compiles(&[("post".into(), post.mdx_body.clone())]);
    assert!(post.title.contains("1.1.0"), "{}", post.title);
    assert!(!post.title.starts_with("Introducing"), "{}", post.title);
    let upgrade = &post.mdx_body[post.mdx_body.find("## How to upgrade").unwrap()..];
    assert!(upgrade.contains("The v1 parser"), "{}", post.mdx_body);
    assert!(
        post.mdx_body.contains(" and 3 others."),
        "{}",
        post.mdx_body
    );
}

/// The title of the post of `src`.
fn post_title(repo: &Repo) -> String {
    let output = run(
        &RunRequest {
            commit: None,
            surfaces: Some(&[Surface::Blog]),
            ..request(&repo.path, "src")
        },
        &mut Recorded::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let post = &output.articles[0];
    validate_mdx(&post.mdx_body).unwrap_or_else(|e| panic!("{e}"));
    post.title.clone()
}

#[test]
fn a_post_title_names_the_package_and_version_and_introduces_only_a_first_release() {
    let mut repo = Repo::new();
    repo.write(
        "Cargo.toml",
        "[package]\nname = \"widgets\"\nversion = \"1.0.0\"\n",
    );
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.commit("feat: first version");
    append(&mut repo, "src/lib.rs", "feat: streaming reader");
    // The package's source folder is announced as the package, never as `src`.
    tag(&repo, "v1.0.0");
    assert_eq!(post_title(&repo), "Introducing widgets 1.0.0");
    // A changelog older than the first tag: the package is not new.
    repo.write(
        "CHANGELOG.md",
        "# Changelog\n\n## 1.0.0\n\n- Streaming reader.\n\n## 0.9.0\n\n- Before tags.\n",
    );
    repo.commit("Add the changelog");
    assert_eq!(post_title(&repo), "What's new in widgets 1.0.0");
    append(&mut repo, "src/lib.rs", "fix: one bug");
    tag(&repo, "v1.0.1");
    append(&mut repo, "src/lib.rs", "feat: not released yet");
    assert_eq!(post_title(&repo), "What's new in widgets 1.0.1");
}

/// A section of the project's changelog for a version above every release tag is what it
/// wrote for its next release: the Unreleased section shows it instead of the commits.
#[test]
fn the_files_section_for_the_next_version_is_the_unreleased_section() {
    let mut repo = Repo::new();
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.write(
        "CHANGES.md",
        "# Changes\n\n## Version 1.1.0\n\nUnreleased\n\n- Drop Python 3.9.\n\n## Version 1.0.0\n\nReleased 2024-01-01\n\n- First.\n",
    );
    repo.commit("first version");
    tag(&repo, "1.0.0");
    append(&mut repo, "src/lib.rs", "Use uv for the build");
    let body = changelog(&repo, "src");
    assert_eq!(labels(&body), ["Unreleased", "1.0.0"], "{body}");
    let unreleased = section(&body, "Unreleased");
    assert!(unreleased.contains("- Drop Python 3.9."), "{body}");
    assert!(!unreleased.contains("Use uv"), "{body}");
    assert!(section(&body, "1.0.0").contains("First."), "{body}");
}

/// A later run lists every release since the previous run, one whose only change to the
/// feature is its release commit too (its section of the project's changelog).
#[test]
fn a_later_run_lists_a_release_with_no_commit_of_the_feature() {
    let mut repo = Repo::new();
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.commit("feat: first version");
    tag(&repo, "v1.0.0");
    let since = repo.head();
    repo.write("README.md", "# x\n");
    repo.commit("docs: readme");
    tag(&repo, "v1.0.1");
    append(&mut repo, "src/lib.rs", "feat: streaming");
    repo.write(
        "CHANGELOG.md",
        "# Changelog\n\n## 1.1.0\n\n- Streaming.\n\n## 1.0.1\n\n- Update dependencies.\n\n## 1.0.0\n\n- First.\n",
    );
    repo.commit("chore: release 1.1.0");
    tag(&repo, "v1.1.0");
    let mut log = Recorded::default();
    let output = run(
        &RunRequest {
            commit: None,
            since_commit: Some(&since),
            surfaces: Some(&[Surface::Changelog]),
            ..request(&repo.path, "src")
        },
        &mut log,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let body = &output.articles[0].mdx_body;
    assert_eq!(labels(body), ["1.1.0", "1.0.1"], "{body}");
    assert!(
        section(body, "1.0.1").contains("Update dependencies."),
        "{body}"
    );
}

/// A repository whose first run shows `releases` releases, with its first commit.
fn windowed(releases: usize) -> Repo {
    let mut repo = Repo::new();
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.write(
        ".content-pipeline/features.toml",
        format!("[changelog]\nreleases = {releases}\n"),
    );
    repo.commit("feat: first version");
    repo
}

#[test]
fn a_first_run_says_where_the_releases_before_its_window_are() {
    // With the project's changelog file: linked at the run's commit.
    let mut repo = windowed(2);
    repo.set_origin("https://github.com/acme/widgets.git");
    for (n, version) in ["0.1.0-rc.1", "0.1.0", "0.2.0", "0.3.0", "0.4.0"]
        .iter()
        .enumerate()
    {
        append(&mut repo, "src/lib.rs", &format!("feat: change {n}"));
        tag(&repo, &format!("v{version}"));
    }
    append(&mut repo, "src/lib.rs", "feat: the last");
    tag(&repo, "v0.5.0");
    let body = changelog(&repo, "src");
    assert_eq!(labels(&body), ["0.5.0", "0.4.0"], "{body}");
    // Pre-releases are not releases of their own.
    assert!(
        body.trim_end().ends_with(
            "The 3 releases before these, back to 0.1.0, are in [the releases page](https://github.com/acme/widgets/releases)."
        ),
        "{body}"
    );
    repo.write(
        "CHANGELOG.md",
        "# Changelog\n\n## 0.5.0\n\n- The last.\n\n## 0.0.1\n\n- Before tags.\n",
    );
    let head = repo.commit("docs: changelog");
    let body = changelog(&repo, "src");
    assert!(
        body.trim_end().ends_with(&format!(
            "The 4 releases before these, back to 0.0.1, are in [CHANGELOG.md](https://github.com/acme/widgets/blob/{head}/CHANGELOG.md)."
        )),
        "{body}"
    );
    // Without a forge, the file is named; without either, the changelog says they are not
    // shown.
    let mut bare = windowed(1);
    tag(&bare, "v0.1.0");
    append(&mut bare, "src/lib.rs", "feat: next");
    tag(&bare, "v0.2.0");
    let body = changelog(&bare, "src");
    assert!(
        body.trim_end()
            .ends_with("The release before these, 0.1.0, is not shown here."),
        "{body}"
    );
    bare.write("CHANGELOG.md", "# Changelog\n\n## 0.2.0\n\n- Next.\n");
    bare.commit("docs: changelog");
    let body = changelog(&bare, "src");
    assert!(
        body.trim_end()
            .ends_with("The release before these, 0.1.0, is in `CHANGELOG.md`."),
        "{body}"
    );
    // A release within the window has no such line.
    bare.write(
        ".content-pipeline/features.toml",
        "[changelog]\nreleases = 5\n",
    );
    bare.commit("chore: settings");
    assert!(!changelog(&bare, "src").contains("before these"));
}

#[test]
fn a_release_only_the_changelog_file_shows_is_dated_by_its_tag() {
    let mut repo = Repo::new();
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.commit("feat: first version");
    tag(&repo, "v1.0.0");
    // A release that changed nothing of the feature: only the file tells it.
    append(&mut repo, "README.md", "docs: readme");
    tag(&repo, "v1.0.1");
    let tagged = repo
        .git
        .head()
        .unwrap()
        .peel_to_commit()
        .unwrap()
        .time()
        .seconds();
    // A day and more of later commits: the run's date is not the release's.
    for n in 0..30 {
        append(&mut repo, "README.md", &format!("docs: more {n}"));
    }
    repo.write(
        "CHANGELOG.md",
        "# Changelog\n\n## 1.0.1\n\n- Fixed the thing.\n\n## 1.0.0\n\n- First.\n",
    );
    repo.commit("docs: changelog");
    let body = changelog(&repo, "src");
    let day = |seconds: i64| {
        let days = seconds.div_euclid(86_400);
        // 1_700_000_000 is 2023-11-14; the fixture's clock starts there.
        format!("2023-11-{:02}", 14 + days - 1_700_000_000 / 86_400)
    };
    assert!(
        body.contains(&format!(
            "<Update label=\"1.0.1\" description=\"{}\">",
            day(tagged)
        )),
        "{body}"
    );
}

#[test]
fn a_release_is_dated_by_its_tag_in_the_time_zone_it_was_made() {
    let mut repo = Repo::new();
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.commit("feat: a");
    // Tagged at 21:30 on 3 March in UTC-5, which is already 4 March in UTC.
    let when = git2::Time::new(1_709_519_400, -300);
    let tagger = git2::Signature::new("Maintainer", "m@example.com", &when).unwrap();
    {
        let head = repo.git.head().unwrap().peel_to_commit().unwrap();
        repo.git
            .tag("v1.0.0", head.as_object(), &tagger, "Release 1.0.0", false)
            .unwrap();
    }
    append(&mut repo, "src/lib.rs", "fix: b");
    tag(&repo, "v1.0.1");
    let body = changelog(&repo, ".");
    assert!(
        body.contains("<Update label=\"1.0.0\" description=\"2024-03-03\">"),
        "{body}"
    );
}
