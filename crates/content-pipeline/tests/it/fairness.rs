//! One tenant cannot starve the others: delivery slots are capped per workspace, and live log
//! streams are capped per token and in lifetime, woken by changes rather than polling.

use std::time::{Duration, Instant};

use domain::EventType;
use reqwest::Response;
use serde_json::json;
use testkit::eventually;

use crate::app;
use crate::helpers::{TestApp, expect_error};
use crate::receiver::{Receiver, Reply};

/// The live log tests read a process-wide counter: one at a time, so they do not count each
/// other's reads.
static LIVE_LOG_TESTS: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Workers with 8 delivery slots (2 per subscription, 4 per workspace), a retry 5 s after a
/// failure and a 30 s attempt timeout, delivering to loopback receivers.
fn eight_delivery_slots() -> crate::helpers::Builder {
    TestApp::builder()
        .workers()
        .webhook_allowed_cidrs("127.0.0.0/8")
        .webhook_retry_schedule("0s,5s")
        .webhook_timeout(Duration::from_secs(30))
        .webhook_concurrency(8)
}

#[tokio::test]
async fn hanging_receivers_of_one_workspace_leave_slots_to_another() {
    // 8 slots, 2 per subscription, 4 per workspace: four hanging subscriptions of one tenant
    // would hold all 8 with only the subscription cap.
    let app = app!(eight_delivery_slots());
    let noisy = app.workspace("noisy").await;
    let mut hanging = Vec::new();
    for _ in 0..4 {
        let receiver =
            Receiver::start_with(Reply::status(200).after(Duration::from_secs(60))).await;
        app.webhook(&noisy, &receiver.url, &["run.failed"]).await;
        hanging.push(receiver);
    }
    for _ in 0..3 {
        app.record_event(&noisy, EventType::RunFailed, json!({}))
            .await;
    }
    let in_flight = || hanging.iter().map(Receiver::count).sum::<usize>();
    eventually(
        Duration::from_secs(5),
        "the noisy workspace's attempts started",
        || async { (in_flight() >= 4).then_some(()) },
    )
    .await;

    let quiet = app.workspace("quiet").await;
    let receiver = Receiver::start().await;
    app.webhook(&quiet, &receiver.url, &["run.completed"]).await;
    let started = Instant::now();
    app.record_event(&quiet, EventType::RunCompleted, json!({}))
        .await;
    receiver.wait_for(1, Duration::from_secs(10)).await;
    let waited = started.elapsed();
    assert!(
        waited < Duration::from_secs(2),
        "another workspace's delivery waited {waited:?} behind the hanging receivers"
    );
    assert_eq!(
        in_flight(),
        4,
        "at most half of the slots for one workspace, though its subscriptions have more due"
    );
}

/// A claim that brings more deliveries than a subscription's cap allows holds the rest in the
/// worker, and each starts as soon as the slot frees: they do not go back to the queue (where a
/// later one could overtake them) to be claimed again.
#[tokio::test]
async fn deliveries_over_a_subscriptions_cap_start_in_turn_as_its_slot_frees() {
    // 4 slots: 1 per subscription, 2 per workspace.
    let app = app!(
        TestApp::builder()
            .workers()
            .webhook_allowed_cidrs("127.0.0.0/8")
            .webhook_concurrency(4)
    );
    let ws = app.workspace("ordered").await;
    let receiver = Receiver::start_with(Reply::status(200).after(Duration::from_millis(20))).await;
    app.webhook(&ws, &receiver.url, &["run.failed"]).await;
    let count = 12;
    for n in 0..count {
        app.record_event(&ws, EventType::RunFailed, json!({ "n": n }))
            .await;
    }
    let received = receiver.wait_for(count, Duration::from_secs(20)).await;
    let order: Vec<i64> = received
        .iter()
        .map(|r| {
            let body: serde_json::Value = serde_json::from_slice(&r.body).expect("json");
            body["data"]["n"].as_i64().expect("n")
        })
        .collect();
    assert_eq!(order, (0..count as i64).collect::<Vec<_>>());
}

/// Deliveries held for their subscription's cap do not hold up their workspace: another
/// subscription of the same workspace, with room, is claimed and served at once.
#[tokio::test]
async fn deliveries_held_for_one_subscription_leave_its_workspace_served() {
    // 8 slots: 2 per subscription, 4 per workspace.
    let app = app!(eight_delivery_slots());
    let ws = app.workspace("busy").await;
    let slow = Receiver::start_with(Reply::status(200).after(Duration::from_secs(30))).await;
    let fast = Receiver::start().await;
    app.webhook(&ws, &slow.url, &["run.failed"]).await;
    app.webhook(&ws, &fast.url, &["run.completed"]).await;
    // In one transaction, so that one claim brings them all: two start, the rest are held.
    let workspace = ws.parse().expect("workspace id");
    let mut tx = app.store.begin().await.expect("tx");
    for _ in 0..8 {
        tx.record_event(
            workspace,
            EventType::RunFailed,
            json!({}),
            app.clock.timestamp(),
        )
        .await
        .expect("event");
    }
    tx.commit().await.expect("commit");
    eventually(
        Duration::from_secs(5),
        "the slow receiver's attempts started",
        || async { (slow.count() >= 2).then_some(()) },
    )
    .await;
    let started = Instant::now();
    app.record_event(&ws, EventType::RunCompleted, json!({}))
        .await;
    fast.wait_for(1, Duration::from_secs(5)).await;
    let waited = started.elapsed();
    assert!(
        waited < Duration::from_millis(500),
        "the workspace's other subscription waited {waited:?} behind the held deliveries"
    );
    assert_eq!(
        slow.count(),
        2,
        "at most 2 attempts in flight to one subscription"
    );
}

