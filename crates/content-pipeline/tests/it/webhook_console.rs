//! The webhook console's API: event catalog, test events, attempts, delivery filters and
//! recovery, end to end with the delivery worker and real receivers on loopback.

use std::collections::BTreeSet;
use std::time::Duration;

use domain::EventType;
use serde_json::{Value, json};
use testkit::eventually;

use crate::app;
use crate::helpers::{Builder, TestApp, tool_missing};
use crate::receiver::{Receiver, Reply, assert_verifies};

/// Delivery workers with loopback allowed, a one-second timeout and the retry `schedule`.
fn delivering(schedule: &str) -> Builder {
    TestApp::builder()
        .workers()
        .webhook_retry_schedule(schedule)
        .webhook_timeout(Duration::from_secs(1))
        .webhook_allowed_cidrs("127.0.0.0/8")
}

/// A workspace with a write token, a read token, and a write token of another workspace.
struct Console {
    app: TestApp,
    ws: String,
    write: String,
    read: String,
    stranger: String,
}

impl Console {
    async fn new(app: TestApp) -> Self {
        let ws = app.workspace("console").await;
        let other = app.workspace("other").await;
        Self {
            write: app.token(&ws, "write").await,
            read: app.token(&ws, "read").await,
            stranger: app.token(&other, "write").await,
            ws,
            app,
        }
    }

    /// Subscribes `url` to `events`; returns (id, secret).
    async fn subscribe(&self, url: &str, events: &[&str]) -> (String, String) {
        let v = self
            .app
            .post(&format!("/v1/workspaces/{}/webhooks", self.ws))
            .token(&self.write)
            .json(&json!({"url": url, "events": events}))
            .expect(201)
            .await;
        (
            v["id"].as_str().expect("id").to_owned(),
            v["secret"].as_str().expect("secret").to_owned(),
        )
    }

    async fn emit(&self, event_type: EventType) -> String {
        let data = json!({"id": "run_01933b5f0a1b7c3e9d1f2a4b6c8d0e20", "status": "succeeded"});
        self.app.record_event(&self.ws, event_type, data).await
    }

    async fn list(&self, path: &str) -> Value {
        self.app.get(path).token(&self.read).expect(200).await
    }

    async fn deliveries(&self, hook: &str, query: &str) -> Vec<Value> {
        let page = self
            .list(&format!("/v1/webhooks/{hook}/deliveries?limit=100{query}"))
            .await;
        page["data"].as_array().cloned().unwrap_or_default()
    }

    /// The delivery of `event` to `hook`, once `done` holds for it.
    async fn delivery_when(&self, hook: &str, event: &str, done: impl Fn(&Value) -> bool) -> Value {
        eventually(Duration::from_secs(15), "the delivery's state", || async {
            self.deliveries(hook, "")
                .await
                .into_iter()
                .find(|d| d["event_id"] == event && done(d))
        })
        .await
    }

    async fn attempts(&self, delivery: &str) -> Vec<Value> {
        let page = self
            .list(&format!("/v1/deliveries/{delivery}/attempts?limit=100"))
            .await;
        page["data"].as_array().cloned().unwrap_or_default()
    }
}

fn status(s: &'static str) -> impl Fn(&Value) -> bool {
    move |d: &Value| d["status"] == s
}

fn event_ids(deliveries: &[Value]) -> BTreeSet<String> {
    deliveries
        .iter()
        .map(|d| d["event_id"].as_str().expect("event_id").to_owned())
        .collect()
}

