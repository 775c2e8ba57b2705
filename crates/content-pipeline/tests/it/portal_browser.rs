//! The portal in real headless Chromium (see `browser`): what a person does in it, each test
//! saving a screenshot of the pages it checked under `target/browser-screenshots/`.

use reqwest::StatusCode;
use testkit::Repo;

use crate::browser::Browser;
use crate::helpers::TestApp;
use crate::portal::PASSWORD;
use crate::{app, browser};

/// The CSS selector of `data-test="{name}"`.
fn t(name: &str) -> String {
    format!("[data-test=\"{name}\"]")
}

async fn sign_in(b: &Browser, app: &TestApp, email: &str, password: &str) {
    b.goto(&app.url("/portal/sign-in")).await;
    b.submit_form(
        &t("sign-in-form"),
        &[("email", email), ("password", password)],
    )
    .await;
}

/// A repository whose feature has a two-step walkthrough, the first with a capture.
pub(crate) fn walkthrough_repo(app: &TestApp, name: &str) -> Repo {
    let mut repo = Repo::init(&app.dir.path().join(name));
    repo.write(
        "src/lib.rs",
        "/// Adds two numbers.\npub fn add(a: i32, b: i32) -> i32 { a + b }\n",
    )
    .write("captures/one.png", include_bytes!("fixtures/capture.png").as_slice())
    .write(
        ".content-pipeline/features.toml",
        "[[features]]\nid = \"numbers\"\ntitle = \"Numbers\"\nsummary = \"Small helpers.\"\n\
         paths = [\"src/**\"]\ncaptures = \"captures\"\n\n\
         [[features.steps]]\ntitle = \"Install the crate\"\nbody = \"Run `cargo add numbers`.\"\ncapture = \"one.png\"\n\n\
         [[features.steps]]\ntitle = \"Add two numbers\"\nbody = \"Call `add(1, 2)`.\"\n",
    );
    repo.commit("feat: add numbers");
    repo
}

#[tokio::test]
async fn signing_in_a_wrong_password_and_throttling() {
    let app = app!();
    let b = browser!();
    let ws = app.workspace("Docs").await;
    app.person("writer@example.com", Some((&ws, "write"))).await;

    sign_in(&b, &app, "writer@example.com", PASSWORD).await;
    b.wait_for_path("/portal/workspaces").await;
    b.wait_for_text(&t("signed-in-as"), "writer@example.com")
        .await;
    b.wait_for_text(&t("workspace-row"), "Docs").await;
    b.screenshot_as("workspaces").await;
    b.click(".signout button").await;
    b.wait_for_path("/portal/sign-in").await;

    sign_in(&b, &app, "writer@example.com", "not the password!").await;
    let error = b.text(&t("sign-in-error")).await;
    assert!(error.contains("not right") || error.contains("wrong") || !error.is_empty());
    b.screenshot_as("wrong-password").await;
    // Five failures per account in the window: the next attempt is refused before the
    // password is even checked, the right one included, with a message saying when to retry.
    for _ in 0..4 {
        sign_in(&b, &app, "writer@example.com", "not the password!").await;
        b.wait_for(&t("sign-in-error")).await;
    }
    sign_in(&b, &app, "writer@example.com", PASSWORD).await;
    b.wait_for_text(&t("sign-in-error"), "minute").await;
    assert_eq!(b.current_url().await.path(), "/portal/sign-in");
    b.screenshot_as("throttled").await;
}

/// A writer of a new workspace "Docs" signs in and starts a run from the runs page; answers
/// the workspace and the run, whose page the browser shows.
async fn run_started_in_the_portal(app: &TestApp, b: &Browser) -> (String, String) {
    let ws = app.workspace("Docs").await;
    app.person("writer@example.com", Some((&ws, "write"))).await;
    sign_in(b, app, "writer@example.com", PASSWORD).await;
    b.wait_for_path("/portal/workspaces").await;

    b.goto(&app.url(&format!("/portal/w/{ws}/runs"))).await;
    b.wait_for(&t("feature-picker")).await;
    b.click(&t("run-now-submit")).await;
    b.wait_for_text(&t("run-source"), "portal").await;
    let path = b.current_url().await.path().to_owned();
    let run_id = path.rsplit('/').next().expect("a run id").to_owned();
    (ws, run_id)
}

