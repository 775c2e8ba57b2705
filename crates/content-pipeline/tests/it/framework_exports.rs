//! Exports: a workspace's published articles as a `tar.gz` laid out for a docs framework,
//! read back with the `tar` crate and checked file by file; the CLI that unpacks it; and the
//! frameworks themselves building it (Docusaurus, Starlight, MkDocs Material), where they
//! are installed (`.ci/run` installs them; `CONTENT_PIPELINE_REQUIRE_FRAMEWORKS=1` makes their
//! absence a failure).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use domain::Surface;
use serde_json::Value;
use testkit::Repo;

use crate::app;
use crate::helpers::{TestApp, cli};

pub const CAPTURE: &[u8] = b"\x89PNG\r\n\x1a\n the capture of step one";
const DIAGRAM: &[u8] =
    b"<svg xmlns=\"http://www.w3.org/2000/svg\"><rect width=\"4\" height=\"4\"/></svg>";
pub const FORMATS: [&str; 4] = ["docusaurus", "mintlify", "starlight", "mkdocs-material"];

/// The files of a `tar.gz`, by path.
pub fn files(archive: &[u8]) -> BTreeMap<String, Vec<u8>> {
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(archive));
    let mut files = BTreeMap::new();
    for entry in tar.entries().expect("a tar stream") {
        let mut entry = entry.expect("an entry");
        assert!(entry.header().entry_type().is_file(), "regular files only");
        let path = entry.path().expect("a path").to_string_lossy().into_owned();
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).expect("the entry's bytes");
        assert!(files.insert(path.clone(), bytes).is_none(), "{path} twice");
    }
    files
}

fn text(files: &BTreeMap<String, Vec<u8>>, path: &str) -> String {
    let bytes = files
        .get(path)
        .unwrap_or_else(|| panic!("{path} in {:?}", files.keys().collect::<Vec<_>>()));
    String::from_utf8(bytes.clone()).expect("UTF-8")
}

/// A repository whose walkthrough has a captured step and whose guide shows an SVG and a
/// missing image.
fn fixture(app: &TestApp, name: &str) -> Repo {
    let mut repo = Repo::init(&app.dir.path().join(name));
    repo.write("src/lib.rs", "/// Adds two numbers.\npub fn add(a: i32, b: i32) -> i32 { a + b }\n")
        .write(
            "docs/guide.md",
            "# Guide\n\nThe flow:\n\n![Flow diagram](img/flow.svg)\n\n![Gone](img/missing.png)\n",
        )
        .write("docs/img/flow.svg", DIAGRAM)
        .write("captures/one.png", CAPTURE)
        .write(
            ".content-pipeline/features.toml",
            "[[features]]\nid = \"numbers\"\ntitle = \"Numbers\"\nsummary = \"Small helpers.\"\npaths = [\"src/**\", \"docs/**\"]\ncaptures = \"captures\"\n\n[[features.steps]]\ntitle = \"Install the crate\"\nbody = \"Run `cargo add numbers`.\"\ncapture = \"one.png\"\n\n[[features.steps]]\ntitle = \"Add two numbers\"\nbody = \"Call `add(1, 2)`.\"\n",
        );
    repo.commit("feat: add numbers");
    repo
}

/// What a published workspace holds, for the checks.
pub struct Published {
    pub ws: String,
    /// (article id, feature, surface, title) of each published article.
    pub articles: Vec<(String, String, String, String)>,
    /// The article left unpublished: its title.
    pub unpublished_title: Option<String>,
    /// The hand-written article that links to the help-center article.
    pub linking: String,
    pub help: String,
}

