//! Webhook subscriptions over HTTP: create, read, update, delete, rotate the secret, replay,
//! and the delivery reads. Deliveries are caused by publishing an article (a real event).

use base64::Engine as _;
use domain::Surface;
use serde_json::{Value, json};

use crate::app;
use crate::helpers::{Call, TestApp};

fn id_of(v: &Value) -> String {
    v["id"].as_str().expect("id").to_owned()
}

/// A subscription's events, sorted.
fn events(hook: &Value) -> Vec<&str> {
    let mut events: Vec<&str> = hook["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    events.sort_unstable();
    events
}

fn assert_secret(secret: &Value) {
    let text = secret.as_str().expect("secret");
    let encoded = text.strip_prefix("whsec_").expect("whsec_ prefix");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .expect("standard base64");
    assert_eq!(bytes.len(), 32);
}

fn create<'a>(app: &'a TestApp, ws: &str, payload: Value) -> Call<'a> {
    app.post(&format!("/v1/workspaces/{ws}/webhooks"))
        .json(&payload)
}

fn patch<'a>(app: &'a TestApp, id: &str, payload: Value) -> Call<'a> {
    app.patch(&format!("/v1/webhooks/{id}")).json(&payload)
}

/// Publishes a fresh article of `ws`, which records one `article.published` event.
async fn publish_something(app: &TestApp, ws: &str, feature: &str) {
    let article = app
        .write_article(ws, feature, Surface::Blog, "# News\n")
        .await;
    app.post(&format!("/v1/articles/{article}/publish"))
        .expect(200)
        .await;
}

async fn refused(call: Call<'_>) -> Value {
    call.expect_error(422, "validation_failed").await
}

async fn deliveries(app: &TestApp, hook: &str, query: &str) -> Value {
    app.get(&format!("/v1/webhooks/{hook}/deliveries{query}"))
        .expect(200)
        .await
}

#[tokio::test]
async fn create_returns_the_secret_once() {
    let app = app!();
    let ws = app.workspace("W").await;
    let write = app.token(&ws, "write").await;
    let (headers, hook) = create(
        &app,
        &ws,
        json!({
            "url": "https://example.com/hook",
            "events": ["run.completed", "article.published"],
            "description": "CI"
        }),
    )
    .token(&write)
    .expect_with_headers(201)
    .await;
    let location = headers
        .get("location")
        .and_then(|v| v.to_str().ok())
        .expect("Location");
    let id = id_of(&hook);
    assert!(id.starts_with("wh_"));
    assert_eq!(location, app.url(&format!("/v1/webhooks/{id}")));
    assert_secret(&hook["secret"]);
    assert_eq!(hook["url"], "https://example.com/hook");
    assert_eq!(events(&hook), ["article.published", "run.completed"]);
    assert_eq!(hook["active"], true);
    assert_eq!(hook["description"], "CI");
    assert_eq!(hook["failure_count"], 0);
    assert!(hook["last_delivery_at"].is_null());

    let path = format!("/v1/webhooks/{id}");
    let got = app.get(&path).token(&write).expect(200).await;
    assert!(got.get("secret").is_none(), "GET never shows the secret");
    assert_eq!(got["url"], hook["url"]);
    let list = app
        .get(&format!("/v1/workspaces/{ws}/webhooks"))
        .token(&write)
        .expect(200)
        .await;
    assert_eq!(list["data"].as_array().map(Vec::len), Some(1));
    assert!(
        list["data"][0].get("secret").is_none(),
        "lists never show it"
    );
    let patched = patch(&app, &id, json!({"description": "x"}))
        .expect(200)
        .await;
    assert!(patched.get("secret").is_none(), "PATCH never shows it");
    let deleted = app.delete(&path).token(&write).expect(200).await;
    assert!(deleted.get("secret").is_none(), "DELETE never shows it");
}

#[tokio::test]
async fn two_active_subscriptions_cannot_share_a_url() {
    let app = app!();
    let ws = app.workspace("W").await;
    let other_ws = app.workspace("V").await;
    let url = "https://example.com/same";
    let first = app.webhook(&ws, url, &["run.completed"]).await;
    let payload = json!({"url": url, "events": ["run.failed"]});
    create(&app, &ws, payload.clone())
        .expect_error(409, "conflict")
        .await;

    // Another workspace may use the url.
    create(&app, &other_ws, payload.clone()).expect(201).await;

    // An inactive duplicate is allowed.
    let inactive = create(
        &app,
        &ws,
        json!({"url": url, "events": ["run.failed"], "active": false}),
    )
    .expect(201)
    .await;
    patch(&app, &id_of(&inactive), json!({"active": true}))
        .expect_error(409, "conflict")
        .await;

    app.delete(&format!("/v1/webhooks/{}", id_of(&first)))
        .expect(200)
        .await;
    // A deleted subscription frees its url.
    create(&app, &ws, payload).expect(201).await;
}

