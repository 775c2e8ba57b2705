//! The CI commands (`run`, `drift`, `articles`, `webhooks verify`) as a CI job runs them: the
//! real binary as a subprocess against a real server, configured through the environment or a
//! TOML file, judged by its exit code (0 success, 1 the gate said no, 2 bad input, 3 the
//! service failed) and its output.

use std::process::Output;

use crate::app;
use crate::helpers::{TestApp, cli};

/// Runs the binary with `args`, the server and token in the environment (with a setting the
/// service also reads, in the form that once crashed start-up), and `stdin`.
async fn ci(app: &TestApp, token: &str, args: &[&str], stdin: &[u8]) -> Output {
    let mut cmd = cli(app.dir.path());
    cmd.env("CONTENT_PIPELINE_SERVER", &app.base)
        .env("CONTENT_PIPELINE_TOKEN", token)
        .env("CONTENT_PIPELINE_DRIFT_INTERVAL", "0");
    exec(cmd, args, stdin).await
}

async fn exec(mut cmd: std::process::Command, args: &[&str], stdin: &[u8]) -> Output {
    cmd.args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = tokio::process::Command::from(cmd)
        .spawn()
        .expect("start the binary");
    if let Some(mut input) = child.stdin.take() {
        use tokio::io::AsyncWriteExt;
        input.write_all(stdin).await.expect("stdin");
    }
    child.wait_with_output().await.expect("the binary ends")
}

fn code(out: &Output) -> i32 {
    out.status.code().expect("an exit code")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test]
async fn run_wait_exits_by_the_runs_outcome() {
    let app = app!(TestApp::builder().run_worker().limits(pipeline::Limits {
        // The fixture's feature `a` has two files (src/lib.rs, src/README.md).
        max_feature_files: 2,
        ..pipeline::Limits::default()
    }));
    let mut repo = app.repo("ci-repo");
    repo.write("big/a.rs", "pub fn a() {}\n")
        .write("big/b.rs", "pub fn b() {}\n")
        .write("big/c.rs", "pub fn c() {}\n");
    repo.commit("feat: three files");
    let ws = app.workspace_on("ci", &repo.path).await;
    let token = app.token(&ws, "write").await;

    let out = ci(
        &app,
        &token,
        &["run", "--workspace", &ws, "--feature", "a", "--wait"],
        b"",
    )
    .await;
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("succeeded"),
        "{}",
        text(&out.stdout)
    );
    assert!(
        text(&out.stderr).contains("extract"),
        "the log is followed on stderr"
    );
    assert!(
        text(&out.stdout).contains("dev-docs"),
        "the articles it wrote"
    );

    let out = ci(
        &app,
        &token,
        &[
            "run",
            "--workspace",
            &ws,
            "--feature",
            "a",
            "--wait",
            "--json",
            "--tier",
            "priority",
        ],
        b"",
    )
    .await;
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    let run: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--json is the run");
    assert_eq!(run["status"], "succeeded");
    assert_eq!(run["tier"], "priority");

    // More files than max_feature_files: the run fails, and so does the job.
    let out = ci(
        &app,
        &token,
        &["run", "--workspace", &ws, "--feature", "big", "--wait"],
        b"",
    )
    .await;
    assert_eq!(code(&out), 1, "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("max_feature_files"),
        "{}",
        text(&out.stderr)
    );

    // Without --wait the run is only queued, and that is a success.
    let out = ci(
        &app,
        &token,
        &["run", "--workspace", &ws, "--feature", "a"],
        b"",
    )
    .await;
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));

    // Bad input: an unknown feature, a read token, no server at all.
    let out = ci(
        &app,
        &token,
        &["run", "--workspace", &ws, "--feature", "nope"],
        b"",
    )
    .await;
    assert_eq!(code(&out), 2);
    assert!(
        text(&out.stderr).contains("validation_failed"),
        "{}",
        text(&out.stderr)
    );
    let read = app.token(&ws, "read").await;
    let out = ci(
        &app,
        &read,
        &["run", "--workspace", &ws, "--feature", "a"],
        b"",
    )
    .await;
    assert_eq!(code(&out), 2);
    assert!(text(&out.stderr).contains("insufficient_scope"));
    let out = exec(
        cli(app.dir.path()),
        &["run", "--workspace", &ws, "--feature", "a"],
        b"",
    )
    .await;
    assert_eq!(code(&out), 2);
    assert!(text(&out.stderr).contains("CONTENT_PIPELINE_SERVER"));
    let out = ci(
        &app,
        &token,
        &["run", "--workspace", "ws_nope", "--feature", "a"],
        b"",
    )
    .await;
    assert_eq!(code(&out), 2, "a malformed id is a usage error");

    // A service that cannot be reached.
    let mut unreachable = cli(app.dir.path());
    unreachable
        .env("CONTENT_PIPELINE_SERVER", "http://127.0.0.1:9")
        .env("CONTENT_PIPELINE_TOKEN", &token);
    let out = exec(
        unreachable,
        &["run", "--workspace", &ws, "--feature", "a"],
        b"",
    )
    .await;
    assert_eq!(code(&out), 3, "{}", text(&out.stderr));
}

