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
        "widgets 1.1.0 has a breaking change: Widget::a; use Widget::b. It also brings one new feature and fixes one bug. Read how to upgrade below."
    );
    let body = &post.mdx_body;
    assert!(!body.contains("Widgets for everyone"), "{body}");
    assert!(
        body.contains("## What's new\n\n- `Widget::b` reads from a stream. ([#12](https://github.com/acme/widgets/pull/12))\n"),
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

/// The lede says what the release is for a user and names its most important change in the
/// entry's own words; a highlighted API the release's docs show gets a short example, linked
/// to its source at the tag; an API its docs showed before gets none.
#[test]
fn a_post_leads_with_what_the_release_means_and_shows_its_new_api() {
    let mut repo = Repo::new();
    repo.git
        .remote("origin", "https://github.com/acme/widgets")
        .unwrap();
    repo.write("pyproject.toml", "[project]\nname = \"widgets\"\n");
    repo.write("widgets/__init__.py", "def table():\n    pass\n");
    repo.write(
        "docs/usage.md",
        "# Usage\n\n```python\nfrom widgets import table\ntable()\n```\n",
    );
    repo.commit("first version");
    tag(&repo, "v1.0.0");
    repo.write(
        "widgets/__init__.py",
        "def table():\n    pass\n\ndef print_json(data):\n    pass\n",
    );
    repo.write(
        "docs/usage.md",
        "# Usage\n\n```python\nfrom widgets import table\ntable()\n```\n\n## JSON\n\nA long example first:\n\n```python\nfrom widgets import print_json, table\n\ndata = {\"a\": 1}\ntable()\nprint_json(data)\n```\n\nAnd the short one:\n\n```python\nimport widgets\nwidgets.print_json({\"a\": 1})\n```\n",
    );
    repo.write(
        "CHANGELOG.md",
        "# Changelog\n\n## [1.1.0] - 2024-05-01\n\n### Added\n\n- Added `Console.print_json` to print JSON https://github.com/acme/widgets/pull/12\n- Added `table` borders\n\n### Fixed\n\n- Fixed a crash on empty tables\n\n## [1.0.0] - 2024-01-01\n\n- First.\n",
    );
    repo.commit("print_json");
    tag(&repo, "v1.1.0");
    let commit = repo.head();

    let (output, _) = generate(&repo, ".", Surface::Blog);
    let post = &output.articles[0];
    assert_eq!(
        post.description,
        "widgets 1.1.0 adds Console.print_json to print JSON. It also brings one more new feature and fixes a crash on empty tables. Upgrading needs no code changes."
    );
    let body = &post.mdx_body;
    assert!(
        body.contains("widgets 1.1.0 adds `Console.print_json` to print JSON. It also brings one more new feature and fixes a crash on empty tables. Upgrading needs no code changes.\n"),
        "{body}"
    );
    assert!(
        body.contains(&format!(
            "For example, `Console.print_json` as [docs/usage.md](https://github.com/acme/widgets/blob/{commit}/docs/usage.md#L23) shows it:\n\n```python\nimport widgets\nwidgets.print_json({{\"a\": 1}})\n```\n"
        )),
        "{body}"
    );
    assert!(
        body.contains("- Added `Console.print_json` to print JSON ([#12](https://github.com/acme/widgets/pull/12))"),
        "{body}"
    );
    assert!(!body.contains("brings 2"), "{body}");

    // An API the docs showed before the release is not what it brings: no example.
    repo.write(
        "CHANGELOG.md",
        "# Changelog\n\n## [1.2.0] - 2024-06-01\n\n### Added\n\n- Added `print_json` indentation\n\n## [1.1.0] - 2024-05-01\n\n- Second.\n",
    );
    repo.commit("indent");
    tag(&repo, "v1.2.0");
    let (output, _) = generate(&repo, ".", Surface::Blog);
    let body = &output.articles[0].mdx_body;
    assert!(
        body.contains("widgets 1.2.0 adds `print_json` indentation."),
        "{body}"
    );
    assert!(!body.contains("For example"), "{body}");
}

/// A patch release's post tells its own fix, never what an older release brought; a
/// minimum Go the release raised is a step under "How to upgrade", said in the lede.
#[test]
fn a_patch_release_post_tells_its_fix_and_the_go_it_now_requires() {
    let mut repo = Repo::new();
    repo.write("go.mod", "module example.com/x\n\ngo 1.24.0\n");
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.commit("first version");
    tag(&repo, "v1.3.0");
    repo.write("src/lib.rs", "pub fn a() {}\npub fn b() {}\n");
    repo.write(
        "CHANGELOG.md",
        "# Changelog\n\n## 1.4.1\n\n### Fixed\n\n- Broken link in a comment (#41)\n- Fixed infinite loop with `split` (#40)\n\n## 1.4.0\n\n### Added\n\n- Added `Widget::b` for streams\n\n## 1.3.0\n\n- First.\n",
    );
    repo.commit("b");
    tag(&repo, "v1.4.0");
    repo.write(
        "src/lib.rs",
        "pub fn a() {}\npub fn b() { loop { break } }\n",
    );
    repo.write("go.mod", "module example.com/x\n\ngo 1.25.0\n");
    repo.commit("fix loop");
    tag(&repo, "v1.4.1");
    let (output, _) = generate(&repo, ".", Surface::Blog);
    let body = &output.articles[0].mdx_body;
    assert!(
        body.contains("x 1.4.1 requires Go 1.25.0 or later, up from 1.24.0. It fixes infinite loop with `split`. It also fixes one other bug. Read how to upgrade below.\n"),
        "{body}"
    );
    assert!(!body.contains("It follows"), "{body}");
    // A comment's fix comes after the others.
    assert!(
        body.find("infinite loop with `split` (#40)") < body.find("Broken link"),
        "{body}"
    );
    assert!(
        body.contains("## How to upgrade\n\n- Use Go 1.25.0 or later before upgrading: `go.mod` now requires Go `1.25.0` (it required `1.24.0`).\n"),
        "{body}"
    );
}

/// A breaking change is told once, under "How to upgrade"; one that a raised minimum Python
/// says already is a change, and the step says what to do.
#[test]
fn a_breaking_change_is_told_once_and_a_raised_python_is_a_step() {
    let mut repo = Repo::new();
    repo.write("setup.cfg", "[options]\npython_requires = >=3.8\n");
    repo.write("src/lib.py", "def a(): pass\n");
    repo.commit("first version");
    tag(&repo, "1.5.0");
    repo.remove("setup.cfg");
    repo.write(
        "pyproject.toml",
        "[project]\nname = \"x\"\nrequires-python = \">=3.9\"\n",
    );
    repo.write("src/lib.py", "def a(): pass\ndef b(): pass\n");
    repo.write(
        "CHANGELOG.md",
        "# Changelog\n\n## 1.6.0\n\n### Removals\n\n- Python 3.8 is no longer supported. (#556)\n- `Hook.old` is removed; call `Hook.new`. (#560)\n\n### Bug Fixes\n\n- Fix python 3.14 SyntaxError by rearranging code. (#573)\n\n## 1.5.0\n\n- First.\n",
    );
    repo.commit("1.6.0");
    tag(&repo, "1.6.0");
    let (output, _) = generate(&repo, ".", Surface::Blog);
    let body = &output.articles[0].mdx_body;
    assert!(
        body.contains("x 1.6.0 requires Python 3.9 or later, up from 3.8. `Hook.old` is removed; call `Hook.new`. It also fixes python 3.14 SyntaxError by rearranging code. Read how to upgrade below.\n"),
        "{body}"
    );
    // Only the change says it: the lede and "How to upgrade" say the new minimum instead.
    assert_eq!(
        body.matches("Python 3.8 is no longer supported").count(),
        1,
        "{body}"
    );
    // The lede names the breaking change; "How to upgrade" lists it; "What's new" does not.
    assert_eq!(body.matches("`Hook.old` is removed").count(), 2, "{body}");
    let upgrade = &body[body.find("## How to upgrade").expect(body)..];
    assert!(
        upgrade.starts_with("## How to upgrade\n\n- Use Python 3.9 or later before upgrading: `pyproject.toml` now requires Python `>=3.9` (it required `>=3.8`).\n- `Hook.old` is removed"),
        "{body}"
    );
    assert!(!upgrade.contains("Python 3.8"), "{body}");
}

/// Keep a Changelog's `## [Unreleased]` section is the project's own account of what is not
/// released yet: the changelog's Unreleased section shows it, not the commits' subjects.
#[test]
fn a_keep_a_changelog_unreleased_section_tells_the_unreleased_changes() {
    let mut repo = Repo::new();
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.write(
        "CHANGELOG.md",
        "# Changelog\n\n## [Unreleased]\n\n## [1.0.0] - 2024-01-01\n\n- First.\n",
    );
    repo.commit("first version");
    tag(&repo, "v1.0.0");
    repo.write("src/lib.rs", "pub fn a() {}\npub fn b() {}\n");
    repo.commit("wip on b, tweak");
    repo.write(
        "CHANGELOG.md",
        "# Changelog\n\n## [Unreleased]\n\n### Added\n\n- `b`, which reads streams.\n\n## [1.0.0] - 2024-01-01\n\n- First.\n\n[Unreleased]: https://github.com/acme/widgets/compare/v1.0.0...HEAD\n",
    );
    repo.commit("changelog");
    let (output, _) = generate(&repo, ".", Surface::Changelog);
    let body = &output.articles[0].mdx_body;
    let unreleased = &body[body
        .find("<Update label=\"Unreleased\"")
        .unwrap_or_else(|| panic!("{body}"))..];
    let unreleased = &unreleased[..unreleased.find("</Update>").unwrap_or(unreleased.len())];
    assert!(unreleased.contains("`b`, which reads streams."), "{body}");
    assert!(!unreleased.contains("wip on b"), "{body}");
}

/// Public API a release removes breaks users' code whatever its version says: a commit that
/// says it deletes a deprecated package, or whose diff removes exported names the release no
/// longer has, is a breaking change that names them; where the project's changelog says
/// nothing of them, the post's "How to upgrade" lists them and its lede says so. Tests, a Go
/// `main` package, a method of an unexported type and a Rust binary crate are no API.
#[test]
fn a_minor_release_that_removes_public_api_is_breaking() {
    let mut repo = Repo::new();
    repo.write("go.mod", "module example.com/sdk\n\ngo 1.24.0\n");
    repo.write(
        "sdk.go",
        "package sdk\n\nfunc GetApiInstance() int { return 1 }\n\nfunc Keep() {}\n\nfunc Moved(a int) {}\n\nfunc (a *api) Hidden() {}\n",
    );
    repo.write(
        "pkg/pkg.go",
        "package pkg\n\n// Deprecated: use sdk.\nfunc Old() {}\n",
    );
    repo.write("sdk_test.go", "package sdk\n\nfunc HelperForTests() {}\n");
    repo.write(
        "cmd/tool/main.go",
        "package main\n\nfunc Run() {}\n\nfunc main() {}\n",
    );
    repo.write("app/Cargo.toml", "[package]\nname = \"app\"\n");
    repo.write("app/src/main.rs", "pub fn cli() {}\nfn main() {}\n");
    repo.commit("feat: first version");
    tag(&repo, "v1.0.0");
    repo.remove("pkg/pkg.go");
    repo.commit("chore: delete deprecated pkg package (#509)");
    repo.write(
        "sdk.go",
        "package sdk\n\ntype EvaluationAPI struct{}\n\nfunc Keep() {}\n\nfunc Moved(a, b int) {}\n",
    );
    repo.write("sdk_test.go", "package sdk\n");
    repo.write("cmd/tool/main.go", "package main\n\nfunc main() {}\n");
    repo.write("app/src/main.rs", "fn main() {}\n");
    repo.commit("feat: export EvaluationAPI and simplify the surface (#511)");
    tag(&repo, "v1.1.0");

    let (output, _) = generate(&repo, ".", Surface::Changelog);
    let body = &output.articles[0].mdx_body;
    let breaking = &body[body.find("## Breaking changes").expect(body)..];
    assert!(
        breaking.starts_with("## Breaking changes\n\n- Delete deprecated pkg package"),
        "{body}"
    );
    assert!(
        breaking.contains("Export EvaluationAPI and simplify the surface"),
        "{body}"
    );
    assert!(breaking.contains("  Removes `GetApiInstance`.\n"), "{body}");
    for not_api in [
        "HelperForTests",
        "`Run`",
        "`cli`",
        "`Moved`",
        "`Keep`",
        "Hidden",
    ] {
        assert!(!body.contains(not_api), "{not_api}: {body}");
    }
    let (output, _) = generate(&repo, ".", Surface::Blog);
    let body = &output.articles[0].mdx_body;
    assert!(body.contains("Removes `GetApiInstance`."), "{body}");
    assert!(!body.contains("needs no code changes"), "{body}");

    // The project's changelog calls the release's only change a feature.
    repo.write(
        "sdk.go",
        "package sdk\n\ntype EvaluationAPI struct{}\n\nfunc Moved(a, b int) {}\n",
    );
    repo.write(
        "CHANGELOG.md",
        "# Changelog\n\n## 1.2.0\n\n### Features\n\n- Simpler evaluation API (#520)\n\n## 1.1.0\n\n- Second.\n",
    );
    repo.commit("feat: simpler evaluation API (#520)");
    tag(&repo, "v1.2.0");
    let (output, _) = generate(&repo, ".", Surface::Blog);
    let post = &output.articles[0];
    assert!(
        post.description.starts_with("sdk 1.2.0 removes Keep."),
        "{}",
        post.description
    );
    assert!(
        post.mdx_body
            .contains("- No longer in the public API (it was in v1.1.0): `Keep`.\n"),
        "{}",
        post.mdx_body
    );
}

/// A short post gives each change the sentence its commit message says beyond the subject,
/// found by the pull request its changelog item links or by the commit its entry came from;
/// a body of trailers only, or about tests, adds nothing.
#[test]
fn a_short_post_tells_each_change_in_the_words_of_its_commit() {
    let mut repo = Repo::new();
    repo.write("go.mod", "module example.com/flags\n\ngo 1.24.0\n");
    repo.write(
        "flags.go",
        "package flags\n\nfunc Int() int64 { return 0 }\n",
    );
    repo.commit("feat: first version");
    tag(&repo, "v1.0.0");
    repo.write(
        "flags.go",
        "package flags\n\nfunc Int() int64 { return 1 }\n",
    );
    repo.commit("fix: use int64 in IntEvaluation (#464)\n\nThe IntEvaluation method was using int, which caused\nTYPE_MISMATCH errors when users stored int64 values.\n\nSigned-off-by: A <a@example.com>\n");
    repo.write(
        "flags.go",
        "package flags\n\nfunc Int() int64 { return 2 }\n",
    );
    repo.commit("fix: forward events from child providers\n\nSigned-off-by: B <b@example.com>\n");
    repo.write(
        "flags.go",
        "package flags\n\nfunc Int() int64 { return 3 }\n",
    );
    repo.commit("fix: close the stream on shutdown\n\nThe tests of the stream now run in CI on every pull request.\n");
    tag(&repo, "v1.0.1");
    let (output, _) = generate(&repo, ".", Surface::Blog);
    let body = &output.articles[0].mdx_body;
    assert!(
        body.contains("- Use int64 in IntEvaluation\n\n  The IntEvaluation method was using int, which caused TYPE_MISMATCH errors when users stored int64 values.\n"),
        "{body}"
    );
    assert!(!body.contains("Signed-off-by"), "{body}");
    assert!(!body.contains("in CI"), "{body}");

    // An item of the project's changelog finds its commit by the pull request it links.
    repo.write(
        "CHANGELOG.md",
        "# Changelog\n\n## 1.0.2\n\n### Fixed\n\n- Retry a lost connection ([#470](https://github.com/acme/flags/pull/470))\n\n## 1.0.1\n\n- Fixes.\n",
    );
    repo.commit("fix: retry a lost connection (#470)\n\nA connection dropped by the server was never opened again, so every later evaluation returned its default value.\n");
    tag(&repo, "v1.0.2");
    let (output, _) = generate(&repo, ".", Surface::Blog);
    let body = &output.articles[0].mdx_body;
    assert!(
        body.contains("\n\n  A connection dropped by the server was never opened again, so every later evaluation returned its default value.\n"),
        "{body}"
    );
}

/// An item of the project's changelog whose pull request touched only CI is no news for the
/// post's readers: it leaves the post's lists and lede (the changelog keeps it).
#[test]
fn a_changelog_item_whose_change_touched_only_ci_leaves_the_post() {
    let mut repo = Repo::new();
    repo.write("Cargo.toml", "[package]\nname = \"tui\"\n");
    repo.write("src/lib.rs", "pub fn draw() {}\n");
    repo.commit("first version");
    tag(&repo, "v0.30.1");
    repo.write(".github/workflows/merge.yml", "on: pull_request\n");
    repo.commit("Add auto-merge required gate (#2596)");
    repo.write("src/lib.rs", "pub fn draw() { /* clip */ }\n");
    repo.commit("fix(scrollbar): keep the thumb within the track (#2594)");
    repo.write(
        "CHANGELOG.md",
        "# Changelog\n\n## 0.30.2\n\n### Bug Fixes\n\n- *(scrollbar)* Keep the thumb within the track [#2594](https://github.com/o/tui/pull/2594)\n\n### Other\n\n- Add auto-merge required gate [#2596](https://github.com/o/tui/pull/2596)\n\n## 0.30.1\n\n- First.\n",
    );
    repo.commit("release 0.30.2");
    tag(&repo, "v0.30.2");
    let (output, _) = generate(&repo, ".", Surface::Blog);
    let body = &output.articles[0].mdx_body;
    assert!(body.contains("Keep the thumb within the track"), "{body}");
    assert!(!body.contains("auto-merge"), "{body}");
    assert!(!body.contains("## Other changes"), "{body}");
    assert!(
        body.contains("One more change is in the changelog."),
        "{body}"
    );
}
