//! The webhook console in headless Chromium (see `browser`): an endpoint made from the
//! catalog, a test event whose attempt shows the receiver's answer, a failed delivery replayed
//! from its page, and a reader who sees no write controls. Screenshots under
//! `target/browser-screenshots/`.

use std::time::{Duration, Instant};

use crate::browser::{sign_in, t};
use crate::helpers::TestApp;
use crate::receiver::{Receiver, Reply, assert_verifies};
use crate::{app, browser};

/// How long a delivery's attempts may take to show (the page shows them on the next load).
const PATIENCE: Duration = Duration::from_secs(15);

#[tokio::test]
async fn an_endpoint_from_the_catalog_gets_a_test_event_and_a_failed_delivery_is_replayed() {
    // One attempt per delivery: the receiver's 500 makes it dead at once.
    let app = app!(
        TestApp::builder()
            .workers()
            .webhook_retry_schedule("0s")
            .webhook_timeout(Duration::from_secs(2))
            .webhook_allowed_cidrs("127.0.0.0/8,::1/128")
    );
    let b = browser!();
    let ws = app.workspace("Docs").await;
    app.person("writer@example.com", Some((&ws, "write"))).await;
    let receiver = Receiver::start_with(
        Reply::status(500)
            .header("x-receiver", "busy")
            .body("not ready yet"),
    )
    .await;
    sign_in(&b, &app, "writer@example.com").await;

    // The catalog: every event type with its example.
    b.goto(&app.url(&format!("/portal/w/{ws}/webhooks/event-types")))
        .await;
    assert_eq!(b.count(&t("event-type")).await, 5);
    assert!(b.text(&t("event-example")).await.contains("\"type\""));
    b.screenshot_as("catalog").await;

    // Add an endpoint with event types ticked from the catalog.
    b.goto(&app.url(&format!("/portal/w/{ws}/webhooks"))).await;
    b.click(&t("add-endpoint")).await;
    b.click(&t("event-run.completed")).await;
    b.click(&t("event-article.published")).await;
    b.submit_form(&t("endpoint-form"), &[("url", &receiver.url)])
        .await;
    let secret = b
        .wait_for(&t("secret-value"))
        .await
        .prop("value")
        .await
        .expect("the secret's value")
        .expect("a secret");
    assert!(secret.starts_with("whsec_"), "{secret}");
    b.screenshot_as("endpoint-secret").await;
    b.click(&t("done")).await;
    b.wait_for_text(&t("endpoint-status"), "active").await;
    assert!(!b.text("main").await.contains(&secret), "shown once only");

    // A test event: delivered signed, its data marked as a test, the 500 shown on its page.
    b.submit_form(&t("test-form"), &[]).await;
    b.reload_until(&t("attempt-status"), "HTTP 500", PATIENCE)
        .await;
    let received = receiver.wait_for(1, Duration::from_secs(10)).await;
    assert_verifies(&secret, &received[0]);
    let body = received[0].json();
    assert_eq!(body["type"], "run.completed");
    assert_eq!(body["data"]["test"], true);
    assert_eq!(b.text(&t("response-body")).await, "not ready yet");
    assert!(
        b.text(&t("response-headers"))
            .await
            .contains("x-receiver: busy")
    );
    let sent = b.text(&t("request-body")).await;
    assert!(sent.contains("\"test\": true"), "{sent}");
    b.reload_until(&t("delivery-status"), "dead", PATIENCE)
        .await;
    // The request headers we sent, signature included (opened to be read).
    b.click("section.attempt summary").await;
    assert!(
        b.text(&t("request-headers"))
            .await
            .contains("webhook-signature: v1,")
    );
    b.screenshot_as("attempt-500").await;

    // The receiver is fixed: Replay sends the delivery again, and this time it arrives.
    receiver.reply(Reply::status(200).body("thanks"));
    let failed_page = b.current_url().await;
    b.click(&t("replay")).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while b.current_url().await == failed_page {
        assert!(
            Instant::now() < deadline,
            "replay did not open the new delivery"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    b.reload_until(&t("attempt-status"), "HTTP 200", PATIENCE)
        .await;
    b.reload_until(&t("delivery-status"), "delivered", PATIENCE)
        .await;
    assert_eq!(b.text(&t("response-body")).await, "thanks");
    assert_eq!(
        receiver.wait_for(2, Duration::from_secs(10)).await[1].header("webhook-id"),
        received[0].header("webhook-id"),
        "a replay is the same event"
    );
    b.screenshot_as("replayed").await;

    // The endpoint's list of deliveries shows both, filtered by status.
    b.click(&format!("a[href=\"/portal/w/{ws}/webhooks/{}\"]", {
        let path = failed_page.path().to_owned();
        path.split('/').nth(5).unwrap_or_default().to_owned()
    }))
    .await;
    b.wait_for(&t("deliveries")).await;
    assert_eq!(b.count(&t("delivery-row")).await, 2);
    let errors = b.console_errors().await;
    assert!(errors.is_empty(), "{errors:?}");
}

#[tokio::test]
async fn a_reader_sees_the_console_without_write_controls() {
    let app = app!(
        TestApp::builder()
            .workers()
            .webhook_retry_schedule("0s")
            .webhook_allowed_cidrs("127.0.0.0/8,::1/128")
    );
    let b = browser!();
    let ws = app.workspace("Docs").await;
    let receiver = Receiver::start_with(Reply::status(503).body("down")).await;
    let hook = app.webhook(&ws, &receiver.url, &["run.completed"]).await["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let sent = app
        .platform_api()
        .send_test_event(
            &hook.parse().expect("id"),
            &client::SendTestEvent {
                event_type: client::EventType::RunCompleted,
            },
        )
        .await
        .expect("a test event");
    receiver.wait_for(1, Duration::from_secs(10)).await;
    app.person("reader@example.com", Some((&ws, "read"))).await;
    sign_in(&b, &app, "reader@example.com").await;

    let page = format!("/portal/w/{ws}/webhooks/{hook}");
    b.goto(&app.url(&format!("/portal/w/{ws}/webhooks"))).await;
    b.wait_for(&t("endpoint-row")).await;
    assert_eq!(b.count(&t("add-endpoint")).await, 0);
    b.goto(&app.url(&page)).await;
    b.wait_for(&t("deliveries")).await;
    for control in ["endpoint-actions", "test-form", "recover-form"] {
        assert_eq!(b.count(&t(control)).await, 0, "{control}");
    }
    b.goto(&app.url(&format!("{page}/deliveries/{}", sent.id)))
        .await;
    b.reload_until(&t("attempt-status"), "HTTP 503", PATIENCE)
        .await;
    assert_eq!(b.count(&t("replay")).await, 0);
    b.screenshot_as("reader-delivery").await;
    let errors = b.console_errors().await;
    assert!(errors.is_empty(), "{errors:?}");
}
