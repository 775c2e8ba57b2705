//! Each export built by its framework: Docusaurus and Astro Starlight (npm, `npm ci` in
//! `tests/frameworks/<name>`), MkDocs Material (PyPI, `tests/frameworks/mkdocs-requirements.txt`).
//! Every published article must be a page of the built site, and every image a page shows
//! must be a file of the built site (the capture byte for byte). Mintlify has no offline
//! build: its `docs.json` is checked for the structure Mintlify requires instead. Skipped when
//! a framework is not installed, unless `CONTENT_PIPELINE_REQUIRE_FRAMEWORKS=1`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::app;
use crate::framework_exports::{CAPTURE, Published, export, framework, published};
use crate::helpers::TestApp;

fn frameworks_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/frameworks")
}

/// The export unpacked into a folder of its own.
async fn unpacked(app: &TestApp, site: &Published, format: &str) -> PathBuf {
    unpacked_in(
        app,
        site,
        format,
        &app.dir.path().join(format!("build-{format}")),
    )
    .await
}

async fn unpacked_in(app: &TestApp, site: &Published, format: &str, dir: &Path) -> PathBuf {
    let dir = dir.to_path_buf();
    let archive = export(app, &site.ws, format).await;
    exports::unpack(archive.as_slice(), &dir).expect("unpack");
    dir
}

