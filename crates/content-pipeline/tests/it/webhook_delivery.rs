//! Webhook delivery end to end: the real service and its delivery worker, real receivers on
//! loopback, signatures checked by the Python reference verifier.

use std::time::{Duration, Instant};

use domain::{EventType, RunId, Surface};
use serde_json::{Value, json};
use store::NewArticleVersion;
use testkit::eventually;

use crate::app;
use crate::helpers::{Builder, TestApp};
use crate::receiver::{Receiver, Reply, assert_rejected, assert_verifies};

const ALL_EVENTS: [&str; 5] = [
    "run.completed",
    "run.failed",
    "article.drafted",
    "article.published",
    "drift.detected",
];

/// Delivery workers with a short timeout and the retry `schedule`.
fn workers(schedule: &str) -> Builder {
    TestApp::builder()
        .workers()
        .webhook_retry_schedule(schedule)
        .webhook_timeout(Duration::from_secs(1))
}

/// Loopback allowed, a short schedule and a short timeout.
fn delivering(schedule: &str) -> Builder {
    workers(schedule).webhook_allowed_cidrs("127.0.0.0/8,::1/128")
}

struct Hooks {
    app: TestApp,
    ws: String,
    token: String,
}

impl Hooks {
    async fn new(app: TestApp) -> Self {
        let ws = app.workspace("hooks").await;
        let token = app.token(&ws, "publish").await;
        Self { app, ws, token }
    }

    /// Creates a subscription; returns (id, secret).
    async fn subscribe(&self, url: &str, events: &[&str]) -> (String, String) {
        let v = self
            .app
            .post(&format!("/v1/workspaces/{}/webhooks", self.ws))
            .token(&self.token)
            .json(&json!({"url": url, "events": events}))
            .expect(201)
            .await;
        (
            v["id"].as_str().expect("id").to_owned(),
            v["secret"].as_str().expect("secret").to_owned(),
        )
    }

    /// Records an event the way the pipeline does (in a write transaction); returns its id.
    async fn record(&self, event_type: EventType, data: Value) -> String {
        self.app.record_event(&self.ws, event_type, data).await
    }

    /// Records an event of `event_type` with sample data; returns its id.
    async fn emit(&self, event_type: EventType) -> String {
        self.record(event_type, sample_data(event_type, &self.ws))
            .await
    }

    async fn webhook(&self, id: &str) -> Value {
        self.app
            .get(&format!("/v1/webhooks/{id}"))
            .token(&self.token)
            .expect(200)
            .await
    }

    async fn deliveries(&self, webhook: &str) -> Vec<Value> {
        let list = self
            .app
            .get(&format!("/v1/webhooks/{webhook}/deliveries?limit=100"))
            .token(&self.token)
            .expect(200)
            .await;
        list["data"].as_array().cloned().unwrap_or_default()
    }

    /// The only delivery of `webhook`, once `done` holds for it.
    async fn delivery_when(&self, webhook: &str, done: impl Fn(&Value) -> bool) -> Value {
        eventually(Duration::from_secs(15), "the delivery's state", || async {
            let list = self.deliveries(webhook).await;
            assert!(list.len() <= 1, "expected one delivery, got {list:?}");
            list.into_iter().next().filter(|d| done(d))
        })
        .await
    }

    /// Writes an article version and publishes it over the API (emits article.published).
    async fn publish_article(&self) -> String {
        let article = self
            .app
            .write_article_version(&NewArticleVersion {
                workspace_id: self.ws.parse().expect("workspace id"),
                feature_id: "csv-export".into(),
                surface: Surface::Blog,
                title: "CSV export".into(),
                status: domain::ArticleStatus::Draft,
                mdx_body: "---\ntitle: CSV export\n---\n\nHello.\n".into(),
                plain_text: "Hello.".into(),
                provenance: json!({}),
                run_id: RunId::generate(),
            })
            .await;
        let id = article.id.to_string();
        self.app
            .post(&format!("/v1/articles/{id}/publish"))
            .token(&self.token)
            .expect(200)
            .await;
        id
    }
}

