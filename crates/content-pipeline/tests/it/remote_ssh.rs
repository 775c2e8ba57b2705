//! Repositories by ssh URL with a deploy key the service generates, black-box over HTTP: a
//! real OpenSSH server on loopback (Debian's `sshd`, see [`testkit::SshServer`]) serving a
//! bare repository to the key it is told to authorize, the run's sandboxed child fetching it
//! with the `ssh` program.
//!
//! Skipped when `/usr/sbin/sshd` is not installed (package `openssh-server`), unless
//! `CONTENT_PIPELINE_REQUIRE_SSHD=1` (set by `.ci/run`) makes that a failure.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};
use testkit::{SshServer, push_to_bare};

use crate::app;
use crate::helpers::TestApp;
use crate::remote_repositories::{project, run_at, stored_text};

/// The OpenSSH server, or `None` (the test then returns) when it is not installed and not
/// required.
fn sshd(test: &str) -> Option<SshServer> {
    let server = SshServer::start();
    if server.is_none() {
        if std::env::var("CONTENT_PIPELINE_REQUIRE_SSHD").as_deref() == Ok("1") {
            panic!(
                "CONTENT_PIPELINE_REQUIRE_SSHD=1 but /usr/sbin/sshd is missing (openssh-server)"
            );
        }
        eprintln!(
            "SKIPPED {test}: /usr/sbin/sshd is missing; install openssh-server, \
             or set CONTENT_PIPELINE_REQUIRE_SSHD=1 to fail instead"
        );
    }
    server
}

/// `git init --bare` at `path`, its HEAD on `main`.
fn bare_repository(path: &Path) {
    git(&[
        "init".as_ref(),
        "--bare".as_ref(),
        "--quiet".as_ref(),
        "--initial-branch=main".as_ref(),
        path.as_os_str(),
    ]);
}

