//! Prometheus metrics: request counts and latencies per route template and status.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;
use metrics::{Counter, Histogram};
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
    let method = method_label(req.method());
    let matched = req.extensions().get::<MatchedPath>().cloned();
    let started = Instant::now();
    let response = next.run(req).await;
    let route = matched.as_ref().map_or("unmatched", MatchedPath::as_str);
    let status = response.status().as_u16();
    let elapsed = started.elapsed().as_secs_f64();
    SERIES.with_borrow_mut(|series| {
        let by_route = series.entry((method, status)).or_default();
        if let Some((count, duration)) = by_route.get(route) {
            count.increment(1);
            duration.record(elapsed);
            return;
        }
        let labels = [
            ("method", method.to_owned()),
            ("route", route.to_owned()),
            ("status", status.to_string()),
        ];
        let count = metrics::counter!("http_requests_total", &labels);
        let duration = metrics::histogram!("http_request_duration_seconds", &labels);
        count.increment(1);
        duration.record(elapsed);
        by_route.insert(route.to_owned(), (count, duration));
    });
    response
}

thread_local! {
    /// This thread's handles of the request series, by method and status, then route: a
    /// request finds its two here instead of building its labels and looking them up in the
    /// recorder's registry. Bounded like the series themselves: the standard methods and
    /// "other", the router's route templates, the statuses the server answers with.
    static SERIES: RefCell<HashMap<(&'static str, u16), ByRoute>> =
        RefCell::default();
}

/// The handles of one series: the request count and the duration.
type Series = (Counter, Histogram);
type ByRoute = HashMap<String, Series>;

/// The method as a label. The client chooses the method, and any token is a valid one: kept
/// as sent, each new one would be a new series of the recorder, kept for the life of the
/// process, so anything but the standard methods is counted as "other".
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        Method::TRACE => "TRACE",
        Method::CONNECT => "CONNECT",
        _ => "other",
    }
}