#[tokio::test]
async fn attempts_record_a_500_then_a_200_with_what_was_sent_and_received() {
    let c = Console::new(app!(delivering("0s,300ms,300ms"))).await;
    let receiver = Receiver::start_with(
        Reply::status(500)
            .header("x-receiver", "first")
            .body("upstream is down"),
    )
    .await;
    let (hook, _) = c.subscribe(&receiver.url, &["run.completed"]).await;
    let event = c.emit(EventType::RunCompleted).await;
    receiver.wait_for(1, Duration::from_secs(10)).await;
    receiver.reply(Reply::status(200).body("thanks"));
    let delivery = c.delivery_when(&hook, &event, status("delivered")).await;
    let id = delivery["id"].as_str().expect("id");
    let got = receiver.received();
    assert_eq!(got.len(), 2);

    let attempts = c.attempts(id).await;
    assert_eq!(attempts.len(), 2, "{attempts:?}");
    let (second, first) = (&attempts[0], &attempts[1]);
    assert_eq!(first["attempt"], 1, "newest first");
    assert_eq!(second["attempt"], 2);
    assert_eq!(first["response_status"], 500);
    assert_eq!(first["response_body"], "upstream is down");
    assert_eq!(first["response_body_truncated"], false);
    assert_eq!(first["response_headers"]["x-receiver"], "first");
    assert!(first["error_kind"].is_null() && first["error_message"].is_null());
    assert!(first["next_attempt_at"].is_string(), "a retry was planned");
    assert_eq!(second["response_status"], 200);
    assert_eq!(second["response_body"], "thanks");
    assert!(
        second["next_attempt_at"].is_null(),
        "delivered: nothing more"
    );
    for (attempt, request) in [(first, &got[0]), (second, &got[1])] {
        assert_eq!(attempt["delivery_id"], id);
        assert_eq!(attempt["subscription_id"], hook.as_str());
        assert_eq!(attempt["url"], receiver.url.as_str());
        assert!(attempt["duration_ms"].as_i64().is_some_and(|ms| ms >= 0));
        assert!(
            attempt["started_at"]
                .as_str()
                .is_some_and(|t| t.ends_with('Z'))
        );
        let sent = &attempt["request_headers"];
        for name in [
            "webhook-id",
            "webhook-timestamp",
            "webhook-signature",
            "content-type",
            "user-agent",
        ] {
            assert_eq!(sent[name], request.header(name), "{name}");
        }
        assert!(!sent.to_string().contains("whsec_"), "never a secret");
        assert_eq!(
            attempt["request_body"].as_str().map(str::as_bytes),
            Some(request.body.as_ref())
        );
    }

    // Paged with signed cursors bound to the delivery.
    let page = c
        .list(&format!("/v1/deliveries/{id}/attempts?limit=1"))
        .await;
    assert_eq!(page["data"][0]["attempt"], 2);
    let cursor = page["next_cursor"].as_str().expect("a second page");
    let next = c
        .list(&format!(
            "/v1/deliveries/{id}/attempts?limit=1&cursor={cursor}"
        ))
        .await;
    assert_eq!(next["data"][0]["attempt"], 1);
    assert!(next["next_cursor"].is_null());
    let other = c.emit(EventType::RunCompleted).await;
    let other = c.delivery_when(&hook, &other, status("delivered")).await;
    c.app
        .get(&format!(
            "/v1/deliveries/{}/attempts?cursor={cursor}",
            other["id"].as_str().expect("id")
        ))
        .token(&c.read)
        .expect_error(400, "invalid_request")
        .await;

    // Another workspace's delivery does not exist for this token; no token is a 401.
    c.app
        .get(&format!("/v1/deliveries/{id}/attempts"))
        .token(&c.stranger)
        .expect_error(404, "not_found")
        .await;
    c.app
        .get(&format!("/v1/deliveries/{id}/attempts"))
        .anonymous()
        .expect_error(401, "unauthenticated")
        .await;
}