fn has_status(status: &'static str) -> impl Fn(&Value) -> bool {
    move |d: &Value| d["status"] == status
}

fn sample_data(event: EventType, ws: &str) -> Value {
    let run = json!({"id": RunId::generate(), "workspace_id": ws, "feature_id": "csv-export",
        "status": "succeeded", "source": "api"});
    match event {
        EventType::RunCompleted => run,
        EventType::RunFailed => {
            json!({"id": RunId::generate(), "workspace_id": ws, "feature_id": "csv-export",
                "status": "failed", "source": "api", "error": "render failed"})
        }
        EventType::ArticleDrafted => json!({"id": "art_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f",
            "workspace_id": ws, "feature_id": "csv-export", "surface": "blog", "status": "draft",
            "version": 1}),
        EventType::DriftDetected => json!({"article_id": "art_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f",
            "feature_id": "csv-export", "surface": "blog", "article_commit": "a1",
            "current_commit": "b2", "changes": [{"path": "src/lib.rs", "kind": "modified",
            "symbols": ["add"]}]}),
        EventType::ArticlePublished => json!({}),
    }
}

#[tokio::test]
async fn every_event_type_arrives_signed_with_the_standard_webhooks_headers() {
    let h = Hooks::new(app!(delivering("0s,200ms"))).await;
    let receiver = Receiver::start().await;
    let (hook, secret) = h.subscribe(&receiver.url, &ALL_EVENTS).await;
    let mut expected = Vec::new();
    for event in [
        EventType::RunCompleted,
        EventType::RunFailed,
        EventType::ArticleDrafted,
        EventType::DriftDetected,
    ] {
        let data = sample_data(event, &h.ws);
        expected.push((h.record(event, data.clone()).await, event, data));
    }
    let article = h.publish_article().await;

    let got = receiver.wait_for(5, Duration::from_secs(10)).await;
    let now = h.app.clock.now().unix_timestamp();
    for request in &got {
        assert_eq!(request.header("content-type"), "application/json");
        let payload = request.json();
        assert_eq!(
            request.header("webhook-id"),
            payload["id"].as_str().unwrap()
        );
        let ts: i64 = request.header("webhook-timestamp").parse().unwrap();
        assert!((ts - now).abs() <= 5, "fresh webhook-timestamp");
        let signature = request.header("webhook-signature");
        assert!(signature.starts_with("v1,") && !signature.contains(' '));
        assert_verifies(&secret, request);
        assert_eq!(payload["workspace_id"], h.ws.as_str());
        assert!(payload["timestamp"].as_str().unwrap().ends_with('Z'));
        let keys: Vec<&String> = payload.as_object().unwrap().keys().collect();
        assert_eq!(
            keys.len(),
            5,
            "envelope is id, type, timestamp, workspace_id, data"
        );
    }
    for (id, event, data) in &expected {
        let request = got
            .iter()
            .find(|r| r.header("webhook-id") == id)
            .unwrap_or_else(|| panic!("{event} was not delivered"));
        let payload = request.json();
        assert_eq!(payload["type"], event.as_str());
        assert_eq!(&payload["data"], data);
    }
    let published = got
        .iter()
        .map(|r| r.json())
        .find(|p| p["type"] == "article.published")
        .expect("article.published delivered");
    assert_eq!(published["data"]["id"], article.as_str());
    assert_eq!(published["data"]["status"], "published");
    assert!(
        published["data"].get("mdx_body").is_none(),
        "no body in payloads"
    );

    let deliveries = eventually(Duration::from_secs(5), "five delivered", || async {
        let d = h.deliveries(&hook).await;
        (d.len() == 5 && d.iter().all(has_status("delivered"))).then_some(d)
    })
    .await;
    for d in &deliveries {
        assert_eq!(d["attempts"], 1);
        assert_eq!(d["last_status_code"], 200);
        assert_eq!(d["is_replay"], false);
    }
    let webhook = h.webhook(&hook).await;
    assert_eq!(webhook["failure_count"], 0);
    assert!(webhook["last_delivery_at"].is_string());
}

