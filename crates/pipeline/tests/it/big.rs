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
            commit: None,
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

/// A Rust crate of `modules` modules, each with a documented struct (fields, a constructor
/// and a method, with examples), a function and a constant; docs hold `|`, generics in code
/// and stray emphasis, which tables and the nesting check must survive.
pub fn big_crate(modules: usize) -> Repo {
    let mut repo = Repo::new();
    repo.write(
        "Cargo.toml",
        "[package]\nname = \"big\"\nversion = \"0.1.0\"\n",
    );
    let mut lib = String::from("//! A big crate.\n\n");
    for i in 0..modules {
        lib.push_str(&format!("pub mod m{i};\n"));
    }
    repo.write("src/lib.rs", lib);
    for i in 0..modules {
        repo.write(
            &format!("src/m{i}.rs"),
            format!(
                r#"//! Module {i} parses `Option<T>` values | fast, with [`Parser{i}`].
//!
//! The second paragraph of module {i}'s overview.

/// A parser of module {i}, for `Vec<u8>` | `&str` input.
///
/// ```
/// let p = big::m{i}::Parser{i}::new();
/// ```
pub struct Parser{i} {{
    /// The input, a `Vec<u8>`.
    pub input: Vec<u8>,
    /// Where it is: *the offset.
    pub at: usize,
}}

impl Parser{i} {{
    /// Makes a parser.
    ///
    /// ```
    /// let p = big::m{i}::Parser{i}::new();
    /// ```
    pub fn new() -> Self {{
        Parser{i} {{ input: Vec::new(), at: 0 }}
    }}

    /// Parses the next `Option<T>` | nothing, with **kwargs-like options.
    ///
    /// The second paragraph of `next` in module {i}.
    ///
    /// # Errors
    ///
    /// None in module {i}.
    pub fn next<T: Default>(&mut self, options: &[(&str, &str)]) -> Option<T> {{
        None
    }}
}}

/// Parses everything at once.
///
/// ```
/// big::m{i}::parse_all(b"x");
/// ```
pub fn parse_all(input: &[u8]) -> Vec<u8> {{
    input.to_vec()
}}

/// Parses the old way.
#[deprecated(note = "use parse_all")]
pub fn parse_old(input: &[u8]) -> Vec<u8> {{
    input.to_vec()
}}

/// The largest input, in bytes.
pub const MAX_{i}: usize = 1 << 20;
"#
            ),
        );
    }
    repo.commit("feat: big");
    repo
}

/// The anchors of an article, in order.
fn anchors(body: &str) -> Vec<&str> {
    body.split("<a id=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect()
}

fn sorted(mut anchors: Vec<&str>) -> Vec<&str> {
    anchors.sort_unstable();
    anchors
}

/// The dev-docs article of `repo` within `max_article_bytes`, checked: valid MDX, within the
/// limit, its anchors unique.
pub fn within(repo: &Repo, max_article_bytes: usize) -> String {
    let limits = Limits {
        max_article_bytes,
        ..Limits::default()
    };
    let body = dev_docs(repo, ".", &limits)
        .unwrap_or_else(|e| panic!("max_article_bytes = {max_article_bytes}: {e}"));
    validate_mdx(&body).unwrap_or_else(|e| panic!("{e}\n{body}"));
    assert!(
        body.len() <= max_article_bytes,
        "{} > {max_article_bytes}",
        body.len()
    );
    let all = anchors(&body);
    let mut unique = all.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), all.len(), "anchors repeat:\n{body}");
    body
}

/// The articles of `repo` at each level: whole, then under the largest limit below the
/// article before that gives the next level: first paragraphs, tables, index. (One byte
/// less can be enough, or not: the note names the limit, "5 KiB" is shorter than "5.1 KiB".)
pub fn levels(repo: &Repo) -> [String; 4] {
    let full = within(repo, Limits::default().max_article_bytes);
    let mut out = vec![full];
    for level in 1..=3 {
        let mut limit = out[level - 1].len() - 1;
        let article = loop {
            let article = within(repo, limit);
            if article.contains(&format!("(level {level} of 3)")) {
                break article;
            }
            limit -= 8;
        };
        out.push(article);
    }
    out.try_into().unwrap()
}