#[tokio::test]
async fn attempts_without_an_answer_say_why() {
    let c = Console::new(app!(delivering("0s,1h"))).await;
    let closed = {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        listener.local_addr().expect("addr").port()
    };
    let hanging = Receiver::start_with(Reply::status(200).after(Duration::from_secs(30))).await;
    let plain = Receiver::start().await;
    let (refused, _) = c
        .subscribe("https://hooks.example.com/refused", &["run.completed"])
        .await;
    // The operator narrowed the allowed ranges after this subscription was made: its address
    // is now refused at delivery time.
    c.app
        .db
        .try_execute(
            "UPDATE webhooks SET url = 'http://10.0.0.1/hook' WHERE id = $1",
            &[&refused],
        )
        .await
        .expect("point the subscription at a private address");
    let (connection, _) = c
        .subscribe(
            &format!("http://127.0.0.1:{closed}/hook"),
            &["run.completed"],
        )
        .await;
    let (timeout, _) = c.subscribe(&hanging.url, &["run.completed"]).await;
    let (tls, _) = c
        .subscribe(
            &format!("https://127.0.0.1:{}/hook", plain.port),
            &["run.completed"],
        )
        .await;
    let event = c.emit(EventType::RunCompleted).await;

    for (hook, kind) in [
        (&refused, "refused_address"),
        (&connection, "connection"),
        (&timeout, "timeout"),
        (&tls, "tls"),
    ] {
        let delivery = c.delivery_when(hook, &event, status("failed")).await;
        let attempts = c.attempts(delivery["id"].as_str().expect("id")).await;
        assert_eq!(attempts.len(), 1, "{kind}: {attempts:?}");
        let attempt = &attempts[0];
        assert_eq!(attempt["error_kind"], kind, "{attempt}");
        assert!(
            attempt["error_message"]
                .as_str()
                .is_some_and(|m| !m.is_empty() && m.chars().count() <= 500)
        );
        assert!(attempt["response_status"].is_null(), "{kind}: no answer");
        assert!(attempt["next_attempt_at"].is_string());
        assert!(attempt["request_headers"]["webhook-signature"].is_string());
    }
    assert!(
        c.attempts(
            c.delivery_when(&timeout, &event, status("failed")).await["id"]
                .as_str()
                .expect("id")
        )
        .await[0]["duration_ms"]
            .as_i64()
            .is_some_and(|ms| ms >= 900),
        "the timeout is one second"
    );
}

/// Validates `body` against `schema` with the Python `jsonschema` package (`pip install
/// jsonschema`); without it the check is skipped unless `CONTENT_PIPELINE_REQUIRE_JSONSCHEMA=1`.
fn assert_valid_against(schema: &Value, body: &Value) {
    let script = "import json, sys\ntry:\n    import jsonschema\nexcept ImportError:\n    sys.exit(3)\nschema, body = json.loads(sys.argv[1]), json.loads(sys.argv[2])\njsonschema.Draft202012Validator.check_schema(schema)\njsonschema.validate(body, schema, cls=jsonschema.Draft202012Validator)\n";
    let out = std::process::Command::new("python3")
        .args(["-c", script, &schema.to_string(), &body.to_string()])
        .output();
    const REQUIRED: &str = "CONTENT_PIPELINE_REQUIRE_JSONSCHEMA";
    match out {
        Ok(out) if out.status.code() == Some(3) => tool_missing(
            REQUIRED,
            "the Python package jsonschema is missing (pip install jsonschema)",
        ),
        Ok(out) => assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => tool_missing(REQUIRED, &format!("python3 cannot run: {e}")),
    }
}

#[tokio::test]
async fn the_event_catalog_lists_every_type_with_its_schema_and_an_example() {
    let c = Console::new(app!()).await;
    let catalog = c.list("/v1/event-types").await;
    let items = catalog["data"].as_array().expect("data");
    let types: Vec<&str> = items.iter().filter_map(|i| i["type"].as_str()).collect();
    assert_eq!(
        types,
        [
            "run.completed",
            "run.failed",
            "article.drafted",
            "article.published",
            "drift.detected"
        ]
    );
    assert!(catalog.get("next_cursor").is_none(), "not paged");
    for item in items {
        assert!(item["description"].as_str().is_some_and(|d| !d.is_empty()));
        let schema = &item["schema"];
        assert_eq!(schema["properties"]["type"]["const"], item["type"]);
        assert_eq!(item["example"]["type"], item["type"]);
        assert_valid_against(schema, &item["example"]);
        if item["type"]
            .as_str()
            .is_some_and(|t| t.starts_with("article."))
        {
            assert!(schema["properties"]["data"]["properties"]["mdx_body"].is_null());
            assert!(item["example"]["data"].get("mdx_body").is_none());
        }
    }
    c.app
        .get("/v1/event-types")
        .anonymous()
        .expect_error(401, "unauthenticated")
        .await;
}