#[tokio::test]
async fn failed_attempts_are_retried_on_schedule_until_one_succeeds() {
    let h = Hooks::new(app!(delivering("0s,300ms,300ms,300ms,300ms"))).await;
    let receiver = Receiver::start_with(Reply::status(500)).await;
    let (hook, secret) = h.subscribe(&receiver.url, &["run.completed"]).await;
    let event = h.emit(EventType::RunCompleted).await;

    receiver.wait_for(2, Duration::from_secs(10)).await;
    let failing = eventually(Duration::from_secs(5), "two failures", || async {
        let w = h.webhook(&hook).await;
        (w["failure_count"] == 2).then_some(w)
    })
    .await;
    assert!(failing["last_delivery_at"].is_null());
    receiver.reply(Reply::status(204));

    let delivery = h.delivery_when(&hook, has_status("delivered")).await;
    assert_eq!(delivery["attempts"], 3);
    assert_eq!(delivery["last_status_code"], 204);
    let got = receiver.received();
    assert_eq!(got.len(), 3);
    for pair in got.windows(2) {
        let gap = pair[1].at - pair[0].at;
        assert!(
            gap >= Duration::from_millis(240),
            "retry came after {gap:?}"
        );
    }
    for request in &got {
        assert_eq!(
            request.header("webhook-id"),
            event,
            "same webhook-id on every retry"
        );
        assert_verifies(&secret, request);
    }
    let webhook = h.webhook(&hook).await;
    assert_eq!(webhook["failure_count"], 0, "a success resets the streak");
    assert!(webhook["last_delivery_at"].is_string());
}

#[tokio::test]
async fn a_delivery_is_dead_after_its_last_attempt() {
    let h = Hooks::new(app!(delivering("0s,100ms,100ms"))).await;
    let receiver = Receiver::start_with(Reply::status(503)).await;
    let (hook, _) = h.subscribe(&receiver.url, &["run.failed"]).await;
    h.emit(EventType::RunFailed).await;

    let delivery = h.delivery_when(&hook, has_status("dead")).await;
    assert_eq!(delivery["attempts"], 3);
    assert_eq!(delivery["last_status_code"], 503);
    h.app.drained().await;
    assert_eq!(receiver.count(), 3, "no attempt after the last one");
    let webhook = h.webhook(&hook).await;
    assert_eq!(webhook["failure_count"], 3);
    assert_eq!(webhook["active"], true);
}

#[tokio::test]
async fn gone_kills_the_delivery_and_deactivates_the_subscription() {
    let h = Hooks::new(app!(delivering("0s,100ms,100ms"))).await;
    let receiver = Receiver::start_with(Reply::status(410)).await;
    let (hook, _) = h.subscribe(&receiver.url, &["drift.detected"]).await;
    h.emit(EventType::DriftDetected).await;

    let delivery = h.delivery_when(&hook, has_status("dead")).await;
    assert_eq!(delivery["attempts"], 1);
    assert_eq!(delivery["last_status_code"], 410);
    let webhook = h.webhook(&hook).await;
    assert_eq!(webhook["active"], false);
    h.emit(EventType::DriftDetected).await;
    h.app.drained().await;
    assert_eq!(
        h.deliveries(&hook).await.len(),
        1,
        "inactive: no new delivery"
    );
    assert_eq!(receiver.count(), 1);
}

#[tokio::test]
async fn throttled_attempts_back_off_harder_and_follow_retry_after_within_bounds() {
    // Hard back-off for this schedule: 60 s × 100 ms / 5 s = 1.2 s.
    let h = Hooks::new(app!(delivering("0s,100ms,100ms"))).await;
    let receiver = Receiver::start_with(Reply::status(429).header("retry-after", "2")).await;
    let (hook, _) = h.subscribe(&receiver.url, &["run.completed"]).await;
    h.emit(EventType::RunCompleted).await;
    receiver.wait_for(1, Duration::from_secs(10)).await;
    receiver.reply(Reply::status(200));
    let got = receiver.wait_for(2, Duration::from_secs(10)).await;
    let gap = got[1].at - got[0].at;
    // At least the hard back-off; Retry-After (2 s) kept within 1–2× of it.
    assert!(
        gap >= Duration::from_millis(1900),
        "throttled retry after {gap:?}"
    );
    assert!(
        gap <= Duration::from_millis(3200),
        "throttled retry after {gap:?}"
    );
    let delivery = h.delivery_when(&hook, has_status("delivered")).await;
    assert_eq!(delivery["attempts"], 2);
}