#[tokio::test]
async fn a_run_started_in_the_portal_shows_its_log_lines_as_they_are_written() {
    // No run worker: the run stays queued while the test writes its log, so every line seen
    // came through the live stream, not the first page load.
    let app = app!();
    let b = browser!();
    let (ws, run_id) = run_started_in_the_portal(&app, &b).await;
    let run = app
        .platform_api()
        .get_run(&run_id.parse().expect("a run id"))
        .await
        .expect("the run");
    assert_eq!(run.source.as_str(), "portal");
    b.wait_for(&t("live-log")).await;
    assert_eq!(b.count(&t("log-line")).await, 0);

    app.log(&run_id, "resolve", "Resolved the feature from the manifest")
        .await;
    b.wait_for_text("#log-resolve", "Resolved the feature")
        .await;
    app.log(&run_id, "collect", "Collected 3 files").await;
    b.wait_for_text("#log-collect", "Collected 3 files").await;
    assert_eq!(b.count(&t("log-line")).await, 2);
    b.screenshot().await;

    // The list shows the run, and refreshes itself while it is queued.
    b.goto(&app.url(&format!("/portal/w/{ws}/runs"))).await;
    b.wait_for_text(&t("run-row"), "queued").await;
    let errors = b.console_errors().await;
    assert!(errors.is_empty(), "no script or policy errors: {errors:?}");
    b.screenshot_as("list").await;
}

#[tokio::test]
async fn a_run_page_whose_stream_ends_with_the_run_reports_no_error() {
    // No run worker: the test claims and ends the run itself while the page follows it.
    let app = app!();
    let b = browser!();
    let (_, run_id) = run_started_in_the_portal(&app, &b).await;
    b.wait_for(&t("live-log")).await;
    let run_id: domain::RunId = run_id.parse().expect("a run id");

    let now = app.clock.timestamp();
    let claimed = app
        .store
        .claim_run(
            "test-worker",
            now.plus(std::time::Duration::from_secs(60)),
            now,
            5,
        )
        .await
        .expect("claim")
        .expect("the queued run");
    assert_eq!(claimed.id, run_id);
    app.log(&run_id.to_string(), "resolve", "Resolving").await;
    b.wait_for_text("#log-resolve", "Resolving").await;
    let mut tx = app.store.begin().await.expect("tx");
    let ending = store::RunEnding {
        status: domain::RunStatus::Failed,
        source_commit: None,
        artifacts: Vec::new(),
        error: Some("stopped by the test".into()),
    };
    tx.finish_run(run_id, Some("test-worker"), &ending, app.clock.timestamp())
        .await
        .expect("finish")
        .expect("the test's run");
    tx.commit().await.expect("commit");

    // The stream's `done` event reloads the run, which no longer follows a log.
    b.wait_for_text(&t("run-status"), "failed").await;
    b.wait_gone(&t("live-log")).await;
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    let errors = b.console_errors().await;
    assert!(
        errors.is_empty(),
        "the closed stream logged errors: {errors:#?}"
    );
    b.screenshot().await;
}

#[tokio::test]
async fn an_article_preview_a_diff_and_publishing_to_the_public_page_and_feed() {
    let app = app!(TestApp::builder().run_worker());
    let b = browser!();
    let mut repo = walkthrough_repo(&app, "walk");
    let ws = app.workspace_on("Docs", &repo.path).await;
    app.run_feature(&ws, "numbers").await;
    repo.write(
        "src/lib.rs",
        "/// Adds two numbers, wrapping on overflow.\npub fn add(a: i32, b: i32) -> i32 { a.wrapping_add(b) }\n",
    );
    repo.commit("fix: wrap on overflow");
    app.run_feature(&ws, "numbers").await;
    let articles = app
        .platform_api()
        .list_articles(
            &ws.parse().expect("id"),
            &Default::default(),
            &Default::default(),
        )
        .await
        .expect("articles")
        .data;
    let id_of = |surface: &str| {
        articles
            .iter()
            .find(|a| a.surface.as_str() == surface)
            .unwrap_or_else(|| panic!("a {surface} article"))
            .id
            .to_string()
    };
    let (help, docs, changelog) = (id_of("help-center"), id_of("dev-docs"), id_of("changelog"));
    app.person("editor@example.com", Some((&ws, "publish")))
        .await;
    sign_in(&b, &app, "editor@example.com", PASSWORD).await;
    b.wait_for_path("/portal/workspaces").await;

    // The walkthrough: its steps, and its capture loaded from the repository.
    b.goto(&app.url(&format!("/portal/w/{ws}/articles/{help}")))
        .await;
    b.wait_for_text(".steps", "Install the crate").await;
    assert_eq!(b.count(".steps .step").await, 2);
    b.wait_until(
        "document.querySelector('[data-test=preview] img') \
         && document.querySelector('[data-test=preview] img').complete \
         && document.querySelector('[data-test=preview] img').naturalWidth === 320",
    )
    .await;
    let errors = b.console_errors().await;
    assert!(errors.is_empty(), "no script or policy errors: {errors:?}");
    b.screenshot_as("preview").await;

    // The dev docs changed between the runs: compare version 1 with 2.
    b.goto(&app.url(&format!("/portal/w/{ws}/articles/{docs}/versions")))
        .await;
    assert_eq!(b.count(&t("version-row")).await, 2);
    b.click(&t("compare")).await;
    b.wait_for(&t("diff")).await;
    b.wait_for_text(".diff-added", "wrapping").await;
    b.screenshot_as("diff").await;

    // Publish the walkthrough, then read it on its public page.
    b.goto(&app.url(&format!("/portal/w/{ws}/articles/{help}")))
        .await;
    b.click(&t("publish")).await;
    b.wait_for_text(&t("article-status"), "published").await;
    let public = b.text(&t("public-url")).await;
    b.goto(&public).await;
    b.wait_for_text("main", "Install the crate").await;
    b.wait_until(
        "document.querySelector('main img') && document.querySelector('main img').naturalWidth === 320",
    )
    .await;
    b.screenshot_as("public-page").await;

    // Publish the changelog too: it is in the workspace's Atom feed.
    b.goto(&app.url(&format!("/portal/w/{ws}/articles/{changelog}")))
        .await;
    b.click(&t("publish")).await;
    b.wait_for_text(&t("article-status"), "published").await;
    let feed = reqwest::get(app.url(&format!("/published/workspaces/{ws}/changelog.atom")))
        .await
        .expect("the feed");
    assert_eq!(feed.status(), StatusCode::OK);
    let feed = feed.text().await.expect("a body");
    let parsed: atom_syndication::Feed = feed.parse().expect("an Atom feed");
    assert_eq!(parsed.entries().len(), 1, "{feed}");
    b.goto(&app.url(&format!("/published/workspaces/{ws}")))
        .await;
    b.wait_for_text("main", "Numbers").await;
    b.screenshot_as("public-index").await;
}

