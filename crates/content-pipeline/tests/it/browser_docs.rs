//! The API reference (`/docs`) in Chromium: RapiDoc, a module script served by the service,
//! renders the OpenAPI document under the page's Content-Security-Policy.

use crate::browser::{DESKTOP, PHONE, assert_png};
use crate::{app, browser};

/// True once RapiDoc has fetched `/openapi.json` and rendered its operations: the script, the
/// fetch and the inline styles it uses must all pass the page's Content-Security-Policy.
const RENDERED: &str = "document.querySelector('rapi-doc')?.shadowRoot?.textContent\
     .includes('/v1/workspaces/{ws}/runs')";

#[tokio::test]
async fn the_reference_renders_under_its_content_security_policy() {
    let browser = browser!();
    let app = app!();

    browser.goto(&app.url("/docs")).await;
    assert_eq!(browser.title().await, "Content Pipeline API reference");
    browser.wait_until(RENDERED).await;
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "the page reported errors: {errors:#?}");

    let shot = browser.screenshot().await;
    assert_png(&shot, DESKTOP);
}

#[tokio::test]
async fn the_reference_renders_on_a_phone() {
    let browser = browser!();
    let app = app!();

    browser.resize(PHONE).await;
    browser.goto(&app.url("/docs")).await;
    browser
        .wait_until(&format!("window.innerWidth === {}", PHONE.0))
        .await;
    browser.wait_until(RENDERED).await;

    let shot = browser.screenshot().await;
    assert_png(&shot, PHONE);
}