#[tokio::test]
async fn a_receiver_that_hangs_does_not_delay_another_and_times_out() {
    let h = Hooks::new(app!(delivering("0s,100ms,100ms"))).await;
    let slow = Receiver::start_with(Reply::status(200).after(Duration::from_secs(30))).await;
    let fast = Receiver::start().await;
    let (slow_hook, _) = h.subscribe(&slow.url, &["run.completed"]).await;
    let (fast_hook, _) = h.subscribe(&fast.url, &["run.completed"]).await;

    for _ in 0..3 {
        h.emit(EventType::RunCompleted).await;
    }
    let started = Instant::now();
    fast.wait_for(3, Duration::from_secs(5)).await;
    let fast_done = started.elapsed();
    assert!(
        fast_done < Duration::from_millis(800),
        "the fast receiver waited {fast_done:?} behind the hanging one"
    );
    slow.wait_for(3, Duration::from_secs(5)).await;
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "attempts to the hanging receiver run side by side, not one timeout after another"
    );

    let timed_out = eventually(Duration::from_secs(5), "three timed out", || async {
        let list = h.deliveries(&slow_hook).await;
        (list.len() == 3 && list.iter().all(|d| d["status"] == "failed")).then_some(list)
    })
    .await;
    for d in &timed_out {
        assert_eq!(d["attempts"], 1);
        assert!(
            d.get("last_status_code").is_none(),
            "a timeout has no status"
        );
    }
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "timeout is 1 s"
    );
    // A timeout backs off at least the scaled hard back-off (1.2 s).
    // Measured at the receiver: the retry comes the timeout (1 s) and the back-off after the
    // first attempt, however late this test sees the failure.
    slow.reply(Reply::status(200));
    let got = slow.wait_for(4, Duration::from_secs(10)).await;
    let gap = got[3].at - got[0].at;
    assert!(
        gap >= Duration::from_millis(2100),
        "retried {gap:?} after the first attempt"
    );
    let delivered = eventually(Duration::from_secs(5), "all delivered", || async {
        let list = h.deliveries(&fast_hook).await;
        list.iter().all(has_status("delivered")).then_some(list)
    })
    .await;
    assert_eq!(delivered.len(), 3);
}

#[tokio::test]
async fn a_hanging_receiver_with_a_backlog_leaves_slots_for_the_others() {
    // 8 slots, at most 2 per subscription: ten attempts to the hanging receiver cannot take
    // the slots the fast one needs.
    let h = Hooks::new(app!(delivering("0s,5s").webhook_concurrency(8))).await;
    let slow = Receiver::start_with(Reply::status(200).after(Duration::from_secs(30))).await;
    let fast = Receiver::start().await;
    h.subscribe(&slow.url, &["run.failed"]).await;
    h.subscribe(&fast.url, &["run.completed"]).await;
    for _ in 0..10 {
        h.emit(EventType::RunFailed).await;
    }
    let started = Instant::now();
    for _ in 0..3 {
        h.emit(EventType::RunCompleted).await;
    }
    fast.wait_for(3, Duration::from_secs(5)).await;
    let waited = started.elapsed();
    assert!(
        waited < Duration::from_millis(800),
        "the fast receiver waited {waited:?} behind the hanging one's backlog"
    );
    assert!(
        slow.count() <= 2,
        "at most 2 attempts in flight to one subscription"
    );
}

