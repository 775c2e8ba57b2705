use domain::Surface;
use pipeline::{PipelineError, is_git_repository, resolve_feature};

use testkit::Repo;

use crate::fixture::{MANIFEST, product, request};

#[test]
fn declared_feature_is_read_from_the_manifest() {
    let p = product();
    let f = resolve_feature(&p.repo.path, "csv-export").unwrap();
    assert_eq!(f.id, "csv-export");
    assert_eq!(f.title, "CSV export");
    assert!(f.summary.starts_with("Export any report"));
    assert_eq!(f.paths, ["src/export/**", "docs/export.md"]);
    assert_eq!(f.surfaces, Surface::ALL);
    assert_eq!(f.captures.as_deref(), Some("docs/captures/csv-export"));
    assert_eq!(f.steps.len(), 3);
    assert_eq!(f.steps[0].title, "Open Reports");
    assert_eq!(f.steps[0].body, "Choose **Reports** in the sidebar.");
    assert_eq!(f.steps[0].capture.as_deref(), Some("01-open-reports.png"));
    assert_eq!(
        f.capture_path(&f.steps[2]).as_deref(),
        Some("docs/captures/csv-export/03-missing.png")
    );

    let g = resolve_feature(&p.repo.path, "grounded").unwrap();
    assert_eq!(g.surfaces, [Surface::HelpCenter], "duplicates are dropped");
    assert_eq!(g.steps[0].body, "");
}

#[test]
fn implicit_features_are_files_or_folders() {
    let p = product();
    let folder = resolve_feature(&p.repo.path, "src/other").unwrap();
    assert_eq!(folder.id, "src/other");
    // The package has no manifest: the repository folder's name, then the path.
    assert_eq!(folder.title, "repo/src/other");
    assert_eq!(folder.paths, ["src/other/**"]);
    assert_eq!(folder.surfaces, Surface::ALL);
    assert!(folder.steps.is_empty());

    let file = resolve_feature(&p.repo.path, "docs/export.md").unwrap();
    assert_eq!(file.title, "repo/docs/export.md");
    assert_eq!(file.paths, ["docs/export.md"]);

    // The package's source folder is the package: its name and description, never a path.
    let repo = crate::fixture::repo_of(&[
        (
            "package.json",
            r#"{"name": "emitter", "description": "Tiny event emitter."}"#,
        ),
        ("src/index.ts", "export const x = 1;\n"),
        ("lib/emitter/index.ts", "export const y = 1;\n"),
        ("lib/emitter/more/index.ts", "export const z = 1;\n"),
    ]);
    for (id, title) in [
        ("src", "emitter"),
        ("lib/emitter", "emitter"),
        ("lib/emitter/more", "emitter/lib/emitter/more"),
        ("src/index.ts", "emitter/src/index.ts"),
    ] {
        let feature = resolve_feature(&repo.path, id).unwrap();
        assert_eq!(feature.title, title, "{id}");
        assert_eq!(
            feature.summary.is_empty(),
            title != "emitter",
            "{id}: {}",
            feature.summary
        );
    }
}

#[test]
fn unknown_feature_is_refused() {
    let p = product();
    // "." is the repository root (see feature_dot_is_the_whole_repository).
    for id in ["nope", "src/missing", "", " "] {
        let err = resolve_feature(&p.repo.path, id).unwrap_err();
        assert!(
            matches!(err, PipelineError::UnknownFeature { .. }),
            "{id}: {err}"
        );
        assert!(err.is_unresolvable_feature());
    }
}

fn assert_escapes(result: Result<pipeline::Feature, PipelineError>) -> String {
    match result {
        Err(e @ PipelineError::PathEscapesRepository { .. }) => {
            assert!(e.is_unresolvable_feature());
            e.to_string()
        }
        other => panic!("expected PathEscapesRepository, got {other:?}"),
    }
}

fn repo_with_manifest(manifest: &str) -> Repo {
    let mut repo = Repo::new();
    repo.write(".content-pipeline/features.toml", manifest)
        .write("src/a.rs", "pub fn a() {}\n");
    repo.commit("chore: init");
    repo
}