/// The number of cells of each row of each table, as markdown-rs reads the article.
fn table_rows(body: &str) -> Vec<usize> {
    use markdown::mdast::Node;
    let mut rows = Vec::new();
    let mut stack = vec![pipeline::parse_mdx(body, 256).unwrap()];
    while let Some(node) = stack.pop() {
        if let Node::TableRow(row) = &node {
            rows.push(row.children.len());
        }
        if let Some(children) = node.children() {
            stack.extend(children.iter().cloned());
        }
    }
    rows
}

/// Items of the level-3 index.
fn index_items(body: &str) -> usize {
    body.lines().filter(|l| l.starts_with("- <a id=\"")).count()
}

#[test]
fn an_api_too_large_for_its_article_is_shortened_step_by_step_never_failed() {
    const MODULES: usize = 31; // the crate root and 30 modules
    let repo = big_crate(MODULES - 1);

    let [full, first, tables, index] = levels(&repo);
    assert!(!full.contains("This API is large"), "{full}");
    // Doctests are shown in place, in the doc comment.
    assert!(
        full.contains("```rust\nlet p = big::m7::Parser7::new();\n```"),
        "{full}"
    );
    assert!(
        full.contains("The second paragraph of `next` in module 7."),
        "{full}"
    );
    assert!(full.contains("None in module 7."), "{full}");
    assert!(full.contains("[`Parser7`](#src-m7-rs-Parser7)"), "{full}");
    assert!(full.contains("The second paragraph of module 7"), "{full}");
    assert!(full.contains("```rust\npub fn parse_all"), "{full}");

    // Level 1: member docs cut to their first paragraph, examples out, signatures kept.
    assert!(
        first.contains(
            "(level 1 of 3):\nmember docs are cut to their first paragraph, without examples."
        ),
        "{first}"
    );
    assert!(first.starts_with("---\n") && first.contains("---\n\n<Note>\nThis API is large"));
    assert!(first.contains(&format!("{MODULES} modules")), "{first}");
    assert!(
        !first.contains("let p = big::m7::Parser7::new();"),
        "{first}"
    );
    assert!(!first.contains("The second paragraph of `next`"), "{first}");
    assert!(!first.contains("None in module 7."), "{first}");
    assert!(first.contains("Parses the next `Option<T>`"), "{first}");
    assert!(first.contains("**Deprecated.** use parse_all"), "{first}");
    assert!(first.contains("```rust\npub fn parse_all"), "{first}");
    assert!(
        first.contains("The second paragraph of module 7"),
        "{first}"
    );
    assert_eq!(sorted(anchors(&first)), sorted(anchors(&full)));

    // Level 2: tables of name and summary, per type and per module; no signatures.
    assert!(
        tables.contains("(level 2 of 3):\nmembers are listed in tables"),
        "{tables}"
    );
    for header in [
        "| Member | Summary |",
        "| Function | Summary |",
        "| Constant | Summary |",
    ] {
        assert_eq!(
            tables.matches(header).count(),
            MODULES - 1,
            "{header}\n{tables}"
        );
    }
    assert!(
        tables.contains("| <a id=\"src-m7-rs-Parser7-next\" />`next` | Parses the next `Option<T>` \\| nothing, with **kwargs-like options. |"),
        "{tables}"
    );
    assert!(tables.contains("#### Struct `Parser7`"), "{tables}");
    assert!(
        tables.contains(
            "| <a id=\"src-m7-rs-parse_old\" />`parse_old` | **Deprecated.** Parses the old way. |"
        ),
        "{tables}"
    );
    assert!(!tables.contains("```rust"), "{tables}");
    assert!(!tables.contains("Defined in"), "{tables}");
    assert!(
        !tables.contains("The second paragraph of module 7"),
        "{tables}"
    );
    // Each module's three tables: a header and its rows, every row of two cells.
    let rows = table_rows(&tables);
    assert_eq!(rows.len(), (MODULES - 1) * (5 + 3 + 2), "{tables}");
    assert!(rows.iter().all(|cells| *cells == 2), "{rows:?}");
    // Every symbol keeps its anchor, so links into the article still land.
    assert_eq!(sorted(anchors(&tables)), sorted(anchors(&full)));

    // Level 3: one index of the modules with their symbol counts and first sentence.
    assert!(
        index.contains("(level 3 of 3):\nmodules are listed as an index"),
        "{index}"
    );
    assert!(!index.contains("are left out"), "{index}");
    assert_eq!(index_items(&index), MODULES, "{index}");
    assert!(
        index.contains("- <a id=\"src-m7-rs\" />`big::m7` (8 symbols): Module 7 parses `Option<T>` values | fast, with `Parser7`.\n"),
        "{index}"
    );
    assert!(
        index.contains("- <a id=\"src-lib-rs\" />`big`: A big crate.\n"),
        "{index}"
    );
    assert!(!index.contains("| Member"), "{index}");
    assert!(!index.contains("#### "), "{index}");
    let modules: Vec<&str> = anchors(&index);
    assert!(
        modules.iter().all(|a| anchors(&full).contains(a)),
        "{index}"
    );

    // Past that, the index is cut and says how many modules it leaves out.
    for limit in [index.len() * 9 / 10, index.len() * 2 / 3, index.len() / 3] {
        let cut = within(&repo, limit);
        let shown = index_items(&cut);
        assert!(shown < MODULES, "{cut}");
        let left_out = MODULES - shown;
        assert!(
            cut.contains(&format!(
                "; {left_out} of the {MODULES} modules are left out."
            )),
            "{cut}"
        );
        assert!(
            cut.contains(&format!(
                "{left_out} more module{} ",
                if left_out == 1 { "" } else { "s" }
            )),
            "{cut}"
        );
        // The modules shown are the first ones, in the reference's order.
        assert_eq!(anchors(&cut)[..shown], anchors(&index)[..shown]);
    }
}

