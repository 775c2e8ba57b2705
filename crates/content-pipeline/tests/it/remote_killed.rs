//! A worker node (the real binary) killed with SIGKILL in the middle of a fetch: nothing it
//! started outlives it, the run is taken over once its lease runs out, and the next fetch
//! goes through what the killed one left in the mirror. Then the secret used is looked for
//! in everything the test run kept: the workers' logs, the database and the API's answers.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use base64::Engine as _;
use serde_json::{Value, json};
use testkit::{GitServer, eventually, push_to_bare};

use crate::app;
use crate::helpers::TestApp;
use crate::remote_repositories::{noise, project, stored_text};

const TOKEN: &str = "ghp_K1ll3dMidFetch0000aaaabbbbccccdddd";

/// `content-pipeline worker` on the test's database, logging to `log` in `dir`.
fn worker(app: &TestApp, key: &str, mirrors: &Path, log: &str) -> Child {
    let log = std::fs::File::create(app.dir.path().join(log)).expect("a log file");
    Command::new(env!("CARGO_BIN_EXE_content-pipeline"))
        .arg("worker")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("NO_COLOR", "1")
        .env("CONTENT_PIPELINE_LOG", "debug")
        .env("CONTENT_PIPELINE_DATABASE_URL", app.db.url())
        .env("CONTENT_PIPELINE_SECRET_KEY", key)
        .env(
            "CONTENT_PIPELINE_KEY_FILE",
            app.dir.path().join("worker.key"),
        )
        .env("CONTENT_PIPELINE_WEBHOOK_ALLOWED_CIDRS", "127.0.0.0/8")
        .env("CONTENT_PIPELINE_RUN_LEASE", "2s")
        .env("CONTENT_PIPELINE_MIRROR_DIR", mirrors)
        .env("CONTENT_PIPELINE_FETCH_TIMEOUT", "2m")
        .current_dir(app.dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("start content-pipeline worker")
}

/// The parent pid and state of process `pid` (from `/proc/<pid>/stat`).
fn stat(pid: u32) -> Option<(u32, char)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid …`: comm may hold spaces, so read after its closing bracket.
    let rest = &text[text.rfind(')')? + 2..];
    let mut fields = rest.split(' ');
    let state = fields.next()?.chars().next()?;
    let parent = fields.next()?.parse().ok()?;
    Some((parent, state))
}

/// Every living process under `root` (children, their children…).
fn descendants(root: u32) -> Vec<u32> {
    let all: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<u32>().ok())
        .filter_map(|pid| stat(pid).map(|(parent, _)| (pid, parent)))
        .collect();
    let mut found = Vec::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for (pid, _) in all.iter().filter(|(_, p)| *p == parent) {
            found.push(*pid);
            frontier.push(*pid);
        }
    }
    found
}

/// Whether `pid` still runs (a zombie waiting for its reaper does not).
fn alive(pid: u32) -> bool {
    stat(pid).is_some_and(|(_, state)| state != 'Z')
}

#[tokio::test(flavor = "multi_thread")]
async fn a_worker_killed_mid_fetch_leaves_a_mirror_the_next_one_uses() {
    let key_text = webhooks::SecretBox::generate_key_text();
    let key: [u8; 32] = base64::engine::general_purpose::STANDARD
        .decode(&key_text)
        .expect("key")
        .try_into()
        .expect("32 bytes");
    // The API in this process (no workers); the runs are the real worker binary's.
    let app = app!(
        TestApp::builder()
            .webhook_allowed_cidrs("127.0.0.0/8")
            .configure(move |c| c.secret_key = Some(domain::Secret::new(key)))
    );
    let server = GitServer::start().await;
    server.require_basic_auth("x-access-token", TOKEN);
    let bare = server.create_bare("acme/slow");
    let mut repo = project(app.dir.path());
    repo.write("assets/noise.bin", noise(2 * 1024 * 1024));
    repo.commit("chore: add noise");
    push_to_bare(&repo.path, &bare, "+HEAD:refs/heads/main");

    let ws = app
        .post("/v1/workspaces")
        .json(&json!({"name": "slow", "repo_url": server.url("acme/slow")}))
        .expect(201)
        .await;
    let ws = ws["id"].as_str().expect("id").to_owned();
    let shown = app
        .call(
            reqwest::Method::PUT,
            &format!("/v1/workspaces/{ws}/repository/credential"),
        )
        .json(&json!({"token": TOKEN}))
        .expect(200)
        .await;
    let mut answers = vec![shown];
    let run = app
        .post(&format!("/v1/workspaces/{ws}/runs"))
        .json(&json!({"feature_id": "numbers"}))
        .expect(201)
        .await;
    let run_id = run["id"].as_str().expect("run id").to_owned();
    answers.push(run);

    // The pack comes at 64 KiB/s: the fetch is still receiving when the worker is killed.
    server.drip(Some(64 * 1024));
    let mirrors = app.dir.path().join("node-mirrors");
    let mut first = worker(&app, &key_text, &mirrors, "worker-1.log");
    eventually(
        Duration::from_secs(60),
        "the first worker's fetch is receiving the pack (see worker-1.log)",
        || async {
            server
                .requests()
                .iter()
                .any(|r| r.ends_with("/git-upload-pack"))
                .then_some(())
        },
    )
    .await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let mid = app.get(&format!("/v1/runs/{run_id}")).expect(200).await;
    assert_eq!(mid["status"], "running", "killed mid-run: {mid}");
    let started = descendants(first.id());
    assert!(
        !started.is_empty(),
        "the worker runs the fetch in a child process"
    );
    first.kill().expect("SIGKILL");
    first.wait().expect("reap");

    // Nothing the worker started (its sandboxed child, git and git's helpers) outlives it.
    eventually(
        Duration::from_secs(20),
        "no process the killed worker started is left",
        || async { (!started.iter().any(|pid| alive(*pid))).then_some(()) },
    )
    .await;

    // A worker started on the same node takes the run over once the lease is out.
    server.drip(None);
    let mut second = worker(&app, &key_text, &mirrors, "worker-2.log");
    let finished = eventually(
        Duration::from_secs(90),
        "the run was taken over and finished (see worker-2.log)",
        || async {
            let now = app.get(&format!("/v1/runs/{run_id}")).expect(200).await;
            matches!(now["status"].as_str(), Some("succeeded" | "failed")).then_some(now)
        },
    )
    .await;
    second.kill().expect("stop the second worker");
    second.wait().expect("reap");
    assert_eq!(finished["status"], "succeeded", "{finished}");
    assert_eq!(finished["commit"], repo.head().as_str());
    answers.push(finished);
    answers.push(
        app.get(&format!("/v1/runs/{run_id}/log?limit=100"))
            .expect(200)
            .await,
    );
    answers.push(
        app.get(&format!("/v1/workspaces/{ws}/repository"))
            .expect(200)
            .await,
    );

    // The secret appears nowhere but in its encrypted column.
    for log in ["worker-1.log", "worker-2.log"] {
        let text = std::fs::read_to_string(app.dir.path().join(log)).expect("a worker log");
        assert!(!text.is_empty(), "{log} is written");
        assert!(!text.contains(TOKEN), "{log} holds the token");
    }
    let answers = Value::Array(answers).to_string();
    assert!(!answers.contains(TOKEN), "an API answer holds the token");
    assert!(!stored_text(&app).await.contains(TOKEN));
    if let Some(file) = app.db.sqlite_file() {
        for path in [file.clone(), file.with_extension("db-wal")] {
            let bytes = std::fs::read(&path).unwrap_or_default();
            assert!(
                !bytes.windows(TOKEN.len()).any(|w| w == TOKEN.as_bytes()),
                "{} holds the token",
                path.display()
            );
        }
    }
    for entry in walk(&mirrors) {
        let bytes = std::fs::read(&entry).unwrap_or_default();
        assert!(
            !bytes.windows(TOKEN.len()).any(|w| w == TOKEN.as_bytes()),
            "{} holds the token",
            entry.display()
        );
    }
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(entry.path()),
                Ok(t) if t.is_file() => files.push(entry.path()),
                _ => {}
            }
        }
    }
    files
}
