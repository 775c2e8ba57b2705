//! Prometheus metrics: request counts and latencies per route template and status.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::Response;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// How often the recorded latencies are folded into their histograms.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// Installs the process-wide recorder once (several apps in one test process share it), with
/// a thread that does its upkeep: the exporter keeps every latency sample recorded until its
/// upkeep folds them into the histogram's buckets, so without it memory would grow with every
/// request between two scrapes of `/metrics` (forever when nothing scrapes).
pub fn install() {
    HANDLE.get_or_init(|| {
        let handle = PrometheusBuilder::new().install_recorder().ok()?;
        let upkeep = handle.clone();
        let spawned = std::thread::Builder::new()
            .name("metrics-upkeep".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(UPKEEP_EVERY);
                    upkeep.run_upkeep();
                }
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "no metrics upkeep thread: latency samples accumulate until /metrics is read");
        }
        Some(handle)
    });
}

pub fn render() -> String {
    HANDLE
        .get()
        .and_then(|h| h.as_ref())
        .map(|h| h.render())
        .unwrap_or_default()
}

pub async fn record(req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| "unmatched".to_owned());
    let method = req.method().as_str().to_owned();
    let started = Instant::now();
    let response = next.run(req).await;
    let status = response.status().as_u16().to_string();
    let labels = [("method", method), ("route", route), ("status", status)];
    metrics::counter!("http_requests_total", &labels).increment(1);
    metrics::histogram!("http_request_duration_seconds", &labels)
        .record(started.elapsed().as_secs_f64());
    response
}