#[tokio::test]
async fn drift_gates_on_changed_code_and_reads_its_settings_from_toml() {
    let app = app!(TestApp::builder().run_worker());
    let mut repo = app.repo("drift-repo");
    let ws = app.workspace_on("drift", &repo.path).await;
    let token = app.token(&ws, "publish").await;
    app.run_feature(&ws, "a").await;

    // The server and token from a TOML file, with a service setting beside them.
    let config = app.dir.path().join("ci.toml");
    std::fs::write(
        &config,
        format!(
            "server = \"{}\"\ntoken = \"{token}\"\ndrift_interval = 0\n",
            app.base
        ),
    )
    .expect("write the config");
    let toml = |args: &[&str]| {
        let mut all = vec!["--config", config.to_str().expect("path")];
        all.extend_from_slice(args);
        all.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let gate = toml(&["drift", "--workspace", &ws, "--fail-on-drift"]);
    let gate: Vec<&str> = gate.iter().map(String::as_str).collect();

    let out = exec(cli(app.dir.path()), &gate, b"").await;
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("0 drifted"),
        "{}",
        text(&out.stdout)
    );

    repo.write(
        "src/lib.rs",
        "/// Adds.\npub fn add(a: i64, b: i64) -> i64 { a + b }\n",
    );
    repo.commit("feat!: add takes i64");
    let out = exec(cli(app.dir.path()), &gate, b"").await;
    assert_eq!(code(&out), 1, "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(
        report.contains("src/lib.rs") && report.contains("modified"),
        "{report}"
    );

    // Without --fail-on-drift the report is information, and --json is the check.
    let out = ci(&app, &token, &["drift", "--workspace", &ws, "--json"], b"").await;
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    let check: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(check["status"], "succeeded");
    assert!(!check["drifted"].as_array().expect("drifted").is_empty());

    // articles list / get / publish, from the same TOML.
    let list = toml(&[
        "articles",
        "list",
        "--workspace",
        &ws,
        "--surface",
        "dev-docs",
        "--json",
    ]);
    let list: Vec<&str> = list.iter().map(String::as_str).collect();
    let out = exec(cli(app.dir.path()), &list, b"").await;
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    let articles: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(articles.len(), 1);
    let id = articles[0]["id"].as_str().expect("id").to_string();

    let out = ci(&app, &token, &["articles", "get", &id, "--body"], b"").await;
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("---\ntitle:"), "the MDX body");

    let out = ci(&app, &token, &["articles", "publish", &id], b"").await;
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("published at"),
        "{}",
        text(&out.stdout)
    );
    let out = ci(&app, &token, &["articles", "get", &id, "--json"], b"").await;
    let article: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(article["status"], "published");

    let out = ci(
        &app,
        &token,
        &["articles", "get", "art_01933b5f2c3d7c3e9d1f2a4b6c8d0e21"],
        b"",
    )
    .await;
    assert_eq!(code(&out), 2);
    assert!(text(&out.stderr).contains("not_found"));
}

#[tokio::test]
async fn webhooks_verify_accepts_a_signed_delivery_and_refuses_a_changed_one() {
    let app = app!();
    let secret = webhooks::SigningSecret::generate();
    let body = br#"{"id":"evt_1","type":"run.completed","data":{}}"#;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("time")
        .as_secs() as i64;
    let signature = webhooks::sign(&[&secret], "evt_1", now, body);
    let headers = [
        "webhook-id: evt_1".to_string(),
        format!("webhook-timestamp: {now}"),
        format!("webhook-signature: {signature}"),
    ];
    let whsec = secret.reveal();
    let mut args = vec!["webhooks", "verify", "--secret", whsec.as_str()];
    for h in &headers {
        args.extend(["--header", h.as_str()]);
    }
    let out = exec(cli(app.dir.path()), &args, body).await;
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "valid");

    let out = exec(
        cli(app.dir.path()),
        &args,
        br#"{"id":"evt_1","type":"run.failed"}"#,
    )
    .await;
    assert_eq!(code(&out), 1, "a changed body does not verify");

    // The headers as `curl -D` dumps them, the secret from the environment.
    let file = app.dir.path().join("headers.txt");
    std::fs::write(
        &file,
        format!("HTTP/1.1 200 OK\r\n{}\r\n\r\n", headers.join("\r\n")),
    )
    .expect("write headers");
    let mut cmd = cli(app.dir.path());
    cmd.env("CONTENT_PIPELINE_WEBHOOK_SECRET", &whsec);
    let out = exec(
        cmd,
        &[
            "webhooks",
            "verify",
            "--headers",
            file.to_str().expect("path"),
        ],
        body,
    )
    .await;
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));

    let stale = webhooks::sign(&[&secret], "evt_1", now - 3600, body);
    let out = exec(
        cli(app.dir.path()),
        &[
            "webhooks",
            "verify",
            "--secret",
            &whsec,
            "--header",
            "webhook-id: evt_1",
            "--header",
            &format!("webhook-timestamp: {}", now - 3600),
            "--header",
            &format!("webhook-signature: {stale}"),
        ],
        body,
    )
    .await;
    assert_eq!(code(&out), 1, "an hour-old delivery is refused");

    let out = exec(
        cli(app.dir.path()),
        &["webhooks", "verify", "--secret", whsec.as_str()],
        body,
    )
    .await;
    assert_eq!(
        code(&out),
        2,
        "no headers is bad input: {}",
        text(&out.stderr)
    );
    let mut bad_secret = args.clone();
    bad_secret[3] = "whsec_not*base64";
    let out = exec(cli(app.dir.path()), &bad_secret, body).await;
    assert_eq!(code(&out), 2, "{}", text(&out.stderr));
}
