//! Webhook subscriptions over HTTP: create, read, update, delete, rotate the secret, replay,
//! and the delivery reads. Deliveries are caused by publishing an article (a real event).

use base64::Engine as _;
use domain::Surface;
use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, body, expect_error};
use crate::{app, app_db};

fn id_of(v: &Value) -> String {
    v["id"].as_str().expect("id").to_owned()
}

fn assert_secret(secret: &Value) {
    let text = secret.as_str().expect("secret");
    let encoded = text.strip_prefix("whsec_").expect("whsec_ prefix");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .expect("standard base64");
    assert_eq!(bytes.len(), 32);
}

async fn create(app: &TestApp, ws: &str, payload: Value) -> reqwest::Response {
    app.post(
        &format!("/v1/workspaces/{ws}/webhooks"),
        &app.platform_token,
        &payload,
    )
    .await
}

async fn patch(app: &TestApp, id: &str, payload: Value) -> reqwest::Response {
    app.send_json(
        Method::PATCH,
        &format!("/v1/webhooks/{id}"),
        &app.platform_token,
        &payload,
    )
    .await
}

/// Publishes a fresh article of `ws`, which records one `article.published` event.
async fn publish_something(app: &TestApp, ws: &str, feature: &str) {
    let article = app
        .write_article(ws, feature, Surface::Blog, "# News\n")
        .await;
    let res = app
        .request(
            Method::POST,
            &format!("/v1/articles/{article}/publish"),
            &app.platform_token,
        )
        .send()
        .await
        .expect("publish");
    assert_eq!(res.status(), 200);
}

async fn deliveries(app: &TestApp, hook: &str, query: &str) -> Value {
    let res = app
        .get(
            &format!("/v1/webhooks/{hook}/deliveries{query}"),
            &app.platform_token,
        )
        .await;
    assert_eq!(res.status(), 200);
    body(res).await
}

#[tokio::test]
async fn create_returns_the_secret_once() {
    let app = app!();
    let ws = app.workspace("W").await;
    let write = app.token(&ws, "write").await;
    let res = app
        .post(
            &format!("/v1/workspaces/{ws}/webhooks"),
            &write,
            &json!({
                "url": "https://example.com/hook",
                "events": ["run.completed", "article.published"],
                "description": "CI"
            }),
        )
        .await;
    assert_eq!(res.status(), 201);
    let location = res
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .expect("Location");
    let hook = body(res).await;
    let id = id_of(&hook);
    assert!(id.starts_with("wh_"));
    assert_eq!(location, app.url(&format!("/v1/webhooks/{id}")));
    assert_secret(&hook["secret"]);
    assert_eq!(hook["url"], "https://example.com/hook");
    let mut events: Vec<&str> = hook["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    events.sort_unstable();
    assert_eq!(events, ["article.published", "run.completed"]);
    assert_eq!(hook["active"], true);
    assert_eq!(hook["description"], "CI");
    assert_eq!(hook["failure_count"], 0);
    assert!(hook["last_delivery_at"].is_null());

    let got = body(app.get(&format!("/v1/webhooks/{id}"), &write).await).await;
    assert!(got.get("secret").is_none(), "GET never shows the secret");
    assert_eq!(got["url"], hook["url"]);
    let list = body(
        app.get(&format!("/v1/workspaces/{ws}/webhooks"), &write)
            .await,
    )
    .await;
    assert_eq!(list["data"].as_array().map(Vec::len), Some(1));
    assert!(
        list["data"][0].get("secret").is_none(),
        "lists never show it"
    );
    let patched = body(patch(&app, &id, json!({"description": "x"})).await).await;
    assert!(patched.get("secret").is_none(), "PATCH never shows it");
    let deleted = body(app.delete(&format!("/v1/webhooks/{id}"), &write).await).await;
    assert!(deleted.get("secret").is_none(), "DELETE never shows it");
}

#[tokio::test]
async fn two_active_subscriptions_cannot_share_a_url() {
    let app = app!();
    let ws = app.workspace("W").await;
    let other_ws = app.workspace("V").await;
    let url = "https://example.com/same";
    let first = app.webhook(&ws, url, &["run.completed"]).await;
    let res = create(&app, &ws, json!({"url": url, "events": ["run.failed"]})).await;
    expect_error(res, 409, "conflict").await;

    let res = create(
        &app,
        &other_ws,
        json!({"url": url, "events": ["run.failed"]}),
    )
    .await;
    assert_eq!(res.status(), 201, "another workspace may use the url");

    let res = create(
        &app,
        &ws,
        json!({"url": url, "events": ["run.failed"], "active": false}),
    )
    .await;
    assert_eq!(res.status(), 201, "an inactive duplicate is allowed");
    let inactive = body(res).await;
    let res = patch(&app, &id_of(&inactive), json!({"active": true})).await;
    expect_error(res, 409, "conflict").await;

    let res = app
        .delete(
            &format!("/v1/webhooks/{}", id_of(&first)),
            &app.platform_token,
        )
        .await;
    assert_eq!(res.status(), 200);
    let res = create(&app, &ws, json!({"url": url, "events": ["run.failed"]})).await;
    assert_eq!(res.status(), 201, "a deleted subscription frees its url");
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
    ] {
        let res = create(&app, &ws, json!({"url": url, "events": ["run.completed"]})).await;
        let err = expect_error(res, 422, "validation_failed").await;
        assert_eq!(err["error"]["param"], "url", "{url}");
    }
    let long = format!("https://example.com/{}", "a".repeat(2048));
    let res = create(&app, &ws, json!({"url": long, "events": ["run.completed"]})).await;
    let err = expect_error(res, 422, "validation_failed").await;
    assert_eq!(err["error"]["param"], "url");

    let hook = app
        .webhook(&ws, "https://example.com/ok", &["run.completed"])
        .await;
    let res = patch(&app, &id_of(&hook), json!({"url": "http://10.0.0.1/"})).await;
    let err = expect_error(res, 422, "validation_failed").await;
    assert_eq!(err["error"]["param"], "url");
    let list = body(
        app.get(
            &format!("/v1/workspaces/{ws}/webhooks"),
            &app.platform_token,
        )
        .await,
    )
    .await;
    assert_eq!(list["data"].as_array().map(Vec::len), Some(1));
    assert_eq!(list["data"][0]["url"], "https://example.com/ok");
}