/// Runs a build; panics with its output when it fails.
async fn build(mut cmd: Command, what: &str) {
    let output = tokio::task::spawn_blocking(move || cmd.output())
        .await
        .expect("join")
        .expect("start the build");
    assert!(
        output.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Every published article is a built page holding its title, and every image of those pages
/// is a file of the built site; the capture is one of them. `page` gives a built page's file
/// for (surface, feature).
fn check_site(root: &Path, site: &Published, page: impl Fn(&str, &str) -> PathBuf) {
    let mut images = Vec::new();
    for (id, feature, surface, title) in &site.articles {
        let file = page(surface, feature);
        let html = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("{id}: {} ({e})", file.display()));
        let shown = title.replace('&', "&amp;");
        assert!(html.contains(&shown), "{id}: {title} in {}", file.display());
        for src in html
            .split("<img")
            .skip(1)
            .filter_map(|tag| attribute(tag, "src"))
        {
            // Docusaurus inlines small images.
            if let Some((_, data)) = src
                .strip_prefix("data:")
                .and_then(|d| d.split_once(";base64,"))
            {
                use base64::Engine;
                let bytes = base64::engine::general_purpose::STANDARD.decode(data);
                images.push(bytes.unwrap_or_else(|e| panic!("{id}: a data URI ({e})")));
                continue;
            }
            assert!(
                !src.starts_with("http"),
                "{id}: an image from elsewhere: {src}"
            );
            let path = src.split(['?', '#']).next().unwrap_or_default();
            let resolved = match path.strip_prefix('/') {
                Some(absolute) => root.join(absolute),
                None => file.parent().unwrap_or(root).join(path),
            };
            let bytes = std::fs::read(&resolved)
                .unwrap_or_else(|e| panic!("{id}: image {src} at {} ({e})", resolved.display()));
            images.push(bytes);
        }
    }
    assert!(
        images.iter().any(|bytes| bytes.as_slice() == CAPTURE),
        "the capture is an image of the built site"
    );
}

fn attribute(tag: &str, name: &str) -> Option<String> {
    let end = tag.find('>').unwrap_or(tag.len());
    let tag = &tag[..end];
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let value = &tag[start..];
    Some(value[..value.find('"')?].replace("&amp;", "&"))
}

/// Links `node_modules` of the installed framework into the export.
fn with_modules(dir: &Path, modules: &Path) {
    #[cfg(unix)]
    std::os::unix::fs::symlink(modules, dir.join("node_modules")).expect("link node_modules");
}

#[tokio::test]
async fn docusaurus_builds_the_export() {
    let modules = frameworks_dir().join("docusaurus/node_modules");
    let Some(_) = framework(
        &modules.join("@docusaurus/core/bin/docusaurus.mjs"),
        "npm ci in crates/content-pipeline/tests/frameworks/docusaurus",
    ) else {
        return;
    };
    let app = app!(TestApp::builder().run_worker());
    let site = published(&app).await;
    let dir = unpacked(&app, &site, "docusaurus").await;
    with_modules(&dir, &modules);
    let mut cmd = Command::new("node");
    cmd.current_dir(&dir)
        .args([
            "node_modules/@docusaurus/core/bin/docusaurus.mjs",
            "build",
            "--out-dir",
            "build",
        ])
        .env("DOCUSAURUS_TELEMETRY_DISABLED", "1");
    build(cmd, "docusaurus build").await;
    let root = dir.join("build");
    check_site(&root, &site, |surface, feature| {
        root.join(surface).join(feature).join("index.html")
    });
}

#[tokio::test]
async fn starlight_builds_the_export() {
    let modules = frameworks_dir().join("starlight/node_modules");
    let Some(_) = framework(
        &modules.join("astro/astro.js"),
        "npm ci in crates/content-pipeline/tests/frameworks/starlight",
    ) else {
        return;
    };
    let app = app!(TestApp::builder().run_worker());
    let site = published(&app).await;
    // Inside the installed package (a git-ignored `sites/`), where Node finds its modules:
    // Vite does not build through a linked `node_modules`.
    let dir = frameworks_dir().join(format!("starlight/sites/{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let dir = unpacked_in(&app, &site, "starlight", &dir).await;
    let mut cmd = Command::new("node");
    cmd.current_dir(&dir)
        .arg(modules.join("astro/astro.js"))
        .arg("build")
        .env("ASTRO_TELEMETRY_DISABLED", "1");
    build(cmd, "astro build").await;
    let root = dir.join("dist");
    check_site(&root, &site, |surface, feature| {
        root.join(surface).join(feature).join("index.html")
    });
    let _ = std::fs::remove_dir_all(&dir);
}

/// MkDocs from `CONTENT_PIPELINE_MKDOCS` or `PATH`.
fn mkdocs() -> Option<PathBuf> {
    let found = std::env::var_os("CONTENT_PIPELINE_MKDOCS")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::split_paths(&std::env::var_os("PATH")?)
                .map(|dir| dir.join("mkdocs"))
                .find(|p| p.is_file())
        })
        .unwrap_or_else(|| PathBuf::from("mkdocs (not on PATH)"));
    framework(
        &found,
        "pip install -r crates/content-pipeline/tests/frameworks/mkdocs-requirements.txt",
    )
}

#[tokio::test]
async fn mkdocs_material_builds_the_export() {
    let Some(mkdocs) = mkdocs() else {
        return;
    };
    let app = app!(TestApp::builder().run_worker());
    let site = published(&app).await;
    let dir = unpacked(&app, &site, "mkdocs-material").await;
    let mut cmd = Command::new(mkdocs);
    cmd.current_dir(&dir).args(["build", "--site-dir", "site"]);
    build(cmd, "mkdocs build").await;
    let root = dir.join("site");
    check_site(&root, &site, |surface, feature| {
        root.join(surface).join(feature).join("index.html")
    });
}

/// Mintlify builds only on its own servers; its `docs.json` is checked against what Mintlify's
/// schema requires (`theme`, `name`, `colors.primary`, `navigation`), and every page the
/// navigation names is a file of the export.
#[tokio::test]
async fn mintlify_navigation_names_every_page_of_the_export() {
    let app = app!(TestApp::builder().run_worker());
    let site = published(&app).await;
    let dir = unpacked(&app, &site, "mintlify").await;
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("docs.json")).expect("docs.json"))
            .expect("docs.json is JSON");
    assert_eq!(config["$schema"], "https://mintlify.com/docs.json");
    assert!(
        [
            "mint", "maple", "palm", "willow", "linden", "almond", "aspen"
        ]
        .contains(&config["theme"].as_str().unwrap_or_default())
    );
    assert!(config["name"].as_str().is_some_and(|n| !n.is_empty()));
    let primary = config["colors"]["primary"].as_str().unwrap_or_default();
    assert!(primary.len() == 7 && primary.starts_with('#'), "{primary}");
    let groups = config["navigation"]["groups"]
        .as_array()
        .expect("navigation.groups");
    let mut named = Vec::new();
    for group in groups {
        assert!(
            group["group"].as_str().is_some_and(|g| !g.is_empty()),
            "{group}"
        );
        for page in group["pages"].as_array().expect("pages") {
            let page = page.as_str().expect("a page path");
            assert!(dir.join(format!("{page}.mdx")).is_file(), "{page}");
            named.push(page.to_owned());
        }
    }
    for (id, feature, surface, _) in &site.articles {
        assert!(
            named.contains(&format!("{surface}/{feature}")),
            "{id} in the navigation"
        );
    }
}
