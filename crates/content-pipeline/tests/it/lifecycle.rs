//! Work does not belong to the connection (issue 14): a request cut off by its client's
//! timeout still commits (or rolls back and releases its claim), so the retry replays or runs
//! at once; database work cancelled at any point leaves no pooled connection inside a
//! transaction.

use std::time::{Duration, Instant};

use futures_util::future::join_all;
use serde_json::json;
use store::{Engine, Store};
use testkit::{TestDatabase, eventually};

use crate::app;
use crate::helpers::{TestApp, feature_ids};

/// How long a retry may still meet `409 idempotency_in_progress` after the clients gave up:
/// the time the cut-off requests need to finish on the server, with room for a slow machine
/// (before issue 14 it was the 60 s after which a claim counts as abandoned).
const RETRY_WITHIN: Duration = Duration::from_secs(5);

/// PostgreSQL sessions of this test's database left inside a transaction with nothing running.
async fn idle_in_transaction(db: &TestDatabase) -> i64 {
    db.count(
        "SELECT COUNT(*) FROM pg_stat_activity
         WHERE datname = current_database() AND state LIKE 'idle in transaction%'",
    )
    .await
}

/// Waits until no session of `db` (PostgreSQL) is idle inside a transaction.
async fn no_connection_left_in_a_transaction(db: &TestDatabase) {
    if db.engine() != Engine::Postgres {
        return;
    }
    eventually(
        Duration::from_secs(10),
        "every pooled connection out of its transaction",
        || async { (idle_in_transaction(db).await == 0).then_some(()) },
    )
    .await;
}

/// Sends `keys` keyed run triggers (one feature each), each given up by its client after a
/// few milliseconds; returns how many were cut off.
async fn impatient_triggers(
    app: &TestApp,
    token: &str,
    runs: &str,
    keys: &[(String, String)],
) -> usize {
    let client = reqwest::Client::new();
    let mut cut = 0;
    for (round, batch) in keys.chunks(8).enumerate() {
        let sent = batch.iter().enumerate().map(|(i, (key, feature))| {
            // 1 to 20 ms: before, during and after the claim, the handler and the commit.
            let patience = Duration::from_micros(1_000 + ((round * 8 + i) as u64 * 1_379) % 19_000);
            client
                .post(app.url(runs))
                .bearer_auth(token)
                .header("idempotency-key", key)
                .json(&json!({"feature_id": feature}))
                .timeout(patience)
                .send()
        });
        for sent in join_all(sent).await {
            match sent {
                Ok(res) => assert!(res.status().is_success(), "{}", res.status()),
                Err(e) if e.is_timeout() => cut += 1,
                Err(e) => panic!("{e}"),
            }
        }
    }
    cut
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_after_a_client_timeout_replays_or_runs_at_once() {
    let app = app!();
    let ws = app.workspace("impatient").await;
    let token = app.token(&ws, "write").await;
    let runs = format!("/v1/workspaces/{ws}/runs");
    let keys: Vec<(String, String)> = feature_ids()
        .into_iter()
        .take(96)
        .enumerate()
        .map(|(i, feature)| (format!("cut-{i}"), feature))
        .collect();
    let cut = impatient_triggers(&app, &token, &runs, &keys).await;
    assert!(cut > 0, "no request was cut off: the test proves nothing");

    // Every retry replays the original answer or runs now; none waits for a claim to be
    // abandoned.
    let gave_up = Instant::now();
    let mut refused = Duration::ZERO;
    for (key, feature) in &keys {
        let asked = Instant::now();
        loop {
            let res = app
                .post(&runs)
                .token(&token)
                .header("idempotency-key", key.clone())
                .json(&json!({"feature_id": feature}))
                .send()
                .await;
            if res.status() == 409 {
                assert!(
                    gave_up.elapsed() < RETRY_WITHIN,
                    "{key} still in progress {:?} after its client gave up",
                    gave_up.elapsed()
                );
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
            assert_eq!(res.status(), 201, "{key}");
            refused = refused.max(asked.elapsed());
            break;
        }
    }
    eprintln!(
        "{cut} of {} requests cut off; their retries all answered within {:?}, none \
         waiting more than {refused:?}",
        keys.len(),
        gave_up.elapsed()
    );
    // One run per key: nothing ran twice, nothing was lost.
    let listed = app
        .get(&format!("{runs}?limit=100"))
        .token(&token)
        .expect(200)
        .await;
    assert_eq!(listed["data"].as_array().map(Vec::len), Some(keys.len()));
    no_connection_left_in_a_transaction(&app.db).await;
}

/// A TCP proxy to `upstream` that holds every chunk the server sends for `delay`: a distant
/// database, so that a round trip takes long enough to be cancelled in the middle.
async fn slow_proxy(upstream: String, delay: Duration) -> std::net::SocketAddr {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let Ok(server) = tokio::net::TcpStream::connect(&upstream).await else {
                continue;
            };
            let (mut client_in, mut client_out) = client.into_split();
            let (mut server_in, mut server_out) = server.into_split();
            tokio::spawn(async move {
                let _ = tokio::io::copy(&mut client_in, &mut server_out).await;
            });
            tokio::spawn(async move {
                let mut buf = vec![0u8; 64 * 1024];
                while let Ok(n @ 1..) = server_in.read(&mut buf).await {
                    tokio::time::sleep(delay).await;
                    if client_out.write_all(&buf[..n]).await.is_err() {
                        break;
                    }
                }
            });
        }
    });
    address
}