#[tokio::test]
async fn rotation_signs_with_both_secrets_newest_first_then_only_the_new_one() {
    let h = Hooks::new(app!(delivering("0s,200ms"))).await;
    let receiver = Receiver::start().await;
    let (hook, old_secret) = h.subscribe(&receiver.url, &["run.completed"]).await;
    let rotate = format!("/v1/webhooks/{hook}/rotate-secret");
    let rotated = h
        .app
        .post(&rotate)
        .token(&h.token)
        .json(&json!({"grace_period_seconds": 3600}))
        .expect(200)
        .await;
    let new_secret = rotated["secret"].as_str().unwrap().to_owned();
    assert_ne!(new_secret, old_secret);

    h.emit(EventType::RunCompleted).await;
    let during = receiver
        .wait_for(1, Duration::from_secs(10))
        .await
        .remove(0);
    let signatures: Vec<&str> = during.header("webhook-signature").split(' ').collect();
    assert_eq!(
        signatures.len(),
        2,
        "both signatures during the grace period"
    );
    assert_verifies(&old_secret, &during);
    assert_verifies(&new_secret, &during);
    // Newest first: the first signature alone is the new secret's.
    let first_only = crate::receiver::verify(&new_secret, &during, Some(signatures[0]));
    assert!(matches!(
        first_only,
        crate::receiver::Verdict::Valid | crate::receiver::Verdict::Skipped
    ));

    let rotated = h
        .app
        .post(&rotate)
        .token(&h.token)
        .json(&json!({"grace_period_seconds": 0}))
        .expect(200)
        .await;
    let newest = rotated["secret"].as_str().unwrap().to_owned();
    h.emit(EventType::RunCompleted).await;
    let after = receiver
        .wait_for(2, Duration::from_secs(10))
        .await
        .remove(1);
    assert!(
        !after.header("webhook-signature").contains(' '),
        "one signature after the grace"
    );
    assert_rejected(&new_secret, &after);
    assert_verifies(&newest, &after);
}

#[tokio::test]
async fn a_replay_resends_the_same_event_to_the_current_url() {
    let h = Hooks::new(app!(delivering("0s,200ms"))).await;
    let first = Receiver::start().await;
    let second = Receiver::start().await;
    let (hook, secret) = h.subscribe(&first.url, &["article.published"]).await;
    h.publish_article().await;
    let original = first.wait_for(1, Duration::from_secs(10)).await.remove(0);
    let delivered = h.delivery_when(&hook, has_status("delivered")).await;

    h.app
        .patch(&format!("/v1/webhooks/{hook}"))
        .token(&h.token)
        .json(&json!({"url": second.url}))
        .expect(200)
        .await;
    let replay = h
        .app
        .post(&format!("/v1/webhooks/{hook}/replay"))
        .token(&h.token)
        .json(&json!({"delivery_id": delivered["id"]}))
        .expect(200)
        .await;
    assert_eq!(replay["is_replay"], true);
    assert_eq!(replay["event_id"], delivered["event_id"]);
    assert_eq!(replay["target_url"], second.url.as_str());

    let resent = second.wait_for(1, Duration::from_secs(10)).await.remove(0);
    assert_eq!(resent.header("webhook-id"), original.header("webhook-id"));
    assert_eq!(resent.body, original.body, "the same payload bytes");
    assert_verifies(&secret, &resent);
    assert_eq!(first.count(), 1);
    let id = replay["id"].as_str().unwrap();
    let path = format!("/v1/deliveries/{id}");
    let done = eventually(Duration::from_secs(5), "the replay delivered", || async {
        let d = h.app.get(&path).token(&h.token).expect(200).await;
        (d["status"] == "delivered").then_some(d)
    })
    .await;
    assert_eq!(done["attempts"], 1);
    assert_eq!(done["is_replay"], true);
}

#[tokio::test]
async fn deleting_a_subscription_kills_its_pending_deliveries() {
    let h = Hooks::new(app!(delivering("0s,700ms,700ms"))).await;
    let receiver = Receiver::start_with(Reply::status(500)).await;
    let (hook, _) = h.subscribe(&receiver.url, &["run.completed"]).await;
    h.emit(EventType::RunCompleted).await;
    let failed = h.delivery_when(&hook, has_status("failed")).await;
    h.app
        .delete(&format!("/v1/webhooks/{hook}"))
        .token(&h.token)
        .expect(200)
        .await;
    h.app.drained().await;
    assert_eq!(receiver.count(), 1, "no attempt after the delete");
    let id = failed["id"].as_str().unwrap();
    let d = h
        .app
        .get(&format!("/v1/deliveries/{id}"))
        .token(&h.token)
        .expect(200)
        .await;
    assert_eq!(d["status"], "dead");
    assert_eq!(d["attempts"], 1);
}

