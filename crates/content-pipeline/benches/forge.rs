//! Forge webhooks, measured (issue: "pushes and pull requests drive the docs"). Starts the
//! release binary (`serve`, workers on, embedded SQLite) and a real Git server on loopback,
//! then sends GitHub push events signed with the workspace's forge secret, one after the
//! other, each after a one-commit push to the server:
//!
//! - **accepted**: the HTTP round trip of the forge's POST (what the forge waits for), against
//!   the baseline in the same run, `POST …/runs` with a bearer token;
//! - **accepted → runs queued**: from the POST to its delivery's job ended with its runs queued,
//!   as seen over the API (polled every 2 ms); this includes the sandboxed child that fetches
//!   the pushed commit and diffs it (the target excludes that fetch: compare with the
//!   `fetch` benchmark's no-op fetch), and the same with this push's fetch and diff taken out
//!   (the server's `forge_push_read_duration_seconds` histogram, read before and after it);
//! - **push → commit status**: on a repository of `BENCH_COMMITS` commits (default 5,000), a
//!   pull request's event to the `success` status received by a loopback status API.
//!
//! `cargo bench -p content-pipeline --bench forge` (`BENCH_PUSHES`, default 200).

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use testkit::{GitServer, Repo, push_to_bare};

mod common;
use common::{cli, cpu_time, free_port, start};

fn main() {
    let pushes: usize = std::env::var("BENCH_PUSHES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let commits: usize = std::env::var("BENCH_COMMITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5_000);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(bench(pushes, commits));
}