fn git(args: &[&std::ffi::OsStr]) {
    let output = Command::new("git")
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .expect("run git");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Generates a deploy key for `ws`; returns the Repository JSON.
async fn generate_deploy_key(app: &TestApp, ws: &str) -> Value {
    let repo = app
        .post(&format!("/v1/workspaces/{ws}/repository/deploy-key"))
        .expect(200)
        .await;
    assert_eq!(repo["credential"]["kind"], "deploy_key", "{repo}");
    assert!(!repo.to_string().contains("PRIVATE KEY"), "{repo}");
    repo
}

/// The SHA-256 fingerprint `ssh-keygen -l` prints for a public key line.
fn fingerprint(dir: &Path, public_key: &str) -> String {
    let file = dir.join("fingerprinted.pub");
    std::fs::write(&file, format!("{public_key}\n")).expect("write the public key");
    let output = Command::new("ssh-keygen")
        .args(["-l", "-E", "sha256", "-f"])
        .arg(&file)
        .output()
        .expect("run ssh-keygen -l");
    assert!(output.status.success(), "ssh-keygen -l: {output:?}");
    let text = String::from_utf8_lossy(&output.stdout);
    text.split_whitespace()
        .nth(1)
        .expect("a fingerprint")
        .to_owned()
}

/// A public key line of a key pair the service does not hold.
fn another_public_key(dir: &Path) -> String {
    let key = dir.join("another_key");
    let status = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "someone-else", "-f"])
        .arg(&key)
        .status()
        .expect("run ssh-keygen");
    assert!(status.success());
    std::fs::read_to_string(key.with_extension("pub")).expect("the other public key")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_workspace_fetches_over_ssh_with_its_deploy_key() {
    let Some(mut server) = sshd("a_workspace_fetches_over_ssh_with_its_deploy_key") else {
        return;
    };
    // The mirrors in a folder of the test's (the default is beside the database, or the
    // working directory on PostgreSQL), so that what the fetch leaves on disk can be read.
    let mirrors = tempfile::tempdir().expect("a temp dir for the mirrors");
    let mirror_dir = mirrors.path().to_path_buf();
    let app = app!(
        TestApp::builder()
            .run_worker()
            .webhook_allowed_cidrs("127.0.0.0/8")
            .configure(move |c| {
                c.fetch_timeout = Duration::from_secs(60);
                c.mirror_dir = Some(mirror_dir);
            })
    );
    let bare = app.dir.path().join("remote").join("numbers.git");
    bare_repository(&bare);
    let mut repo = project(app.dir.path());
    push_to_bare(&repo.path, &bare, "+HEAD:refs/heads/main");
    let url = server.url(&bare);

    let ws = app
        .post("/v1/workspaces")
        .json(&json!({"name": "over ssh", "repo_url": url}))
        .expect(201)
        .await;
    let ws = ws["id"].as_str().expect("id").to_owned();

    // Without a key the fetch does not start, and says what to do.
    let keyless = run_at(&app, &ws, None).await;
    assert_eq!(keyless["status"], "failed", "{keyless}");
    assert!(
        keyless["error"]
            .as_str()
            .unwrap_or_default()
            .contains("needs a deploy key"),
        "{keyless}"
    );

    // The generated key, once the host knows its public half, fetches the pushed head.
    let shown = generate_deploy_key(&app, &ws).await;
    let public_key = shown["credential"]["public_key"]
        .as_str()
        .expect("the public key")
        .to_owned();
    assert!(public_key.starts_with("ssh-ed25519 "), "{public_key}");
    assert_eq!(
        shown["credential"]["fingerprint"],
        fingerprint(app.dir.path(), &public_key),
        "the fingerprint is the one ssh-keygen -l shows"
    );
    server.authorize(&public_key);
    let first = run_at(&app, &ws, None).await;
    assert_eq!(
        first["status"],
        "succeeded",
        "{first}\nsshd:\n{}",
        server.log()
    );
    assert_eq!(first["commit"], repo.head().as_str());
    let shown = app
        .get(&format!("/v1/workspaces/{ws}/repository"))
        .expect(200)
        .await;
    assert_eq!(shown["fetched_head"], repo.head().as_str(), "{shown}");
    assert_eq!(shown["default_branch"], "main");
    assert!(shown["last_fetch_error"].is_null(), "{shown}");

    // A pushed commit comes with the next fetch (the host key learnt at the first is kept).
    repo.write(
        "src/lib.rs",
        "//! Numbers.\n\n/// Adds two numbers.\npub fn add(a: i32, b: i32) -> i32 { a + b }\n\n/// Subtracts `b` from `a`.\npub fn sub(a: i32, b: i32) -> i32 { a - b }\n",
    );
    let second_commit = repo.commit("feat: subtract numbers");
    push_to_bare(&repo.path, &bare, "+HEAD:refs/heads/main");
    let second = run_at(&app, &ws, None).await;
    assert_eq!(
        second["status"],
        "succeeded",
        "{second}\nsshd:\n{}",
        server.log()
    );
    assert_eq!(second["commit"], second_commit.as_str());

    // The host no longer takes this key: the run fails naming the authentication failure.
    server.authorize(&another_public_key(app.dir.path()));
    let refused = run_at(&app, &ws, None).await;
    assert_eq!(refused["status"], "failed", "{refused}");
    let error = refused["error"].as_str().unwrap_or_default();
    assert!(error.contains("authentication failed"), "{error}");
    let shown = app
        .get(&format!("/v1/workspaces/{ws}/repository"))
        .expect(200)
        .await;
    assert!(
        shown["last_fetch_error"]
            .as_str()
            .unwrap_or_default()
            .contains("authentication failed"),
        "{shown}"
    );
    assert_eq!(
        shown["fetched_head"],
        second_commit.as_str(),
        "the last good fetch stays"
    );

    // A new key replaces the old one; with it authorized, runs fetch again.
    let rotated = generate_deploy_key(&app, &ws).await;
    let rotated_key = rotated["credential"]["public_key"]
        .as_str()
        .expect("the new public key")
        .to_owned();
    assert_ne!(rotated_key, public_key, "a new key pair");
    server.authorize(&rotated_key);
    let third = run_at(&app, &ws, None).await;
    assert_eq!(
        third["status"],
        "succeeded",
        "{third}\nsshd:\n{}",
        server.log()
    );
    assert_eq!(third["commit"], second_commit.as_str());

    // The host key learnt at the first fetch is pinned: the same address answering with
    // another key is refused, and the run says so.
    server.replace_host_key();
    let impostor = run_at(&app, &ws, None).await;
    assert_eq!(impostor["status"], "failed", "{impostor}");
    let error = impostor["error"].as_str().unwrap_or_default();
    assert!(error.contains("host key verification failed"), "{error}");

    // The private key is in its encrypted column only: not in an answer, an event, a log.
    let stored = stored_text(&app).await;
    assert!(
        !stored.contains("PRIVATE KEY"),
        "a private key leaked into the database:\n{stored}"
    );
    let runs = app
        .get(&format!("/v1/workspaces/{ws}/runs"))
        .expect(200)
        .await;
    assert!(!runs.to_string().contains("PRIVATE KEY"), "{runs}");
    // Nor on disk: the key file a fetch writes for ssh is gone once the fetch is over.
    for entry in std::fs::read_dir(mirrors.path())
        .expect("the mirrors")
        .flatten()
    {
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            let text = std::fs::read(entry.path()).unwrap_or_default();
            assert!(
                !String::from_utf8_lossy(&text).contains("PRIVATE KEY"),
                "a private key was left in {}",
                entry.path().display()
            );
        }
    }
    assert!(
        mirrors.path().join(format!("{ws}.known_hosts")).exists(),
        "the host key learnt at the first fetch is kept"
    );
}
