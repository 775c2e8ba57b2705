//! Which features a push touched: its diff matched against the manifest's globs at the
//! pushed commit, edited manifest entries, and the implicit features the workspace documents.

use pipeline::touched_features;

const MANIFEST: &str = "[[features]]\nid = \"api\"\npaths = [\"src/api/**\"]\n\n[[features]]\nid = \"cli\"\npaths = [\"src/cli/*.rs\"]\n";

fn features(
    repo: &testkit::Repo,
    before: Option<&str>,
    after: &str,
    known: &[&str],
) -> Vec<String> {
    let known: Vec<String> = known.iter().map(|k| k.to_string()).collect();
    touched_features(&repo.path, before, after, &known)
        .unwrap()
        .features
}

#[test]
fn a_push_touches_the_features_whose_paths_it_changed() {
    let mut repo = testkit::Repo::new();
    repo.write(".content-pipeline/features.toml", MANIFEST)
        .write("src/api/lib.rs", "pub fn get() {}\n")
        .write("src/cli/main.rs", "fn main() {}\n")
        .write("tools/gen.py", "print()\n")
        .write("README.md", "# x\n");
    let first = repo.commit("init");

    repo.write("src/api/v2/handler.rs", "pub fn put() {}\n");
    let api = repo.commit("feat: put");
    assert_eq!(features(&repo, Some(&first), &api, &[]), ["api"]);

    // Several commits in one push: their net change.
    repo.write("src/cli/main.rs", "fn main() { run() }\n");
    repo.commit("feat: run");
    repo.write("README.md", "# y\n");
    let readme = repo.commit("docs");
    assert_eq!(features(&repo, Some(&api), &readme, &[]), ["cli"]);
    assert!(features(&repo, Some(&readme), &readme, &[]).is_empty());

    // A removed file touches its feature; an implicit feature the workspace documents is
    // matched by its folder, one it does not is not.
    repo.remove("tools/gen.py");
    let removed = repo.commit("chore: drop the generator");
    assert_eq!(
        features(&repo, Some(&readme), &removed, &["tools", "docs"]),
        ["tools"]
    );

    // An edited manifest entry is touched, an unchanged one is not; a new branch (no
    // `before`) reads the pushed commit's own change.
    repo.write(
        ".content-pipeline/features.toml",
        MANIFEST.replace("id = \"cli\"\n", "id = \"cli\"\ntitle = \"The CLI\"\n"),
    );
    let edited = repo.commit("docs: title the CLI");
    assert_eq!(features(&repo, Some(&removed), &edited, &[]), ["cli"]);
    assert_eq!(features(&repo, None, &edited, &[]), ["cli"]);
    // A `before` the repository lacks (a force push) falls back the same way.
    assert_eq!(
        features(&repo, Some(&"e".repeat(40)), &edited, &[]),
        ["cli"]
    );
}
