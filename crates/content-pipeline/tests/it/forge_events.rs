//! Forge webhooks in, commit statuses out, black-box over HTTP: payloads shaped like GitHub's,
//! GitLab's and Gitea's push and pull-request events (from their public documentation),
//! signed the way each forge signs them, sent to the service; a real Git server on loopback
//! holds the commits they name, and a loopback HTTP server plays the forge's status API.

use std::time::Duration;

use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use testkit::{GitServer, Repo, eventually, push_to_bare};

use crate::helpers::TestApp;
use crate::receiver::{Receiver, Reply};

/// Two features: `numbers` over `src/**`, `guide` over `docs/**`.
fn project(dir: &std::path::Path) -> Repo {
    let mut repo = Repo::init(&dir.join("project"));
    repo.write(
        "src/lib.rs",
        "//! Numbers.\n\n/// Adds two numbers.\npub fn add(a: i32, b: i32) -> i32 { a + b }\n",
    )
    .write("docs/guide.md", "# Guide\n\nHow to add numbers.\n")
    .write("README.md", "# Numbers\n")
    .write(
        ".content-pipeline/features.toml",
        "[[features]]\nid = \"numbers\"\ntitle = \"Numbers\"\nsummary = \"Adds numbers.\"\npaths = [\"src/**\"]\nsurfaces = [\"dev-docs\"]\n\n[[features]]\nid = \"guide\"\ntitle = \"Guide\"\nsummary = \"The guide.\"\npaths = [\"docs/**\"]\nsurfaces = [\"dev-docs\"]\n",
    );
    repo.commit("feat: add numbers");
    repo
}

struct Forge {
    app: TestApp,
    server: GitServer,
    bare: std::path::PathBuf,
    repo: Repo,
    ws: String,
    secret: String,
}