#[tokio::test]
async fn urls_must_be_public_http() {
    let app = app!();
    let ws = app.workspace("W").await;
    for url in [
        "ftp://example.com/hook",
        "example.com/hook",
        "javascript:alert(1)",
        "http://127.0.0.1:8080/hook",
        "http://10.1.2.3/hook",
        "http://[::1]/hook",
        "http://[::ffff:127.0.0.1]/hook",
        "http://169.254.169.254/latest",
        "http://192.168.1.1/",
        "https://user:pass@example.com/",
        "http:///x",
        "https:example.com/hook",
    ] {
        let err = refused(create(
            &app,
            &ws,
            json!({"url": url, "events": ["run.completed"]}),
        ))
        .await;
        assert_eq!(err["error"]["param"], "url", "{url}");
    }
    let long = format!("https://example.com/{}", "a".repeat(2048));
    let err = refused(create(
        &app,
        &ws,
        json!({"url": long, "events": ["run.completed"]}),
    ))
    .await;
    assert_eq!(err["error"]["param"], "url");

    let hook = app
        .webhook(&ws, "https://example.com/ok", &["run.completed"])
        .await;
    let err = refused(patch(
        &app,
        &id_of(&hook),
        json!({"url": "http://10.0.0.1/"}),
    ))
    .await;
    assert_eq!(err["error"]["param"], "url");
    let list = app
        .get(&format!("/v1/workspaces/{ws}/webhooks"))
        .expect(200)
        .await;
    assert_eq!(list["data"].as_array().map(Vec::len), Some(1));
    assert_eq!(list["data"][0]["url"], "https://example.com/ok");
}

#[tokio::test]
async fn events_and_description_are_validated() {
    let app = app!();
    let ws = app.workspace("W").await;
    let url = "https://example.com/hook";
    let err = refused(create(&app, &ws, json!({"url": url, "events": []}))).await;
    assert_eq!(err["error"]["param"], "events");
    let err = refused(create(
        &app,
        &ws,
        json!({"url": url, "events": ["run.started"]}),
    ))
    .await;
    assert!(
        err["error"]["param"]
            .as_str()
            .is_some_and(|p| p.starts_with("events")),
        "{err}"
    );
    let err = refused(create(&app, &ws, json!({"url": url}))).await;
    assert_eq!(err["error"]["param"], "events");
    let err = refused(create(
        &app,
        &ws,
        json!({"url": url, "events": ["run.completed"], "description": "d".repeat(1001)}),
    ))
    .await;
    assert_eq!(err["error"]["param"], "description");
    // 1000 characters are allowed.
    let hook = create(
        &app,
        &ws,
        json!({"url": url, "events": ["run.completed"], "description": "d".repeat(1000)}),
    )
    .expect(201)
    .await;

    let id = id_of(&hook);
    let err = refused(patch(&app, &id, json!({"events": []}))).await;
    assert_eq!(err["error"]["param"], "events");
    let err = refused(patch(&app, &id, json!({"description": "d".repeat(1001)}))).await;
    assert_eq!(err["error"]["param"], "description");
    let err = refused(patch(&app, &id, json!({"secret": "whsec_x"}))).await;
    assert_eq!(err["error"]["param"], "secret");
}

#[tokio::test]
async fn patch_changes_only_what_is_sent() {
    let app = app!();
    let ws = app.workspace("W").await;
    let hook = create(
        &app,
        &ws,
        json!({"url": "https://example.com/a", "events": ["run.completed"], "description": "first"}),
    )
    .expect(201)
    .await;
    let id = id_of(&hook);
    let changed = |payload: Value| patch(&app, &id, payload).expect(200);

    let v = changed(json!({"events": ["run.failed", "drift.detected"]})).await;
    assert_eq!(v["url"], "https://example.com/a");
    assert_eq!(v["description"], "first");
    assert_eq!(events(&v), ["drift.detected", "run.failed"]);

    let v = changed(json!({"url": "https://example.com/b"})).await;
    assert_eq!(v["url"], "https://example.com/b");
    assert_eq!(v["description"], "first");

    let v = changed(json!({"description": null})).await;
    assert!(v["description"].is_null(), "null clears the description");
    assert_eq!(v["url"], "https://example.com/b");

    let v = changed(json!({"active": false})).await;
    assert_eq!(v["active"], false);
    let got = app.get(&format!("/v1/webhooks/{id}")).expect(200).await;
    assert_eq!(got["active"], false);
    assert_eq!(got["url"], "https://example.com/b");
    assert!(got["description"].is_null());
}