async fn bench(pushes: usize, commits: usize) {
    let dir = tempfile::tempdir().expect("tempdir");
    let git = GitServer::start().await;
    let bare = git.create_bare("bench");
    let mut repo = Repo::init(&dir.path().join("work"));
    repo.write("a/lib.rs", "/// A.\npub fn a() {}\n")
        .write("b/lib.rs", "/// B.\npub fn b() {}\n")
        .write(
            ".content-pipeline/features.toml",
            "[[features]]\nid = \"a\"\ntitle = \"A\"\nsummary = \"A.\"\npaths = [\"a/**\"]\nsurfaces = [\"dev-docs\"]\n\n[[features]]\nid = \"b\"\ntitle = \"B\"\nsummary = \"B.\"\npaths = [\"b/**\"]\nsurfaces = [\"dev-docs\"]\n",
        );
    repo.commit("feat: a and b");
    push_to_bare(&repo.path, &bare, "+HEAD:refs/heads/main");

    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let env = vec![
        (
            "CONTENT_PIPELINE_DATABASE_URL",
            format!("sqlite://{}", dir.path().join("db.sqlite").display()),
        ),
        (
            "CONTENT_PIPELINE_KEY_FILE",
            dir.path().join("key").display().to_string(),
        ),
        (
            "CONTENT_PIPELINE_MIRROR_DIR",
            dir.path().join("mirrors").display().to_string(),
        ),
        ("CONTENT_PIPELINE_BIND", format!("127.0.0.1:{port}")),
        ("CONTENT_PIPELINE_LOG", "warn".into()),
        (
            "CONTENT_PIPELINE_WEBHOOK_ALLOWED_CIDRS",
            "127.0.0.0/8".into(),
        ),
        (
            "CONTENT_PIPELINE_WORKSPACE_MAX_RATE_LIMIT",
            "4000000000".into(),
        ),
    ];
    let token = cli(
        &env,
        &[
            "tokens",
            "create",
            "--scope",
            "admin",
            "--rate-limit",
            "4000000000",
        ],
    );
    let server = start(&env, &["serve"], &base, dir.path()).await;
    let http = reqwest::Client::new();
    let api = |method: reqwest::Method, path: &str| {
        http.request(method, format!("{base}{path}"))
            .bearer_auth(&token)
    };
    let ws = json_of(
        api(reqwest::Method::POST, "/v1/workspaces")
            .json(&json!({"name": "bench", "repo_url": git.url("bench")})),
    )
    .await["id"]
        .as_str()
        .expect("workspace id")
        .to_owned();
    let secret = json_of(api(
        reqwest::Method::POST,
        &format!("/v1/workspaces/{ws}/repository/forge-secret"),
    ))
    .await["secret"]
        .as_str()
        .expect("secret")
        .to_owned();
    let hook = format!("{base}/v1/workspaces/{ws}/forge/github");

    let mut accepted = Vec::new();
    let mut queued = Vec::new();
    let mut without_read = Vec::new();
    let mut job = Vec::new();
    // The sums of the push job's two histograms: (sandboxed read, the rest of the job).
    let read_seconds = || async {
        let text = http
            .get(format!("{base}/metrics"))
            .send()
            .await
            .expect("GET /metrics")
            .text()
            .await
            .expect("metrics text");
        (
            metric_sum(&text, "forge_push_read_duration_seconds"),
            metric_sum(&text, "forge_push_job_duration_seconds"),
        )
    };
    let mut baseline = Vec::new();
    let cpu_before = cpu_time(server.0.id());
    for i in 0..pushes {
        let before = repo.head();
        let feature = if i % 2 == 0 { "a" } else { "b" };
        repo.write(
            &format!("{feature}/lib.rs"),
            format!("/// {feature} {i}.\npub fn {feature}() {{}}\n"),
        );
        let after = repo.commit(&format!("change {i}"));
        push_to_bare(&repo.path, &bare, "+HEAD:refs/heads/main");
        let body = push_event(&before, &after);
        let read_before = read_seconds().await;
        let t = Instant::now();
        let receipt = json_of(
            http.post(&hook)
                .header("content-type", "application/json")
                .header("x-github-event", "push")
                .header("x-github-delivery", format!("bench-{i}"))
                .header(
                    "x-hub-signature-256",
                    format!("sha256={}", hmac_hex(&secret, body.as_bytes())),
                )
                .body(body),
        )
        .await;
        accepted.push(t.elapsed());
        let id = receipt["id"].as_str().expect("delivery id").to_owned();
        loop {
            let list = json_of(api(
                reqwest::Method::GET,
                &format!("/v1/workspaces/{ws}/forge-deliveries"),
            ))
            .await;
            let done = list["data"].as_array().is_some_and(|all| {
                all.iter()
                    .any(|d| d["id"] == id.as_str() && d["status"] == "done")
            });
            if done {
                break;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        let elapsed = t.elapsed();
        queued.push(elapsed);
        // One push at a time: the histograms' sums grew by this push's job alone.
        let read_after = read_seconds().await;
        let read = Duration::from_secs_f64((read_after.0 - read_before.0).max(0.0));
        without_read.push(elapsed.saturating_sub(read));
        job.push(Duration::from_secs_f64(
            (read_after.1 - read_before.1).max(0.0),
        ));
        let t = Instant::now();
        json_of(
            api(reqwest::Method::POST, &format!("/v1/workspaces/{ws}/runs"))
                .json(&json!({"feature_id": feature})),
        )
        .await;
        baseline.push(t.elapsed());
    }
    let cpu = cpu_time(server.0.id()).saturating_sub(cpu_before);
    println!("| measure ({pushes} pushes, one at a time) | p50 | p99 |");
    println!("|---|---|---|");
    println!(
        "| forge push accepted (HTTP round trip) | {} | {} |",
        ms(&mut accepted, 0.5),
        ms(&mut accepted, 0.99)
    );
    println!(
        "| baseline: `POST …/runs` accepted | {} | {} |",
        ms(&mut baseline, 0.5),
        ms(&mut baseline, 0.99)
    );
    println!(
        "| push accepted → its runs queued (fetch + diff in the sandbox included) | {} | {} |",
        ms(&mut queued, 0.5),
        ms(&mut queued, 0.99)
    );
    println!(
        "| push accepted → its runs queued, excluding the sandbox's fetch + diff | {} | {} |",
        ms(&mut without_read, 0.5),
        ms(&mut without_read, 0.99)
    );
    println!(
        "| the push job's own work without the read (server histogram: load, match, queue the runs, record) | {} | {} |",
        ms(&mut job, 0.5),
        ms(&mut job, 0.99)
    );
    println!(
        "server CPU per push (accept + read + queue, runs executing beside it included): {:.1} ms",
        cpu.as_secs_f64() * 1000.0 / pushes as f64
    );

    status_on_a_large_repository(&git, dir.path(), &base, &http, &token, commits).await;
    drop(server);
}

/// Push → commit status posted for a pull request, on a repository of `commits` commits.
async fn status_on_a_large_repository(
    git: &GitServer,
    dir: &Path,
    base: &str,
    http: &reqwest::Client,
    token: &str,
    commits: usize,
) {
    let bare = git.create_bare("large");
    let mut repo = Repo::init(&dir.join("large"));
    repo.write(
        ".content-pipeline/features.toml",
        "[[features]]\nid = \"core\"\ntitle = \"Core\"\nsummary = \"Core.\"\npaths = [\"src/**\"]\nsurfaces = [\"dev-docs\"]\n",
    );
    let started = Instant::now();
    for i in 0..commits {
        repo.write(
            &format!("src/m{}.rs", i % 200),
            format!("/// Module {i}.\npub fn f{i}() {{}}\n"),
        );
        repo.commit(&format!("change {i}"));
    }
    eprintln!(
        "generated {commits} commits in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    push_to_bare(&repo.path, &bare, "+HEAD:refs/heads/main");
    let api = |method: reqwest::Method, path: String| {
        http.request(method, format!("{base}{path}"))
            .bearer_auth(token)
    };
    let ws = json_of(
        api(reqwest::Method::POST, "/v1/workspaces".into())
            .json(&json!({"name": "large", "repo_url": git.url("large")})),
    )
    .await["id"]
        .as_str()
        .expect("workspace id")
        .to_owned();
    let secret = json_of(api(
        reqwest::Method::POST,
        format!("/v1/workspaces/{ws}/repository/forge-secret"),
    ))
    .await["secret"]
        .as_str()
        .expect("secret")
        .to_owned();
    let statuses = StatusApi::start().await;
    json_of(
        api(
            reqwest::Method::PUT,
            format!("/v1/workspaces/{ws}/repository/forge-token"),
        )
        .json(&json!({"token": "bench", "api_url": statuses.root})),
    )
    .await;
    // The docs exist (and the mirror is cloned) before the pull request.
    let run = json_of(
        api(reqwest::Method::POST, format!("/v1/workspaces/{ws}/runs"))
            .json(&json!({"feature_id": "core"})),
    )
    .await;
    let run_id = run["id"].as_str().expect("run id").to_owned();
    loop {
        let run = json_of(api(reqwest::Method::GET, format!("/v1/runs/{run_id}"))).await;
        if matches!(run["status"].as_str(), Some("succeeded" | "failed")) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    repo.write("README.md", "# Large\n");
    let head = repo.commit("docs: readme");
    let t = Instant::now();
    push_to_bare(&repo.path, &bare, "+HEAD:refs/pull/1/head");
    let body = json!({
        "action": "opened", "number": 1,
        "pull_request": {"head": {"sha": head}, "base": {"ref": "main"}},
        "repository": {"full_name": "acme/large"}
    })
    .to_string();
    json_of(
        http.post(format!("{base}/v1/workspaces/{ws}/forge/github"))
            .header("content-type", "application/json")
            .header("x-github-event", "pull_request")
            .header("x-github-delivery", "bench-pr")
            .header(
                "x-hub-signature-256",
                format!("sha256={}", hmac_hex(&secret, body.as_bytes())),
            )
            .body(body),
    )
    .await;
    let final_state = loop {
        let done = statuses
            .received()
            .into_iter()
            .find(|s| s["state"] != "pending");
        if let Some(done) = done {
            break done;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    println!(
        "push of a pull request's commit → its commit status ({}) posted, {commits}-commit repository: {:.0} ms",
        final_state["state"].as_str().unwrap_or("?"),
        t.elapsed().as_secs_f64() * 1000.0
    );
}

/// A loopback stand-in for the forge's status API: records each JSON body, answers 201.
struct StatusApi {
    root: String,
    received: Arc<Mutex<Vec<Value>>>,
}

impl StatusApi {
    async fn start() -> Self {
        let received = Arc::new(Mutex::new(Vec::new()));
        let seen = received.clone();
        let router = axum::Router::new().fallback(move |body: axum::body::Bytes| {
            let seen = seen.clone();
            async move {
                if let Ok(v) = serde_json::from_slice::<Value>(&body) {
                    seen.lock().expect("lock").push(v);
                }
                axum::http::StatusCode::CREATED
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("addr").port();
        tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Self {
            root: format!("http://127.0.0.1:{port}/api/v3"),
            received,
        }
    }

    fn received(&self) -> Vec<Value> {
        self.received.lock().expect("lock").clone()
    }
}

fn push_event(before: &str, after: &str) -> String {
    json!({
        "ref": "refs/heads/main", "before": before, "after": after,
        "repository": {"full_name": "acme/bench", "default_branch": "main"}, "commits": []
    })
    .to_string()
}

fn hmac_hex(secret: &str, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("key");
    mac.update(body);
    mac.finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

async fn json_of(request: reqwest::RequestBuilder) -> Value {
    let res = request.send().await.expect("request");
    let status = res.status();
    let text = res.text().await.expect("body");
    assert!(status.is_success(), "{status}: {text}");
    serde_json::from_str(&text).expect("JSON")
}

/// The `_sum` of a histogram in Prometheus text (0 when it has none yet).
fn metric_sum(text: &str, name: &str) -> f64 {
    let prefix = format!("{name}_sum");
    text.lines()
        .filter(|l| l.starts_with(&prefix))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

fn ms(times: &mut [Duration], p: f64) -> String {
    times.sort();
    let i = ((times.len() as f64 - 1.0) * p).round() as usize;
    format!(
        "{:.1} ms",
        times.get(i).copied().unwrap_or_default().as_secs_f64() * 1000.0
    )
}