#[tokio::test]
async fn a_test_event_reaches_that_subscription_only_signed_and_marked() {
    let c = Console::new(app!(delivering("0s,200ms"))).await;
    let tested = Receiver::start().await;
    let bystander = Receiver::start().await;
    let (hook, secret) = c.subscribe(&tested.url, &["run.completed"]).await;
    c.subscribe(&bystander.url, &["drift.detected", "run.completed"])
        .await;

    // An event type the subscription does not list is allowed.
    let (headers, delivery) = c
        .app
        .post(&format!("/v1/webhooks/{hook}/test"))
        .token(&c.write)
        .header("Idempotency-Key", "test-1")
        .json(&json!({"event_type": "drift.detected"}))
        .expect_with_headers(201)
        .await;
    assert_eq!(delivery["subscription_id"], hook.as_str());
    assert_eq!(delivery["event_type"], "drift.detected");
    assert_eq!(delivery["status"], "pending");
    assert_eq!(delivery["is_replay"], false);
    let id = delivery["id"].as_str().expect("id");
    assert_eq!(
        headers.get("location").and_then(|v| v.to_str().ok()),
        Some(c.app.url(&format!("/v1/deliveries/{id}")).as_str())
    );

    let got = tested.wait_for(1, Duration::from_secs(10)).await;
    let request = &got[0];
    assert_verifies(&secret, request);
    let body = request.json();
    assert_eq!(body["type"], "drift.detected");
    assert_eq!(body["id"], delivery["event_id"]);
    assert_eq!(body["workspace_id"], c.ws.as_str());
    assert_eq!(body["data"]["test"], true);
    let catalog = c.list("/v1/event-types").await;
    let entry = catalog["data"]
        .as_array()
        .and_then(|items| items.iter().find(|i| i["type"] == "drift.detected"))
        .cloned()
        .expect("drift.detected in the catalog");
    assert_valid_against(&entry["schema"], &body);
    let mut example = entry["example"]["data"].clone();
    example["test"] = json!(true);
    assert_eq!(body["data"], example, "the catalog's example, marked");

    let done = c
        .delivery_when(&hook, body["id"].as_str().expect("id"), status("delivered"))
        .await;
    assert_eq!(done["id"], id);
    let attempts = c.attempts(id).await;
    assert_eq!(attempts.len(), 1);
    assert_eq!(attempts[0]["response_status"], 200);

    // The same key replays the answer and sends nothing more.
    let (replayed_headers, replayed) = c
        .app
        .post(&format!("/v1/webhooks/{hook}/test"))
        .token(&c.write)
        .header("Idempotency-Key", "test-1")
        .json(&json!({"event_type": "drift.detected"}))
        .expect_with_headers(201)
        .await;
    assert_eq!(replayed, delivery);
    assert_eq!(
        replayed_headers
            .get("idempotent-replayed")
            .and_then(|v| v.to_str().ok()),
        Some("true")
    );
    c.app.drained().await;
    assert_eq!(tested.count(), 1);
    assert_eq!(
        bystander.count(),
        0,
        "no other subscription gets a test event"
    );
    assert_eq!(c.deliveries(&hook, "").await.len(), 1);
}