#[tokio::test]
async fn a_reader_cannot_publish_forged_requests_are_refused_and_other_workspaces_are_missing() {
    let app = app!(TestApp::builder().run_worker());
    let b = browser!();
    let ws = app.workspace("Docs").await;
    let other = app.workspace("Other team").await;
    let features = crate::helpers::feature_ids();
    app.run_feature(&ws, &features[0]).await;
    let article = app
        .platform_api()
        .list_articles(
            &ws.parse().expect("id"),
            &Default::default(),
            &Default::default(),
        )
        .await
        .expect("articles")
        .data
        .first()
        .expect("an article")
        .id
        .to_string();
    app.person("reader@example.com", Some((&ws, "read"))).await;
    sign_in(&b, &app, "reader@example.com", PASSWORD).await;
    b.wait_for_path("/portal/workspaces").await;

    let page = app.url(&format!("/portal/w/{ws}/articles/{article}"));
    b.goto(&page).await;
    b.wait_for(&t("preview")).await;
    assert_eq!(b.count(&t("publish")).await, 0, "no publish button");
    assert_eq!(b.count(&t("regenerate")).await, 0, "no regenerate button");
    assert_eq!(b.count(&t("run-now")).await, 0);
    b.screenshot_as("no-publish-button").await;

    // A publish form forged in the page, with the reader's own CSRF token: refused by role.
    let forge = |with_token: bool| {
        format!(
            "const f = document.createElement('form'); f.method = 'post'; \
             f.action = '/portal/w/{ws}/articles/{article}/publish'; \
             if ({with_token}) {{ const i = document.createElement('input'); i.type = 'hidden'; \
             i.name = 'csrf'; i.value = document.querySelector('[name=csrf]').value; f.appendChild(i); }} \
             document.body.appendChild(f); f.submit();"
        )
    };
    b.driver()
        .execute(forge(true).as_str(), Vec::new())
        .await
        .expect("forge a form");
    b.wait_for_text(&t("error-message"), "publish").await;
    b.screenshot_as("forged-publish").await;

    // The same form without the CSRF token: refused before anything else.
    b.goto(&page).await;
    b.wait_for(&t("preview")).await;
    b.driver()
        .execute(forge(false).as_str(), Vec::new())
        .await
        .expect("forge a form");
    b.wait_for_text(&t("error-message"), "reload the page")
        .await;
    b.screenshot_as("no-csrf-token").await;
    let article_now = app
        .platform_api()
        .get_article(&article.parse().expect("an article id"))
        .await
        .expect("the article");
    assert_ne!(article_now.status.as_str(), "published");

    // Another workspace's pages answer like missing ones.
    b.goto(&app.url(&format!("/portal/w/{other}/articles")))
        .await;
    b.wait_for_text("h1", "Not Found").await;
    b.screenshot_as("other-workspace").await;
}