/// A workspace on the fixture with a run of `numbers`: its help-center, dev-docs and changelog
/// articles published (the blog post, when there is one, left a draft), plus a hand-written
/// article linking to the help-center article; and another workspace with a published
/// article of its own.
pub async fn published(app: &TestApp) -> Published {
    let repo = fixture(app, "export-repo");
    let ws = app.workspace_on("Numbers team", &repo.path).await;
    let run = app.run_feature(&ws, "numbers").await;
    assert_eq!(run["status"], "succeeded", "{run}");
    let list = app
        .get(&format!("/v1/workspaces/{ws}/articles"))
        .expect(200)
        .await;
    let listed = list["data"].as_array().cloned().unwrap_or_default();
    let by_surface = |surface: &str| -> Option<Value> {
        listed.iter().find(|a| a["surface"] == surface).cloned()
    };
    let mut articles = Vec::new();
    for surface in ["help-center", "dev-docs", "changelog"] {
        let article = by_surface(surface).unwrap_or_else(|| panic!("a {surface} article"));
        let published = publish(app, &article).await;
        articles.push(entry(&published));
    }
    let unpublished_title =
        by_surface("blog").map(|a| a["title"].as_str().unwrap_or("").to_owned());
    let help = articles[0].0.clone();
    let linking_body = format!(
        "---\ntitle: \"Start here\"\ndescription: \"Where to begin.\"\n---\n\nRead [the walkthrough](/published/{help}) first, then [its second step]({}/published/{help}#add-two-numbers).\n",
        app.base
    );
    let linking = app
        .write_article(&ws, "start", Surface::HelpCenter, &linking_body)
        .await;
    let published = app
        .post(&format!("/v1/articles/{linking}/publish"))
        .expect(200)
        .await;
    articles.push(entry(&published));

    let other = app.workspace("Other team").await;
    let foreign = app
        .write_article(
            &other,
            "secret-plans",
            Surface::HelpCenter,
            "---\ntitle: \"Secret plans\"\n---\n\nOther tenant.\n",
        )
        .await;
    app.post(&format!("/v1/articles/{foreign}/publish"))
        .expect(200)
        .await;
    Published {
        ws,
        articles,
        unpublished_title,
        linking,
        help,
    }
}

fn entry(article: &Value) -> (String, String, String, String) {
    let field = |name: &str| article[name].as_str().unwrap_or_default().to_owned();
    (
        field("id"),
        field("feature_id"),
        field("surface"),
        field("title"),
    )
}

async fn publish(app: &TestApp, article: &Value) -> Value {
    let id = article["id"].as_str().expect("an id");
    app.post(&format!("/v1/articles/{id}/publish"))
        .expect(200)
        .await
}

/// The export of `ws` in `format`, after checking the answer's headers.
pub async fn export(app: &TestApp, ws: &str, format: &str) -> Vec<u8> {
    let res = app
        .get(&format!("/v1/workspaces/{ws}/export?format={format}"))
        .send()
        .await;
    assert_eq!(res.status(), 200, "{format}");
    let header = |name: &str| {
        res.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(header("content-type"), "application/gzip");
    assert_eq!(
        header("content-disposition"),
        format!("attachment; filename=\"{ws}-{format}.tar.gz\"")
    );
    assert!(header("request-id").starts_with("req_"));
    res.bytes().await.expect("the archive").to_vec()
}

/// Where a published article's page is in each format's archive.
pub fn page_path(format: &str, surface: &str, feature: &str) -> String {
    match format {
        "docusaurus" => format!("docs/{surface}/{feature}.mdx"),
        "mintlify" => format!("{surface}/{feature}.mdx"),
        "starlight" => format!("src/content/docs/{surface}/{feature}.mdx"),
        _ => format!("docs/{surface}/{feature}.md"),
    }
}

fn capture_path(format: &str) -> &'static str {
    match format {
        "docusaurus" => "static/img/captures/one.png",
        "mintlify" => "images/captures/one.png",
        "starlight" => "public/images/captures/one.png",
        _ => "docs/assets/images/captures/one.png",
    }
}