#[tokio::test]
async fn a_subscription_failing_for_five_days_is_deactivated() {
    let h = Hooks::new(app!(delivering("0s,200ms,200ms,200ms"))).await;
    let receiver = Receiver::start_with(Reply::status(500)).await;
    let (hook, _) = h.subscribe(&receiver.url, &["run.completed"]).await;
    h.emit(EventType::RunCompleted).await;
    eventually(Duration::from_secs(5), "the first failure", || async {
        (h.webhook(&hook).await["failure_count"] == 1).then_some(())
    })
    .await;
    assert_eq!(h.webhook(&hook).await["active"], true);
    h.app.clock.advance(Duration::from_secs(5 * 24 * 3600 + 60));
    let webhook = eventually(Duration::from_secs(5), "deactivated", || async {
        let w = h.webhook(&hook).await;
        (w["active"] == false).then_some(w)
    })
    .await;
    assert_eq!(webhook["failure_count"], 2);
}

#[tokio::test]
async fn redirects_are_not_followed() {
    let h = Hooks::new(app!(delivering("0s,5s"))).await;
    let target = Receiver::start().await;
    let redirecting =
        Receiver::start_with(Reply::status(307).header("location", target.url.clone())).await;
    let (hook, _) = h.subscribe(&redirecting.url, &["run.completed"]).await;
    h.emit(EventType::RunCompleted).await;
    let d = h.delivery_when(&hook, has_status("failed")).await;
    assert_eq!(d["last_status_code"], 307);
    assert_eq!(target.count(), 0, "the redirect was not followed");
}

#[tokio::test]
async fn private_addresses_are_refused_literally_and_after_dns_resolution() {
    // No allowed ranges: loopback is private like any other.
    let h = Hooks::new(app!(workers("0s,5s"))).await;
    let receiver = Receiver::start().await;
    let port = receiver.port;
    for literal in [
        format!("http://127.0.0.1:{port}/hook"),
        format!("http://10.0.0.7:{port}/hook"),
        format!("http://[::1]:{port}/hook"),
        format!("http://[fd00::1]:{port}/hook"),
        format!("http://[::ffff:127.0.0.1]:{port}/hook"),
        format!("http://[::ffff:a9fe:a9fe]:{port}/hook"),
    ] {
        h.app
            .post(&format!("/v1/workspaces/{}/webhooks", h.ws))
            .token(&h.token)
            .json(&json!({"url": literal, "events": ["run.completed"]}))
            .expect_error(422, "validation_failed")
            .await;
    }
    // A host name is accepted at create time, and refused once it resolves to loopback.
    let (hook, _) = h
        .subscribe(&format!("http://localhost:{port}/hook"), &["run.completed"])
        .await;
    h.emit(EventType::RunCompleted).await;
    let d = h.delivery_when(&hook, has_status("failed")).await;
    assert_eq!(d["attempts"], 1);
    assert!(d.get("last_status_code").is_none());
    assert_eq!(receiver.count(), 0, "nothing reached the private address");
}

#[tokio::test]
async fn allowed_ranges_let_a_loopback_host_name_through() {
    let h = Hooks::new(app!(delivering("0s,5s"))).await;
    let receiver = Receiver::start().await;
    let (hook, secret) = h
        .subscribe(
            &format!("http://localhost:{}/hook", receiver.port),
            &["run.completed"],
        )
        .await;
    h.emit(EventType::RunCompleted).await;
    let got = receiver.wait_for(1, Duration::from_secs(10)).await;
    assert_verifies(&secret, &got[0]);
    h.delivery_when(&hook, has_status("delivered")).await;
}