/// A queued run (no workers here, so it stays queued) of a fresh workspace.
async fn queued_run(app: &TestApp) -> (String, String) {
    let ws = app.workspace("live").await;
    let run = app
        .post(&format!("/v1/workspaces/{ws}/runs"))
        .json(&json!({"feature_id": "src"}))
        .expect(201)
        .await;
    (ws, run["id"].as_str().expect("id").to_owned())
}

async fn stream(app: &TestApp, run: &str, token: &str) -> Response {
    app.get(&format!("/v1/runs/{run}/log"))
        .token(token)
        .header("accept", "text/event-stream")
        .send()
        .await
}

/// The process-wide count of live log stream reads.
async fn stream_reads(app: &TestApp) -> f64 {
    let text = app.get("/metrics").anonymous().expect_text(200).await;
    text.lines()
        .find_map(|l| l.strip_prefix("run_log_stream_reads_total "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no run_log_stream_reads_total in {text}"))
}

#[tokio::test]
async fn a_token_holds_at_most_five_live_log_streams() {
    let _serial = LIVE_LOG_TESTS.lock().await;
    let app = app!();
    let (ws, run) = queued_run(&app).await;
    let token = app.token(&ws, "read").await;
    let mut open = Vec::new();
    for _ in 0..5 {
        let res = stream(&app, &run, &token).await;
        assert_eq!(res.status(), 200);
        open.push(res);
    }
    let refused = stream(&app, &run, &token).await;
    let retry_after: u64 = refused
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .expect("Retry-After in seconds");
    assert!(retry_after >= 1);
    expect_error(refused, 429, "rate_limited").await;

    let other = app.token(&ws, "read").await;
    assert_eq!(
        stream(&app, &run, &other).await.status(),
        200,
        "the cap is per token"
    );
    let paged = app
        .get(&format!("/v1/runs/{run}/log"))
        .token(&token)
        .send()
        .await;
    assert_eq!(paged.status(), 200, "the paged log is not a stream");

    // A client that goes away gives its slot back.
    drop(open.pop());
    eventually(
        Duration::from_secs(5),
        "the closed stream's slot came back",
        || async { (stream(&app, &run, &token).await.status() == 200).then_some(()) },
    )
    .await;
}

#[tokio::test]
async fn a_live_log_stream_ends_at_its_lifetime_and_resumes_with_last_event_id() {
    let _serial = LIVE_LOG_TESTS.lock().await;
    let app = app!(TestApp::builder().log_stream_lifetime(Duration::from_secs(1)));
    let (_, run) = queued_run(&app).await;
    app.log(&run, "resolve", "first").await;
    let started = Instant::now();
    let text = tokio::time::timeout(
        Duration::from_secs(10),
        stream(&app, &run, &app.platform_token).await.text(),
    )
    .await
    .expect("the stream ended by itself although its run is still queued")
    .expect("text");
    let lasted = started.elapsed();
    assert!(
        lasted >= Duration::from_millis(900) && lasted < Duration::from_secs(4),
        "lasted {lasted:?}"
    );
    assert!(text.contains("id: 1") || text.contains("id:1"), "{text}");

    app.log(&run, "resolve", "second").await;
    let resumed = app
        .get(&format!("/v1/runs/{run}/log"))
        .header("accept", "text/event-stream")
        .header("last-event-id", "1")
        .expect_text(200)
        .await;
    assert!(
        resumed.contains("second") && !resumed.contains("first"),
        "{resumed}"
    );
}

/// Reads the stream until `needle` arrives; returns when it did.
async fn arrival(res: &mut Response, needle: &str, within: Duration) -> Instant {
    let deadline = tokio::time::Instant::now() + within;
    let mut seen = String::new();
    loop {
        let chunk = tokio::time::timeout_at(deadline, res.chunk())
            .await
            .unwrap_or_else(|_| panic!("{needle:?} did not arrive within {within:?}: {seen}"))
            .expect("chunk")
            .expect("the stream is still open");
        seen.push_str(&String::from_utf8_lossy(&chunk));
        if seen.contains(needle) {
            return Instant::now();
        }
    }
}

#[tokio::test]
async fn a_live_log_stream_wakes_on_a_new_line_and_does_not_poll_while_idle() {
    let _serial = LIVE_LOG_TESTS.lock().await;
    let app = app!();
    let (_, run) = queued_run(&app).await;
    let mut streams = Vec::new();
    for _ in 0..5 {
        let res = stream(&app, &run, &app.platform_token).await;
        assert_eq!(res.status(), 200);
        streams.push(res);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;

    // Five idle streams for 3 s: polling every 150 ms would read about 100 times.
    let before = stream_reads(&app).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let idle_reads = stream_reads(&app).await - before;
    assert!(
        idle_reads <= 20.0,
        "five idle streams read the database {idle_reads} times in 3 s"
    );

    // One stream follows on: the others' simultaneous reads would measure the database
    // pool's growth rather than the wake-up.
    streams.truncate(1);
    for i in 1..=3 {
        let line = format!("line {i}");
        let written = Instant::now();
        app.log(&run, "extract", &line).await;
        let arrived = arrival(&mut streams[0], &line, Duration::from_secs(3)).await;
        let latency = arrived - written;
        assert!(
            latency < Duration::from_millis(100),
            "{line} arrived {latency:?} after it was written"
        );
        tokio::time::sleep(Duration::from_millis(170)).await;
    }
}
