//! Changes not released yet as the project wrote them for its next release: pending
//! changesets and towncrier news fragments make the Unreleased section, in their words.

use domain::Surface;
use pipeline::{RunRequest, run, validate_mdx};
use testkit::Repo;

use crate::Recorded;
use crate::fixture::request;

fn changelog(repo: &Repo) -> String {
    let output = run(
        &RunRequest {
            commit: None,
            surfaces: Some(&[Surface::Changelog]),
            ..request(&repo.path, "src")
        },
        &mut Recorded::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let body = output.articles[0].mdx_body.clone();
    validate_mdx(&body).unwrap_or_else(|e| panic!("{e}\n{body}"));
    body
}

fn tag(repo: &Repo, name: &str) {
    let head = repo.git.head().unwrap().peel_to_commit().unwrap();
    repo.git
        .tag_lightweight(name, head.as_object(), false)
        .unwrap();
}

/// The text of the release section labelled `label`, up to the next one.
fn section<'a>(body: &'a str, label: &str) -> &'a str {
    let marker = format!("<Update label=\"{label}\"");
    let start = body
        .find(&marker)
        .unwrap_or_else(|| panic!("no section {label}:\n{body}"));
    let rest = &body[start + marker.len()..];
    let end = rest.find("<Update label=").unwrap_or(rest.len());
    &rest[..end]
}

