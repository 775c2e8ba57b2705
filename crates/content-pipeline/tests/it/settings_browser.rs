//! Settings → API tokens and Members in headless Chromium (see `browser`), each test saving
//! screenshots of the pages it checked under `target/browser-screenshots/`.

use serde_json::{Value, json};
use thirtyfour::Key;

use crate::browser::{Browser, sign_in, t};
use crate::portal::PASSWORD;
use crate::{app, browser};

/// Runs `script` (its last statement calls `done(value)`) in the page and returns the value.
async fn in_page(b: &Browser, script: &str) -> Value {
    b.driver()
        .execute_async(script, Vec::new())
        .await
        .unwrap_or_else(|e| panic!("run `{script}`: {e}"))
        .json()
        .clone()
}

#[tokio::test]
async fn a_token_is_created_copied_gone_after_leaving_the_page_then_revoked() {
    let app = app!();
    let b = browser!();
    let ws = app.workspace("Docs").await;
    app.person("admin@example.com", Some((&ws, "admin"))).await;
    sign_in(&b, &app, "admin@example.com").await;

    b.goto(&app.url(&format!("/portal/w/{ws}/settings"))).await;
    let tokens_path = format!("/portal/w/{ws}/settings/tokens");
    b.wait_for_path(&tokens_path).await;
    b.click("input[name=\"expiry\"][value=\"30\"]").await;
    b.submit_form(&t("create-token"), &[("name", "ci bot")])
        .await;
    let shown = b.wait_for(&t("secret-value")).await;
    let secret = shown
        .prop("value")
        .await
        .expect("the field's value")
        .expect("a value");
    assert!(secret.starts_with("cpt_"), "{secret}");
    b.wait_for_text(&t("token-row"), "ci bot").await;
    let row = b.text(&t("token-row")).await;
    assert!(row.contains("never used"), "{row}");
    assert!(row.contains("read"), "the default scope: {row}");

    // The copy button puts the secret on the clipboard (the page is on loopback, a secure
    // context; headless Chromium grants the page its own clipboard).
    b.click(&t("copy-secret")).await;
    b.wait_until("document.querySelector('[data-test=\"copy-secret\"]').dataset.copied === 'true'")
        .await;
    assert_eq!(b.text(&t("copy-secret")).await, "Copied");
    b.screenshot_as("secret-shown").await;
    // Reading the clipboard from a script needs a permission headless Chromium does not
    // grant; pasting with the keyboard, as a person would, needs none.
    b.driver()
        .execute(
            "const f = document.createElement('textarea'); f.id = 'pasted'; \
             document.body.appendChild(f); f.focus();",
            Vec::new(),
        )
        .await
        .expect("a field to paste into");
    b.wait_for("#pasted")
        .await
        .send_keys(Key::Control + "v")
        .await
        .expect("paste");
    let pasted = b
        .wait_for("#pasted")
        .await
        .prop("value")
        .await
        .expect("the pasted value")
        .unwrap_or_default();
    assert_eq!(pasted, secret, "what the button copied");

    // The secret works against the API, and expires in 30 days.
    app.get(&format!("/v1/workspaces/{ws}"))
        .token(&secret)
        .expect(200)
        .await;
    let id = app.token_id(&secret).await;
    let listed = app
        .get(&format!("/v1/workspaces/{ws}/tokens"))
        .token(&app.platform_token)
        .expect(200)
        .await;
    let token = listed["data"]
        .as_array()
        .expect("data")
        .iter()
        .find(|t| t["id"] == id.as_str())
        .cloned()
        .expect("listed");
    assert!(token["expires_at"].is_string(), "{token}");

    // Leaving the page and coming back: the secret is gone for good.
    b.goto(&app.url(&format!("/portal/w/{ws}/runs"))).await;
    b.goto(&app.url(&tokens_path)).await;
    b.wait_for_text(&t("token-row"), "ci bot").await;
    assert_eq!(b.count(&t("new-secret")).await, 0);
    let source = b.driver().source().await.expect("the page source");
    assert!(!source.contains(&secret), "the secret is not on the page");

    // Revoke, through the confirmation.
    b.goto(&app.url(&tokens_path)).await;
    b.click(&format!("[data-id=\"{id}\"] {}", t("revoke-token")))
        .await;
    b.wait_for_text(&t("confirm-question"), "ci bot").await;
    b.screenshot_as("confirm-revoke").await;
    b.click(&t("confirm-button")).await;
    b.wait_for_path(&tokens_path).await;
    b.wait_for(&format!("[data-id=\"{id}\"] {}", t("token-revoked")))
        .await;
    b.screenshot_as("revoked").await;
    app.get(&format!("/v1/workspaces/{ws}"))
        .token(&secret)
        .expect_error(401, "unauthenticated")
        .await;
    assert!(b.console_errors().await.is_empty());
}

#[tokio::test]
async fn an_admin_invites_a_member_who_gets_a_one_time_link() {
    let app = app!();
    let b = browser!();
    let ws = app.workspace("Docs").await;
    app.person("admin@example.com", Some((&ws, "admin"))).await;
    sign_in(&b, &app, "admin@example.com").await;
    b.goto(&app.url(&format!("/portal/w/{ws}/settings/members")))
        .await;
    b.submit_form(&t("invite-member"), &[("email", "new@example.com")])
        .await;
    let link = b
        .wait_for(&t("secret-value"))
        .await
        .prop("value")
        .await
        .expect("value")
        .expect("a link");
    assert!(link.contains("/portal/password?token="), "{link}");
    b.wait_for_text(&t("member-row"), "new@example.com").await;
    b.screenshot_as("invited").await;
    let token = link.split("token=").nth(1).expect("token");
    app.ops
        .set_password_with_link(token, PASSWORD)
        .await
        .expect("the link sets a password");
}

#[tokio::test]
async fn a_read_only_member_sees_no_settings_and_a_forged_post_is_refused() {
    let app = app!();
    let b = browser!();
    let ws = app.workspace("Docs").await;
    app.person("reader@example.com", Some((&ws, "read"))).await;
    sign_in(&b, &app, "reader@example.com").await;

    b.goto(&app.url(&format!("/portal/w/{ws}/runs"))).await;
    b.wait_for_text(&t("workspace-name"), "Docs").await;
    assert_eq!(b.count("header a[href$=\"/settings\"]").await, 0);
    b.screenshot_as("no-settings-link").await;

    b.goto(&app.url(&format!("/portal/w/{ws}/settings/tokens")))
        .await;
    b.wait_for_text("h1", "Forbidden").await;
    b.screenshot_as("settings-forbidden").await;

    // A create form forged in the page, with the reader's own valid CSRF token.
    b.goto(&app.url(&format!("/portal/w/{ws}/runs"))).await;
    let status = in_page(
        &b,
        &format!(
            "const done = arguments[arguments.length - 1]; \
             const body = new URLSearchParams({{csrf: document.querySelector('[name=csrf]').value, \
               name: 'forged', scope: 'read', expiry: 'none'}}); \
             fetch('/portal/w/{ws}/settings/tokens', {{method: 'POST', body}}) \
               .then(r => done(r.status), e => done(String(e)));"
        ),
    )
    .await;
    assert_eq!(status, json!(403));
    let listed = app
        .get(&format!("/v1/workspaces/{ws}/tokens"))
        .token(&app.platform_token)
        .expect(200)
        .await;
    assert!(
        listed["data"]
            .as_array()
            .expect("data")
            .iter()
            .all(|t| t["name"] != "forged"),
        "{listed}"
    );
}
