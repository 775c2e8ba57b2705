//! Delivery benchmark: 10 subscriptions pointing at one local receiver and the real delivery
//! worker, on both engines in one run: SQLite on a temp file, then PostgreSQL on a fresh
//! database that the benchmark creates and drops (server `BENCH_POSTGRES_URL`, default
//! `postgres://postgres@127.0.0.1:5432/postgres`; skipped with a note when unreachable).
//!
//!     cargo bench -p workers --bench deliveries
//!
//! Events are recorded the way the service records them: `Tx::record_event` inside
//! `Store::write`, one event per transaction, from several tasks at once (as the API under
//! load would).
//!
//! - Steady: 200 events/s × 10 subscriptions = 2,000 deliveries/s for 5 s; latency from an
//!   event's commit to the receiver getting each of its deliveries (first attempt), p50/p99.
//! - Burst: 2,000 events × 10 subscriptions = 20,000 deliveries, recorded as fast as
//!   `RECORDERS` tasks can: the time to record the events, deliveries per second (from the
//!   first event to the last delivery recorded `delivered`), and the lag from the last event
//!   recorded to the last delivery received (the target: within 0.3 s).
//! - CPU: of this process (worker, receiver and recorders) and of the machine's `postgres`
//!   processes, per delivery of the burst (from `/proc`; the PostgreSQL figure includes any
//!   other client of that server at the time).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::HeaderMap;
use domain::{Clock, DeliveryStatus, EventType, WorkspaceId};
use sqlx::{Connection, PgConnection};
use store::{Store, StoreError};
use webhooks::{AddressPolicy, RetrySchedule, SECRETS_KEY_PURPOSE, SecretBox, derive_key};
use workers::{DeliverySettings, WorkerContext};

const SUBSCRIPTIONS: usize = 10;
const PACED_EVENTS_PER_SECOND: u64 = 200;
const PACED_SECONDS: u64 = 5;
const BURST_EVENTS: usize = 2_000;
/// Tasks recording the burst's events at once, each one event per transaction.
const RECORDERS: usize = 8;
const _: () = assert!(
    BURST_EVENTS.is_multiple_of(RECORDERS),
    "the recorders share the burst evenly"
);
const DEFAULT_POSTGRES_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

/// When each delivery reached the receiver, by event id (`webhook-id`).
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

fn received(arrivals: &Arrivals) -> usize {
    arrivals
        .lock()
        .map(|m| m.values().map(Vec::len).sum())
        .unwrap_or(0)
}

/// The last arrival of all.
fn last_arrival(arrivals: &Arrivals) -> Option<Instant> {
    arrivals
        .lock()
        .ok()
        .and_then(|m| m.values().flatten().max().copied())
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

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// User + system CPU seconds of the processes whose `/proc/<pid>/stat` files are given (only
/// those named `comm`, when given), counted in Linux's `USER_HZ` ticks of 1/100 s.
fn cpu_seconds(stat_files: impl Iterator<Item = std::path::PathBuf>, comm: Option<&str>) -> f64 {
    let mut ticks = 0u64;
    for path in stat_files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        // `pid (comm) state ppid …`: the name may hold spaces, so split after the last ')'.
        let (Some(open), Some(close)) = (text.find('('), text.rfind(')')) else {
            continue;
        };
        if comm.is_some_and(|c| &text[open + 1..close] != c) {
            continue;
        }
        let fields: Vec<&str> = text[close + 1..].split_whitespace().collect();
        // After the name: state is field 3 of the man page, utime 14 and stime 15.
        for i in [11, 12] {
            ticks += fields.get(i).and_then(|f| f.parse().ok()).unwrap_or(0);
        }
    }
    ticks as f64 / 100.0
}

fn own_cpu() -> f64 {
    cpu_seconds(std::iter::once("/proc/self/stat".into()), None)
}

fn postgres_cpu() -> f64 {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0.0;
    };
    let pids = dir.filter_map(Result::ok).filter_map(|e| {
        let name = e.file_name();
        let name = name.to_str()?;
        name.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| e.path().join("stat"))
    });
    cpu_seconds(pids, Some("postgres"))
}