#[tokio::test]
async fn test_events_refuse_bad_input_low_scopes_strangers_and_paused_subscriptions() {
    let c = Console::new(app!()).await;
    let (hook, _) = c
        .subscribe("https://hooks.example.com/a", &["run.completed"])
        .await;
    let path = format!("/v1/webhooks/{hook}/test");
    for (body, param) in [
        (json!({"event_type": "run.exploded"}), "event_type"),
        (json!({}), "event_type"),
        (json!({"event_type": "run.completed", "extra": 1}), "extra"),
    ] {
        let e = c
            .app
            .post(&path)
            .token(&c.write)
            .json(&body)
            .expect_error(422, "validation_failed")
            .await;
        assert_eq!(e["error"]["param"], param, "{body}");
    }
    let ok = json!({"event_type": "run.completed"});
    c.app
        .post(&path)
        .token(&c.read)
        .json(&ok)
        .expect_error(403, "insufficient_scope")
        .await;
    c.app
        .post(&path)
        .token(&c.stranger)
        .json(&ok)
        .expect_error(404, "not_found")
        .await;
    c.app
        .patch(&format!("/v1/webhooks/{hook}"))
        .token(&c.write)
        .json(&json!({"active": false}))
        .expect(200)
        .await;
    c.app
        .post(&path)
        .token(&c.write)
        .json(&ok)
        .expect_error(409, "conflict")
        .await;
    assert!(c.deliveries(&hook, "").await.is_empty());
}

#[tokio::test]
async fn recover_replays_exactly_the_failed_and_dead_deliveries_once() {
    // A failed attempt is retried in about an hour: failed deliveries stay failed.
    let c = Console::new(app!(delivering("0s,1h"))).await;
    let receiver = Receiver::start_with(Reply::status(500)).await;
    let (hook, _) = c.subscribe(&receiver.url, &["run.completed"]).await;
    let failing = Receiver::start_with(Reply::status(500)).await;
    let (other_hook, _) = c.subscribe(&failing.url, &["run.completed"]).await;

    let before = c.emit(EventType::RunCompleted).await;
    c.delivery_when(&hook, &before, status("failed")).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    let since = c.app.clock.timestamp();
    tokio::time::sleep(Duration::from_millis(20)).await;

    receiver.reply(Reply::status(200));
    let delivered = c.emit(EventType::RunCompleted).await;
    c.delivery_when(&hook, &delivered, status("delivered"))
        .await;
    receiver.reply(Reply::status(500));
    let mut failed = BTreeSet::new();
    for _ in 0..2 {
        let event = c.emit(EventType::RunCompleted).await;
        c.delivery_when(&hook, &event, status("failed")).await;
        failed.insert(event);
    }
    // 410 kills the delivery and pauses the subscription; the operator resumes it.
    receiver.reply(Reply::status(410));
    let dead = c.emit(EventType::RunCompleted).await;
    c.delivery_when(&hook, &dead, status("dead")).await;
    let path = format!("/v1/webhooks/{hook}/recover");
    let body = json!({"since": since.to_string()});
    c.app
        .post(&path)
        .token(&c.write)
        .json(&body)
        .expect_error(409, "conflict")
        .await;
    c.app
        .patch(&format!("/v1/webhooks/{hook}"))
        .token(&c.write)
        .json(&json!({"active": true}))
        .expect(200)
        .await;
    receiver.reply(Reply::status(200));

    // The filters of the deliveries list see the same picture.
    let query = format!("&status=failed&since={since}");
    assert_eq!(event_ids(&c.deliveries(&hook, &query).await), failed);
    let all_failed = c.deliveries(&hook, "&status=failed").await;
    assert_eq!(all_failed.len(), 3, "the one before `since` too");

    let (_, recovered) = c
        .app
        .post(&path)
        .token(&c.write)
        .header("Idempotency-Key", "recover-1")
        .json(&body)
        .expect_with_headers(200)
        .await;
    assert_eq!(recovered, json!({"queued": 3, "has_more": false}));
    let replays = c.deliveries(&hook, "").await;
    let replays: Vec<Value> = replays
        .into_iter()
        .filter(|d| d["is_replay"] == true)
        .collect();
    let mut expected = failed.clone();
    expected.insert(dead.clone());
    assert_eq!(event_ids(&replays), expected);
    assert_eq!(replays.len(), 3, "each replayed once");
    for r in &replays {
        c.delivery_when(&hook, r["event_id"].as_str().expect("id"), |d| {
            d["id"] == r["id"] && d["status"] == "delivered"
        })
        .await;
    }

    // The same key answers the same; a new call finds nothing left to recover.
    let (headers, again) = c
        .app
        .post(&path)
        .token(&c.write)
        .header("Idempotency-Key", "recover-1")
        .json(&body)
        .expect_with_headers(200)
        .await;
    assert_eq!(again, recovered);
    assert_eq!(
        headers
            .get("idempotent-replayed")
            .and_then(|v| v.to_str().ok()),
        Some("true")
    );
    let second = c
        .app
        .post(&path)
        .token(&c.write)
        .json(&body)
        .expect(200)
        .await;
    assert_eq!(second["queued"], 0);
    assert!(
        c.deliveries(&other_hook, "")
            .await
            .iter()
            .all(|d| d["is_replay"] == false),
        "another subscription's failures are its own"
    );
}

