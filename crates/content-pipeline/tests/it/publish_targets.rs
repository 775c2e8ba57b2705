//! Publish targets (issue 33): a docs repository kept in sync with what a workspace publishes,
//! black-box over HTTP against a real Git server on loopback that takes pushes behind basic
//! auth. Publishing commits the page in the export layout; a newer version replaces it;
//! unpublishing removes it; someone else's push in between is kept (our commit is redone on
//! theirs); a refused credential is shown and nothing is lost; a refused address is a 422.

use std::path::Path;
use std::time::Duration;

use domain::Surface;
use reqwest::Method;
use serde_json::{Value, json};
use testkit::{GitServer, Repo, eventually, push_to_bare};

use crate::app;
use crate::helpers::TestApp;

const TOKEN: &str = "ghp-publish-Zq81xKv";
const PAGE: &str = "website/docs/help-center/csv-export.mdx";

fn builder() -> crate::helpers::Builder {
    TestApp::builder()
        .workers()
        .run_concurrency(0)
        .drift_interval(Duration::ZERO)
        .webhook_allowed_cidrs("127.0.0.0/8")
        .webhook_retry_schedule("0s,100ms,100ms,100ms,100ms,100ms")
}

/// `git --git-dir <bare> args…`'s output; `None` when git fails (a missing path).
fn git(bare: &Path, args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("git")
        .arg("--git-dir")
        .arg(bare)
        .args(args)
        .output()
        .expect("run git");
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn file_at_main(bare: &Path, path: &str) -> Option<String> {
    git(bare, &["show", &format!("main:{path}")])
}

fn last_commit(bare: &Path) -> (String, String) {
    let line = git(bare, &["log", "-1", "--format=%H%n%s%n%an <%ae>", "main"]).expect("a log");
    let mut lines = line.lines();
    let id = lines.next().unwrap_or_default().to_owned();
    let rest = lines.collect::<Vec<_>>().join("\n");
    (id, rest)
}

/// A docs repository others work in too: a README and a hand-written page in the folder.
fn docs_repository(app: &TestApp, server: &GitServer) -> std::path::PathBuf {
    let bare = server.create_bare("acme/docs");
    server.allow_push(&bare);
    let mut theirs = Repo::init(&app.dir.path().join("theirs"));
    theirs
        .write("README.md", "# Acme docs\n")
        .write("website/handwritten.md", "Written by a person.\n");
    theirs.commit("docs: start the site");
    push_to_bare(&theirs.path, &bare, "+HEAD:refs/heads/main");
    bare
}

async fn target(app: &TestApp, ws: &str) -> Value {
    app.get(&format!("/v1/workspaces/{ws}/publish-target"))
        .expect(200)
        .await
}

/// Waits until the target has nothing left to push and its last sync succeeded.
async fn synced(app: &TestApp, ws: &str) -> Value {
    eventually(
        Duration::from_secs(60),
        "the publish target synced",
        || async {
            let t = target(app, ws).await;
            (t["sync"]["state"] == "synced" && t["sync"]["pending"] == false).then_some(t)
        },
    )
    .await
}

async fn set_target(app: &TestApp, ws: &str, url: &str, token: &str) -> Value {
    app.call(Method::PUT, &format!("/v1/workspaces/{ws}/publish-target"))
        .json(&json!({"url": url, "branch": "main", "folder": "website", "format": "docusaurus", "token": token}))
        .expect(200)
        .await
}

async fn publish(app: &TestApp, article: &str) {
    app.post(&format!("/v1/articles/{article}/publish"))
        .expect(200)
        .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn publishing_keeps_a_docs_repository_in_sync() {
    let app = app!(builder());
    let server = GitServer::start().await;
    server.require_basic_auth("x-access-token", TOKEN);
    let bare = docs_repository(&app, &server);
    let ws = app.workspace("Docs team").await;

    let set = set_target(&app, &ws, &server.url("acme/docs"), TOKEN).await;
    assert_eq!(set["credential"]["kind"], "token", "{set}");
    assert!(!set.to_string().contains(TOKEN), "{set}");
    assert_eq!(set["folder"], "website");
    assert_eq!(set["format"], "docusaurus");

    // Publish: a commit on the branch with the page in Docusaurus's layout.
    let article = app
        .write_article(
            &ws,
            "csv-export",
            Surface::HelpCenter,
            "---\ntitle: \"CSV export\"\n---\n\nFirst text.\n",
        )
        .await;
    publish(&app, &article).await;
    let shown = synced(&app, &ws).await;
    let (head, message) = last_commit(&bare);
    assert_eq!(shown["sync"]["last_commit"], head.as_str(), "{shown}");
    assert_eq!(
        message,
        "docs: publish csv-export on help-center (v1)\nContent Pipeline <content-pipeline@localhost>"
    );
    let page = file_at_main(&bare, PAGE).expect("the page on the branch");
    assert!(page.contains("First text."), "{page}");
    assert!(file_at_main(&bare, "website/docs/help-center/_category_.json").is_some());
    assert_eq!(
        file_at_main(&bare, "README.md").as_deref(),
        Some("# Acme docs\n")
    );
    assert!(file_at_main(&bare, "website/handwritten.md").is_some());

    // A newer version replaces the page.
    app.write_article(
        &ws,
        "csv-export",
        Surface::HelpCenter,
        "---\ntitle: \"CSV export\"\n---\n\nSecond text.\n",
    )
    .await;
    publish(&app, &article).await;
    let before = shown["sync"]["last_commit"].clone();
    eventually(
        Duration::from_secs(60),
        "the new version pushed",
        || async {
            let t = synced(&app, &ws).await;
            (t["sync"]["last_commit"] != before).then_some(())
        },
    )
    .await;
    let page = file_at_main(&bare, PAGE).expect("the page");
    assert!(
        page.contains("Second text.") && !page.contains("First text."),
        "{page}"
    );
    assert!(
        last_commit(&bare)
            .1
            .starts_with("docs: publish csv-export on help-center (v2)\n")
    );

    // Someone pushes between our fetch and our push: ours is rejected, redone on theirs.
    let other = app
        .write_article(
            &ws,
            "billing",
            Surface::DevDocs,
            "---\ntitle: \"Billing\"\n---\n\nBilling.\n",
        )
        .await;
    let (bare_for_them, dir) = (bare.clone(), app.dir.path().join("someone-else"));
    server.before_next_push(move || {
        let mut theirs = Repo::init(&dir);
        let fetched = std::process::Command::new("git")
            .args(["fetch", "--quiet"])
            .arg(&bare_for_them)
            .arg("main")
            .current_dir(&theirs.path)
            .status()
            .expect("git fetch");
        assert!(fetched.success());
        let reset = std::process::Command::new("git")
            .args(["reset", "--quiet", "--hard", "FETCH_HEAD"])
            .current_dir(&theirs.path)
            .status()
            .expect("git reset");
        assert!(reset.success());
        theirs.write("CHANGELOG.md", "Theirs.\n");
        theirs.commit("chore: their commit");
        push_to_bare(&theirs.path, &bare_for_them, "+HEAD:refs/heads/main");
    });
    publish(&app, &other).await;
    eventually(Duration::from_secs(60), "the rebased push", || async {
        file_at_main(&bare, "website/docs/dev-docs/billing.mdx").map(|_| ())
    })
    .await;
    synced(&app, &ws).await;
    assert_eq!(
        file_at_main(&bare, "CHANGELOG.md").as_deref(),
        Some("Theirs.\n"),
        "their commit is kept"
    );
    let parents = git(&bare, &["log", "--format=%s", "-3", "main"]).expect("log");
    assert!(
        parents.starts_with("docs: publish Billing (v1)\nchore: their commit\n")
            || parents.starts_with("docs: publish billing on dev-docs (v1)\nchore: their commit\n"),
        "{parents}"
    );
    assert!(file_at_main(&bare, PAGE).is_some());

    // Unpublishing removes the page; the rest stays.
    let unpublished = app
        .call(
            Method::DELETE,
            &format!("/v1/articles/{article}/publication"),
        )
        .expect(200)
        .await;
    assert_ne!(unpublished["status"], "published", "{unpublished}");
    assert!(unpublished["public_url"].is_null(), "{unpublished}");
    eventually(Duration::from_secs(60), "the page removed", || async {
        file_at_main(&bare, PAGE).is_none().then_some(())
    })
    .await;
    assert_eq!(
        last_commit(&bare).1,
        "docs: remove csv-export on help-center\nContent Pipeline <content-pipeline@localhost>"
    );
    assert!(file_at_main(&bare, "website/docs/dev-docs/billing.mdx").is_some());
    assert!(file_at_main(&bare, "website/handwritten.md").is_some());
    assert!(file_at_main(&bare, "CHANGELOG.md").is_some());
    app.get(&format!("/published/{article}"))
        .anonymous()
        .expect_text(404)
        .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_credential_is_shown_and_nothing_is_lost() {
    let app = app!(builder());
    let server = GitServer::start().await;
    server.require_basic_auth("x-access-token", TOKEN);
    let bare = docs_repository(&app, &server);
    let ws = app.workspace("Docs team").await;
    let url = server.url("acme/docs");
    set_target(&app, &ws, &url, "wrong-token").await;
    let article = app
        .write_article(
            &ws,
            "csv-export",
            Surface::HelpCenter,
            "---\ntitle: \"CSV export\"\n---\n\nText.\n",
        )
        .await;
    publish(&app, &article).await;
    let failed = eventually(Duration::from_secs(60), "the auth failure", || async {
        let t = target(&app, &ws).await;
        (t["sync"]["state"] == "auth_failed").then_some(t)
    })
    .await;
    let error = failed["sync"]["last_error"].as_str().unwrap_or_default();
    assert!(error.contains("authentication failed"), "{failed}");
    assert!(!failed.to_string().contains("wrong-token"), "{failed}");
    assert_eq!(
        failed["sync"]["pending"], true,
        "the change waits: {failed}"
    );
    assert!(
        failed["sync"]["next_attempt_at"].is_null(),
        "no retry before the credential changes"
    );
    let refused = server.refused();
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(
        server.refused(),
        refused,
        "no retry against a refused credential"
    );
    assert!(file_at_main(&bare, PAGE).is_none());

    // The right credential: the waiting change goes out.
    set_target(&app, &ws, &url, TOKEN).await;
    synced(&app, &ws).await;
    assert!(file_at_main(&bare, PAGE).is_some());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_target_is_checked_and_shown_without_its_secret() {
    let app = app!(TestApp::builder());
    let ws = app.workspace("Docs team").await;
    let path = format!("/v1/workspaces/{ws}/publish-target");
    let refused = app
        .call(Method::PUT, &path)
        .json(&json!({"url": "https://127.0.0.1/acme/docs.git", "format": "docusaurus", "token": TOKEN}))
        .expect(422)
        .await;
    assert_eq!(refused["error"]["type"], "validation_failed");
    assert_eq!(refused["error"]["param"], "url", "{refused}");
    for (body, param) in [
        (
            json!({"url": "https://docs.example.com/a.git", "format": "docusaurus", "folder": "../x"}),
            "folder",
        ),
        (
            json!({"url": "https://docs.example.com/a.git", "format": "docusaurus", "folder": "/srv"}),
            "folder",
        ),
        (
            json!({"url": "https://docs.example.com/a.git", "format": "hugo"}),
            "format",
        ),
        (
            json!({"url": "https://docs.example.com/a.git", "format": "docusaurus", "branch": "a..b"}),
            "branch",
        ),
    ] {
        let answer = app.call(Method::PUT, &path).json(&body).expect(422).await;
        assert_eq!(answer["error"]["param"], param, "{answer}");
    }
    app.get(&path).expect(404).await;
    let set = app
        .call(Method::PUT, &path)
        .json(&json!({"url": "https://docs.example.com/a.git", "format": "mkdocs-material", "folder": "docs", "token": TOKEN}))
        .expect(200)
        .await;
    assert_eq!(set["branch"], "main");
    assert_eq!(set["sync"]["state"], "pending");
    assert_eq!(set["sync"]["pending"], true);
    let read = app.token(&ws, "read").await;
    let shown = app.get(&path).token(&read).expect(200).await;
    assert_eq!(
        shown["credential"]["fingerprint"],
        set["credential"]["fingerprint"]
    );
    assert!(!shown.to_string().contains(TOKEN));
    app.call(Method::DELETE, &path)
        .token(&read)
        .expect(403)
        .await;
    app.call(Method::DELETE, &path).expect(200).await;
    app.get(&path).expect(404).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn admins_set_the_target_in_the_portal_and_see_its_status() {
    let app = app!(builder());
    let server = GitServer::start().await;
    server.require_basic_auth("x-access-token", TOKEN);
    let bare = docs_repository(&app, &server);
    let ws = app.workspace("Docs").await;
    let admin = app.person("admin@example.com", Some((&ws, "admin"))).await;
    let page = format!("/portal/w/{ws}/settings/repository");
    let (status, html) = admin.page(&page).await;
    assert_eq!(status, 200);
    assert!(html.contains("data-test=\"no-publish-target\""), "{html}");
    let csrf = admin.csrf(&page).await;
    let form = |url: &str, folder: &str| {
        vec![
            ("csrf".to_owned(), csrf.clone()),
            ("url".to_owned(), url.to_owned()),
            ("branch".to_owned(), String::new()),
            ("folder".to_owned(), folder.to_owned()),
            ("format".to_owned(), "docusaurus".to_owned()),
            ("token".to_owned(), TOKEN.to_owned()),
            ("username".to_owned(), String::new()),
        ]
    };
    let post = |fields: Vec<(String, String)>| {
        let admin = &admin;
        let target = format!("{page}/publish-target");
        async move {
            let pairs: Vec<(&str, &str)> = fields
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            admin.post(&target, &pairs).await
        }
    };
    let refused = post(form(&server.url("acme/docs"), "../up")).await;
    assert_eq!(refused.status(), 422);
    let r = post(form(&server.url("acme/docs"), "website")).await;
    assert_eq!(r.status(), 200);
    let html = r.text().await.expect("page");
    assert!(
        html.contains("data-test=\"publish-facts\"") && !html.contains(TOKEN),
        "{html}"
    );

    let article = app
        .write_article(
            &ws,
            "csv-export",
            Surface::HelpCenter,
            "---\ntitle: \"CSV export\"\n---\n\nText.\n",
        )
        .await;
    publish(&app, &article).await;
    let shown = synced(&app, &ws).await;
    assert!(file_at_main(&bare, PAGE).is_some());
    let (_, html) = admin.page(&page).await;
    assert!(html.contains("data-state=\"synced\""), "{html}");
    let commit = shown["sync"]["last_commit"].as_str().expect("a commit");
    assert!(html.contains(commit), "the pushed commit is shown");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_first_push_makes_a_missing_branch_at_the_root_by_the_configured_author() {
    let app = app!(builder().configure(|c| {
        c.publish_author_name = "Docs Bot".into();
        c.publish_author_email = "docs-bot@acme.test".into();
    }));
    let server = GitServer::start().await;
    server.require_basic_auth("x-access-token", TOKEN);
    let bare = docs_repository(&app, &server);
    let ws = app.workspace("Docs team").await;
    app.call(Method::PUT, &format!("/v1/workspaces/{ws}/publish-target"))
        .json(&json!({"url": server.url("acme/docs"), "branch": "site", "format": "mkdocs-material", "token": TOKEN}))
        .expect(200)
        .await;
    let article = app
        .write_article(
            &ws,
            "csv-export",
            Surface::HelpCenter,
            "---\ntitle: \"CSV export\"\n---\n\nText.\n",
        )
        .await;
    publish(&app, &article).await;
    let shown = synced(&app, &ws).await;
    let head = git(&bare, &["rev-parse", "site"]).expect("the branch was made");
    assert_eq!(shown["sync"]["last_commit"], head.trim());
    let page = git(&bare, &["show", "site:docs/help-center/csv-export.md"]).expect("the page");
    assert!(page.contains("Text."), "{page}");
    assert!(git(&bare, &["show", "site:mkdocs.yml"]).is_some());
    let by = git(
        &bare,
        &["log", "-1", "--format=%an <%ae>|%cn <%ce>", "site"],
    )
    .expect("log");
    assert_eq!(
        by.trim(),
        "Docs Bot <docs-bot@acme.test>|Docs Bot <docs-bot@acme.test>"
    );
    assert!(
        git(&bare, &["show", "site:README.md"]).is_none(),
        "a new branch of our own"
    );
    assert_eq!(
        file_at_main(&bare, "README.md").as_deref(),
        Some("# Acme docs\n"),
        "main untouched"
    );
}
