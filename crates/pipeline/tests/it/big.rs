//! Big features: an API too large for one article is shortened step by step, never failed;
//! an article made of many files is no deeper than the deepest of them.

use domain::Surface;
use pipeline::{DiscardLog, Limits, RunRequest, run, validate_mdx};
use testkit::Repo;

use crate::fixture::request;

/// A TypeScript monorepo of `packages` packages, each with an interface whose members have
/// generic types (`Array<string>`, `Promise<void>`) and a documented function.
fn monorepo(packages: usize) -> Repo {
    let mut repo = Repo::new();
    repo.write(
        "package.json",
        r#"{ "name": "mono", "private": true, "workspaces": ["packages/*"] }"#,
    );
    for i in 0..packages {
        repo.write(
            &format!("packages/p{i}/package.json"),
            format!(r#"{{ "name": "@mono/p{i}", "main": "src/index.ts" }}"#),
        );
        repo.write(
            &format!("packages/p{i}/src/index.ts"),
            format!(
                "/** Options of package {i}. */\nexport interface Options{i} {{\n  /** The items, as `Array<string>`. */\n  items: Array<string>;\n  load: () => Promise<void>;\n  byName: Map<string, Set<number>>;\n}}\n\n/** Loads `Record<string, T>` with *emphasis. */\nexport function load{i}<T>(options: Options{i}): Promise<Record<string, T>> {{\n  return Promise.resolve({{}});\n}}\n"
            ),
        );
    }
    repo.commit("feat: packages");
    repo
}

fn dev_docs(
    repo: &Repo,
    feature: &str,
    limits: &Limits,
) -> Result<String, pipeline::PipelineError> {
    let output = run(
        &RunRequest {
            surfaces: Some(&[Surface::DevDocs]),
            limits,
            ..request(&repo.path, feature)
        },
        &mut DiscardLog,
    )?;
    let article = output
        .articles
        .into_iter()
        .find(|a| a.surface == Surface::DevDocs)
        .expect("a dev-docs article");
    Ok(article.mdx_body)
}

#[test]
fn a_folder_of_many_files_nests_no_deeper_than_one_file() {
    let repo = monorepo(120);
    let limits = Limits::default();
    // One file alone was always fine.
    let one =
        dev_docs(&repo, "packages/p0/src/index.ts", &limits).unwrap_or_else(|e| panic!("{e}"));
    validate_mdx(&one).unwrap();
    for feature in ["packages", "."] {
        let body = dev_docs(&repo, feature, &limits).unwrap_or_else(|e| panic!("{feature}: {e}"));
        validate_mdx(&body).unwrap_or_else(|e| panic!("{feature}: {e}"));
        assert!(body.contains("Options119"), "{feature}");
        assert!(body.contains("Array<string>"), "{feature}");
    }
}