#[test]
fn dot_dot_is_refused() {
    let repo = repo_with_manifest(
        "[[features]]\nid = \"up\"\ntitle = \"Up\"\npaths = [\"src/../../secrets/**\"]\n",
    );
    let message = assert_escapes(resolve_feature(&repo.path, "up"));
    assert!(message.contains(".."), "{message}");
    assert_escapes(resolve_feature(&repo.path, "../repo"));
    assert_escapes(resolve_feature(&repo.path, "src/../../etc"));

    let captures = repo_with_manifest(
        "[[features]]\nid = \"c\"\ntitle = \"C\"\npaths = [\"src/**\"]\ncaptures = \"../shots\"\n",
    );
    assert_escapes(resolve_feature(&captures.path, "c"));
    let step = repo_with_manifest(
        "[[features]]\nid = \"s\"\ntitle = \"S\"\npaths = [\"src/**\"]\n[[features.steps]]\ntitle = \"x\"\ncapture = \"../../x.png\"\n",
    );
    assert_escapes(resolve_feature(&step.path, "s"));
}

#[test]
fn absolute_paths_are_refused() {
    let repo =
        repo_with_manifest("[[features]]\nid = \"abs\"\ntitle = \"Abs\"\npaths = [\"/etc/**\"]\n");
    let message = assert_escapes(resolve_feature(&repo.path, "abs"));
    assert!(message.contains("absolute"), "{message}");
    assert_escapes(resolve_feature(&repo.path, "/etc/passwd"));
    assert_escapes(resolve_feature(
        &repo.path,
        &repo.path.join("src").to_string_lossy(),
    ));
}

#[test]
fn symlinks_out_of_the_repository_are_refused() {
    let mut repo = Repo::new();
    std::fs::create_dir_all(repo.outside().join("secrets")).unwrap();
    std::fs::write(repo.outside().join("secrets/key.rs"), "pub fn key() {}").unwrap();
    repo.write(
        ".content-pipeline/features.toml",
        "[[features]]\nid = \"linked\"\ntitle = \"Linked\"\npaths = [\"links/out/**\"]\n\n\
         [[features]]\nid = \"glob\"\ntitle = \"Glob\"\npaths = [\"links/**\"]\n\n\
         [[features]]\nid = \"inside\"\ntitle = \"Inside\"\npaths = [\"src/**\", \"links/in\"]\n",
    )
    .write("src/a.rs", "pub fn a() {}\n")
    .symlink("links/out", "../../secrets")
    .symlink("links/abs", "/etc")
    .symlink("links/in", "../src");
    repo.commit("chore: links");

    // A feature path through the link.
    let message = assert_escapes(resolve_feature(&repo.path, "linked"));
    assert!(message.contains("symlink"), "{message}");
    // An implicit feature naming the link.
    assert_escapes(resolve_feature(&repo.path, "links/out"));
    assert_escapes(resolve_feature(&repo.path, "links/abs"));
    // A glob that matches the link itself is refused when the run collects files.
    let err = pipeline::run(&request(&repo.path, "glob"), &mut pipeline::DiscardLog).unwrap_err();
    assert!(
        matches!(err, PipelineError::PathEscapesRepository { .. }),
        "{err}"
    );
    // A link that stays inside is fine (and never followed).
    let inside = pipeline::run(
        &pipeline::RunRequest {
            commit: None,
            surfaces: Some(&[Surface::DevDocs]),
            ..request(&repo.path, "inside")
        },
        &mut pipeline::DiscardLog,
    )
    .unwrap();
    assert_eq!(inside.articles[0].provenance.files.len(), 1);
}

#[test]
fn invalid_manifests_say_what_is_wrong() {
    for (manifest, expected) in [
        ("[[features]]\nid = \"x\"\n", "paths"),
        (
            "[[features]]\nid = \"x\"\npaths = [\"a\"]\nsurfaces = [\"wiki\"]\n",
            "wiki",
        ),
        (
            "[[features]]\nid = \"x\"\npaths = [\"a\"]\ncolour = \"red\"\n",
            "colour",
        ),
        ("[[features]]\nid = \"x\"\npaths = []\n", "at least one"),
        (
            "[[features]]\nid = \"x\"\npaths = [\"a/[\"]\n",
            "invalid glob",
        ),
        (
            "[[features]]\nid = \"x\"\npaths = [\"a\"]\n[[features]]\nid = \"x\"\npaths = [\"b\"]\n",
            "more than once",
        ),
        ("not toml", "features.toml"),
    ] {
        let repo = repo_with_manifest(manifest);
        let err = resolve_feature(&repo.path, "x").unwrap_err();
        assert!(
            matches!(err, PipelineError::InvalidManifest(_)),
            "{manifest}: {err}"
        );
        assert!(err.to_string().contains(expected), "{manifest}: {err}");
    }
    // The fixture's manifest is valid.
    assert!(toml::from_str::<toml::Value>(MANIFEST).is_ok());
}