#[tokio::test]
async fn every_published_article_is_exported_with_its_images_and_links() {
    let app = app!(TestApp::builder().run_worker());
    let site = published(&app).await;
    for format in FORMATS {
        let files = files(&export(&app, &site.ws, format).await);
        for (id, feature, surface, title) in &site.articles {
            let page = text(&files, &page_path(format, surface, feature));
            assert!(page.starts_with("---\ntitle: "), "{format} {id}: {page}");
            assert!(
                page.contains(&format!(
                    "title: {}",
                    serde_json::to_string(title).unwrap_or_default()
                )),
                "{format} {id}: {page}"
            );
            assert!(
                !page.contains("source_commit"),
                "{format} {id}: no internal metadata"
            );
        }
        // The captured step's image is inside, byte for byte; the SVG the guide shows too.
        assert_eq!(
            files.get(capture_path(format)).map(Vec::as_slice),
            Some(CAPTURE),
            "{format}"
        );
        assert!(
            files.values().any(|bytes| bytes.as_slice() == DIAGRAM),
            "{format}: the SVG"
        );
        let help = text(&files, &page_path(format, "help-center", "numbers"));
        assert!(help.contains("captures/one.png"), "{format}: {help}");
        assert!(
            !help.contains("<Frame>") || format == "mintlify",
            "{format}: {help}"
        );
        match format {
            "mintlify" => assert!(
                help.contains("<Steps>") && help.contains("<Step title=\"Install the crate\">"),
                "{help}"
            ),
            "starlight" => assert!(help.contains("<Steps>\n\n1. Install the crate"), "{help}"),
            _ => assert!(help.contains("## 1. Install the crate"), "{format}: {help}"),
        }
        // Links between articles lead to the exported pages.
        let start = text(&files, &page_path(format, "help-center", "start"));
        let link = match format {
            "docusaurus" => "](numbers.mdx)".to_owned(),
            "mkdocs-material" => "](numbers.md)".to_owned(),
            "starlight" => "](/help-center/numbers/)".to_owned(),
            _ => "](/help-center/numbers)".to_owned(),
        };
        assert!(start.contains(&link), "{format}: {start}");
        assert!(
            start.contains(&format!("{}#add-two-numbers)", link.trim_end_matches(')'))),
            "{format}: {start}"
        );
        assert!(!start.contains("/published/"), "{format}: {start}");
        // Drafts and other tenants' articles are not there.
        let everything: String = files
            .values()
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .collect();
        assert!(
            !everything.contains("Secret plans") && !everything.contains("Other tenant"),
            "{format}"
        );
        if let Some(title) = &site.unpublished_title {
            assert!(
                !files.contains_key(&page_path(format, "blog", "numbers")),
                "{format}"
            );
            assert!(
                !everything.contains(&format!(
                    "title: {}",
                    serde_json::to_string(title).unwrap_or_default()
                )),
                "{format}: {title}"
            );
        }
        assert!(
            !everything.contains(&site.linking) && !everything.contains(&site.help),
            "{format}: no article id is left"
        );
    }
    let nav = files(&export(&app, &site.ws, "mkdocs-material").await);
    let mkdocs = text(&nav, "mkdocs.yml");
    assert!(
        mkdocs.contains("help-center/numbers.md") && mkdocs.contains("changelog/numbers.md"),
        "{mkdocs}"
    );
    let mintlify = files(&export(&app, &site.ws, "mintlify").await);
    let docs: Value =
        serde_json::from_str(&text(&mintlify, "docs.json")).expect("docs.json is JSON");
    let pages: Vec<&str> = docs["navigation"]["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .flat_map(|g| g["pages"].as_array().cloned().unwrap_or_default())
        .filter_map(|p| p.as_str().map(str::to_owned))
        .map(|p| Box::leak(p.into_boxed_str()) as &str)
        .collect();
    assert!(
        pages.contains(&"help-center/numbers") && pages.contains(&"dev-docs/numbers"),
        "{pages:?}"
    );
}

#[tokio::test]
async fn exports_refuse_bad_formats_other_tenants_and_missing_tokens() {
    let app = app!();
    let ws = app.workspace("Exporters").await;
    let other = app.workspace("Others").await;
    let read = app.token(&ws, "read").await;
    let url = |ws: &str, query: &str| format!("/v1/workspaces/{ws}/export{query}");
    for query in ["?format=hugo", "", "?format=", "?format=Docusaurus"] {
        let error = app
            .get(&url(&ws, query))
            .token(&read)
            .expect_error(422, "validation_failed")
            .await;
        assert_eq!(error["error"]["param"], "format", "{query}");
    }
    // A read token is enough; another workspace's token sees nothing; no token is 401.
    let res = app
        .get(&url(&ws, "?format=starlight"))
        .token(&read)
        .send()
        .await;
    assert_eq!(res.status(), 200);
    app.get(&url(&other, "?format=starlight"))
        .token(&read)
        .expect_error(404, "not_found")
        .await;
    app.get(&url(&ws, "?format=starlight"))
        .anonymous()
        .expect_error(401, "unauthenticated")
        .await;
    // Tenancy before the format: a foreign workspace is 404 whatever the format says.
    app.get(&url(&other, "?format=hugo"))
        .token(&read)
        .expect_error(404, "not_found")
        .await;
}

#[tokio::test]
async fn a_workspace_with_nothing_published_exports_a_skeleton() {
    let app = app!();
    let ws = app.workspace("Quiet").await;
    // A draft is not published.
    app.write_article(
        &ws,
        "draft",
        Surface::Blog,
        "---\ntitle: \"Draft\"\n---\n\nNot yet.\n",
    )
    .await;
    for (format, config, home) in [
        ("docusaurus", "docusaurus.config.js", "docs/index.mdx"),
        ("mintlify", "docs.json", "index.mdx"),
        (
            "starlight",
            "astro.config.mjs",
            "src/content/docs/index.mdx",
        ),
        ("mkdocs-material", "mkdocs.yml", "docs/index.md"),
    ] {
        let files = files(&export(&app, &ws, format).await);
        assert!(files.contains_key(config), "{format}");
        assert!(
            text(&files, home).contains("Nothing is published in this workspace yet."),
            "{format}"
        );
        assert!(!files.keys().any(|p| p.contains("draft")), "{format}");
    }
}

#[tokio::test]
async fn the_cli_unpacks_an_export_into_a_folder() {
    let app = app!(TestApp::builder().run_worker());
    let site = published(&app).await;
    let token = app.token(&site.ws, "read").await;
    let out = app.dir.path().join("site");
    let mut cmd = cli(app.dir.path());
    cmd.env("CONTENT_PIPELINE_SERVER", &app.base)
        .env("CONTENT_PIPELINE_TOKEN", &token)
        .args([
            "export",
            "--workspace",
            &site.ws,
            "--format",
            "mkdocs-material",
            "--out",
        ])
        .arg(&out);
    let output = tokio::task::spawn_blocking(move || cmd.output())
        .await
        .expect("join")
        .expect("run the binary");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("files of the mkdocs-material export written to"),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read(out.join("docs/assets/images/captures/one.png"))
            .ok()
            .as_deref(),
        Some(CAPTURE)
    );
    assert!(out.join("mkdocs.yml").is_file());
    let page = std::fs::read_to_string(out.join("docs/help-center/numbers.md")).expect("the page");
    assert!(page.contains("Install the crate"), "{page}");

    let mut bad = cli(app.dir.path());
    bad.env("CONTENT_PIPELINE_SERVER", &app.base)
        .env("CONTENT_PIPELINE_TOKEN", &token)
        .args([
            "export",
            "--workspace",
            &site.ws,
            "--format",
            "hugo",
            "--out",
        ])
        .arg(&out);
    let output = tokio::task::spawn_blocking(move || bad.output())
        .await
        .expect("join")
        .expect("run the binary");
    assert_eq!(
        output.status.code(),
        Some(2),
        "an unknown format is bad input"
    );
}

/// Where a framework's installed tools are (`npm ci` / `pip install` in `.ci/run`), or
/// `None` after saying why the test is skipped; a panic when they are required.
pub fn framework(tool: &Path, install: &str) -> Option<PathBuf> {
    if tool.exists() {
        return Some(tool.to_path_buf());
    }
    let required = std::env::var("CONTENT_PIPELINE_REQUIRE_FRAMEWORKS").is_ok_and(|v| v == "1");
    assert!(!required, "{} is missing ({install})", tool.display());
    eprintln!(
        "SKIPPED: {} is missing ({install}); set CONTENT_PIPELINE_REQUIRE_FRAMEWORKS=1 to fail instead",
        tool.display()
    );
    None
}