/// Records one event as an API request does: its own `Store::write` transaction.
async fn record(
    store: &Store,
    ws: WorkspaceId,
    payload: &serde_json::Value,
    clock: &Clock,
) -> Result<String, StoreError> {
    let payload = payload.clone();
    let now = clock.timestamp();
    let event = store
        .write(move |tx| {
            Box::pin(async move {
                tx.record_event(ws, EventType::RunCompleted, payload, now)
                    .await
            })
        })
        .await?;
    Ok(event.id.to_string())
}

struct Steady {
    expected: usize,
    latencies: Vec<Duration>,
}

struct Burst {
    deliveries: usize,
    received: usize,
    recorded_in: Duration,
    /// From the first event recorded to the last delivery recorded `delivered`.
    delivered_in: Duration,
    /// From the last event recorded to the last delivery received.
    lag: Duration,
    own_cpu: f64,
    postgres_cpu: f64,
}

async fn bench(url: &str) -> (Steady, Burst) {
    let store = Store::connect(url).await.expect("connect");
    store.migrate().await.expect("migrate");
    // As `serve` and `worker` do before they work.
    store.warm_up().await.expect("warm up");
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
    let ops = operations::Operations::new(
        store.clone(),
        clock.clone(),
        operations::Settings {
            base_url: "http://127.0.0.1".into(),
            default_rate_limit: 6_000,
            server_key: domain::Secret::new(server_key),
            address_policy: settings.address_policy.clone(),
            quotas: operations::WorkspaceQuotas::default(),
            sessions: operations::accounts::SessionSettings::default(),
        },
    );
    let running = workers::spawn_all(
        WorkerContext {
            ops,
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

    let payload = Arc::new(serde_json::json!({
        "id": "run_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f", "status": "succeeded",
        "feature_id": "csv-export", "source": "api", "tier": "standard",
        "artifacts": [{"article_id": "art_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f", "surface": "blog", "version": 3}]
    }));

    // Steady load: one request's transaction every 5 ms, each in a task of its own.
    let recorded: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let mut tick =
        tokio::time::interval(Duration::from_micros(1_000_000 / PACED_EVENTS_PER_SECOND));
    let mut writers = Vec::new();
    for _ in 0..PACED_EVENTS_PER_SECOND * PACED_SECONDS {
        tick.tick().await;
        let (store, payload, clock, recorded) = (
            store.clone(),
            payload.clone(),
            clock.clone(),
            recorded.clone(),
        );
        writers.push(tokio::spawn(async move {
            let id = record(&store, ws, &payload, &clock).await.expect("event");
            let at = Instant::now();
            if let Ok(mut map) = recorded.lock() {
                map.insert(id, at);
            }
        }));
    }
    for w in writers {
        w.await.expect("writer");
    }
    let recorded = std::mem::take(&mut *recorded.lock().expect("recorded"));
    let expected = recorded.len() * SUBSCRIPTIONS;
    let deadline = Instant::now() + Duration::from_secs(60);
    while received(&arrivals) < expected && Instant::now() < deadline {
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
    let steady = Steady {
        expected,
        latencies,
    };
    // Let the last outcomes be recorded before the burst.
    let deadline = Instant::now() + Duration::from_secs(30);
    while !all_delivered(&store).await && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    // Burst: RECORDERS tasks record the events as fast as they can.
    if let Ok(mut map) = arrivals.lock() {
        map.clear();
    }
    let (own_before, pg_before) = (own_cpu(), postgres_cpu());
    let started = Instant::now();
    let recorders: Vec<_> = (0..RECORDERS)
        .map(|_| {
            let (store, payload, clock) = (store.clone(), payload.clone(), clock.clone());
            let count = BURST_EVENTS / RECORDERS;
            tokio::spawn(async move {
                for _ in 0..count {
                    record(&store, ws, &payload, &clock).await.expect("event");
                }
                Instant::now()
            })
        })
        .collect();
    let mut last_recorded = started;
    for r in recorders {
        last_recorded = last_recorded.max(r.await.expect("recorder"));
    }
    let recorded_in = last_recorded - started;
    let deliveries = BURST_EVENTS * SUBSCRIPTIONS;
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if (received(&arrivals) >= deliveries && all_delivered(&store).await)
            || Instant::now() > deadline
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let delivered_in = started.elapsed();
    let (own_after, pg_after) = (own_cpu(), postgres_cpu());
    let burst = Burst {
        deliveries,
        received: received(&arrivals),
        recorded_in,
        delivered_in,
        lag: last_arrival(&arrivals)
            .map(|a| a.saturating_duration_since(last_recorded))
            .unwrap_or_default(),
        own_cpu: own_after - own_before,
        postgres_cpu: pg_after - pg_before,
    };

    stop.trigger();
    running.join().await;
    store.close().await;
    (steady, burst)
}

fn report(engine: &str, steady: &Steady, burst: &Burst) {
    let l = &steady.latencies;
    println!(
        "{engine}: steady {} deliveries/s for {PACED_SECONDS} s: {} of {} received; event committed -> delivery received p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        PACED_EVENTS_PER_SECOND * SUBSCRIPTIONS as u64,
        l.len(),
        steady.expected,
        ms(percentile(l, 0.50)),
        ms(percentile(l, 0.99)),
        ms(l.last().copied().unwrap_or_default()),
    );
    println!(
        "{engine}: burst of {} deliveries: {BURST_EVENTS} events recorded by {RECORDERS} tasks in {:.2} s ({:.0} events/s); {} received; all recorded delivered after {:.2} s = {:.0} deliveries/s; last event recorded -> last delivery received {:.3} s",
        burst.deliveries,
        burst.recorded_in.as_secs_f64(),
        BURST_EVENTS as f64 / burst.recorded_in.as_secs_f64(),
        burst.received,
        burst.delivered_in.as_secs_f64(),
        burst.deliveries as f64 / burst.delivered_in.as_secs_f64(),
        burst.lag.as_secs_f64(),
    );
    println!(
        "{engine}: burst CPU per delivery: this process {:.1} µs, postgres processes {:.1} µs",
        burst.own_cpu / burst.deliveries as f64 * 1e6,
        burst.postgres_cpu / burst.deliveries as f64 * 1e6,
    );
}

/// A fresh database on the server at `admin_url`, or `None` (with a note) when it does not
/// answer.
async fn create_database(admin_url: &str) -> Option<(PgConnection, String, String)> {
    let connected = tokio::time::timeout(Duration::from_secs(3), PgConnection::connect(admin_url))
        .await
        .map_err(|_| "no answer within 3 s".to_owned())
        .and_then(|r| r.map_err(|e| e.to_string()));
    let mut admin = match connected {
        Ok(c) => c,
        Err(e) => {
            println!("postgres: SKIPPED, no server at {admin_url} ({e}); set BENCH_POSTGRES_URL");
            return None;
        }
    };
    let mut suffix = [0u8; 8];
    rand::fill(&mut suffix);
    let name = format!(
        "cp_bench_{}",
        suffix
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    );
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut admin)
        .await
        .expect("create the benchmark database");
    let mut url = url::Url::parse(admin_url).expect("BENCH_POSTGRES_URL");
    url.set_path(&name);
    Some((admin, name, url.to_string()))
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let dir = tempfile::tempdir().expect("tempdir");
        let sqlite = format!("sqlite://{}", dir.path().join("bench.db").display());
        let (steady, burst) = bench(&sqlite).await;
        report("sqlite", &steady, &burst);

        let admin_url =
            std::env::var("BENCH_POSTGRES_URL").unwrap_or_else(|_| DEFAULT_POSTGRES_URL.into());
        if let Some((mut admin, name, url)) = create_database(&admin_url).await {
            let (steady, burst) = bench(&url).await;
            report("postgres", &steady, &burst);
            let drop = format!("DROP DATABASE {name} WITH (FORCE)");
            if let Err(e) = sqlx::raw_sql(sqlx::AssertSqlSafe(drop))
                .execute(&mut admin)
                .await
            {
                eprintln!("could not drop {name}: {e}");
            }
        }
    });
}