async fn forge(builder: crate::helpers::Builder) -> Option<Forge> {
    let app = builder.start().await?;
    let server = GitServer::start().await;
    let bare = server.create_bare("acme/numbers");
    let repo = project(app.dir.path());
    push_to_bare(&repo.path, &bare, "+HEAD:refs/heads/main");
    let ws = app
        .post("/v1/workspaces")
        .json(&json!({"name": "forge", "repo_url": server.url("acme/numbers")}))
        .expect(201)
        .await["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let connection = app
        .post(&format!("/v1/workspaces/{ws}/repository/forge-secret"))
        .expect(200)
        .await;
    let secret = connection["secret"].as_str().expect("secret").to_owned();
    assert_eq!(secret.len(), 64);
    assert_eq!(
        connection["endpoints"]["github"],
        app.url(&format!("/v1/workspaces/{ws}/forge/github"))
    );
    // Shown once: reading the connection never shows it again.
    let read = app
        .get(&format!("/v1/workspaces/{ws}/repository/forge"))
        .expect(200)
        .await;
    assert_eq!(read["secret_set"], true);
    assert!(!read.to_string().contains(&secret), "{read}");
    Some(Forge {
        app,
        server,
        bare,
        repo,
        ws,
        secret,
    })
}

fn builder() -> crate::helpers::Builder {
    TestApp::builder()
        .run_worker()
        .webhook_allowed_cidrs("127.0.0.0/8")
        .webhook_retry_schedule("0s,1s,1s,1s")
        .configure(|c| c.fetch_timeout = Duration::from_secs(60))
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

/// A GitHub push event (https://docs.github.com/webhooks/webhook-events-and-payloads#push).
fn github_push(git_ref: &str, before: &str, after: &str) -> String {
    json!({
        "ref": git_ref, "before": before, "after": after, "created": false, "deleted": false,
        "forced": false, "compare": "https://github.com/acme/numbers/compare/a...b",
        "commits": [], "head_commit": {"id": after, "message": "change"},
        "repository": {"id": 1296269, "name": "numbers", "full_name": "acme/numbers",
            "default_branch": "main"},
        "pusher": {"name": "octocat"}, "sender": {"login": "octocat"}
    })
    .to_string()
}

/// A GitHub pull_request event.
fn github_pull(action: &str, number: u64, head: &str) -> String {
    json!({
        "action": action, "number": number,
        "pull_request": {"number": number, "state": "open", "title": "Change",
            "head": {"ref": "change", "sha": head}, "base": {"ref": "main", "sha": "0"}},
        "repository": {"id": 1296269, "full_name": "acme/numbers"},
        "sender": {"login": "octocat"}
    })
    .to_string()
}

impl Forge {
    fn path(&self, forge: &str) -> String {
        format!("/v1/workspaces/{}/forge/{forge}", self.ws)
    }

    /// Sends `body` as GitHub would, signed with `secret`.
    async fn github(
        &self,
        event: &str,
        delivery: &str,
        body: &str,
        secret: &str,
    ) -> reqwest::Response {
        self.app
            .post(&self.path("github"))
            .anonymous()
            .header("content-type", "application/json")
            .header("x-github-event", event)
            .header("x-github-delivery", delivery)
            .header(
                "x-hub-signature-256",
                format!("sha256={}", hmac_hex(secret, body.as_bytes())),
            )
            .text(body)
            .send()
            .await
    }

    /// Pushes the local repository's HEAD to `refspec` of the Git server.
    fn push(&self, refspec: &str) {
        push_to_bare(&self.repo.path, &self.bare, refspec);
    }

    /// The delivery `id` once its job has ended.
    async fn settled(&self, id: &str) -> Value {
        let path = format!("/v1/workspaces/{}/forge-deliveries", self.ws);
        eventually(
            Duration::from_secs(60),
            "the delivery's job ended",
            || async {
                let list = self.app.get(&path).expect(200).await;
                list["data"]
                    .as_array()
                    .and_then(|all| all.iter().find(|d| d["id"] == id).cloned())
                    .filter(|d| !matches!(d["status"].as_str(), Some("queued" | "running")))
            },
        )
        .await
    }

    async fn runs(&self) -> Vec<Value> {
        let list = self
            .app
            .get(&format!("/v1/workspaces/{}/runs", self.ws))
            .expect(200)
            .await;
        list["data"].as_array().cloned().unwrap_or_default()
    }
}

async fn receipt(res: reqwest::Response, status: u16) -> Value {
    assert_eq!(res.status().as_u16(), status);
    res.json().await.expect("JSON receipt")
}

#[tokio::test(flavor = "multi_thread")]
async fn pushes_to_the_default_branch_queue_one_run_per_touched_feature() {
    let Some(mut f) = forge(builder()).await else {
        return;
    };
    let base = f.repo.head();
    f.repo
        .write("src/lib.rs", "//! Numbers.\n\n/// Adds two numbers, or more.\npub fn add(a: i32, b: i32) -> i32 { a + b }\n")
        .write("docs/guide.md", "# Guide\n\nHow to add two numbers.\n");
    let both = f.repo.commit("feat: more numbers");
    f.push("+HEAD:refs/heads/main");

    let body = github_push("refs/heads/main", &base, &both);
    let r = receipt(f.github("push", "d-1", &body, &f.secret).await, 202).await;
    assert_eq!(r["status"], "queued", "{r}");
    let done = f.settled(r["id"].as_str().expect("id")).await;
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(done["run_ids"].as_array().map(Vec::len), Some(2), "{done}");
    let runs = f.runs().await;
    let mut features: Vec<&str> = runs
        .iter()
        .filter_map(|r| r["feature_id"].as_str())
        .collect();
    features.sort();
    assert_eq!(features, ["guide", "numbers"]);
    for run in &runs {
        assert_eq!(run["source"], "api");
        assert_eq!(run["trigger"]["kind"], "forge_push", "{run}");
        assert_eq!(run["trigger"]["forge"], "github");
        assert_eq!(run["trigger"]["delivery_id"], "d-1");
        assert_eq!(run["trigger"]["after"], both.as_str());
        assert_eq!(run["trigger"]["before"], base.as_str());
    }

    // The forge redelivers: answered, nothing done again.
    let again = receipt(f.github("push", "d-1", &body, &f.secret).await, 200).await;
    assert_eq!(again["status"], "duplicate");
    assert_eq!(f.runs().await.len(), 2);

    // A push that touches no feature's paths triggers nothing, and says so.
    f.repo.write("README.md", "# Numbers\n\nAdds.\n");
    let readme = f.repo.commit("docs: readme");
    f.push("+HEAD:refs/heads/main");
    let r = receipt(
        f.github(
            "push",
            "d-2",
            &github_push("refs/heads/main", &both, &readme),
            &f.secret,
        )
        .await,
        202,
    )
    .await;
    let done = f.settled(r["id"].as_str().expect("id")).await;
    assert_eq!(done["status"], "done");
    assert_eq!(done["run_ids"], json!([]));
    assert!(
        done["summary"]
            .as_str()
            .unwrap_or_default()
            .contains("Nothing triggered"),
        "{done}"
    );

    // A push to another branch triggers nothing either.
    f.repo.write("src/lib.rs", "pub fn other() {}\n");
    let other = f.repo.commit("wip");
    f.push("+HEAD:refs/heads/topic");
    let r = receipt(
        f.github(
            "push",
            "d-3",
            &github_push("refs/heads/topic", &readme, &other),
            &f.secret,
        )
        .await,
        202,
    )
    .await;
    let done = f.settled(r["id"].as_str().expect("id")).await;
    assert!(
        done["summary"]
            .as_str()
            .unwrap_or_default()
            .contains("not the default branch"),
        "{done}"
    );
    assert_eq!(f.runs().await.len(), 2, "no run for another branch");

    // GitLab and Gitea pushes read the same way (one feature touched each time).
    f.repo
        .write("docs/guide.md", "# Guide\n\nHow to add three numbers.\n");
    let guide = f.repo.commit("docs: guide");
    f.push("+HEAD:refs/heads/main");
    let gitlab = json!({
        "object_kind": "push", "event_name": "push", "before": other, "after": guide,
        "ref": "refs/heads/main", "checkout_sha": guide, "user_name": "Jo", "project_id": 15,
        "project": {"id": 15, "name": "numbers", "path_with_namespace": "acme/numbers",
            "default_branch": "main"},
        "commits": [], "total_commits_count": 1
    })
    .to_string();
    let res = f
        .app
        .post(&f.path("gitlab"))
        .anonymous()
        .header("content-type", "application/json")
        .header("x-gitlab-event", "Push Hook")
        .header(
            "x-gitlab-event-uuid",
            "13792a34-cac6-4fda-95a8-c58e00a3954e",
        )
        .header("x-gitlab-token", f.secret.clone())
        .text(gitlab)
        .send()
        .await;
    let r = receipt(res, 202).await;
    let done = f.settled(r["id"].as_str().expect("id")).await;
    assert_eq!(done["run_ids"].as_array().map(Vec::len), Some(1), "{done}");

    let gitea = github_push("refs/heads/main", &other, &guide);
    let res = f
        .app
        .post(&f.path("gitea"))
        .anonymous()
        .header("content-type", "application/json")
        .header("x-gitea-event", "push")
        .header("x-gitea-delivery", "f6266f16-1bf3-46a5-9ea4-602e06ead473")
        .header("x-gitea-signature", hmac_hex(&f.secret, gitea.as_bytes()))
        .text(gitea)
        .send()
        .await;
    let r = receipt(res, 202).await;
    let done = f.settled(r["id"].as_str().expect("id")).await;
    assert_eq!(done["status"], "done", "{done}");

    // A ping is answered; another event is accepted and ignored.
    let ping = json!({"zen": "Keep it logically awesome.", "hook_id": 1}).to_string();
    let r = receipt(f.github("ping", "d-ping", &ping, &f.secret).await, 200).await;
    assert_eq!(r["status"], "ignored");
    let r = receipt(f.github("issues", "d-issue", "{}", &f.secret).await, 202).await;
    assert_eq!(r["status"], "ignored");
    drop(f.server);
}

#[tokio::test(flavor = "multi_thread")]
async fn unverified_deliveries_are_refused_and_change_nothing() {
    let Some(f) = forge(TestApp::builder().webhook_allowed_cidrs("127.0.0.0/8")).await else {
        return;
    };
    let head = f.repo.head();
    let body = github_push("refs/heads/main", &"1".repeat(40), &head);
    let wrong = f.github("push", "x-1", &body, "not-the-secret").await;
    crate::helpers::expect_error(wrong, 401, "unauthenticated").await;
    let missing = f
        .app
        .post(&f.path("github"))
        .anonymous()
        .header("x-github-event", "push")
        .header("x-github-delivery", "x-2")
        .text(body.clone())
        .send()
        .await;
    crate::helpers::expect_error(missing, 401, "unauthenticated").await;
    let gitlab = f
        .app
        .post(&f.path("gitlab"))
        .anonymous()
        .header("x-gitlab-event", "Push Hook")
        .header("x-gitlab-event-uuid", "x-3")
        .header("x-gitlab-token", format!("{}0", f.secret))
        .text(body.clone())
        .send()
        .await;
    crate::helpers::expect_error(gitlab, 401, "unauthenticated").await;
    let unknown = f
        .app
        .post(&format!("/v1/workspaces/{}/forge/bitbucket", f.ws))
        .anonymous()
        .text("{}")
        .send()
        .await;
    assert_eq!(unknown.status().as_u16(), 404);

    // Rotation: the previous secret works during its grace period, not after.
    let rotated = f
        .app
        .post(&format!("/v1/workspaces/{}/repository/forge-secret", f.ws))
        .json(&json!({"grace_period_seconds": 3600}))
        .expect(200)
        .await;
    let new = rotated["secret"].as_str().expect("secret").to_owned();
    assert!(
        rotated["previous_secret_expires_at"].is_string(),
        "{rotated}"
    );
    let ping = json!({"zen": "hi"}).to_string();
    receipt(f.github("ping", "p-1", &ping, &f.secret).await, 200).await;
    receipt(f.github("ping", "p-2", &ping, &new).await, 200).await;
    let newest = f
        .app
        .post(&format!("/v1/workspaces/{}/repository/forge-secret", f.ws))
        .json(&json!({"grace_period_seconds": 0}))
        .expect(200)
        .await;
    let newest = newest["secret"].as_str().expect("secret").to_owned();
    let old = f.github("ping", "p-3", &ping, &new).await;
    crate::helpers::expect_error(old, 401, "unauthenticated").await;

    // Only the verified deliveries were recorded.
    let list = f
        .app
        .get(&format!("/v1/workspaces/{}/forge-deliveries", f.ws))
        .expect(200)
        .await;
    let ids: Vec<&str> = list["data"]
        .as_array()
        .expect("data")
        .iter()
        .filter_map(|d| d["delivery_id"].as_str())
        .collect();
    assert_eq!(ids, ["p-2", "p-1"], "{list}");
    let runs = f.app.db.rows::<(String,)>("SELECT id FROM runs").await;
    assert!(runs.is_empty());
    // Another workspace's admin cannot read them.
    let other = f.app.workspace("other").await;
    let token = f.app.token(&other, "admin").await;
    f.app
        .get(&format!("/v1/workspaces/{}/forge-deliveries", f.ws))
        .token(&token)
        .expect_error(404, "not_found")
        .await;
    // Over the cap: refused before it is verified. The server answers 413 and hangs up while
    // the body is still being written, so the client sees either the answer or the hang-up.
    let big = format!("{{\"pad\":\"{}\"}}", "x".repeat(1024 * 1024 + 1));
    let sent = reqwest::Client::new()
        .post(f.app.url(&f.path("github")))
        .header("content-type", "application/json")
        .header("x-github-event", "push")
        .header("x-github-delivery", "x-4")
        .header(
            "x-hub-signature-256",
            format!("sha256={}", hmac_hex(&f.secret, big.as_bytes())),
        )
        .body(big)
        .send()
        .await;
    match sent {
        Ok(res) => assert_eq!(res.status().as_u16(), 413),
        Err(e) => assert!(e.is_request() && !e.is_timeout(), "{e:?}"),
    }
    // The server is still there, and recorded nothing of it.
    receipt(f.github("ping", "p-4", &ping, &newest).await, 200).await;
    let list = f
        .app
        .get(&format!("/v1/workspaces/{}/forge-deliveries", f.ws))
        .expect(200)
        .await;
    assert!(
        !list.to_string().contains("x-4"),
        "an oversized delivery is not recorded: {list}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn pull_requests_get_a_commit_status_with_the_drift_they_cause() {
    let Some(mut f) = forge(builder()).await else {
        return;
    };
    let status_api = Receiver::start_with(Reply::status(201)).await;
    let api_root = status_api.url.trim_end_matches("/hook").to_owned() + "/api/v3";
    // A forge API on a refused address is refused when set.
    f.app
        .call(
            reqwest::Method::PUT,
            &format!("/v1/workspaces/{}/repository/forge-token", f.ws),
        )
        .json(&json!({"token": "ghp_status", "api_url": "http://10.1.2.3/api/v3"}))
        .expect_error(422, "validation_failed")
        .await;
    let set = f
        .app
        .call(
            reqwest::Method::PUT,
            &format!("/v1/workspaces/{}/repository/forge-token", f.ws),
        )
        .json(&json!({"token": "ghp_status", "api_url": api_root}))
        .expect(200)
        .await;
    assert!(!set.to_string().contains("ghp_status"), "{set}");

    // The docs exist (a run on main), then two pull requests: one leaves them true.
    let run = f
        .app
        .post(&format!("/v1/workspaces/{}/runs", f.ws))
        .json(&json!({"feature_id": "numbers"}))
        .expect(201)
        .await;
    let run = f.app.wait_for_run(run["id"].as_str().expect("id")).await;
    assert_eq!(run["status"], "succeeded", "{run}");

    f.repo.write("README.md", "# Numbers\n\nNothing else.\n");
    let calm = f.repo.commit("docs: readme");
    f.push("+HEAD:refs/pull/1/head");
    let r = receipt(
        f.github(
            "pull_request",
            "pr-1",
            &github_pull("opened", 1, &calm),
            &f.secret,
        )
        .await,
        202,
    )
    .await;
    assert_eq!(r["status"], "done", "{r}");
    let calls = status_api.wait_for(2, Duration::from_secs(60)).await;
    let first = calls[0].json();
    assert_eq!(calls[0].headers["authorization"], "Bearer ghp_status");
    assert_eq!(first["state"], "pending", "{first}");
    assert_eq!(first["context"], "content-pipeline/docs");
    let second = calls[1].json();
    assert_eq!(second["state"], "success", "{second}");
    let target = second["target_url"]
        .as_str()
        .expect("target_url")
        .to_owned();
    assert!(target.contains("/drift-checks/"), "{target}");

    // The forge fails once, then takes the status: it is retried.
    status_api.reply(Reply::status(500));
    f.repo.write(
        "src/lib.rs",
        "//! Numbers.\n\n/// Adds two numbers and a third.\npub fn add(a: i32, b: i32, c: i32) -> i32 { a + b + c }\n",
    );
    let drifting = f.repo.commit("feat!: add three");
    f.push("+HEAD:refs/pull/2/head");
    receipt(
        f.github(
            "pull_request",
            "pr-2",
            &github_pull("synchronize", 2, &drifting),
            &f.secret,
        )
        .await,
        202,
    )
    .await;
    status_api.wait_for(3, Duration::from_secs(60)).await;
    status_api.reply(Reply::status(201));
    let finished = eventually(
        Duration::from_secs(60),
        "a failure status posted",
        || async {
            status_api
                .received()
                .into_iter()
                .map(|r| r.json())
                .find(|b| b["state"] == "failure")
        },
    )
    .await;
    let description = finished["description"].as_str().expect("description");
    assert!(
        description.contains("drifted: numbers dev-docs"),
        "{description}"
    );
    let checks = f
        .app
        .get(&format!("/v1/workspaces/{}/pull-request-checks", f.ws))
        .expect(200)
        .await;
    let two = checks["data"]
        .as_array()
        .and_then(|all| all.iter().find(|c| c["pull_number"] == 2).cloned())
        .expect("pull request 2's check");
    eventually(
        Duration::from_secs(30),
        "the failure recorded as posted",
        || async {
            let checks = f
                .app
                .get(&format!("/v1/workspaces/{}/pull-request-checks", f.ws))
                .expect(200)
                .await;
            checks["data"].as_array().and_then(|all| {
                all.iter()
                    .find(|c| c["pull_number"] == 2 && c["posted_state"] == "failure")
                    .cloned()
            })
        },
    )
    .await;
    assert_eq!(two["sha"], drifting.as_str());

    // The status's link opens the portal's page of the check, for the workspace's admins.
    let admin = f
        .app
        .person("admin@example.com", Some((&f.ws, "admin")))
        .await;
    let path = target
        .strip_prefix(&f.app.base)
        .expect("a link to this service");
    let (status, html) = admin.page(path).await;
    assert_eq!(status, 200, "{html}");
    assert!(html.contains("#1 of <code>acme/numbers</code>"), "{html}");
    assert!(
        html.contains("Nothing: every article still matches"),
        "{html}"
    );
    let failing = format!(
        "/portal/w/{}/drift-checks/{}",
        f.ws,
        two["drift_check_id"].as_str().expect("id")
    );
    let (_, html) = admin.page(&failing).await;
    assert!(html.contains("numbers — dev-docs"), "{html}");
    let stranger = f
        .app
        .person(
            "stranger@example.com",
            Some((&f.app.workspace("else").await, "admin")),
        )
        .await;
    let (status, _) = stranger.page(path).await;
    assert_eq!(status, 404);

    // The Repository page lists the deliveries and the pull requests' checks, and generates
    // a secret shown once.
    let settings = format!("/portal/w/{}/settings/repository", f.ws);
    let (_, html) = admin.page(&settings).await;
    assert!(
        html.contains(&format!("/v1/workspaces/{}/forge/github", f.ws)),
        "{html}"
    );
    assert_eq!(
        html.matches("data-test=\"forge-delivery\"").count(),
        2,
        "{html}"
    );
    assert_eq!(
        html.matches("data-test=\"pull-check\"").count(),
        2,
        "{html}"
    );
    let csrf = admin.csrf(&settings).await;
    let shown = admin
        .post(&format!("{settings}/forge-secret"), &[("csrf", &csrf)])
        .await;
    assert_eq!(shown.status(), 200);
    let html = shown.text().await.expect("page");
    let secret = html
        .split("data-test=\"forge-secret\"")
        .next()
        .and_then(|before| before.rsplit("value=\"").next())
        .and_then(|v| v.split('"').next())
        .expect("the new secret")
        .to_owned();
    assert_eq!(secret.len(), 64, "{html}");
    let ping = json!({"zen": "hi"}).to_string();
    receipt(f.github("ping", "p-portal", &ping, &secret).await, 200).await;
    let (_, again) = admin.page(&settings).await;
    assert!(!again.contains(&secret));
}
