//! What a release asks of its users, as the release's own notes and commits say it: a
//! "Migration" section of the notes and a commit that tells users what to do make "How to
//! upgrade" (never "Upgrading needs no code changes"), a security fix leads the post, a
//! release with neither tag nor date in the notes shows no date, and the notes' category
//! labels and reference links never show as text.

use domain::Surface;
use pipeline::{RunRequest, run, validate_mdx};
use testkit::Repo;

use crate::Recorded;
use crate::fixture::request;

/// The article of `surface` (checked to be valid MDX): its description and body.
fn article(repo: &Repo, surface: Surface) -> (String, String) {
    let output = run(
        &RunRequest {
            surfaces: Some(&[surface]),
            ..request(&repo.path, ".")
        },
        &mut Recorded::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let article = &output.articles[0];
    validate_mdx(&article.mdx_body).unwrap_or_else(|e| panic!("{e}\n{}", article.mdx_body));
    (article.description.clone(), article.mdx_body.clone())
}

fn tag(repo: &Repo, name: &str) {
    let head = repo.git.head().unwrap().peel_to_commit().unwrap();
    repo.git
        .tag_lightweight(name, head.as_object(), false)
        .unwrap();
}

fn package(repo: &mut Repo) {
    repo.git
        .remote("origin", "https://github.com/acme/widgets")
        .unwrap();
    repo.write(
        "package.json",
        "{\"name\": \"widgets\", \"version\": \"1.2.0\", \"main\": \"index.js\"}\n",
    );
    repo.write("index.js", "export function route() {}\n");
    repo.commit("first version");
    tag(repo, "v1.2.0");
}

#[test]
fn a_migration_section_of_the_notes_is_the_upgrade_step_and_security_leads() {
    let mut repo = Repo::new();
    package(&mut repo);
    repo.write("index.js", "export function route() { return 1; }\n");
    repo.write(
        "CHANGELOG.md",
        "# widgets\n\n## 1.2.1\n\n### Patch Changes\n\n- Fix `NavLink` not applying its `pending` state ([#3](https://github.com/acme/widgets/pull/3))\n- Harden CSRF code paths ([#4](https://github.com/acme/widgets/pull/4))\n\n### Unstable Changes\n\n- Detect stale clients and reload the document ([#5](https://github.com/acme/widgets/pull/5))\n\n  #### Migration\n\n  Apps with a custom `entry.tsx` should pass the client version:\n\n  ```tsx\n  import clientVersion from \"virtual:client-version\";\n\n  return match({ clientVersion });\n  ```\n\n- Add nonce support\n\n## 1.2.0\n\n- First.\n",
    );
    repo.commit("Release 1.2.1");
    tag(&repo, "v1.2.1");

    let (description, body) = article(&repo, Surface::Blog);
    assert!(
        description.starts_with("widgets 1.2.1 hardens CSRF code paths."),
        "{description}"
    );
    assert!(
        description.ends_with("Read how to upgrade below."),
        "{description}"
    );
    assert!(!body.contains("no code changes"), "{body}");
    let upgrade = &body[body.find("## How to upgrade").expect(&body)..];
    assert!(
        upgrade.starts_with("## How to upgrade\n\n- Detect stale clients and reload the document ([#5](https://github.com/acme/widgets/pull/5))\n\nApps with a custom `entry.tsx` should pass the client version:\n\n```tsx\nimport clientVersion from \"virtual:client-version\";\n\nreturn match({ clientVersion });\n```\n"),
        "{upgrade}"
    );
    // The step's heading is not promoted to one of the post's, and its item is told once.
    assert!(!body.contains("Migration"), "{body}");
    assert_eq!(body.matches("Detect stale clients").count(), 1, "{body}");
}

#[test]
fn a_commit_that_tells_users_what_to_do_is_an_upgrade_step_whatever_the_version() {
    let mut repo = Repo::new();
    package(&mut repo);
    repo.write(
        "index.js",
        "export function route() {}\nexport const types = [];\n",
    );
    repo.commit("feat(middleware): add text/csv to default compressible types (#7)");
    repo.write(
        "index.js",
        "export function route(t) { if (t === '/*') throw 1; }\nexport const types = [];\n",
    );
    repo.commit("fix(middleware): reject catch-all compress wildcards (#8)\n\nNewCompressor(level, \"/*\") passed validation but compressed nothing at all.\nReject it at construction instead of ignoring it. Users should pass explicit content types.\n\nSigned-off-by: A <a@example.com>\n");
    tag(&repo, "v1.2.1");

    let (description, body) = article(&repo, Surface::Blog);
    // The change to act on leads; the scope is a tag of the lists, not words of the lede.
    assert_eq!(
        description,
        "widgets 1.2.1 rejects catch-all compress wildcards. It also adds text/csv to default compressible types. Read how to upgrade below.",
    );
    assert!(!body.contains("no code changes"), "{body}");
    assert!(
        body.contains("## How to upgrade\n\n- **middleware: Reject catch-all compress wildcards**: Reject it at construction instead of ignoring it. Users should pass explicit content types.\n"),
        "{body}"
    );
}

#[test]
fn a_plain_fix_release_still_needs_no_code_changes() {
    let mut repo = Repo::new();
    package(&mut repo);
    repo.write("index.js", "export function route() { return 2; }\n");
    repo.commit("fix: return the route's value (#9)\n\nThe function returned nothing when the route was known, so callers saw undefined.\n");
    tag(&repo, "v1.2.1");
    let (description, _) = article(&repo, Surface::Blog);
    assert!(
        description.ends_with("Upgrading needs no code changes."),
        "{description}"
    );
}

#[test]
fn category_labels_and_shortcut_references_of_the_notes_never_show_as_text() {
    let mut repo = Repo::new();
    package(&mut repo);
    repo.write("index.js", "export function route() { return 3; }\n");
    repo.write(
        "CHANGELOG.md",
        "# Changelog\n\n# 1.2.1\n\n- **added:** `Router::limit` for fewer connections ([#31])\n- **fixed:** Set the endpoint on the right field ([#32])\n- **fixed:** Keep `a[i]` and [the guide](https://example.com/guide) as they are ([#33])\n\n[#31]: https://github.com/acme/widgets/pull/31\n[#32]: https://github.com/acme/widgets/pull/32\n\n# 1.2.0\n\n- First.\n",
    );
    repo.commit("Release 1.2.1");
    tag(&repo, "v1.2.1");

    let (description, body) = article(&repo, Surface::Blog);
    assert_eq!(
        description,
        "widgets 1.2.1 brings Router::limit for fewer connections. It also fixes two bugs. Upgrading needs no code changes.",
    );
    assert!(
        body.contains("- `Router::limit` for fewer connections ([#31](https://github.com/acme/widgets/pull/31))\n"),
        "{body}"
    );
    assert!(
        body.contains("- Set the endpoint on the right field ([#32](https://github.com/acme/widgets/pull/32))\n"),
        "{body}"
    );
    // No definition: the number as text, the code and the link untouched.
    assert!(
        body.contains(
            "- Keep `a[i]` and [the guide](https://example.com/guide) as they are (#33)\n"
        ),
        "{body}"
    );
    for debris in ["added:", "fixed:", "[#3"] {
        assert!(
            !body
                .replace("[#31](", "")
                .replace("[#32](", "")
                .contains(debris),
            "{debris}: {body}"
        );
    }
}

#[test]
fn a_release_with_neither_tag_nor_date_shows_no_date() {
    let mut repo = Repo::new();
    package(&mut repo);
    repo.write("index.js", "export function route() { return 4; }\n");
    repo.commit("fix: return four");
    repo.write("index.js", "export function route() { return 5; }\n");
    repo.write(
        "CHANGELOG.md",
        "# Changelog\n\n## 1.2.2 - 2024-03-02\n\n- Return five.\n\n## 1.2.1\n\n- Return four.\n\n## 1.2.0\n\n- First.\n",
    );
    repo.commit("Release 1.2.2");
    tag(&repo, "v1.2.2");

    let (_, body) = article(&repo, Surface::Changelog);
    assert!(body.contains("<Update label=\"1.2.1\">\n"), "{body}");
    assert!(
        body.contains("<Update label=\"1.2.2\" description=\""),
        "{body}"
    );
}

/// A changelog built from commits leaves out internal work (refactors, tidying, comment
/// fixes), names a security advisory merged from a fork, and cleans a revert title the
/// forge cut short.
#[test]
fn commits_of_internal_work_leave_the_changelog_and_an_advisory_is_named() {
    let mut repo = Repo::new();
    package(&mut repo);
    for (i, subject) in [
        "Refactor to use atomic type",
        "Tidy build directives",
        "Fixed incorrect comment about routing",
        "Use strings.ReplaceAll where applicable",
        "Merge commit from fork\n\nhttps://github.com/acme/widgets/security/advisories/GHSA-vrw8-fxc6-2r93\n\nReported by A. Thank you!",
        "Add a route cache",
        "Revert \"fix(mw): Close created writer in the compressor middleware (#…\" (#924)",
    ]
    .into_iter()
    .enumerate()
    {
        repo.write("index.js", format!("export function route() {{ return {i}; }}\n"));
        repo.commit(subject);
    }
    tag(&repo, "v1.3.0");

    let (_, body) = article(&repo, Surface::Changelog);
    for gone in [
        "Refactor",
        "Tidy",
        "incorrect comment",
        "ReplaceAll",
        "Merge commit",
        "(#…",
    ] {
        assert!(!body.contains(gone), "{gone}:\n{body}");
    }
    assert!(
        body.contains("## Security\n\n- Fix security advisory GHSA-vrw8-fxc6-2r93"),
        "{body}"
    );
    assert!(body.contains("- Add a route cache"), "{body}");
    assert!(
        body.contains("Close created writer in the compressor middleware ("),
        "{body}"
    );
}
