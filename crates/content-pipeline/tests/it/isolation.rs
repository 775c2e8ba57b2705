//! Repository work runs in sandboxed children of the real binary: a child that runs out of
//! memory or time fails its run with a clear error, and the server keeps answering meanwhile.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::app;
use crate::helpers::{Builder, TestApp};

/// Probes `/healthz` every 20 ms until `stop` is set; returns each answer's latency.
fn probe_health(
    app: &TestApp,
) -> (
    tokio::task::JoinHandle<Vec<Duration>>,
    tokio::sync::watch::Sender<bool>,
) {
    let (stop, mut stopped) = tokio::sync::watch::channel(false);
    let (client, url) = (app.client.clone(), app.url("/healthz"));
    let probes = tokio::spawn(async move {
        let mut latencies = Vec::new();
        while !*stopped.borrow() {
            let started = Instant::now();
            let res = client.get(&url).send().await.expect("healthz answers");
            assert_eq!(res.status(), 200);
            latencies.push(started.elapsed());
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(20)) => {}
                _ = stopped.changed() => {}
            }
        }
        latencies
    });
    (probes, stop)
}

/// Most probes answer within 100 ms and none is stuck: the server is unaffected by the
/// child. (A few slower answers are tolerated because the test suite shares two cores.)
fn assert_healthy(mut latencies: Vec<Duration>) {
    assert!(latencies.len() >= 3, "too few probes: {latencies:?}");
    latencies.sort();
    let p90 = latencies[latencies.len() * 9 / 10];
    let max = latencies[latencies.len() - 1];
    assert!(
        p90 < Duration::from_millis(100),
        "p90 {p90:?} of {latencies:?}"
    );
    assert!(max < Duration::from_secs(1), "max {max:?}");
}

/// Runs `feature` of `ws` to its end while `/healthz` is probed, and asserts that the server
/// stayed healthy meanwhile.
async fn run_while_probing(app: &TestApp, ws: &str, feature: &str) -> Value {
    let (probes, stop) = probe_health(app);
    let run = app.run_feature(ws, feature).await;
    let _ = stop.send(true);
    assert_healthy(probes.await.expect("probes"));
    run
}

/// A workspace whose repository overrides the dev-docs template with `template`.
async fn workspace_with_template(app: &TestApp, template: &str) -> String {
    let mut repo = app.repo("hostile");
    repo.write(".content-pipeline/templates/dev-docs.mdx.j2", template);
    repo.commit("docs: a template override");
    app.workspace_on("hostile", &repo.path).await
}

async fn log_messages(app: &TestApp, run: &Value) -> Vec<String> {
    let log = app
        .get(&format!(
            "/v1/runs/{}/log?limit=100",
            run["id"].as_str().expect("id")
        ))
        .expect(200)
        .await;
    log["data"]
        .as_array()
        .expect("log")
        .iter()
        .map(|e| e["message"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Runs whose templates only the sandbox's own limits (memory, time) can stop.
fn unbounded_templates() -> Builder {
    TestApp::builder().run_worker().limits(pipeline::Limits {
        max_article_bytes: usize::MAX / 2,
        max_template_fuel: u64::MAX / 2,
        ..pipeline::Limits::default()
    })
}

#[tokio::test]
async fn a_child_out_of_memory_fails_its_run_and_the_server_stays_healthy() {
    // Only the address-space limit may stop this run.
    let app = app!(unbounded_templates().run_memory_limit_mb(256));
    let ws = workspace_with_template(
        &app,
        "{% for a in range(100000) %}{{ \"x\" * 1000000 }}{% endfor %}",
    )
    .await;
    let run = run_while_probing(&app, &ws, "f1").await;

    assert_eq!(run["status"], "failed", "{run}");
    let error = run["error"].as_str().expect("error");
    assert!(
        error.contains("ran out of memory (limit 256 MiB)"),
        "{error}"
    );
    assert!(error.contains("attempt 3 of 3"), "{error}");
    // Each stopped attempt is in the log, and nothing was stored.
    let messages = log_messages(&app, &run).await;
    let retried = messages
        .iter()
        .filter(|m| m.contains("will be retried"))
        .count();
    assert_eq!(retried, 2, "{messages:?}");
    assert_eq!(run["artifacts"], json!([]));
}

#[tokio::test]
async fn a_child_past_its_deadline_is_killed_and_its_run_fails() {
    let app = app!(unbounded_templates().run_deadline(Duration::from_millis(300)));
    // Loops that take far longer than the deadline and produce little.
    let ws = workspace_with_template(
        &app,
        "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}",
    )
    .await;
    let started = Instant::now();
    let run = run_while_probing(&app, &ws, "f1").await;

    assert_eq!(run["status"], "failed", "{run}");
    let error = run["error"].as_str().expect("error");
    assert!(error.contains("deadline of 0.3 s"), "{error}");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_drift_check_is_a_job_answered_202_when_no_worker_takes_it_in_time() {
    // No worker runs here: the check stays queued.
    let app = app!();
    let ws = app.workspace("drift-job").await;
    let path = format!("/v1/workspaces/{ws}/drift-check");
    let empty = json!({});
    let (headers, check) = app.post(&path).json(&empty).expect_with_headers(202).await;
    let location = headers
        .get("location")
        .and_then(|v| v.to_str().ok())
        .expect("location");
    assert_eq!(check["status"], "queued");
    assert_eq!(check["check_url"], location);
    let id = check["id"].as_str().expect("id");
    assert!(id.starts_with("dck_"), "{id}");

    // Asking again while it waits joins it, and concurrent requests neither block each other
    // nor the server: each waits for the job, not for a lock.
    let started = Instant::now();
    let again =
        futures_util::future::join_all((0..3).map(|_| app.post(&path).json(&empty).expect(202)))
            .await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    for joined in again {
        assert_eq!(joined["id"], id);
    }

    let got = app.get(&format!("/v1/drift-checks/{id}")).expect(200).await;
    assert_eq!(got["id"], id);
    assert_eq!(got["workspace_id"], ws.as_str());

    // Another workspace's token sees nothing; a malformed id is a 404 too.
    let other = app.workspace("other").await;
    let token = app.token(&other, "read").await;
    app.get(&format!("/v1/drift-checks/{id}"))
        .token(&token)
        .expect_error(404, "not_found")
        .await;
    app.get("/v1/drift-checks/dck_nope")
        .expect_error(404, "not_found")
        .await;
}

#[tokio::test]
async fn deeply_nested_markdown_fails_its_run_naming_the_cap_and_the_server_lives() {
    let app = app!(TestApp::builder().run_worker());
    // 40,000 nested block quotes once aborted the whole process, again after every restart.
    // An article shows at most 16 KiB of a document (a larger one is cut or only listed), so
    // the quotes are nested 4,000 deep in 8 KB: far past the cap of 256, within what is shown.
    let mut repo = app.repo("deep");
    repo.write("src/deep.md", "> ".repeat(4_000));
    repo.commit("docs: deep");
    let ws = app.workspace_on("deep", &repo.path).await;
    // (Refused at once, before any long work: no health probes to take meanwhile.)
    let run = app.run_feature(&ws, "f1").await;
    assert_eq!(run["status"], "failed", "{run}");
    let error = run["error"].as_str().expect("error");
    assert!(error.contains("max_nesting_depth"), "{error}");
    // The service still works for everyone: another run succeeds.
    let other = app.workspace("fine").await;
    assert_eq!(app.run_feature(&other, "f1").await["status"], "succeeded");
}