#[tokio::test]
async fn recover_and_the_delivery_filters_refuse_bad_input() {
    let c = Console::new(app!()).await;
    let (hook, _) = c
        .subscribe("https://hooks.example.com/a", &["run.completed"])
        .await;
    let path = format!("/v1/webhooks/{hook}/recover");
    let future = c.app.clock.timestamp().plus(Duration::from_secs(3600));
    for (body, param) in [
        (json!({}), "since"),
        (json!({"since": "yesterday"}), "since"),
        (json!({"since": 5}), "since"),
        (json!({"since": future.to_string()}), "since"),
    ] {
        let e = c
            .app
            .post(&path)
            .token(&c.write)
            .json(&body)
            .expect_error(422, "validation_failed")
            .await;
        assert_eq!(e["error"]["param"], param, "{body}");
    }
    let ok = json!({"since": "2026-01-01T00:00:00Z"});
    c.app
        .post(&path)
        .token(&c.read)
        .json(&ok)
        .expect_error(403, "insufficient_scope")
        .await;
    c.app
        .post(&path)
        .token(&c.stranger)
        .json(&ok)
        .expect_error(404, "not_found")
        .await;
    let nothing = c
        .app
        .post(&path)
        .token(&c.write)
        .json(&ok)
        .expect(200)
        .await;
    assert_eq!(nothing, json!({"queued": 0, "has_more": false}));

    let list = format!("/v1/webhooks/{hook}/deliveries");
    for (query, param) in [
        ("since=yesterday", "since"),
        ("until=2026-13-01T00:00:00Z", "until"),
        ("event_type=run.exploded", "event_type"),
    ] {
        let e = c
            .app
            .get(&format!("{list}?{query}"))
            .token(&c.read)
            .expect_error(400, "invalid_request")
            .await;
        assert_eq!(e["error"]["param"], param, "{query}");
    }
    for _ in 0..3 {
        c.emit(EventType::RunCompleted).await;
    }
    c.emit(EventType::RunFailed).await;
    let page = c
        .list(&format!("{list}?event_type=run.completed&limit=2"))
        .await;
    assert_eq!(page["data"].as_array().map(Vec::len), Some(2));
    let cursor = page["next_cursor"].as_str().expect("a next page");
    let rest = c
        .list(&format!(
            "{list}?event_type=run.completed&limit=2&cursor={cursor}"
        ))
        .await;
    assert_eq!(rest["data"].as_array().map(Vec::len), Some(1));
    c.app
        .get(&format!("{list}?limit=2&cursor={cursor}"))
        .token(&c.read)
        .expect_error(400, "invalid_request")
        .await;
    let until = c.app.clock.timestamp();
    assert_eq!(
        c.deliveries(&hook, &format!("&until={until}")).await.len(),
        3
    );
    assert!(
        c.deliveries(&hook, &format!("&since={until}"))
            .await
            .is_empty()
    );
}