#[tokio::test]
async fn events_and_description_are_validated() {
    let app = app!();
    let ws = app.workspace("W").await;
    let url = "https://example.com/hook";
    let err = expect_error(
        create(&app, &ws, json!({"url": url, "events": []})).await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(err["error"]["param"], "events");
    let err = expect_error(
        create(&app, &ws, json!({"url": url, "events": ["run.started"]})).await,
        422,
        "validation_failed",
    )
    .await;
    assert!(
        err["error"]["param"]
            .as_str()
            .is_some_and(|p| p.starts_with("events")),
        "{err}"
    );
    let err = expect_error(
        create(&app, &ws, json!({"url": url})).await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(err["error"]["param"], "events");
    let err = expect_error(
        create(
            &app,
            &ws,
            json!({"url": url, "events": ["run.completed"], "description": "d".repeat(1001)}),
        )
        .await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(err["error"]["param"], "description");
    let res = create(
        &app,
        &ws,
        json!({"url": url, "events": ["run.completed"], "description": "d".repeat(1000)}),
    )
    .await;
    assert_eq!(res.status(), 201, "1000 characters are allowed");
    let hook = body(res).await;

    let err = expect_error(
        patch(&app, &id_of(&hook), json!({"events": []})).await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(err["error"]["param"], "events");
    let err = expect_error(
        patch(
            &app,
            &id_of(&hook),
            json!({"description": "d".repeat(1001)}),
        )
        .await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(err["error"]["param"], "description");
    let err = expect_error(
        patch(&app, &id_of(&hook), json!({"secret": "whsec_x"})).await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(err["error"]["param"], "secret");
}

#[tokio::test]
async fn patch_changes_only_what_is_sent() {
    let app = app!();
    let ws = app.workspace("W").await;
    let res = create(
        &app,
        &ws,
        json!({"url": "https://example.com/a", "events": ["run.completed"], "description": "first"}),
    )
    .await;
    let hook = body(res).await;
    let id = id_of(&hook);

    let res = patch(
        &app,
        &id,
        json!({"events": ["run.failed", "drift.detected"]}),
    )
    .await;
    assert_eq!(res.status(), 200);
    let v = body(res).await;
    assert_eq!(v["url"], "https://example.com/a");
    assert_eq!(v["description"], "first");
    let mut events: Vec<&str> = v["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    events.sort_unstable();
    assert_eq!(events, ["drift.detected", "run.failed"]);

    let v = body(patch(&app, &id, json!({"url": "https://example.com/b"})).await).await;
    assert_eq!(v["url"], "https://example.com/b");
    assert_eq!(v["description"], "first");

    let v = body(patch(&app, &id, json!({"description": null})).await).await;
    assert!(v["description"].is_null(), "null clears the description");
    assert_eq!(v["url"], "https://example.com/b");

    let v = body(patch(&app, &id, json!({"active": false})).await).await;
    assert_eq!(v["active"], false);
    let got = body(
        app.get(&format!("/v1/webhooks/{id}"), &app.platform_token)
            .await,
    )
    .await;
    assert_eq!(got["active"], false);
    assert_eq!(got["url"], "https://example.com/b");
    assert!(got["description"].is_null());
}

#[tokio::test]
async fn reactivation_resets_the_failure_count() {
    let (app, db) = app_db!();
    let ws = app.workspace("W").await;
    let hook = app
        .webhook(&ws, "https://example.com/flaky", &["run.completed"])
        .await;
    let id = id_of(&hook);
    let changed = db
        .execute(&format!(
            "UPDATE webhooks SET failure_count = 7, active = FALSE WHERE id = '{id}'"
        ))
        .await;
    assert_eq!(changed, 1);
    let got = body(
        app.get(&format!("/v1/webhooks/{id}"), &app.platform_token)
            .await,
    )
    .await;
    assert_eq!(got["failure_count"], 7);

    let v = body(patch(&app, &id, json!({"description": "still off"})).await).await;
    assert_eq!(v["failure_count"], 7, "other changes keep the streak");
    let v = body(patch(&app, &id, json!({"active": true})).await).await;
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

    let res = app
        .delete(&format!("/v1/webhooks/{id}"), &app.platform_token)
        .await;
    assert_eq!(res.status(), 200);
    let v = body(res).await;
    assert_eq!(v["id"], id.as_str());
    assert_eq!(v["url"], "https://example.com/hook");

    let res = app
        .get(&format!("/v1/webhooks/{id}"), &app.platform_token)
        .await;
    expect_error(res, 404, "not_found").await;
    let res = app
        .delete(&format!("/v1/webhooks/{id}"), &app.platform_token)
        .await;
    expect_error(res, 404, "not_found").await;
    let list = body(
        app.get(
            &format!("/v1/workspaces/{ws}/webhooks"),
            &app.platform_token,
        )
        .await,
    )
    .await;
    assert_eq!(list["data"], json!([]));
    let d = body(
        app.get(&format!("/v1/deliveries/{delivery}"), &app.platform_token)
            .await,
    )
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

    // An empty body without Content-Type means the defaults.
    let res = app
        .request(
            Method::POST,
            &format!("/v1/webhooks/{id}/rotate-secret"),
            &write,
        )
        .send()
        .await
        .expect("rotate");
    assert_eq!(res.status(), 200);
    let rotated = body(res).await;
    assert_secret(&rotated["secret"]);
    assert_ne!(rotated["secret"], hook["secret"]);
    assert_eq!(rotated["id"], id.as_str());

    let res = app
        .post(
            &format!("/v1/webhooks/{id}/rotate-secret"),
            &write,
            &json!({"grace_period_seconds": 0}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let again = body(res).await;
    assert_secret(&again["secret"]);
    assert_ne!(again["secret"], rotated["secret"]);

    let res = app
        .post(
            &format!("/v1/webhooks/{id}/rotate-secret"),
            &write,
            &json!({"grace_period_seconds": 604_800}),
        )
        .await;
    assert_eq!(res.status(), 200, "seven days is the maximum, inclusive");

    for bad in [
        json!({"grace_period_seconds": 604_801}),
        json!({"grace_period_seconds": -1}),
    ] {
        let res = app
            .post(&format!("/v1/webhooks/{id}/rotate-secret"), &write, &bad)
            .await;
        let err = expect_error(res, 422, "validation_failed").await;
        assert_eq!(err["error"]["param"], "grace_period_seconds");
    }
    let got = body(app.get(&format!("/v1/webhooks/{id}"), &write).await).await;
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

    let replay = |hook: String, delivery: Value| {
        let app = &app;
        let write = &write;
        async move {
            app.post(
                &format!("/v1/webhooks/{hook}/replay"),
                write,
                &json!({"delivery_id": delivery}),
            )
            .await
        }
    };

    let res = replay(a.clone(), of_b["id"].clone()).await;
    expect_error(res, 404, "not_found").await;
    let res = replay(a.clone(), json!("dlv_0193000000007000800000000000000a")).await;
    expect_error(res, 404, "not_found").await;
    let res = replay(a.clone(), json!("junk")).await;
    expect_error(res, 404, "not_found").await;
    let res = app
        .post(&format!("/v1/webhooks/{a}/replay"), &write, &json!({}))
        .await;
    let err = expect_error(res, 422, "validation_failed").await;
    assert_eq!(err["error"]["param"], "delivery_id");

    patch(&app, &a, json!({"active": false})).await;
    let res = replay(a.clone(), original["id"].clone()).await;
    expect_error(res, 409, "conflict").await;
    let res = patch(
        &app,
        &a,
        json!({"active": true, "url": "https://example.com/a2"}),
    )
    .await;
    assert_eq!(res.status(), 200);

    let res = replay(a.clone(), original["id"].clone()).await;
    assert_eq!(res.status(), 200);
    let copy = body(res).await;
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
    let (app, db) = app_db!();
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
    db.execute(&format!(
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
    let res = app
        .get(&format!("/v1/webhooks/{id}/deliveries?status=lost"), &read)
        .await;
    expect_error(res, 400, "invalid_request").await;

    let res = app.get(&format!("/v1/deliveries/{done}"), &read).await;
    assert_eq!(res.status(), 200);
    let d = body(res).await;
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
    let pending_one = body(
        app.get(&format!("/v1/deliveries/{}", id_of(&items[0])), &read)
            .await,
    )
    .await;
    assert!(
        pending_one.get("last_status_code").is_none(),
        "absent before any attempt"
    );

    let res = app
        .get("/v1/deliveries/dlv_0193000000007000800000000000000a", &read)
        .await;
    expect_error(res, 404, "not_found").await;
}
