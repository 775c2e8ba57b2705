//! Repositories by URL (contract 3b), black-box over HTTP: a real Git server on loopback
//! (`git http-backend` behind basic auth), the service fetching it into a mirror of its own in
//! the run's sandboxed child, runs and drift checks at any ref, and every failure bounded and
//! named without a secret in it.

use std::time::Duration;

use serde_json::{Value, json};
use testkit::{GitServer, Repo, push_to_bare};

use crate::app;
use crate::helpers::TestApp;

const TOKEN: &str = "glpat-s3cret-Zq81xKv";

/// A service with a run worker that may fetch from loopback, mirrors in the test's folder.
fn builder() -> crate::helpers::Builder {
    TestApp::builder()
        .run_worker()
        .webhook_allowed_cidrs("127.0.0.0/8")
        .configure(|c| c.fetch_timeout = Duration::from_secs(60))
}

/// A project with a manifest feature `numbers` over `src/**`, pushed as `main`.
pub(crate) fn project(dir: &std::path::Path) -> Repo {
    let mut repo = Repo::init(&dir.join("project"));
    repo.write(
        "src/lib.rs",
        "//! Numbers.\n\n/// Adds two numbers.\npub fn add(a: i32, b: i32) -> i32 { a + b }\n",
    )
    .write(
        ".content-pipeline/features.toml",
        "[[features]]\nid = \"numbers\"\ntitle = \"Numbers\"\nsummary = \"Adds numbers.\"\npaths = [\"src/**\"]\nsurfaces = [\"dev-docs\", \"changelog\"]\n",
    );
    repo.commit("feat: add numbers");
    repo
}

/// Creates a workspace on `url` and gives it the test token.
async fn connect(app: &TestApp, url: &str) -> String {
    let ws = app
        .post("/v1/workspaces")
        .json(&json!({"name": "remote", "repo_url": url}))
        .expect(201)
        .await;
    let id = ws["id"].as_str().expect("id").to_owned();
    assert_eq!(ws["repo_url"], url);
    let repo = app
        .call(
            reqwest::Method::PUT,
            &format!("/v1/workspaces/{id}/repository/credential"),
        )
        .json(&json!({"token": TOKEN}))
        .expect(200)
        .await;
    assert_eq!(repo["credential"]["kind"], "token");
    assert!(!repo.to_string().contains(TOKEN), "{repo}");
    id
}

pub(crate) async fn run_at(app: &TestApp, ws: &str, git_ref: Option<&str>) -> Value {
    let mut body = json!({"feature_id": "numbers"});
    if let Some(r) = git_ref {
        body["ref"] = json!(r);
    }
    let run = app
        .post(&format!("/v1/workspaces/{ws}/runs"))
        .json(&body)
        .expect(201)
        .await;
    app.wait_for_run(run["id"].as_str().expect("run id")).await
}

async fn changelog(app: &TestApp, ws: &str) -> String {
    let list = app
        .get(&format!(
            "/v1/workspaces/{ws}/articles?feature_id=numbers&surface=changelog"
        ))
        .expect(200)
        .await;
    let id = list["data"][0]["id"].as_str().expect("a changelog article");
    let article = app.get(&format!("/v1/articles/{id}")).expect(200).await;
    article["mdx_body"].as_str().unwrap_or_default().to_owned()
}

/// Every text column a secret could leak into, in one string.
pub(crate) async fn stored_text(app: &TestApp) -> String {
    let mut all = String::new();
    for sql in [
        "SELECT message || ' ' || data FROM run_events",
        "SELECT COALESCE(error, '') FROM runs",
        "SELECT COALESCE(fetch_error, '') || COALESCE(credential_fingerprint, '') FROM repositories",
        "SELECT COALESCE(result, '') || COALESCE(error, '') FROM drift_checks",
        "SELECT payload FROM events",
        "SELECT COALESCE(repo_url, '') FROM workspaces",
    ] {
        for (text,) in app.db.rows::<(String,)>(sql).await {
            all.push_str(&text);
            all.push('\n');
        }
    }
    all
}

