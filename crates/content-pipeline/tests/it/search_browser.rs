//! Search in real headless Chromium (see `browser`): results as a person types, on the
//! published site (our script) and in the portal (htmx), and the site's box as a plain form.

use domain::Surface;

use crate::browser::{sign_in, t};
use crate::helpers::TestApp;
use crate::{app, browser};

async fn publish(app: &TestApp, article: &str) {
    app.post(&format!("/v1/articles/{article}/publish"))
        .expect(200)
        .await;
}

#[tokio::test]
async fn the_site_search_box_shows_results_as_a_reader_types() {
    let app = app!();
    let b = browser!();
    let ws = app.workspace("Docs").await;
    let csv = app
        .write_article(&ws, "csv", Surface::HelpCenter, "Export reports as CSV.\n")
        .await;
    publish(&app, &csv).await;
    let other = app
        .write_article(
            &ws,
            "hooks",
            Surface::HelpCenter,
            "Signed webhook deliveries.\n",
        )
        .await;
    publish(&app, &other).await;

    b.goto(&app.url(&format!("/published/workspaces/{ws}")))
        .await;
    b.fill(&t("search-input"), "expo").await;
    b.wait_for_text(
        "#search-live [data-test=\"search-hit\"]",
        "csv on help-center",
    )
    .await;
    assert_eq!(b.count("#search-live [data-test=\"search-hit\"]").await, 1);
    b.screenshot_as("as-you-type").await;
    assert_eq!(
        b.current_url().await.path(),
        format!("/published/workspaces/{ws}"),
        "the page stays where it is"
    );

    // The box is a form: submitting it opens the results page, which works without script.
    b.submit_form(&t("search-form"), &[("q", "webhook")]).await;
    b.wait_for_path(&format!("/published/workspaces/{ws}/search"))
        .await;
    b.wait_for_text(&t("search-hit"), "hooks on help-center")
        .await;
    // Typing there replaces the page's results.
    b.fill(&t("search-input"), "reports").await;
    b.wait_for_text(
        "#search-results [data-test=\"search-hit\"]",
        "csv on help-center",
    )
    .await;
    b.screenshot_as("results-page").await;
    let errors = b.console_errors().await;
    assert!(errors.is_empty(), "{errors:?}");
}

#[tokio::test]
async fn the_portal_search_shows_drafts_as_a_member_types() {
    let app = app!();
    let b = browser!();
    let ws = app.workspace("Docs").await;
    app.write_article(
        &ws,
        "draft",
        Surface::Blog,
        "An unpublished preview of exports.\n",
    )
    .await;
    app.person("member@example.com", Some((&ws, "read"))).await;
    sign_in(&b, &app, "member@example.com").await;

    b.goto(&app.url(&format!("/portal/w/{ws}/articles"))).await;
    b.click(&t("nav-search")).await;
    b.wait_for_path(&format!("/portal/w/{ws}/search")).await;
    b.fill(&t("search-input"), "previe").await;
    b.wait_for_text(&t("search-hit"), "draft on blog").await;
    b.screenshot_as("portal-as-you-type").await;
    let errors = b.console_errors().await;
    assert!(errors.is_empty(), "{errors:?}");
}