#[test]
fn the_index_is_cut_down_to_no_module_before_the_run_fails() {
    let repo = big_crate(3);
    let [.., index] = levels(&repo);
    assert!(index.contains("(level 3 of 3)"), "{index}");
    let mut shown = index_items(&index);
    assert_eq!(shown, 4, "{index}");
    let mut limit = index.len();
    let mut empty = false;
    // Down to the article without modules, the index lists fewer and fewer; below it, the
    // run fails with the limit, naming what did not fit.
    loop {
        limit -= 25;
        let limits = Limits {
            max_article_bytes: limit,
            ..Limits::default()
        };
        match dev_docs(&repo, ".", &limits) {
            Ok(body) => {
                validate_mdx(&body).unwrap();
                assert!(body.len() <= limit);
                let now = index_items(&body);
                assert!(now <= shown, "{body}");
                assert!(
                    body.contains(&format!("; {} of the 4 modules are left out.", 4 - now))
                        || now == 4,
                    "{body}"
                );
                (shown, empty) = (now, now == 0);
            }
            Err(err) => {
                assert!(empty, "failed before the index was empty: {err}");
                assert!(
                    err.to_string()
                        .contains(&format!("max_article_bytes = {limit}"))
                        && err.to_string().contains("even without any module"),
                    "{err}"
                );
                break;
            }
        }
    }
}

#[test]
fn a_repository_template_over_the_limit_still_fails() {
    let mut repo = big_crate(10);
    repo.write(
        ".content-pipeline/templates/dev-docs.mdx.j2",
        "{% for module in modules %}\n## {{ module.name }}\n\n{{ module.overview }}\n\n{% endfor %}\n",
    );
    repo.commit("docs: our own template");
    let roomy = dev_docs(&repo, ".", &Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    assert!(!roomy.contains("This API is large"), "{roomy}");
    let limits = Limits {
        max_article_bytes: roomy.len() - 1,
        ..Limits::default()
    };
    let err = dev_docs(&repo, ".", &limits).unwrap_err();
    assert!(
        matches!(
            err,
            pipeline::PipelineError::LimitExceeded {
                limit: "max_article_bytes",
                ..
            }
        ),
        "{err}"
    );
}
