//! Repository work runs in sandboxed children of the real binary: a child that runs out of
//! memory or time fails its run with a clear error, and the server keeps answering meanwhile.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::app;
use crate::helpers::{TestApp, body, expect_error, git};

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

/// A workspace whose repository overrides the dev-docs template with `template`.
async fn workspace_with_template(app: &TestApp, template: &str) -> String {
    let repo = app.git_repo("hostile");
    std::fs::create_dir_all(repo.join(".content-pipeline/templates")).expect("mkdir");
    std::fs::write(
        repo.join(".content-pipeline/templates/dev-docs.mdx.j2"),
        template,
    )
    .expect("write");
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "docs: a template override"]);
    workspace_on(app, "hostile", &repo).await
}

/// A workspace on the repository at `repo`.
async fn workspace_on(app: &TestApp, name: &str, repo: &std::path::Path) -> String {
    let res = app
        .post(
            "/v1/workspaces",
            &app.platform_token,
            &json!({"name": name, "repo_path": repo}),
        )
        .await;
    assert_eq!(res.status(), 201);
    body(res).await["id"].as_str().expect("id").to_owned()
}

async fn log_messages(app: &TestApp, run: &Value) -> Vec<String> {
    let log = body(
        app.get(
            &format!("/v1/runs/{}/log?limit=100", run["id"].as_str().expect("id")),
            &app.platform_token,
        )
        .await,
    )
    .await;
    log["data"]
        .as_array()
        .expect("log")
        .iter()
        .map(|e| e["message"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn a_child_out_of_memory_fails_its_run_and_the_server_stays_healthy() {
    let app = app!(|c| {
        c.workers = true;
        c.run_concurrency = 1;
        c.drift_interval = Duration::ZERO;
        c.run_memory_limit_mb = 256;
        // Only the address-space limit may stop this run.
        c.limits.max_article_bytes = usize::MAX / 2;
        c.limits.max_template_fuel = u64::MAX / 2;
    });
    let ws = workspace_with_template(
        &app,
        "{% for a in range(100000) %}{{ \"x\" * 1000000 }}{% endfor %}",
    )
    .await;
    let (probes, stop) = probe_health(&app);
    let run = app.run_feature(&ws, "f1").await;
    let _ = stop.send(true);
    assert_healthy(probes.await.expect("probes"));

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
    let app = app!(|c| {
        c.workers = true;
        c.run_concurrency = 1;
        c.drift_interval = Duration::ZERO;
        c.run_deadline = Duration::from_millis(300);
        c.limits.max_article_bytes = usize::MAX / 2;
        c.limits.max_template_fuel = u64::MAX / 2;
    });
    // Loops that take far longer than the deadline and produce little.
    let ws = workspace_with_template(
        &app,
        "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}",
    )
    .await;
    let (probes, stop) = probe_health(&app);
    let started = Instant::now();
    let run = app.run_feature(&ws, "f1").await;
    let _ = stop.send(true);
    assert_healthy(probes.await.expect("probes"));

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
    let res = app
        .post(
            &format!("/v1/workspaces/{ws}/drift-check"),
            &app.platform_token,
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), 202);
    let location = res
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .expect("location")
        .to_owned();
    let check = body(res).await;
    assert_eq!(check["status"], "queued");
    assert_eq!(check["check_url"], location);
    let id = check["id"].as_str().expect("id");
    assert!(id.starts_with("dck_"), "{id}");

    // Asking again while it waits joins it, and concurrent requests neither block each other
    // nor the server: each waits for the job, not for a lock.
    let path = format!("/v1/workspaces/{ws}/drift-check");
    let empty = json!({});
    let started = Instant::now();
    let again = futures_util::future::join_all(
        (0..3).map(|_| app.post(&path, &app.platform_token, &empty)),
    )
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    for res in again {
        assert_eq!(res.status(), 202);
        assert_eq!(body(res).await["id"], id);
    }

    let got = body(
        app.get(&format!("/v1/drift-checks/{id}"), &app.platform_token)
            .await,
    )
    .await;
    assert_eq!(got["id"], id);
    assert_eq!(got["workspace_id"], ws.as_str());

    // Another workspace's token sees nothing; a malformed id is a 404 too.
    let other = app.workspace("other").await;
    let token = app.token(&other, "read").await;
    let res = app.get(&format!("/v1/drift-checks/{id}"), &token).await;
    expect_error(res, 404, "not_found").await;
    let res = app
        .get("/v1/drift-checks/dck_nope", &app.platform_token)
        .await;
    expect_error(res, 404, "not_found").await;
}

#[tokio::test]
async fn deeply_nested_markdown_fails_its_run_naming_the_cap_and_the_server_lives() {
    let app = app!(|c| {
        c.workers = true;
        c.run_concurrency = 1;
        c.drift_interval = Duration::ZERO;
    });
    // 40,000 nested block quotes once aborted the whole process, again after every restart.
    let repo = app.git_repo("deep");
    std::fs::write(repo.join("src/deep.md"), "> ".repeat(40_000)).expect("write");
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "docs: deep"]);
    let ws = workspace_on(&app, "deep", &repo).await;
    let (probes, stop) = probe_health(&app);
    let run = app.run_feature(&ws, "f1").await;
    let _ = stop.send(true);
    assert_healthy(probes.await.expect("probes"));
    assert_eq!(run["status"], "failed", "{run}");
    let error = run["error"].as_str().expect("error");
    assert!(error.contains("max_nesting_depth"), "{error}");
    // The service still works for everyone: another run succeeds.
    let other = app.workspace("fine").await;
    assert_eq!(app.run_feature(&other, "f1").await["status"], "succeeded");
}