/// sqlx 0.9.0 on PostgreSQL (transact-rs/sqlx#4385, #4393): a `BEGIN` whose future is
/// dropped after it was sent leaves the session inside a transaction that nothing rolls back,
/// and the pool hands that connection out again. The store's must not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelled_begins_leave_no_pooled_connection_inside_a_transaction() {
    let Some(db) = TestDatabase::postgres().await else {
        return;
    };
    // Each answer of the server arrives 10 ms late: acquiring (a ping) and `BEGIN` take 10 ms
    // each, and the attempts below are cut off before, during and after each of them.
    let mut url = url::Url::parse(db.url()).expect("database url");
    let upstream = format!(
        "{}:{}",
        url.host_str().unwrap_or("127.0.0.1"),
        url.port().unwrap_or(5432)
    );
    let proxy = slow_proxy(upstream, Duration::from_millis(10)).await;
    url.set_port(Some(proxy.port())).expect("port");
    url.set_host(Some("127.0.0.1")).expect("host");
    let store = Store::connect_with(
        url.as_str(),
        store::ConnectOptions {
            max_connections: 2,
            ..Default::default()
        },
    )
    .await
    .expect("connect");
    let mut cancelled = 0;
    for i in 0..40u64 {
        // Both connections open and back in the pool, so the attempt does not spend its time
        // connecting or waiting for one.
        let (a, b) = tokio::join!(store.begin(), store.begin());
        drop((a.expect("begin"), b.expect("begin")));
        tokio::time::sleep(Duration::from_millis(50)).await;
        let patience = Duration::from_millis(1 + i % 40);
        match tokio::time::timeout(patience, store.begin()).await {
            Ok(begun) => drop(begun.expect("begin")),
            Err(_) => {
                cancelled += 1;
                // The next `BEGIN` on a poisoned connection would hide it (its `ROLLBACK` ends
                // the stale transaction too): look before anything else uses the pool.
                no_connection_left_in_a_transaction(&db).await;
            }
        }
    }
    assert!(cancelled > 0);
    store.close().await;
}

/// The grace period the shutdown test configures, and what the process may take beyond it.
const GRACE: Duration = Duration::from_secs(5);
const MARGIN: Duration = Duration::from_secs(5);

/// The address in the start-up line `… listening address=127.0.0.1:PORT`.
fn listening_address(line: &str) -> Option<std::net::SocketAddr> {
    let (_, rest) = line.split_once("listening")?.1.split_once("address=")?;
    rest.split(|c: char| c.is_whitespace() || c == '\u{1b}')
        .next()?
        .parse()
        .ok()
}

