//! The fixture repositories of these tests, written out for `bench/compare/golden.sh`, which
//! runs the `golden` example on them before and after a change that should not change what
//! the pipeline writes:
//!
//! ```sh
//! PIPELINE_FIXTURES_OUT=/abs/folder cargo test -p pipeline --test it -- --ignored golden::
//! ```
//!
//! writes each one (working tree and `.git`) to `$PIPELINE_FIXTURES_OUT/<name>`, replacing
//! what was there. The folder name is part of some articles (a repository without a package
//! manifest is named after it), so the folder should be the same for the runs compared; the
//! commit ids are, since the testkit's commit clock is fixed.

use std::path::Path;

use testkit::Repo;

use crate::{fixture, helpcenter, hostile};

#[test]
#[ignore = "writes the fixture repositories where PIPELINE_FIXTURES_OUT says"]
fn write_fixture_repositories() {
    let Some(out) = std::env::var_os("PIPELINE_FIXTURES_OUT") else {
        eprintln!("PIPELINE_FIXTURES_OUT is not set: nothing written");
        return;
    };
    let out = Path::new(&out);
    for (name, repo) in [
        ("product", fixture::product().repo),
        ("product-forge", product_forge()),
        ("widgets", helpcenter::widgets()),
        ("widgets-forge", widgets_forge()),
        ("hostile", hostile()),
        ("releases", releases()),
    ] {
        let to = out.join(name);
        if to.exists() {
            std::fs::remove_dir_all(&to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
        }
        copy(&repo.path, &to);
        println!("{}\t{}", to.display(), repo.head());
    }
}

/// The product on GitHub, with a release tag and the blog template of its own that
/// `run::repository_templates_override_the_built_in_ones` uses.
fn product_forge() -> Repo {
    let mut p = fixture::product();
    p.repo
        .git
        .remote("origin", "https://github.com/acme/product.git")
        .unwrap();
    {
        let third = p.repo.git.revparse_single(&p.commits[2]).unwrap();
        p.repo.git.tag_lightweight("v1.0.0", &third, false).unwrap();
    }
    p.repo.write(
        ".content-pipeline/templates/blog.mdx.j2",
        "# {{ feature.title }} ships\n\n{{ feature.summary }}\n\n{% for c in commits %}- {{ c.description }}\n{% endfor %}\n{{ \"internal\" | comment }}\n",
    );
    p.repo.commit("docs: custom blog template");
    p.repo
}

/// The widgets with an `origin` on GitHub, as `helpcenter` links them.
fn widgets_forge() -> Repo {
    let repo = helpcenter::widgets();
    repo.git
        .remote("origin", "git@github.com:acme/widgets.git")
        .unwrap();
    repo
}

/// The inputs of `hostile`'s tests that render as inert text, in one repository.
fn hostile() -> Repo {
    let live = hostile::LIVE;
    hostile::repo(
        "A\u{7f}B\u{85}C\u{9b} {x} <y>",
        &format!("See `\n`{live}`"),
        &[
            &format!("See `\n`{live}`"),
            &format!("```\ncode\n    ```\n{live}\n```"),
            &format!("    ```\ncode\n```\n{live}\n```"),
            "[x](javascript:alert(1)) and [y]( JavaScript&#58;alert(1))",
        ],
        &[
            ("split.md", &format!("# Doc\n\na ` <!-- c --> `{live}`\n")),
            ("links.md", "# L\n\n[z]\n\n[z]: javascript:alert(1)\n"),
        ],
    )
}

/// A library released with tags, written in Conventional Commits of every type, with a
/// merged pull request, a revert and a breaking change, as `changelog`'s tests write them.
fn releases() -> Repo {
    let mut repo = Repo::new();
    let mut n = 0;
    let mut change = |repo: &mut Repo, message: &str, author: &str| {
        n += 1;
        repo.write(
            &format!("src/f{n}.rs"),
            format!("/// F{n}.\npub fn f{n}() {{}}\n"),
        );
        repo.commit_as(message, author)
    };
    let tag = |repo: &Repo, name: &str| {
        let head = repo.git.revparse_single("HEAD").unwrap();
        repo.git.tag_lightweight(name, &head, false).unwrap();
    };
    repo.write(
        "Cargo.toml",
        "[package]\nname = \"releases\"\ndescription = \"Tagged releases.\"\n",
    )
    .write("CHANGELOG.md", "# Changelog\n\n## 0.1.0\n\n- First.\n")
    .write(
        "README.md",
        "# releases\n\n## Usage\n\n1. Add it.\n2. Call `f1`.\n",
    )
    .write("src/lib.rs", "//! Releases.\n\n/// A.\npub fn a() {}\n");
    repo.commit("feat: first version");
    tag(&repo, "v0.1.0");
    for message in [
        "feat(cli): remove the confirmation prompt",
        "fix: parse empty files (#12)",
        "perf: cache the index",
        "refactor: split the parser",
        "deprecate: the v1 API",
        "security: reject path traversal",
        "fix: bump zlib\n\nSecurity: CVE-2024-0001",
        "chore: tidy",
        "docs: typos",
    ] {
        change(&mut repo, message, "Ada Lovelace");
    }
    tag(&repo, "v0.2.0");
    let reverted = change(&mut repo, "feat: a flag", "Grace Hopper");
    change(
        &mut repo,
        &format!("Revert \"feat: a flag\"\n\nThis reverts commit {reverted}."),
        "Grace Hopper",
    );
    let main = repo.head();
    let pull = change(&mut repo, "fix: handle CRLF", "dependabot[bot]");
    repo.reset_to(&main);
    repo.merge(
        &pull,
        "Merge pull request #40 from acme/crlf\n\nfix: handle CRLF",
    );
    change(
        &mut repo,
        "feat!: drop the legacy path\n\nBREAKING CHANGE: use the new one.",
        "Alan Turing",
    );
    tag(&repo, "v1.0.0-rc.1");
    change(&mut repo, "fix: last one", "Ada Lovelace");
    tag(&repo, "v1.0.0");
    change(&mut repo, "feat: after the release", "Barbara Liskov");
    repo
}

/// Copies the folder `from` (files, folders and symbolic links) to `to`.
fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.unwrap();
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type().unwrap();
        if kind.is_symlink() {
            let link = std::fs::read_link(&source).unwrap();
            std::os::unix::fs::symlink(link, &target).unwrap();
        } else if kind.is_dir() {
            copy(&source, &target);
        } else {
            std::fs::copy(&source, &target).unwrap_or_else(|e| panic!("{}: {e}", source.display()));
        }
    }
}