#[tokio::test(flavor = "multi_thread")]
async fn a_workspace_follows_its_remote_at_any_ref() {
    let app = app!(builder());
    let server = GitServer::start().await;
    server.require_basic_auth("x-access-token", TOKEN);
    let bare = server.create_bare("acme/numbers");
    let mut repo = project(app.dir.path());
    push_to_bare(&repo.path, &bare, "+HEAD:refs/heads/main");
    let ws = connect(&app, &server.url("acme/numbers")).await;

    // The first run clones and reads the pushed commit.
    let first = run_at(&app, &ws, None).await;
    assert_eq!(first["status"], "succeeded", "{first}");
    assert_eq!(first["commit"], repo.head().as_str());
    assert!(first["ref"].is_null());
    let shown = app
        .get(&format!("/v1/workspaces/{ws}/repository"))
        .expect(200)
        .await;
    assert_eq!(shown["fetched_head"], repo.head().as_str());
    assert_eq!(shown["default_branch"], "main");
    assert!(shown["last_fetch_error"].is_null(), "{shown}");
    assert!(shown["last_fetch_at"].is_string());

    // A pushed commit is fetched by the next run and reaches the changelog.
    repo.write(
        "src/lib.rs",
        "//! Numbers.\n\n/// Adds two numbers.\npub fn add(a: i32, b: i32) -> i32 { a + b }\n\n/// Subtracts `b` from `a`.\npub fn sub(a: i32, b: i32) -> i32 { a - b }\n",
    );
    let second_commit = repo.commit("feat: subtract numbers");
    push_to_bare(&repo.path, &bare, "+HEAD:refs/heads/main");
    let second = run_at(&app, &ws, None).await;
    assert_eq!(second["status"], "succeeded", "{second}");
    assert_eq!(second["commit"], second_commit.as_str());
    assert!(
        changelog(&app, &ws).await.contains("ubtract numbers"),
        "the new commit is in the changelog"
    );

    // A pull request's head that exists only as refs/pull/7/head: a run and a drift check
    // there read it; the drift check is a preview (no drift.detected).
    let main_head = repo.head();
    repo.write(
        "src/lib.rs",
        "//! Numbers.\n\n/// Adds two numbers, wrapping on overflow.\npub fn add(a: i32, b: i32) -> i32 { a.wrapping_add(b) }\n\n/// Subtracts `b` from `a`.\npub fn sub(a: i32, b: i32) -> i32 { a - b }\n",
    );
    let pr_head = repo.commit("fix: wrap on overflow");
    push_to_bare(&repo.path, &bare, "+HEAD:refs/pull/7/head");
    repo.reset_to(&main_head);
    let preview = run_at(&app, &ws, Some("refs/pull/7/head")).await;
    assert_eq!(preview["status"], "succeeded", "{preview}");
    assert_eq!(preview["commit"], pr_head.as_str());
    assert_eq!(preview["ref"], "refs/pull/7/head");
    app.drained().await;
    let events_before = app
        .db
        .count("SELECT COUNT(*) FROM events WHERE event_type = 'drift.detected'")
        .await;
    let check = app
        .post(&format!("/v1/workspaces/{ws}/drift-check"))
        .json(&json!({"ref": pr_head}))
        .send()
        .await;
    let check = crate::helpers::body(check).await;
    let check = wait_for_check(&app, check).await;
    assert_eq!(check["status"], "succeeded", "{check}");
    assert_eq!(check["head_commit"], pr_head.as_str());
    assert_eq!(check["ref"], pr_head.as_str());
    assert_eq!(check["events_recorded"], 0);
    assert_eq!(
        app.db
            .count("SELECT COUNT(*) FROM events WHERE event_type = 'drift.detected'")
            .await,
        events_before
    );

    // A force-push that rewrites history: the next run reads the new commit.
    repo.reset_to(first["commit"].as_str().expect("commit"));
    repo.write(
        "src/extra.rs",
        "/// Multiplies.\npub fn mul(a: i32, b: i32) -> i32 { a * b }\n",
    );
    let rewritten = repo.commit("feat: multiply instead");
    push_to_bare(&repo.path, &bare, "+HEAD:refs/heads/main");
    let third = run_at(&app, &ws, None).await;
    assert_eq!(third["status"], "succeeded", "{third}");
    assert_eq!(third["commit"], rewritten.as_str());

    // A deleted branch is gone from the mirror: a run there fails and says why.
    push_to_bare(&repo.path, &bare, "+HEAD:refs/heads/topic");
    testkit::delete_ref(&bare, "refs/heads/topic");
    let gone = run_at(&app, &ws, Some("topic")).await;
    assert_eq!(gone["status"], "failed");
    assert!(
        gone["error"]
            .as_str()
            .unwrap_or_default()
            .contains("'topic' is not a branch"),
        "{gone}"
    );

    // Revoked credentials: the run fails naming the authentication failure, no secret in it.
    server.require_basic_auth("x-access-token", "another-token");
    let refused = run_at(&app, &ws, None).await;
    assert_eq!(refused["status"], "failed");
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
        rewritten.as_str(),
        "the last good fetch stays"
    );

    // The token is nowhere but in its encrypted column.
    let stored = stored_text(&app).await;
    assert!(
        !stored.contains(TOKEN),
        "the token leaked into the database"
    );
    let encoded = base64_of(&format!("x-access-token:{TOKEN}"));
    assert!(
        !stored.contains(&encoded),
        "the basic-auth header leaked into the database"
    );
}

