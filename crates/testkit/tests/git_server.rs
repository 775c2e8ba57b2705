//! The git server fixture against the real `git` program: clone, fetch of pull refs and of a
//! commit by id, basic auth, redirects, a slow server.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use testkit::{GitServer, Repo, delete_ref, push_to_bare};

/// `git args…` in `dir`, never prompting, without the user's or the system's config.
fn git_command(dir: &Path, args: &[&str]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new("git");
    command
        .args(args)
        .current_dir(dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .kill_on_drop(true);
    command
}

async fn git(dir: &Path, args: &[&str]) -> Output {
    git_command(dir, args)
        .output()
        .await
        .expect("run the `git` program")
}

/// `git args…` that must succeed; returns its stdout.
async fn git_ok(dir: &Path, args: &[&str]) -> String {
    let output = git(dir, args).await;
    assert!(
        output.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("utf-8 output")
}

/// The `(id, ref)` lines of `git ls-remote`.
fn refs(ls_remote: &str) -> Vec<(String, String)> {
    ls_remote
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .map(|(id, name)| (id.to_owned(), name.to_owned()))
        .collect()
}

/// A repository with two commits: main on the first, `refs/pull/7/head` on the second, on a
/// new bare repository `name` of `server`. Returns the bare repository's path and the two
/// commit ids.
fn two_commits(server: &GitServer, name: &str) -> (PathBuf, String, String) {
    let mut repo = Repo::new();
    repo.write("README.md", "# Docs\n");
    let first = repo.commit("First");
    repo.write("guide/intro.md", "Hello\n");
    let second = repo.commit("Second");
    let bare = server.create_bare(name);
    push_to_bare(&repo.path, &bare, &format!("+{first}:refs/heads/main"));
    push_to_bare(&repo.path, &bare, "+HEAD:refs/pull/7/head");
    (bare, first, second)
}

#[tokio::test(flavor = "multi_thread")]
async fn clone_and_fetch_pull_refs_and_commits() {
    let server = GitServer::start().await;
    let (bare, first, second) = two_commits(&server, "acme/docs");
    let work = tempfile::tempdir().expect("tempdir");
    let url = server.url("acme/docs");
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/acme/docs.git"));

    git_ok(
        work.path(),
        &["clone", "--quiet", "--bare", &url, "clone.git"],
    )
    .await;
    let clone = work.path().join("clone.git");
    let head = git_ok(&clone, &["rev-parse", "refs/heads/main"]).await;
    assert_eq!(head.trim(), first);

    git_ok(
        &clone,
        &[
            "fetch",
            "--quiet",
            &url,
            "+refs/pull/*/head:refs/pull/*/head",
        ],
    )
    .await;
    let pull = git_ok(&clone, &["rev-parse", "refs/pull/7/head"]).await;
    assert_eq!(pull.trim(), second);

    // A commit by id, in a repository that has none of it.
    git_ok(work.path(), &["init", "--quiet", "empty"]).await;
    let empty = work.path().join("empty");
    git_ok(&empty, &["fetch", "--quiet", &url, &second]).await;
    git_ok(&empty, &["cat-file", "-e", &format!("{second}^{{commit}}")]).await;

    // A deleted ref is gone from the server.
    delete_ref(&bare, "refs/pull/7/head");
    let listed = refs(&git_ok(work.path(), &["ls-remote", &url]).await);
    assert!(
        listed.iter().all(|(_, name)| name != "refs/pull/7/head"),
        "{listed:?}"
    );
    assert!(listed.contains(&(first.clone(), "refs/heads/main".to_owned())));

    let requests = server.requests();
    assert!(
        requests
            .iter()
            .any(|r| r == "/acme/docs.git/info/refs?service=git-upload-pack"),
        "{requests:?}"
    );
    assert_eq!(server.refused(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn long_negotiations_in_gzip() {
    let server = GitServer::start().await;
    let (_, _, second) = two_commits(&server, "upstream");
    let url = server.url("upstream");
    // A repository with a long history of its own: its fetch sends many `have` lines, a
    // request body large enough for git to send it gzipped.
    let mut local = Repo::new();
    for i in 0..300 {
        local.write("counter.txt", i.to_string());
        local.commit(&format!("Local {i}"));
    }
    for version in ["protocol.version=2", "protocol.version=0"] {
        git_ok(
            &local.path,
            &[
                "-c",
                version,
                "fetch",
                "--quiet",
                &url,
                "+refs/pull/7/head:refs/remotes/pr",
            ],
        )
        .await;
        let fetched = git_ok(&local.path, &["rev-parse", "refs/remotes/pr"]).await;
        assert_eq!(fetched.trim(), second);
        git_ok(&local.path, &["update-ref", "-d", "refs/remotes/pr"]).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn basic_auth() {
    let server = GitServer::start().await;
    let (_, first, _) = two_commits(&server, "private");
    let url = server.url("private");
    let work = tempfile::tempdir().expect("tempdir");
    server.require_basic_auth("x-access-token", "s3cret");

    let anonymous = git(work.path(), &["ls-remote", &url]).await;
    assert!(!anonymous.status.success());
    assert!(server.refused() >= 1);

    let wrong = format!(
        "http.extraHeader=Authorization: Basic {}",
        BASE64.encode("x-access-token:wrong")
    );
    assert!(
        !git(work.path(), &["-c", &wrong, "ls-remote", &url])
            .await
            .status
            .success()
    );

    let right = format!(
        "http.extraHeader=Authorization: Basic {}",
        BASE64.encode("x-access-token:s3cret")
    );
    let listed = refs(&git_ok(work.path(), &["-c", &right, "ls-remote", &url]).await);
    assert!(
        listed.contains(&(first, "refs/heads/main".to_owned())),
        "{listed:?}"
    );
    // A whole clone goes through too (POSTs included).
    git_ok(
        work.path(),
        &["-c", &right, "clone", "--quiet", "--bare", &url],
    )
    .await;

    server.allow_anonymous();
    git_ok(work.path(), &["ls-remote", &url]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn redirects_of_moved_repositories() {
    let server = GitServer::start().await;
    let (_, first, _) = two_commits(&server, "org/renamed");
    let work = tempfile::tempdir().expect("tempdir");
    server.redirect_moved_to(&server.base_url());
    let moved = format!("{}/moved/org/renamed.git", server.base_url());

    let listed = refs(
        &git_ok(
            work.path(),
            &["-c", "http.followRedirects=true", "ls-remote", &moved],
        )
        .await,
    );
    assert!(
        listed.contains(&(first, "refs/heads/main".to_owned())),
        "{listed:?}"
    );
    let requests = server.requests();
    assert!(
        requests.contains(&"/moved/org/renamed.git/info/refs?service=git-upload-pack".to_owned())
            && requests.contains(&"/org/renamed.git/info/refs?service=git-upload-pack".to_owned()),
        "{requests:?}"
    );

    let refused = git(
        work.path(),
        &["-c", "http.followRedirects=false", "ls-remote", &moved],
    )
    .await;
    assert!(!refused.status.success());
}

#[tokio::test(flavor = "multi_thread")]
async fn drip_slows_responses_down() {
    let server = GitServer::start().await;
    let mut repo = Repo::new();
    repo.write("noise.bin", random_bytes(200 * 1024));
    repo.commit("Noise");
    let bare = server.create_bare("big");
    push_to_bare(&repo.path, &bare, "+HEAD:refs/heads/main");
    let url = server.url("big");
    let work = tempfile::tempdir().expect("tempdir");

    // At 2000 bytes a second, 200 KB would take minutes: still cloning after a second.
    server.drip(Some(2000));
    let mut clone = git_command(
        work.path(),
        &["clone", "--quiet", "--bare", &url, "slow.git"],
    )
    // Its "early EOF" when stopped is no news.
    .stderr(std::process::Stdio::null())
    .spawn()
    .expect("run the `git` program");
    let waited = tokio::time::timeout(Duration::from_secs(1), clone.wait()).await;
    assert!(
        waited.is_err(),
        "the clone ended within a second: {waited:?}"
    );
    clone.kill().await.expect("stop the clone");

    // Fast enough to end, still slow enough to show.
    server.drip(Some(150_000));
    let started = Instant::now();
    git_ok(
        work.path(),
        &["clone", "--quiet", "--bare", &url, "dripped.git"],
    )
    .await;
    let dripped = started.elapsed();
    assert!(dripped > Duration::from_secs(1), "{dripped:?}");

    server.drip(None);
    let started = Instant::now();
    git_ok(
        work.path(),
        &["clone", "--quiet", "--bare", &url, "fast.git"],
    )
    .await;
    let fast = started.elapsed();
    assert!(fast < dripped, "full speed {fast:?}, dripped {dripped:?}");
}

/// Bytes that do not compress (xorshift64).
fn random_bytes(len: usize) -> Vec<u8> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 32) as u8
        })
        .collect()
}