/// `content-pipeline <args>` in `dir` on `db`, run to its end: its standard output.
fn offline(dir: &std::path::Path, db: &TestDatabase, args: &[&str]) -> String {
    let out = crate::helpers::cli(dir)
        .env("CONTENT_PIPELINE_DATABASE_URL", db.url())
        .args(args)
        .output()
        .expect("run content-pipeline");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A real `content-pipeline serve` process on its own database, with a platform token and a
/// workspace on a one-file repository.
pub(crate) struct Node {
    pub(crate) process: std::process::Child,
    pub(crate) base: String,
    pub(crate) token: String,
    pub(crate) ws: String,
    pub(crate) db: TestDatabase,
    _dir: tempfile::TempDir,
}

impl Node {
    /// Starts `serve <args>` with `env`; `None` when the selected engine is skipped.
    async fn start(env: &[(&str, &str)], args: &[&str]) -> Option<Self> {
        Some(Self::start_on(TestDatabase::selected().await?, env, args))
    }

    /// [`Node::start`] on `db`.
    pub(crate) fn start_on(db: TestDatabase, env: &[(&str, &str)], args: &[&str]) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut repo = testkit::Repo::init(&dir.path().join("repo"));
        repo.write(
            "src/lib.rs",
            "/// Adds.\npub fn add(a: i32, b: i32) -> i32 { a + b }\n",
        );
        repo.commit("feat: add");
        let token = offline(dir.path(), &db, &["tokens", "create", "--scope", "admin"]);
        let repo_path = repo.path.display().to_string();
        let workspace: serde_json::Value = serde_json::from_str(&offline(
            dir.path(),
            &db,
            &[
                "workspaces",
                "create",
                "--name",
                "stopping",
                "--repo-path",
                &repo_path,
            ],
        ))
        .expect("workspace JSON");
        let ws = workspace["id"].as_str().expect("workspace id").to_owned();
        let (process, base) = serve(dir.path(), &db, env, args);
        Self {
            process,
            base,
            token,
            ws,
            db,
            _dir: dir,
        }
    }

    /// Another `serve` process on this node's database (a second node of the cluster).
    pub(crate) fn peer(&self, env: &[(&str, &str)], args: &[&str]) -> Peer {
        let (process, base) = serve(self._dir.path(), &self.db, env, args);
        Peer { process, base }
    }

    /// A `worker` process on this node's database, once it has started.
    pub(crate) fn worker(&self, env: &[(&str, &str)]) -> Peer {
        let (process, base) = launch(self._dir.path(), &self.db, "worker", env, &[]);
        Peer { process, base }
    }

    /// Triggers a run of the repository's `src`; returns the Run.
    async fn trigger(&self) -> serde_json::Value {
        reqwest::Client::new()
            .post(format!("{}/v1/workspaces/{}/runs", self.base, self.ws))
            .bearer_auth(&self.token)
            .json(&json!({"feature_id": "src"}))
            .send()
            .await
            .expect("trigger")
            .json()
            .await
            .expect("run JSON")
    }

    async fn get(&self, path: &str) -> serde_json::Value {
        reqwest::Client::new()
            .get(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .send()
            .await
            .expect("GET")
            .json()
            .await
            .expect("JSON")
    }

    fn sigterm(&self) -> Instant {
        let pid = libc::pid_t::try_from(self.process.id()).expect("pid");
        // SAFETY: a plain kill(2) of the child this test started.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
        Instant::now()
    }

    /// Waits for the process to exit after the SIGTERM sent at `asked`; checks it did so
    /// within the grace period (and a margin) with status 0.
    async fn exits_in_time(&mut self, asked: Instant) {
        let process = &mut self.process;
        let status = eventually(GRACE + MARGIN, "the process exits", || {
            std::future::ready(process.try_wait().expect("wait"))
        })
        .await;
        let took = asked.elapsed();
        eprintln!("stopped {took:?} after SIGTERM with {status}");
        assert!(status.success(), "{status}");
        assert!(took < GRACE + MARGIN, "{took:?}");
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// A second `serve` (or a `worker`, with no `base`) process of a [`Node`]'s cluster.
pub(crate) struct Peer {
    pub(crate) process: std::process::Child,
    pub(crate) base: String,
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// `serve <args>` in `dir` on `db` with `env`, once it listens: the process and its base URL.
fn serve(
    dir: &std::path::Path,
    db: &TestDatabase,
    env: &[(&str, &str)],
    args: &[&str],
) -> (std::process::Child, String) {
    launch(dir, db, "serve", env, args)
}

/// `<command> <args>` in `dir` on `db` with `env`, once it has started (a `serve` listens, a
/// `worker` says so): the process and its base URL (empty for a worker).
fn launch(
    dir: &std::path::Path,
    db: &TestDatabase,
    command_name: &str,
    env: &[(&str, &str)],
    args: &[&str],
) -> (std::process::Child, String) {
    use std::io::BufRead;
    let mut command = crate::helpers::cli(dir);
    command
        .env("CONTENT_PIPELINE_DATABASE_URL", db.url())
        .env(
            "CONTENT_PIPELINE_SHUTDOWN_GRACE",
            format!("{}s", GRACE.as_secs()),
        )
        .env("CONTENT_PIPELINE_LOG", "info")
        .arg(command_name)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    for (name, value) in env {
        command.env(name, value);
    }
    let mut process = command.spawn().expect("start content-pipeline");
    let stderr = process.stderr.take().expect("stderr");
    let (lines, received) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = lines.send(line);
        }
    });
    let base = loop {
        let line = received
            .recv_timeout(Duration::from_secs(60))
            .expect("the process logs its start");
        if let Some(address) = listening_address(&line) {
            break format!("http://{address}");
        }
        if command_name == "worker" && line.contains("worker started") {
            break String::new();
        }
    };
    (process, base)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_ends_live_logs_and_exits_within_the_grace_period() {
    // No workers: the run stays queued, so its live log never ends by itself.
    let Some(mut node) = Node::start(&[], &["--no-workers"]).await else {
        return;
    };
    let run = node.trigger().await;
    assert_eq!(run["status"], "queued", "{run}");
    let log = reqwest::Client::new()
        .get(format!(
            "{}/v1/runs/{}/log",
            node.base,
            run["id"].as_str().expect("run id")
        ))
        .bearer_auth(&node.token)
        .header("accept", "text/event-stream")
        .send()
        .await
        .expect("open the live log");
    assert_eq!(log.status(), 200);
    let stream = tokio::spawn(async move {
        use futures_util::StreamExt as _;
        let mut body = log.bytes_stream();
        while let Some(chunk) = body.next().await {
            if chunk.is_err() {
                return false;
            }
        }
        true
    });
    // The stream is open and stays open while the server runs.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !stream.is_finished(),
        "the live log of a queued run ended by itself"
    );

    let asked = node.sigterm();
    let ended = tokio::time::timeout(GRACE + MARGIN, stream)
        .await
        .expect("the live log ends when the server stops")
        .expect("stream task");
    assert!(
        ended,
        "the live log ended cleanly, so its client resumes elsewhere"
    );
    node.exits_in_time(asked).await;
}

/// The forced exit: a request still in flight when the grace period is spent (its body never
/// comes) does not keep the process alive. It waits the period out for that request, then
/// exits with status 0 within a margin, and the stalled client is cut off without an answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_exits_when_the_grace_period_ends_with_a_request_in_flight() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let Some(mut node) = Node::start(&[], &["--no-workers"]).await else {
        return;
    };
    let address = node.base.trim_start_matches("http://").to_owned();
    let mut stalled = tokio::net::TcpStream::connect(&address)
        .await
        .expect("connect");
    let head = format!(
        "POST /v1/workspaces/{}/runs HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"feature_id\"",
        node.ws, node.token
    );
    stalled
        .write_all(head.as_bytes())
        .await
        .expect("send the head and the start of the body");
    // The request is in flight: its handler waits for the rest of the body.
    tokio::time::sleep(Duration::from_millis(500)).await;

    let asked = node.sigterm();
    node.exits_in_time(asked).await;
    let took = asked.elapsed();
    assert!(
        took >= GRACE - Duration::from_millis(500),
        "the request in flight was given the grace period, not dropped at once: {took:?}"
    );
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), stalled.read_to_end(&mut answer))
        .await
        .expect("the connection is closed once the process exits");
    assert!(
        read.is_err() || answer.is_empty(),
        "the stalled request got no answer: {}",
        String::from_utf8_lossy(&answer)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_hands_back_a_run_in_hand() {
    // A sandbox that never answers: the run is in hand until the worker lets it go.
    let scripts = tempfile::tempdir().expect("tempdir");
    let sandbox = scripts.path().join("sandbox.sh");
    std::fs::write(&sandbox, "#!/bin/sh\nexec sleep 120\n").expect("script");
    std::fs::set_permissions(
        &sandbox,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    let sandbox = sandbox.display().to_string();
    let env = [
        ("CONTENT_PIPELINE_SANDBOX_PROGRAM", sandbox.as_str()),
        ("CONTENT_PIPELINE_RUN_CONCURRENCY", "1"),
        ("CONTENT_PIPELINE_DRIFT_INTERVAL", "0"),
    ];
    let Some(mut node) = Node::start(&env, &[]).await else {
        return;
    };
    let run = node.trigger().await;
    let id = run["id"].as_str().expect("run id").to_owned();
    eventually(
        Duration::from_secs(30),
        "the worker claims the run",
        || async {
            (node.get(&format!("/v1/runs/{id}")).await["status"] == "running").then_some(())
        },
    )
    .await;

    let asked = node.sigterm();
    node.exits_in_time(asked).await;
    // Back in the queue for any worker at once, without counting the attempt.
    let held = node
        .db
        .count(&format!(
            "SELECT COUNT(*) FROM runs WHERE id = '{id}' AND status = 'running'
               AND lease_owner IS NULL AND attempts = 0"
        ))
        .await;
    assert_eq!(held, 1, "the run is handed back");
    let said = node
        .db
        .count(&format!(
            "SELECT COUNT(*) FROM run_events WHERE run_id = '{id}' AND message LIKE 'handed back:%'"
        ))
        .await;
    assert_eq!(said, 1, "the run's log says so");
    // Readers see it waiting in the queue, its attempt not counted (another node answers).
    let peer = node.peer(&[], &["--no-workers"]);
    let shown: serde_json::Value = reqwest::Client::new()
        .get(format!("{}/v1/runs/{id}", peer.base))
        .bearer_auth(&node.token)
        .send()
        .await
        .expect("GET")
        .json()
        .await
        .expect("run JSON");
    assert_eq!(shown["status"], "queued", "{shown}");
    assert_eq!(shown["attempts"], 0, "{shown}");
}

/// A keyed POST whose node dies (`kill -9`) after claiming its key goes through on another
/// node within seconds, and runs once (issue 35: it took the 60 s of an abandoned claim).
/// PostgreSQL only: two nodes share its database, and a table lock holds the request between
/// its claim and its commit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_claimed_by_a_killed_node_goes_through_on_another_within_ten_seconds() {
    let Some(db) = TestDatabase::postgres().await else {
        return;
    };
    let mut node = Node::start_on(db, &[], &["--no-workers"]);
    let peer = node.peer(&[], &["--no-workers"]);
    let runs = format!("/v1/workspaces/{}/runs", node.ws);
    let keyed = |base: &str| {
        reqwest::Client::new()
            .post(format!("{base}{runs}"))
            .bearer_auth(&node.token)
            .header("idempotency-key", "orphaned-by-kill-9")
            .json(&json!({"feature_id": "src"}))
            .send()
    };

    // The test holds the runs table: the first node claims the key, then waits to write.
    let held = node.db.hold("LOCK TABLE runs IN EXCLUSIVE MODE").await;
    let stuck = tokio::spawn(keyed(&node.base));
    eventually(Duration::from_secs(30), "the first node claims the key", || async {
        (node.db.count("SELECT COUNT(*) FROM idempotency_keys WHERE idempotency_key = 'orphaned-by-kill-9' AND status_code IS NULL").await == 1).then_some(())
    })
    .await;
    node.process.kill().expect("kill -9");
    node.process.wait().expect("reap");
    let killed = Instant::now();
    drop(held);
    assert!(
        stuck.await.expect("task").is_err(),
        "the killed node never answered"
    );

    // Retried on the other node until it goes through: "in progress" meanwhile, never twice.
    let mut in_progress = 0;
    let run = loop {
        let response = keyed(&peer.base).await.expect("retry");
        match response.status().as_u16() {
            201 => break response.json::<serde_json::Value>().await.expect("run"),
            409 => {
                let body: serde_json::Value = response.json().await.expect("error");
                assert_eq!(body["error"]["type"], "idempotency_in_progress", "{body}");
                in_progress += 1;
            }
            status => panic!(
                "unexpected {status}: {}",
                response.text().await.unwrap_or_default()
            ),
        }
        assert!(
            killed.elapsed() < Duration::from_secs(10),
            "the key is still blocked {:?} after its node died",
            killed.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    eprintln!(
        "the orphaned key went through {:?} after kill -9 ({in_progress} retries met 409)",
        killed.elapsed()
    );
    assert!(in_progress > 0, "the claim was alive until its node died");
    assert_eq!(
        node.db
            .count(&format!(
                "SELECT COUNT(*) FROM runs WHERE workspace_id = '{}'",
                node.ws
            ))
            .await,
        1,
        "the killed node's work rolled back: the key ran once"
    );
    let replay = keyed(&peer.base).await.expect("replay");
    assert_eq!(replay.status(), 201);
    let replayed: serde_json::Value = replay.json().await.expect("run");
    assert_eq!(replayed["id"], run["id"]);
}
