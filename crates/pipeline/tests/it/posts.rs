//! Release posts from what the project wrote: the release's section of its own changelog,
//! in its words and under what its headings say; the post's description is what the
//! release means, never the package summary again; a monorepo package is announced by its
//! own name; a release of CI changes alone has no post.

use domain::Surface;
use pipeline::{RunOutput, RunRequest, run, validate_mdx};
use testkit::Repo;

use crate::Recorded;
use crate::fixture::request;

fn generate(repo: &Repo, feature: &str, surface: Surface) -> (RunOutput, Recorded) {
    let mut log = Recorded::default();
    let output = run(
        &RunRequest {
            commit: None,
            surfaces: Some(&[surface]),
            ..request(&repo.path, feature)
        },
        &mut log,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    for article in &output.articles {
        validate_mdx(&article.mdx_body).unwrap_or_else(|e| panic!("{e}\n{}", article.mdx_body));
    }
    (output, log)
}

fn tag(repo: &Repo, name: &str) {
    let head = repo.git.head().unwrap().peel_to_commit().unwrap();
    repo.git
        .tag_lightweight(name, head.as_object(), false)
        .unwrap();
}

#[test]
fn a_post_tells_the_release_in_the_words_of_the_projects_changelog() {
    let mut repo = Repo::new();
    repo.git
        .remote("origin", "https://github.com/acme/widgets")
        .unwrap();
    repo.write(
        "Cargo.toml",
        "[package]\nname = \"widgets\"\ndescription = \"Widgets for everyone\"\n",
    );
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.commit("first version");
    tag(&repo, "v1.0.0");
    repo.write("src/lib.rs", "pub fn a() {}\npub fn b() {}\n");
    repo.commit("wip: b");
    repo.write("src/lib.rs", "pub fn b() {}\n");
    repo.commit("more work");
    repo.write(
        "CHANGELOG.md",
        "# Changelog\n\n## [Unreleased]\n\n## [1.1.0] - 2024-05-01\n\n### Added\n\n- [#12][]: `Widget::b` reads\n  from a stream.\n\n### Removed\n\n- `Widget::a`; use `Widget::b`.\n\n### Fixed\n\n- Crash on empty input.\n\n### Miscellaneous Tasks\n\n- Bump the CI action.\n\n## [1.0.0] - 2024-01-01\n\n- First.\n\n[#12]: https://github.com/acme/widgets/pull/12\n",
    );
    repo.commit("Release 1.1.0");
    tag(&repo, "v1.1.0");

    let (output, _) = generate(&repo, ".", Surface::Blog);
    let post = &output.articles[0];
    assert_eq!(post.title, "What's new in widgets 1.1.0");
    // What the release means, not the package's summary once more.
    assert_eq!(
        post.description,
        "widgets 1.1.0 brings one new feature and one fix. It has one breaking change: read how to upgrade below."
    );
    let body = &post.mdx_body;
    assert!(!body.contains("Widgets for everyone"), "{body}");
    assert!(
        body.contains("## What's new\n\n- `Widget::a`; use `Widget::b`.\n- `Widget::b` reads from a stream. ([#12](https://github.com/acme/widgets/pull/12))\n"),
        "{body}"
    );
    assert!(
        body.contains("## Fixes\n\n- Crash on empty input.\n"),
        "{body}"
    );
    assert!(
        body.contains("## How to upgrade\n\n- `Widget::a`; use `Widget::b`.\n"),
        "{body}"
    );
    for gone in ["CI action", "wip", "More work", "[#12][]"] {
        assert!(!body.contains(gone), "{gone}:\n{body}");
    }
}

#[test]
fn a_monorepo_package_is_announced_by_its_own_name() {
    let mut repo = Repo::new();
    repo.write(
        "package.json",
        "{\"name\": \"@acme/repository\", \"private\": true}\n",
    );
    repo.write(
        "packages/cli/package.json",
        "{\"name\": \"@acme/cli\", \"description\": \"The command line.\"}\n",
    );
    repo.write("packages/cli/index.js", "export const a = 1;\n");
    repo.commit("feat(cli): first version");
    tag(&repo, "@acme/cli@1.0.0");
    repo.write(
        "packages/cli/index.js",
        "export const a = 1;\nexport const b = 2;\n",
    );
    repo.commit("feat(cli): add b");
    tag(&repo, "@acme/cli@1.1.0");

    let (output, _) = generate(&repo, "packages/cli", Surface::Blog);
    assert_eq!(output.articles[0].title, "What's new in @acme/cli 1.1.0");
    assert!(
        output.articles[0].mdx_body.contains("- Add b"),
        "{}",
        output.articles[0].mdx_body
    );
    let (output, _) = generate(&repo, "packages/cli", Surface::Changelog);
    assert_eq!(output.articles[0].title, "@acme/cli changelog");
}

#[test]
fn a_release_of_ci_changes_alone_has_no_post() {
    let mut repo = Repo::new();
    // The project's changelog tool lists CI changes (git-cliff's "Miscellaneous Tasks"):
    // the changelog shows them, a post never leads with them.
    repo.write(
        "cliff.toml",
        "[git]\ncommit_parsers = [\n  { message = \"^feat\", group = \"Features\" },\n  { message = \"^ci\", group = \"Miscellaneous Tasks\" },\n]\n",
    );
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.commit("feat: first version");
    tag(&repo, "v1.0.0");
    repo.write("src/lib.rs", "pub fn a() {}\n// cache\n");
    repo.commit("ci: add caching to the release job");
    repo.write("src/lib.rs", "pub fn a() {}\n// cache\n// more\n");
    repo.commit("chore: tidy the build");
    tag(&repo, "v1.0.1");
    let (output, _) = generate(&repo, "src", Surface::Changelog);
    assert!(
        output.articles[0]
            .mdx_body
            .contains("## Miscellaneous Tasks"),
        "{}",
        output.articles[0].mdx_body
    );
    let (output, log) = generate(&repo, "src", Surface::Blog);
    assert!(output.articles.is_empty(), "{:?}", output.articles);
    assert!(
        log.0.iter().any(|(_, _, m, _)| m
            .starts_with("no blog article: the release holds nothing for its users")),
        "{:?}",
        log.0
    );
}

/// A release the changelog file alone shows (no commit of the feature in it) is linked to
/// its comparison like any other: its tag and the tag before it.
#[test]
fn a_release_only_the_changelog_file_shows_gets_its_compare_link() {
    let mut repo = Repo::new();
    repo.git
        .remote("origin", "https://github.com/acme/widgets")
        .unwrap();
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.commit("first version");
    tag(&repo, "v1.0.0");
    repo.write("README.md", "# widgets\n");
    repo.write(
        "CHANGELOG.md",
        "# Changelog\n\n## 1.1.0\n\n- Documented `a`.\n\n## 1.0.0\n\n- First.\n",
    );
    repo.commit("docs and changelog");
    tag(&repo, "v1.1.0");
    let (output, _) = generate(&repo, "src", Surface::Changelog);
    let body = &output.articles[0].mdx_body;
    let section = &body[body
        .find("<Update label=\"1.1.0\"")
        .unwrap_or_else(|| panic!("{body}"))..];
    assert!(
        section.contains(
            "[Compare v1.0.0...v1.1.0](https://github.com/acme/widgets/compare/v1.0.0...v1.1.0)"
        ),
        "{body}"
    );
    assert!(section.contains("Documented `a`."), "{body}");
}