#[tokio::test]
async fn reactivation_resets_the_failure_count() {
    let app = app!();
    let ws = app.workspace("W").await;
    let hook = app
        .webhook(&ws, "https://example.com/flaky", &["run.completed"])
        .await;
    let id = id_of(&hook);
    let changed = app
        .db
        .execute(&format!(
            "UPDATE webhooks SET failure_count = 7, active = FALSE WHERE id = '{id}'"
        ))
        .await;
    assert_eq!(changed, 1);
    let got = app.get(&format!("/v1/webhooks/{id}")).expect(200).await;
    assert_eq!(got["failure_count"], 7);

    let v = patch(&app, &id, json!({"description": "still off"}))
        .expect(200)
        .await;
    assert_eq!(v["failure_count"], 7, "other changes keep the streak");
    let v = patch(&app, &id, json!({"active": true})).expect(200).await;
    assert_eq!(v["active"], true);
    assert_eq!(v["failure_count"], 0);
}

#[tokio::test]
async fn delete_returns_the_final_state_and_kills_pending_deliveries() {
    let app = app!();
    let ws = app.workspace("W").await;
    let hook = app
        .webhook(&ws, "https://example.com/hook", &["article.published"])
        .await;
    let id = id_of(&hook);
    publish_something(&app, &ws, "a").await;
    let pending = deliveries(&app, &id, "").await;
    let delivery = id_of(&pending["data"][0]);
    assert_eq!(pending["data"][0]["status"], "pending");

    let path = format!("/v1/webhooks/{id}");
    let v = app.delete(&path).expect(200).await;
    assert_eq!(v["id"], id.as_str());
    assert_eq!(v["url"], "https://example.com/hook");

    app.get(&path).expect_error(404, "not_found").await;
    app.delete(&path).expect_error(404, "not_found").await;
    let list = app
        .get(&format!("/v1/workspaces/{ws}/webhooks"))
        .expect(200)
        .await;
    assert_eq!(list["data"], json!([]));
    let d = app
        .get(&format!("/v1/deliveries/{delivery}"))
        .expect(200)
        .await;
    assert_eq!(d["status"], "dead");
}

#[tokio::test]
async fn rotate_secret_returns_a_new_secret() {
    let app = app!();
    let ws = app.workspace("W").await;
    let write = app.token(&ws, "write").await;
    let hook = app
        .webhook(&ws, "https://example.com/hook", &["run.completed"])
        .await;
    let id = id_of(&hook);
    let rotate = || {
        app.post(&format!("/v1/webhooks/{id}/rotate-secret"))
            .token(&write)
    };

    // An empty body without Content-Type means the defaults.
    let rotated = rotate().expect(200).await;
    assert_secret(&rotated["secret"]);
    assert_ne!(rotated["secret"], hook["secret"]);
    assert_eq!(rotated["id"], id.as_str());

    let again = rotate()
        .json(&json!({"grace_period_seconds": 0}))
        .expect(200)
        .await;
    assert_secret(&again["secret"]);
    assert_ne!(again["secret"], rotated["secret"]);

    // Seven days is the maximum, inclusive.
    rotate()
        .json(&json!({"grace_period_seconds": 604_800}))
        .expect(200)
        .await;

    for bad in [
        json!({"grace_period_seconds": 604_801}),
        json!({"grace_period_seconds": -1}),
    ] {
        let err = rotate()
            .json(&bad)
            .expect_error(422, "validation_failed")
            .await;
        assert_eq!(err["error"]["param"], "grace_period_seconds");
    }
    // The document describes the optional body as `RotateSecret | null` (schemathesis sent
    // `null`, and a typed client sends it for "none"): `null` means the defaults, as an absent
    // body does. Neither another JSON type nor an array is taken: serde would read an array as
    // the struct's fields in order (schemathesis: `[null, null]` was taken as the defaults).
    let nulled = rotate().json(&Value::Null).expect(200).await;
    assert_secret(&nulled["secret"]);
    assert_ne!(nulled["secret"], again["secret"]);
    for other in [json!(true), json!([null]), json!([3600])] {
        rotate()
            .json(&other)
            .expect_error(422, "validation_failed")
            .await;
    }
    let got = app
        .get(&format!("/v1/webhooks/{id}"))
        .token(&write)
        .expect(200)
        .await;
    assert!(got.get("secret").is_none());
}