/// `len` bytes that do not compress.
pub(crate) fn noise(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn base64_of(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(text)
}

async fn wait_for_check(app: &TestApp, check: Value) -> Value {
    let url = check["check_url"].as_str().expect("check_url").to_owned();
    let path = url.trim_start_matches(&app.base).to_owned();
    testkit::eventually(
        Duration::from_secs(60),
        "the drift check finished",
        || async {
            let now = app.get(&path).expect(200).await;
            matches!(now["status"].as_str(), Some("succeeded" | "failed")).then_some(now)
        },
    )
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn urls_are_checked_before_they_are_stored() {
    let app = app!(TestApp::builder());
    for (url, needle) in [
        ("https://user:pw@github.com/acme/app.git", "credentials"),
        ("https://ghp_x@github.com/acme/app.git", "credentials"),
        ("file:///etc", "https://"),
        ("https://127.0.0.1/acme/app.git", "private"),
        ("https://[::1]/acme/app.git", "private"),
        ("http://93.184.215.14/acme/app.git", "plain http"),
    ] {
        let err = app
            .post("/v1/workspaces")
            .json(&json!({"name": "x", "repo_url": url}))
            .expect_error(422, "validation_failed")
            .await;
        assert_eq!(err["error"]["param"], "repo_url", "{url}");
        let message = err["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(needle), "{url}: {message}");
        assert!(
            !message.contains("pw") || needle != "credentials",
            "{message}"
        );
    }
    let both = app
        .post("/v1/workspaces")
        .json(&json!({"name": "x", "repo_url": "https://github.com/a/b", "repo_path": "/srv/x"}))
        .expect_error(422, "validation_failed")
        .await;
    assert!(
        both["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("not both")
            || both["error"]["param"] == "repo_path"
    );

    // A workspace admin connects its own repository; PATCH clears repo_path and back.
    let ws = app
        .post("/v1/workspaces")
        .json(&json!({"name": "team"}))
        .expect(201)
        .await;
    let id = ws["id"].as_str().expect("id");
    let admin = app.token(id, "admin").await;
    let patched = app
        .patch(&format!("/v1/workspaces/{id}"))
        .token(&admin)
        .json(&json!({"repo_url": "https://github.com/acme/app.git", "default_branch": "trunk"}))
        .expect(200)
        .await;
    assert_eq!(patched["repo_url"], "https://github.com/acme/app.git");
    assert_eq!(patched["default_branch"], "trunk");
    app.patch(&format!("/v1/workspaces/{id}"))
        .token(&admin)
        .json(&json!({"repo_path": "/srv/x"}))
        .expect_error(403, "insufficient_scope")
        .await;
    let writer = app.token(id, "write").await;
    app.patch(&format!("/v1/workspaces/{id}"))
        .token(&writer)
        .json(&json!({"default_branch": "main"}))
        .expect_error(403, "insufficient_scope")
        .await;
    let key = app
        .post(&format!("/v1/workspaces/{id}/repository/deploy-key"))
        .token(&admin)
        .expect(200)
        .await;
    // A token must be one: the envelope names it.
    let bad = app
        .call(
            reqwest::Method::PUT,
            &format!("/v1/workspaces/{id}/repository/credential"),
        )
        .token(&admin)
        .json(&json!({"token": "two words"}))
        .expect_error(422, "validation_failed")
        .await;
    assert_eq!(bad["error"]["param"], "token");
    assert_eq!(key["credential"]["kind"], "deploy_key");
    let public = key["credential"]["public_key"].as_str().unwrap_or_default();
    assert!(public.starts_with("ssh-ed25519 "), "{key}");
    assert!(!key.to_string().contains("PRIVATE KEY"));
    let bad_ref = app
        .post(&format!("/v1/workspaces/{id}/runs"))
        .token(&admin)
        .json(&json!({"feature_id": "x", "ref": "a..b"}))
        .expect_error(422, "validation_failed")
        .await;
    assert_eq!(bad_ref["error"]["param"], "ref");
}

#[tokio::test(flavor = "multi_thread")]
async fn fetches_are_bounded_and_refused_addresses_named() {
    let app = app!(builder().configure(|c| {
        c.fetch_max_mb = 1;
    }));
    let server = GitServer::start().await;
    let bare = server.create_bare("big");
    let mut repo = project(app.dir.path());
    let noise = noise(3 * 1024 * 1024);
    repo.write("assets/noise.bin", &noise);
    repo.commit("chore: add noise");
    push_to_bare(&repo.path, &bare, "+HEAD:refs/heads/main");
    let ws = app
        .post("/v1/workspaces")
        .json(&json!({"name": "big", "repo_url": server.url("big")}))
        .expect(201)
        .await;
    let ws = ws["id"].as_str().expect("id");
    let capped = run_at(&app, ws, None).await;
    assert_eq!(capped["status"], "failed");
    let error = capped["error"].as_str().unwrap_or_default();
    assert!(error.contains("limit of 1 MiB"), "{error}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_moved_repository_is_followed_hop_by_hop_each_hop_checked() {
    let app = app!(builder());
    let server = GitServer::start().await;
    server.require_basic_auth("x-access-token", TOKEN);
    let bare = server.create_bare("acme/numbers");
    let repo = project(app.dir.path());
    push_to_bare(&repo.path, &bare, "+HEAD:refs/heads/main");
    let base = server.base_url();
    let ws = connect(&app, &format!("{base}/moved/acme/numbers.git")).await;

    // Moved on the same host: followed with the credential, and the run log says where to.
    server.redirect_moved_to(&base);
    let run = run_at(&app, &ws, None).await;
    assert_eq!(run["status"], "succeeded", "{run}");
    assert_eq!(run["commit"], repo.head().as_str());
    let id = run["id"].as_str().expect("run id");
    let log = app
        .get(&format!("/v1/runs/{id}/log?limit=100"))
        .expect(200)
        .await;
    assert!(
        log["data"]
            .as_array()
            .expect("log events")
            .iter()
            .any(|e| e["level"] == "warn"
                && e["data"]["moved_to"] == format!("{base}/acme/numbers.git").as_str()),
        "the log names the new URL: {log}"
    );

    // Moved to an address the policy refuses: nothing connects there, the run says why.
    server.redirect_moved_to("http://169.254.169.254");
    let refused = run_at(&app, &ws, None).await;
    assert_eq!(refused["status"], "failed");
    let error = refused["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("redirected") && error.contains("169.254.169.254"),
        "{error}"
    );

    // Moved to another host name (same machine): the credential stays behind, so the
    // server, which wants it, refuses the fetch.
    let port = base.rsplit(':').next().unwrap_or_default().to_owned();
    server.redirect_moved_to(&format!("http://localhost:{port}"));
    let refused_before = server.refused();
    let elsewhere = run_at(&app, &ws, None).await;
    assert_eq!(elsewhere["status"], "failed");
    let error = elsewhere["error"].as_str().unwrap_or_default();
    assert!(error.contains("authentication failed"), "{error}");
    assert!(
        server.refused() > refused_before,
        "asked without the credential"
    );
    assert!(!stored_text(&app).await.contains(TOKEN));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_host_that_resolves_to_a_refused_address_is_not_fetched() {
    // No allowed ranges: `localhost` resolves to loopback, which is refused at connect time.
    let app = app!(TestApp::builder().run_worker());
    let server = GitServer::start().await;
    let port = server
        .base_url()
        .rsplit(':')
        .next()
        .unwrap_or_default()
        .to_owned();
    let ws = app
        .post("/v1/workspaces")
        .json(&json!({"name": "sneaky", "repo_url": format!("https://localhost:{port}/x.git")}))
        .expect(201)
        .await;
    let ws = ws["id"].as_str().expect("id");
    let run = run_at(&app, ws, None).await;
    assert_eq!(run["status"], "failed");
    let error = run["error"].as_str().unwrap_or_default();
    assert!(error.contains("refused"), "{error}");
    assert!(server.requests().is_empty(), "nothing reached the server");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dripping_server_is_cut_off_at_the_time_limit() {
    let app = app!(builder().configure(|c| c.fetch_timeout = Duration::from_secs(3)));
    let server = GitServer::start().await;
    let bare = server.create_bare("slow");
    let mut repo = project(app.dir.path());
    let noise = noise(400_000);
    repo.write("assets/noise.bin", &noise);
    repo.commit("chore: add noise");
    push_to_bare(&repo.path, &bare, "+HEAD:refs/heads/main");
    server.drip(Some(20_000));
    let ws = app
        .post("/v1/workspaces")
        .json(&json!({"name": "slow", "repo_url": server.url("slow")}))
        .expect(201)
        .await;
    let ws = ws["id"].as_str().expect("id");
    let started = std::time::Instant::now();
    let run = run_at(&app, ws, None).await;
    assert_eq!(run["status"], "failed");
    let error = run["error"].as_str().unwrap_or_default();
    assert!(error.contains("time limit (3 s)"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(25));
    // The mirror stays usable: at full speed the next run succeeds.
    server.drip(None);
    let next = run_at(&app, ws, None).await;
    assert_eq!(next["status"], "succeeded", "{next}");
}

#[tokio::test(flavor = "multi_thread")]
async fn admins_connect_the_repository_in_the_portal() {
    let app = app!(TestApp::builder());
    let ws = app.workspace("Docs").await;
    let admin = app.person("admin@example.com", Some((&ws, "admin"))).await;
    let writer = app.person("writer@example.com", Some((&ws, "write"))).await;
    let page = format!("/portal/w/{ws}/settings/repository");
    let (status, html) = admin.page(&page).await;
    assert_eq!(status, 200);
    assert!(html.contains("not connected"), "{html}");
    let csrf = admin.csrf(&page).await;
    let r = admin
        .post(
            &page,
            &[
                ("csrf", &csrf),
                ("repo_url", "https://github.com/acme/app.git"),
                ("default_branch", "trunk"),
            ],
        )
        .await;
    assert_eq!(r.status(), 200);
    let html = r.text().await.expect("page");
    assert!(
        html.contains("Connected to https://github.com/acme/app.git"),
        "{html}"
    );
    let r = admin
        .post(
            &page,
            &[("csrf", &csrf), ("repo_url", "https://u:p@github.com/a/b")],
        )
        .await;
    assert_eq!(r.status(), 422);
    assert!(
        r.text()
            .await
            .expect("page")
            .contains("must not contain credentials")
    );

    let r = admin
        .post(
            &format!("{page}/token"),
            &[("csrf", &csrf), ("token", TOKEN), ("username", "")],
        )
        .await;
    assert_eq!(r.status(), 200);
    let html = r.text().await.expect("page");
    assert!(
        html.contains("An access token") && !html.contains(TOKEN),
        "{html}"
    );
    let r = admin
        .post(&format!("{page}/deploy-key"), &[("csrf", &csrf)])
        .await;
    assert_eq!(r.status(), 200);
    let html = r.text().await.expect("page");
    assert!(html.contains("value=\"ssh-ed25519 "), "{html}");
    assert!(!html.contains("PRIVATE KEY"));
    let repo = app
        .get(&format!("/v1/workspaces/{ws}/repository"))
        .expect(200)
        .await;
    assert_eq!(repo["url"], "https://github.com/acme/app.git");
    assert_eq!(repo["default_branch"], "trunk");
    assert_eq!(repo["credential"]["kind"], "deploy_key");

    // Settings are the admins': a writer gets no page and changes nothing.
    let (status, _) = writer.page(&page).await;
    assert_ne!(status, 200);
    let csrf = writer.csrf(&format!("/portal/w/{ws}/runs")).await;
    let r = writer
        .post(&format!("{page}/token"), &[("csrf", &csrf), ("token", "x")])
        .await;
    assert_ne!(r.status(), 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn nodes_share_only_the_database_and_a_killed_fetch_is_taken_over() {
    let mut first = app!(builder());
    let server = GitServer::start().await;
    let bare = server.create_bare("shared");
    let mut repo = project(first.dir.path());
    push_to_bare(&repo.path, &bare, "+HEAD:refs/heads/main");
    let ws = first
        .post("/v1/workspaces")
        .json(&json!({"name": "shared", "repo_url": server.url("shared")}))
        .expect(201)
        .await;
    let ws = ws["id"].as_str().expect("id").to_owned();
    let run = run_at(&first, &ws, None).await;
    assert_eq!(run["status"], "succeeded", "{run}");
    let mirror = first.dir.path().join("mirrors").join(format!("{ws}.git"));
    assert!(mirror.join("HEAD").is_file(), "the first node's mirror");

    // What a fetch killed with SIGKILL leaves: lock files, a half-written pack, incoming refs.
    std::fs::write(mirror.join("packed-refs.lock"), "").expect("a stale lock");
    std::fs::write(mirror.join("refs/heads/main.lock"), "").expect("a stale ref lock");
    std::fs::write(mirror.join("objects/pack/tmp_pack_dead"), noise(4096)).expect("a torn pack");
    std::fs::create_dir_all(mirror.join("refs/incoming/heads")).expect("incoming");
    std::fs::write(
        mirror.join("refs/incoming/heads/ghost"),
        "1111111111111111111111111111111111111111\n",
    )
    .expect("a stale incoming ref");
    // …and its run, claimed by a worker that then died: the lease runs out, a worker takes
    // the run over, and the fetch goes through the leftovers.
    repo.write("src/more.rs", "/// More.\npub fn more() {}\n");
    let pushed = repo.commit("feat: more");
    push_to_bare(&repo.path, &bare, "+HEAD:refs/heads/main");
    let queued = first
        .post(&format!("/v1/workspaces/{ws}/runs"))
        .json(&json!({"feature_id": "numbers"}))
        .expect(201)
        .await;
    let _ = first
        .store
        .claim_run(
            "dead-worker",
            first.clock.timestamp(),
            first.clock.timestamp(),
            3,
        )
        .await;
    let retaken = first
        .wait_for_run(queued["id"].as_str().expect("run id"))
        .await;
    assert_eq!(retaken["status"], "succeeded", "{retaken}");
    assert_eq!(retaken["commit"], pushed.as_str());
    assert!(!mirror.join("packed-refs.lock").exists());
    assert!(!mirror.join("objects/pack/tmp_pack_dead").exists());

    // A second node on the same database, with a cache of its own: it fetches for itself.
    first.stop().await.expect("the first node stops");
    let other = tempfile::tempdir().expect("the second node's disk");
    let second_dir = other.path().join("mirrors");
    let second = app!(builder().database(&first.db).configure({
        let dir = second_dir.clone();
        move |c| c.mirror_dir = Some(dir)
    }));
    repo.write("src/last.rs", "/// Last.\npub fn last() {}\n");
    let last = repo.commit("feat: last");
    push_to_bare(&repo.path, &bare, "+HEAD:refs/heads/main");
    let run = run_at(&second, &ws, None).await;
    assert_eq!(run["status"], "succeeded", "{run}");
    assert_eq!(run["commit"], last.as_str());
    assert!(second_dir.join(format!("{ws}.git")).join("HEAD").is_file());
}

/// Takes object `id` out of the bare repository `mirror`: its packs are unpacked into loose
/// objects (with git's own `unpack-objects`), then that one object file is deleted.
fn remove_object(mirror: &std::path::Path, id: &str) {
    let packs = mirror.join("objects/pack");
    let aside = tempfile::tempdir().expect("a place for the packs");
    for entry in std::fs::read_dir(&packs)
        .expect("the mirror's packs")
        .flatten()
    {
        std::fs::rename(entry.path(), aside.path().join(entry.file_name())).expect("move a pack");
    }
    for entry in std::fs::read_dir(aside.path()).expect("packs").flatten() {
        if entry.path().extension().is_some_and(|e| e == "pack") {
            let pack = std::fs::File::open(entry.path()).expect("a pack");
            let status = std::process::Command::new("git")
                .arg("-C")
                .arg(mirror)
                .args(["unpack-objects", "-q"])
                .stdin(pack)
                .status()
                .expect("git unpack-objects");
            assert!(status.success());
        }
    }
    let loose = mirror.join("objects").join(&id[..2]).join(&id[2..]);
    std::fs::remove_file(&loose).unwrap_or_else(|e| panic!("{}: {e}", loose.display()));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_blob_missing_from_the_mirror_skips_that_file_and_names_it() {
    let app = app!(builder());
    let server = GitServer::start().await;
    server.allow_anonymous();
    let bare = server.create_bare("holes");
    let mut repo = project(app.dir.path());
    repo.write(
        "src/extra.rs",
        "/// Multiplies two numbers.\npub fn multiply(a: i32, b: i32) -> i32 { a * b }\n",
    );
    repo.commit("feat: multiply");
    push_to_bare(&repo.path, &bare, "+HEAD:refs/heads/main");
    let ws = app
        .post("/v1/workspaces")
        .json(&json!({"name": "holes", "repo_url": server.url("holes")}))
        .expect(201)
        .await;
    let ws = ws["id"].as_str().expect("id").to_owned();
    let first = run_at(&app, &ws, None).await;
    assert_eq!(first["status"], "succeeded", "{first}");

    // The mirror loses the blob of one file (a damaged disk, a server that left it out).
    let mirror = app.dir.path().join("mirrors").join(format!("{ws}.git"));
    remove_object(&mirror, &repo.blob_id("src/extra.rs"));

    let second = run_at(&app, &ws, None).await;
    assert_eq!(second["status"], "succeeded", "{second}");
    let id = second["id"].as_str().expect("run id");
    let log = app
        .get(&format!("/v1/runs/{id}/log?limit=100"))
        .expect(200)
        .await;
    let warnings: Vec<&Value> = log["data"]
        .as_array()
        .expect("log events")
        .iter()
        .filter(|e| e["level"] == "warn")
        .collect();
    assert!(
        warnings.iter().any(
            |w| w["message"].as_str().is_some_and(|m| m.contains("missing"))
                && w["data"]["path"] == "src/extra.rs"
        ),
        "a warning names the path: {warnings:?}"
    );
    let list = app
        .get(&format!(
            "/v1/workspaces/{ws}/articles?feature_id=numbers&surface=dev-docs"
        ))
        .expect(200)
        .await;
    let article = app
        .get(&format!(
            "/v1/articles/{}",
            list["data"][0]["id"].as_str().expect("a dev-docs article")
        ))
        .expect(200)
        .await;
    let body = article["mdx_body"].as_str().unwrap_or_default();
    assert!(body.contains("add"), "the other files are read: {body}");
    assert!(
        !body.contains("multiply"),
        "the missing file is left out: {body}"
    );
}
