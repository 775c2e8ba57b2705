//! Settings → Repository in headless Chromium (see `browser`): an admin connects a repository
//! served on loopback, pastes a token, fetches now and sees the fetched head, then switches to
//! a deploy key and copies its public half. Screenshots under `target/browser-screenshots/`.

use std::time::Duration;

use testkit::{GitServer, push_to_bare};

use crate::browser::{sign_in, t};
use crate::helpers::TestApp;
use crate::remote_repositories::project;
use crate::{app, browser};

const TOKEN: &str = "gho_Br0wserT0ken0000xyz";

#[tokio::test(flavor = "multi_thread")]
async fn an_admin_connects_fetches_and_copies_a_deploy_key() {
    let app = app!(
        TestApp::builder()
            .run_worker()
            .webhook_allowed_cidrs("127.0.0.0/8")
    );
    let b = browser!();
    let server = GitServer::start().await;
    server.require_basic_auth("x-access-token", TOKEN);
    let bare = server.create_bare("acme/app");
    let repo = project(app.dir.path());
    push_to_bare(&repo.path, &bare, "+HEAD:refs/heads/main");
    let ws = app.workspace("Docs").await;
    app.person("admin@example.com", Some((&ws, "admin"))).await;
    sign_in(&b, &app, "admin@example.com").await;

    let page = format!("/portal/w/{ws}/settings/repository");
    b.goto(&app.url(&page)).await;
    b.submit_form(
        &t("connect-repository"),
        &[
            ("repo_url", &server.url("acme/app")),
            ("default_branch", ""),
        ],
    )
    .await;
    b.wait_for_text(&t("repository-notice"), "Connected").await;
    assert!(b.text(&t("no-credential")).await.contains("anonymous"));

    b.submit_form(&t("set-token"), &[("token", TOKEN)]).await;
    b.wait_for_text(&t("credential-kind"), "access token").await;
    assert!(
        !b.driver().source().await.expect("the page").contains(TOKEN),
        "the token is never shown again"
    );

    b.submit_form(&t("fetch-now"), &[]).await;
    b.reload_until(&t("fetched-head"), &repo.head(), Duration::from_secs(30))
        .await;
    assert!(b.text(&t("last-fetch")).await != "never");
    assert_eq!(b.count(&t("fetch-error")).await, 0);
    b.screenshot_as("fetched").await;

    b.submit_form(&t("generate-deploy-key"), &[]).await;
    let key = b.wait_for(&t("public-key")).await;
    let public = key
        .prop("value")
        .await
        .expect("the field's value")
        .unwrap_or_default();
    assert!(public.starts_with("ssh-ed25519 "), "{public}");
    assert!(b.text(&t("credential-kind")).await.contains("deploy key"));
    b.click(&t("copy-public-key")).await;
    b.wait_until(
        "document.querySelector('[data-test=\"copy-public-key\"]').dataset.copied === 'true'",
    )
    .await;
    b.screenshot_as("deploy-key").await;
    assert_eq!(b.console_errors().await, Vec::<String>::new());
}