#[test]
fn git_repositories_are_recognised() {
    let p = product();
    assert!(is_git_repository(&p.repo.path));
    assert!(!is_git_repository(std::path::Path::new("relative/path")));
    let plain = tempfile::tempdir().unwrap();
    assert!(!is_git_repository(plain.path()));
    assert!(!is_git_repository(&plain.path().join("missing")));
    let err = resolve_feature(&plain.path().join("missing"), "x").unwrap_err();
    assert!(matches!(err, PipelineError::Repository(_)));
    let empty = Repo::new();
    assert!(is_git_repository(&empty.path));
    let err = resolve_feature(&empty.path, "x").unwrap_err();
    assert!(err.to_string().contains("no commits"), "{err}");
}

#[test]
fn the_feature_cache_follows_head() {
    let cache = pipeline::FeatureCache::new();
    let mut repo = repo_with_manifest(
        "[[features]]\nid = \"alpha\"\ntitle = \"Alpha\"\npaths = [\"src/**\"]\n",
    );
    assert_eq!(cache.check(&repo.path, "alpha"), Ok(()));
    assert_eq!(cache.check(&repo.path, "src/a.rs"), Ok(()));
    let unknown = cache.check(&repo.path, "beta").unwrap_err();
    assert!(unknown.contains("unknown feature 'beta'"), "{unknown}");
    // Asked again at the same HEAD: the same answers.
    assert!(cache.check(&repo.path, "beta").is_err());

    // A commit declares beta and deletes src/a.rs: the next checks see the new HEAD.
    repo.write(
        ".content-pipeline/features.toml",
        "[[features]]\nid = \"beta\"\ntitle = \"Beta\"\npaths = [\"lib/**\"]\n",
    )
    .write("lib/b.rs", "pub fn b() {}\n")
    .remove("src/a.rs");
    repo.commit("feat: beta");
    assert_eq!(cache.check(&repo.path, "beta"), Ok(()));
    assert!(cache.check(&repo.path, "alpha").is_err());
    assert!(cache.check(&repo.path, "src/a.rs").is_err());

    // Escapes are refused through the cache as without it.
    let escape = cache.check(&repo.path, "../outside").unwrap_err();
    assert!(escape.contains("not allowed"), "{escape}");

    // A repository that vanished is an error, not a remembered answer.
    let path = repo.path.clone();
    std::fs::remove_dir_all(&path).unwrap();
    let gone = cache.check(&path, "beta").unwrap_err();
    assert!(gone.contains("repository"), "{gone}");
}

#[test]
fn feature_dot_is_the_whole_repository() {
    let p = product();
    let root = resolve_feature(&p.repo.path, ".").unwrap();
    assert_eq!(root.id, ".");
    assert_eq!(root.paths, ["**"]);
    assert_eq!(root.surfaces, Surface::ALL);
    // No package manifest: titled after the repository's folder, whatever the remote says
    // (a service's mirror would rename it from version to version).
    assert_eq!(root.title, "repo");
    p.repo
        .git
        .remote("origin", "/var/mirrors/ws_1/repo-7.git")
        .unwrap();
    assert_eq!(resolve_feature(&p.repo.path, "./").unwrap().title, "repo");
    assert!(matches!(
        resolve_feature(&p.repo.path, ""),
        Err(PipelineError::UnknownFeature { .. })
    ));

    let output = pipeline::run(&request(&p.repo.path, "."), &mut pipeline::DiscardLog).unwrap();
    let dev = output
        .articles
        .iter()
        .find(|a| a.surface == Surface::DevDocs)
        .unwrap();
    // Files of every folder: src/export and src/other alike.
    let paths: Vec<&str> = dev
        .provenance
        .files
        .iter()
        .map(|f| f.path.as_str())
        .collect();
    assert!(paths.contains(&"src/export/writer.rs"), "{paths:?}");
    assert!(paths.contains(&"src/other/lib.rs"), "{paths:?}");
}