#[test]
fn pending_changesets_of_the_package_are_its_unreleased_section() {
    let mut repo = Repo::new();
    repo.write("package.json", r#"{"name": "@acme/widgets"}"#);
    repo.write("src/index.js", "export const a = 1;\n");
    repo.commit("feat: first version");
    tag(&repo, "v1.0.0");
    repo.write(
        "src/index.js",
        "export const a = 1;\nexport class Gadget {}\n",
    );
    repo.write(
        ".changeset/brave-cats-dance.md",
        "---\n\"@acme/widgets\": minor\n---\n\nAdd the `Gadget` reader.\n\nIt reads gadgets.\n",
    );
    repo.write(
        ".changeset/big-bang.md",
        "---\n'@acme/widgets': major\n\"@acme/other\": patch\n---\n\nDrop Node 16.\n",
    );
    repo.write(
        ".changeset/quiet-dogs.md",
        "---\n\"@acme/other\": patch\n---\n\nOther package only.\n",
    );
    repo.write(".changeset/empty.md", "---\n---\n");
    repo.write(".changeset/README.md", "# Changesets\n\nHello.\n");
    repo.write(".changeset/config.json", "{}");
    repo.commit("feat: add the gadget class");

    let body = changelog(&repo);
    let unreleased = section(&body, "Unreleased");
    let major = unreleased
        .find("## Major Changes")
        .unwrap_or_else(|| panic!("{body}"));
    let minor = unreleased
        .find("## Minor Changes")
        .unwrap_or_else(|| panic!("{body}"));
    assert!(major < minor, "{body}");
    assert!(
        unreleased[major..minor].contains("- Drop Node 16."),
        "{body}"
    );
    assert!(
        unreleased[minor..].contains("- Add the `Gadget` reader.\n\n  It reads gadgets."),
        "{body}"
    );
    for gone in ["Other package only", "Hello", "Add the gadget class"] {
        assert!(!body.contains(gone), "{gone}:\n{body}");
    }
    assert!(section(&body, "1.0.0").contains("First version"), "{body}");
}

#[test]
fn towncrier_fragments_make_an_unreleased_section_after_the_newest_tag() {
    let mut repo = Repo::new();
    repo.write("src/reader.py", "def read():\n    pass\n");
    repo.write("newsfragments/123.feature.md", "Add streaming reads.\n");
    repo.write(
        "newsfragments/+empty.bugfix.rst",
        "Fix ``read()`` on empty files.\n",
    );
    repo.write("newsfragments/7.misc.md", "Internal shuffle.\n");
    repo.write("newsfragments/template.rst", "{{ name }}\n");
    repo.write("newsfragments/.gitignore", "!.gitignore\n");
    repo.commit("Add the reader");
    tag(&repo, "v0.1.0");

    let body = changelog(&repo);
    let unreleased = section(&body, "Unreleased");
    let features = unreleased
        .find("## Features")
        .unwrap_or_else(|| panic!("{body}"));
    let fixes = unreleased
        .find("## Bugfixes")
        .unwrap_or_else(|| panic!("{body}"));
    assert!(features < fixes, "{body}");
    assert!(
        unreleased.contains("- Add streaming reads. (#123)"),
        "{body}"
    );
    assert!(
        unreleased.contains("- Fix `read()` on empty files."),
        "{body}"
    );
    for gone in ["Internal shuffle", "name", "gitignore"] {
        assert!(!unreleased.contains(gone), "{gone}:\n{body}");
    }
    assert!(section(&body, "0.1.0").contains("Add the reader"), "{body}");
}

/// towncrier's own configuration names the fragment folder (any case, `CHANGES/`) and its
/// types: a configured type shows under its configured title, one configured without its
/// text (`showcontent = false`) and one towncrier does not know are left out.
#[test]
fn towncrier_configuration_names_the_folder_and_the_types() {
    let mut repo = Repo::new();
    repo.write("src/reader.py", "def read():\n    pass\n");
    repo.write(
        "towncrier.toml",
        "[tool.towncrier]\ndirectory = \"CHANGES/\"\n\n[[tool.towncrier.type]]\ndirectory = \"bugfix\"\nname = \"Bug fixes\"\nshowcontent = true\n\n[[tool.towncrier.type]]\ndirectory = \"packaging\"\nname = \"Packaging updates and notes for downstreams\"\nshowcontent = true\n\n[[tool.towncrier.type]]\ndirectory = \"misc\"\nname = \"Miscellaneous internal changes\"\nshowcontent = false\n",
    );
    repo.write(
        "CHANGES/743.bugfix.rst",
        "Fix ``copy.copy()`` sharing the list.\n",
    );
    repo.write(
        "CHANGES/741.packaging.rst",
        "Build wheels for CPython 3.14.\n",
    );
    repo.write("CHANGES/9.misc.rst", "Internal shuffle.\n");
    repo.write("CHANGES/8.feature.rst", "Not a configured type.\n");
    repo.commit("Add the reader");
    tag(&repo, "v0.1.0");
    repo.write("src/reader.py", "def read():\n    return []\n");
    repo.commit("Switch the build to uv");

    let body = changelog(&repo);
    let unreleased = section(&body, "Unreleased");
    assert!(
        unreleased.contains("## Bug fixes\n\n- Fix `copy.copy()` sharing the list. (#743)"),
        "{body}"
    );
    assert!(
        unreleased.contains(
            "## Packaging updates and notes for downstreams\n\n- Build wheels for CPython 3.14. (#741)"
        ),
        "{body}"
    );
    for gone in [
        "Internal shuffle",
        "Not a configured type",
        "Switch the build",
    ] {
        assert!(!unreleased.contains(gone), "{gone}:\n{body}");
    }
}

/// A package's `.changes/<bump>.<name>.md` files (the folder nearest the feature) are its
/// next release's notes: the Unreleased section lists them, not the commits since the tag.
#[test]
fn a_packages_change_files_are_its_unreleased_section() {
    let mut repo = Repo::new();
    repo.write("src/index.js", "export const a = 1;\n");
    repo.write("src/.changes/.gitkeep", "");
    repo.commit("feat: first version");
    tag(&repo, "v1.0.0");
    repo.write("src/index.js", "export const a = 2;\n");
    repo.write(
        "src/.changes/patch.fetch-abort.md",
        "Fix `Expected fetcher` error when a fetcher is aborted\n",
    );
    repo.write(
        "src/.changes/unstable.nonce.md",
        "Add CSP nonce support to document rendering\n",
    );
    repo.write("src/.changes/notes.md", "Not a change file.\n");
    repo.write(
        ".changes/1.0.0.md",
        "A released version's notes of another tool.\n",
    );
    repo.commit("Drop the reload id when a fetcher action is aborted");

    let body = changelog(&repo);
    let unreleased = section(&body, "Unreleased");
    assert!(
        unreleased.contains(
            "## Patch Changes\n\n- Fix `Expected fetcher` error when a fetcher is aborted\n"
        ),
        "{body}"
    );
    assert!(
        unreleased
            .contains("## Unstable Changes\n\n- Add CSP nonce support to document rendering\n"),
        "{body}"
    );
    for gone in [
        "Drop the reload id",
        "Not a change file",
        "released version",
    ] {
        assert!(!unreleased.contains(gone), "{gone}:\n{body}");
    }
}

/// towncrier's `issue_format` links a fragment's issue as the released sections do.
#[test]
fn towncrier_issue_format_links_the_unreleased_issues() {
    let mut repo = Repo::new();
    repo.write("src/reader.py", "def read():\n    pass\n");
    repo.write(
        "pyproject.toml",
        "[tool.towncrier]\ndirectory = \"changelog.d\"\nissue_format = \"[#{issue}](https://github.com/acme/reader/issues/{issue})\"\n",
    );
    repo.write("changelog.d/1547.change.md", "Reads are faster.\n");
    repo.commit("Add the reader");
    tag(&repo, "v0.1.0");

    let body = changelog(&repo);
    assert!(
        section(&body, "Unreleased")
            .contains("- Reads are faster. ([#1547](https://github.com/acme/reader/issues/1547))"),
        "{body}"
    );
}
