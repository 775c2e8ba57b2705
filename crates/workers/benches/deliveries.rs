//! Delivery benchmark: 10 subscriptions pointing at one local receiver, the real delivery
//! worker, a SQLite file (or `BENCH_DATABASE_URL`).
//!
//!     cargo bench -p workers --bench deliveries
//!
//! Phase 1 records events at a steady 200 events/s (2,000 deliveries/s) and reports the
//! latency from an event's commit to the receiver getting its first attempt (per delivery).
//! Phase 2 records a burst of events as fast as it can and reports deliveries per second,
//! counted until every delivery is recorded `delivered` in the database.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::HeaderMap;
use domain::{Clock, DeliveryStatus, EventType};
use store::Store;
use webhooks::{AddressPolicy, RetrySchedule, SECRETS_KEY_PURPOSE, SecretBox, derive_key};
use workers::{DeliverySettings, WorkerContext};

const SUBSCRIPTIONS: usize = 10;
const PACED_EVENTS_PER_SECOND: u64 = 200;
const PACED_SECONDS: u64 = 5;
const BURST_EVENTS: usize = 2_000;

type Arrivals = Arc<Mutex<HashMap<String, Vec<Instant>>>>;

async fn receiver(arrivals: Arrivals) -> String {
    let router = axum::Router::new().fallback(move |headers: HeaderMap| {
        let arrivals = arrivals.clone();
        async move {
            let now = Instant::now();
            if let Some(id) = headers.get("webhook-id").and_then(|v| v.to_str().ok())
                && let Ok(mut map) = arrivals.lock()
            {
                map.entry(id.to_owned()).or_default().push(now);
            }
            ""
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    format!("http://{addr}/hook")
}

/// True when every delivery is recorded `delivered`.
async fn all_delivered(store: &Store) -> bool {
    store
        .delivery_counts()
        .await
        .map(|counts| counts.iter().all(|(s, _)| *s == DeliveryStatus::Delivered))
        .unwrap_or(false)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(i).copied().unwrap_or_default()
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(run());
}

async fn run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let url = std::env::var("BENCH_DATABASE_URL")
        .unwrap_or_else(|_| format!("sqlite://{}", dir.path().join("bench.db").display()));
    let store = Store::connect(&url).await.expect("connect");
    store.migrate().await.expect("migrate");
    let clock = Clock::system();
    let mut server_key = [0u8; 32];
    rand::fill(&mut server_key);
    let secrets = SecretBox::new(&derive_key(&server_key, SECRETS_KEY_PURPOSE));
    let arrivals: Arrivals = Arc::default();
    let target = receiver(arrivals.clone()).await;

    let ws = testkit::subscribed_workspace(
        &store,
        "bench",
        (0..SUBSCRIPTIONS).map(|i| format!("{target}?subscription={i}")),
        &[EventType::RunCompleted],
        &secrets,
        clock.timestamp(),
    )
    .await;

    let settings = DeliverySettings::new(
        RetrySchedule::parse("0s,5s,5m,30m,2h,5h,10h,14h,20h,24h").expect("schedule"),
        Duration::from_secs(15),
        AddressPolicy::from_allowed_list("127.0.0.0/8").expect("policy"),
    );
    let (stop, shutdown) = workers::shutdown_channel();
    let running = workers::spawn_all(
        WorkerContext {
            store: store.clone(),
            clock: clock.clone(),
            server_key,
            deliveries: settings,
            // Deliveries only: no run worker in this benchmark.
            runs: workers::runs::RunWorkerConfig {
                concurrency: 0,
                ..Default::default()
            },
            drift_interval: Duration::ZERO,
            polish: None,
            // No run worker here: the sandbox is never started.
            sandbox: workers::sandbox::Sandbox::new("content-pipeline".into()),
            base_url: "http://127.0.0.1".into(),
        },
        shutdown,
    )
    .expect("workers");

    let payload = serde_json::json!({
        "id": "run_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f", "status": "succeeded",
        "feature_id": "csv-export", "source": "api", "tier": "standard",
        "artifacts": [{"article_id": "art_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f", "surface": "blog", "version": 3}]
    });

    // Phase 1: steady load, latency.
    let mut recorded: HashMap<String, Instant> = HashMap::new();
    let mut tick =
        tokio::time::interval(Duration::from_micros(1_000_000 / PACED_EVENTS_PER_SECOND));
    for _ in 0..PACED_EVENTS_PER_SECOND * PACED_SECONDS {
        tick.tick().await;
        let mut tx = store.begin().await.expect("tx");
        let event = tx
            .record_event(
                ws,
                EventType::RunCompleted,
                payload.clone(),
                clock.timestamp(),
            )
            .await
            .expect("event");
        tx.commit().await.expect("commit");
        recorded.insert(event.id.to_string(), Instant::now());
    }
    let expected = recorded.len() * SUBSCRIPTIONS;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let got: usize = arrivals
            .lock()
            .map(|m| m.values().map(Vec::len).sum())
            .unwrap_or(0);
        if got >= expected || Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let mut latencies: Vec<Duration> = Vec::with_capacity(expected);
    if let Ok(map) = arrivals.lock() {
        for (id, at) in &recorded {
            for arrival in map.get(id).into_iter().flatten() {
                latencies.push(arrival.saturating_duration_since(*at));
            }
        }
    }
    latencies.sort();
    println!(
        "steady {} deliveries/s for {PACED_SECONDS} s: {} of {expected} received; latency event recorded -> first attempt received: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        PACED_EVENTS_PER_SECOND * SUBSCRIPTIONS as u64,
        latencies.len(),
        percentile(&latencies, 0.50).as_secs_f64() * 1e3,
        percentile(&latencies, 0.99).as_secs_f64() * 1e3,
        latencies.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
    );

    // Phase 2: a burst, throughput until every outcome is recorded.
    if let Ok(mut map) = arrivals.lock() {
        map.clear();
    }
    let started = Instant::now();
    for _ in 0..BURST_EVENTS / 100 {
        let mut tx = store.begin().await.expect("tx");
        for _ in 0..100 {
            tx.record_event(
                ws,
                EventType::RunCompleted,
                payload.clone(),
                clock.timestamp(),
            )
            .await
            .expect("event");
        }
        tx.commit().await.expect("commit");
    }
    let recorded_in = started.elapsed();
    let burst = BURST_EVENTS * SUBSCRIPTIONS;
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let got: usize = arrivals
            .lock()
            .map(|m| m.values().map(Vec::len).sum())
            .unwrap_or(0);
        if (got >= burst && all_delivered(&store).await) || Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let elapsed = started.elapsed();
    let got: usize = arrivals
        .lock()
        .map(|m| m.values().map(Vec::len).sum())
        .unwrap_or(0);
    println!(
        "burst of {burst} deliveries ({BURST_EVENTS} events recorded in {:.2} s): {got} received, all recorded delivered after {:.2} s = {:.0} deliveries/s",
        recorded_in.as_secs_f64(),
        elapsed.as_secs_f64(),
        burst as f64 / elapsed.as_secs_f64()
    );

    stop.trigger();
    running.join().await;
    store.close().await;
}