#[tokio::test]
async fn replay_sends_the_same_event_again() {
    let app = app!();
    let ws = app.workspace("W").await;
    let write = app.token(&ws, "write").await;
    let a = app
        .webhook(&ws, "https://example.com/a", &["article.published"])
        .await;
    let b = app
        .webhook(&ws, "https://example.com/b", &["article.published"])
        .await;
    let (a, b) = (id_of(&a), id_of(&b));
    publish_something(&app, &ws, "x").await;
    let original = deliveries(&app, &a, "").await["data"][0].clone();
    let of_b = deliveries(&app, &b, "").await["data"][0].clone();
    assert_eq!(
        original["event_id"], of_b["event_id"],
        "one event, two deliveries"
    );
    assert_eq!(original["is_replay"], false);

    let replay_path = format!("/v1/webhooks/{a}/replay");
    let replay = |delivery: Value| {
        app.post(&replay_path)
            .token(&write)
            .json(&json!({"delivery_id": delivery}))
    };

    for foreign in [
        of_b["id"].clone(),
        json!("dlv_0193000000007000800000000000000a"),
        json!("junk"),
    ] {
        replay(foreign).expect_error(404, "not_found").await;
    }
    let err = app
        .post(&replay_path)
        .token(&write)
        .json(&json!({}))
        .expect_error(422, "validation_failed")
        .await;
    assert_eq!(err["error"]["param"], "delivery_id");

    patch(&app, &a, json!({"active": false})).expect(200).await;
    replay(original["id"].clone())
        .expect_error(409, "conflict")
        .await;
    patch(
        &app,
        &a,
        json!({"active": true, "url": "https://example.com/a2"}),
    )
    .expect(200)
    .await;

    let copy = replay(original["id"].clone()).expect(200).await;
    assert_ne!(copy["id"], original["id"]);
    assert!(copy["id"].as_str().is_some_and(|d| d.starts_with("dlv_")));
    assert_eq!(copy["is_replay"], true);
    assert_eq!(copy["event_id"], original["event_id"]);
    assert_eq!(copy["event_type"], "article.published");
    assert_eq!(copy["subscription_id"], a.as_str());
    assert_eq!(copy["status"], "pending");
    assert_eq!(copy["attempts"], 0);
    assert_eq!(
        copy["target_url"], "https://example.com/a2",
        "the current url"
    );

    let list = deliveries(&app, &a, "").await;
    assert_eq!(list["data"].as_array().map(Vec::len), Some(2));
    assert_eq!(list["data"][0]["id"], copy["id"], "newest first");
    assert_eq!(
        deliveries(&app, &b, "").await["data"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
}

#[tokio::test]
async fn deliveries_are_listed_by_status_and_fetched_by_id() {
    let app = app!();
    let ws = app.workspace("W").await;
    let read = app.token(&ws, "read").await;
    let hook = app
        .webhook(&ws, "https://example.com/hook", &["article.published"])
        .await;
    let id = id_of(&hook);
    publish_something(&app, &ws, "one").await;
    publish_something(&app, &ws, "two").await;
    let all = deliveries(&app, &id, "").await;
    let items = all["data"].as_array().expect("data").clone();
    assert_eq!(items.len(), 2);
    let done = id_of(&items[1]);
    app.db
        .execute(&format!(
            "UPDATE deliveries SET status = 'delivered', attempts = 1, last_status_code = 204 WHERE id = '{done}'"
        ))
        .await;

    let pending = deliveries(&app, &id, "?status=pending").await;
    assert_eq!(pending["data"].as_array().map(Vec::len), Some(1));
    assert_eq!(pending["data"][0]["id"], items[0]["id"]);
    let delivered = deliveries(&app, &id, "?status=delivered").await;
    assert_eq!(delivered["data"].as_array().map(Vec::len), Some(1));
    assert_eq!(delivered["data"][0]["id"], done.as_str());
    assert_eq!(
        deliveries(&app, &id, "?status=dead").await["data"],
        json!([])
    );
    app.get(&format!("/v1/webhooks/{id}/deliveries?status=lost"))
        .token(&read)
        .expect_error(400, "invalid_request")
        .await;

    let d = app
        .get(&format!("/v1/deliveries/{done}"))
        .token(&read)
        .expect(200)
        .await;
    assert_eq!(d["id"], done.as_str());
    assert_eq!(d["subscription_id"], id.as_str());
    assert_eq!(d["status"], "delivered");
    assert_eq!(d["attempts"], 1);
    assert_eq!(d["last_status_code"], 204);
    assert_eq!(d["target_url"], "https://example.com/hook");
    assert_eq!(d["event_type"], "article.published");
    assert_eq!(d["is_replay"], false);
    assert!(
        d["event_id"]
            .as_str()
            .is_some_and(|e| e.starts_with("evt_"))
    );
    let pending_one = app
        .get(&format!("/v1/deliveries/{}", id_of(&items[0])))
        .token(&read)
        .expect(200)
        .await;
    assert!(
        pending_one.get("last_status_code").is_none(),
        "absent before any attempt"
    );

    app.get("/v1/deliveries/dlv_0193000000007000800000000000000a")
        .token(&read)
        .expect_error(404, "not_found")
        .await;
}
