//! Workspaces over HTTP, and the CLI commands that create workspaces and tokens offline.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use crate::app;
use crate::helpers::{body, cli};

#[tokio::test]
async fn create_returns_201_with_location_and_the_workspace() {
    let app = app!();
    let repo = app.repo("repo");
    let (headers, ws) = app
        .post("/v1/workspaces")
        .json(&json!({"name": "Docs team", "repo_path": repo.path}))
        .expect_with_headers(201)
        .await;
    let location = headers
        .get("location")
        .and_then(|v| v.to_str().ok())
        .expect("Location");
    let id = ws["id"].as_str().expect("id");
    assert!(id.starts_with("ws_"), "{id}");
    assert_eq!(location, app.url(&format!("/v1/workspaces/{id}")));
    assert_eq!(ws["name"], "Docs team");
    assert_eq!(ws["repo_path"], repo.path.to_str().expect("utf-8 path"));
    assert_eq!(ws["active"], true);
    assert!(ws["created_at"].as_str().is_some_and(|t| t.ends_with('Z')));

    let fetched = app.get(location).expect(200).await;
    assert_eq!(fetched, ws);
}

#[tokio::test]
async fn a_workspace_without_repository_can_be_created() {
    let app = app!();
    let ws = app
        .post("/v1/workspaces")
        .json(&json!({"name": "No repo"}))
        .expect(201)
        .await;
    assert!(ws["repo_path"].is_null());
}

#[tokio::test]
async fn only_a_platform_token_creates_workspaces() {
    let app = app!();
    let ws = app.workspace("A").await;
    let admin = app.token(&ws, "admin").await;
    app.post("/v1/workspaces")
        .token(&admin)
        .json(&json!({"name": "Sneaky"}))
        .expect_error(403, "insufficient_scope")
        .await;
    let list = app.get("/v1/workspaces").expect(200).await;
    assert_eq!(list["data"].as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn repo_path_must_be_an_absolute_readable_git_repository() {
    let app = app!();
    let plain_dir = app.dir.path().join("not-a-repo");
    std::fs::create_dir_all(&plain_dir).expect("mkdir");
    let missing = app.dir.path().join("does-not-exist");
    for repo_path in [
        json!("relative/path"),
        json!(missing),
        json!(plain_dir),
        json!(""),
    ] {
        let err = app
            .post("/v1/workspaces")
            .json(&json!({"name": "X", "repo_path": repo_path}))
            .expect_error(422, "validation_failed")
            .await;
        assert_eq!(err["error"]["param"], "repo_path", "for {repo_path}");
    }
    let list = app.get("/v1/workspaces").expect(200).await;
    assert_eq!(list["data"], json!([]), "nothing was created");
}

#[tokio::test]
async fn name_must_be_1_to_200_characters() {
    let app = app!();
    for name in [String::new(), "   ".to_owned(), "n".repeat(201)] {
        let err = app
            .post("/v1/workspaces")
            .json(&json!({"name": name}))
            .expect_error(422, "validation_failed")
            .await;
        assert_eq!(err["error"]["param"], "name");
    }
    // 200 characters (not bytes) are allowed.
    app.post("/v1/workspaces")
        .json(&json!({"name": "é".repeat(200)}))
        .expect(201)
        .await;
}

#[tokio::test]
async fn get_and_list_show_every_workspace_to_the_platform() {
    let app = app!();
    let a = app.workspace("A").await;
    let b = app.workspace("B").await;
    app.delete(&format!("/v1/workspaces/{a}")).expect(200).await;

    let got = app.get(&format!("/v1/workspaces/{b}")).expect(200).await;
    assert_eq!(got["id"], b.as_str());
    assert_eq!(got["name"], "B");

    let list = app.get("/v1/workspaces").expect(200).await;
    let items = list["data"].as_array().expect("data");
    let ids: Vec<&str> = items.iter().filter_map(|w| w["id"].as_str()).collect();
    assert_eq!(
        ids,
        [b.as_str(), a.as_str()],
        "newest first, inactive included"
    );
    assert_eq!(items[1]["active"], false);
    assert_eq!(items[0]["active"], true);
    assert!(list["next_cursor"].is_null());

    let missing = "ws_0193000000007000800000000000000a";
    app.get(&format!("/v1/workspaces/{missing}"))
        .expect_error(404, "not_found")
        .await;
}

#[tokio::test]
async fn soft_delete_keeps_the_workspace_readable_and_is_repeatable() {
    let app = app!();
    let ws = app.workspace("Gone soon").await;
    let read = app.token(&ws, "read").await;
    let path = format!("/v1/workspaces/{ws}");
    let first = app.delete(&path).expect(200).await;
    assert_eq!(first["id"], ws.as_str());
    assert_eq!(first["active"], false);
    assert_eq!(first["name"], "Gone soon");

    let again = app.delete(&path).expect(200).await;
    assert_eq!(again, first, "a repeated delete answers the same");

    // Tokens of a deleted workspace still read.
    let got = app.get(&path).token(&read).expect(200).await;
    assert_eq!(got["active"], false);
    for list in ["runs", "articles", "webhooks"] {
        let res = app.get(&format!("{path}/{list}")).send().await;
        assert_eq!(res.status(), 200, "GET {list} on a deleted workspace");
    }
}

#[tokio::test]
async fn deleting_needs_admin_scope() {
    let app = app!();
    let ws = app.workspace("A").await;
    let path = format!("/v1/workspaces/{ws}");
    let publish = app.token(&ws, "publish").await;
    app.delete(&path)
        .token(&publish)
        .expect_error(403, "insufficient_scope")
        .await;
    let admin = app.token(&ws, "admin").await;
    let res = app.delete(&path).token(&admin).send().await;
    assert_eq!(
        res.status(),
        200,
        "a workspace admin may delete its own workspace"
    );
}

#[tokio::test]
async fn every_write_inside_a_deleted_workspace_is_a_conflict() {
    let app = app!();
    let ws = app.workspace("Doomed").await;
    let hook = app
        .webhook(&ws, "https://example.com/hook", &["article.published"])
        .await;
    let hook_id = hook["id"].as_str().expect("id").to_owned();
    let article = app
        .write_article(&ws, "src", domain::Surface::Blog, "# Hi\n")
        .await;
    app.delete(&format!("/v1/workspaces/{ws}"))
        .expect(200)
        .await;

    let writes: Vec<(Method, String, Option<Value>)> = vec![
        (
            Method::POST,
            format!("/v1/workspaces/{ws}/runs"),
            Some(json!({"feature_id": "src"})),
        ),
        (
            Method::POST,
            format!("/v1/workspaces/{ws}/webhooks"),
            Some(json!({"url": "https://example.org/x", "events": ["run.completed"]})),
        ),
        (
            Method::PATCH,
            format!("/v1/webhooks/{hook_id}"),
            Some(json!({"description": "new"})),
        ),
        (Method::DELETE, format!("/v1/webhooks/{hook_id}"), None),
        (
            Method::POST,
            format!("/v1/webhooks/{hook_id}/rotate-secret"),
            None,
        ),
        (
            Method::POST,
            format!("/v1/workspaces/{ws}/tokens"),
            Some(json!({"scope": "read"})),
        ),
        (
            Method::POST,
            format!("/v1/articles/{article}/publish"),
            None,
        ),
        (
            Method::POST,
            format!("/v1/articles/{article}/regenerate"),
            None,
        ),
    ];
    for (method, path, payload) in writes {
        let call = app.call(method.clone(), &path);
        let call = match &payload {
            Some(p) => call.json(p),
            None => call,
        };
        let err = call.expect_error(409, "conflict").await;
        assert!(
            err["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("deleted")),
            "{method} {path}: {err}"
        );
    }

    // Nothing changed behind the refusals.
    let hook_now = app
        .get(&format!("/v1/webhooks/{hook_id}"))
        .expect(200)
        .await;
    assert_eq!(hook_now["active"], true);
    assert!(hook_now["description"].is_null());
    let runs = app
        .get(&format!("/v1/workspaces/{ws}/runs"))
        .expect(200)
        .await;
    assert_eq!(runs["data"], json!([]));
    let art = app
        .get(&format!("/v1/articles/{article}"))
        .expect(200)
        .await;
    assert_eq!(art["status"], "draft");
}

// ---- The CLI, through the real binary ----

fn run(mut cmd: Command, args: &[&str]) -> Output {
    cmd.args(args).output().expect("run content-pipeline")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("utf-8 stdout")
}

/// A `serve` process; killed when dropped.
struct Served {
    child: Child,
    base: String,
    stderr: String,
}

impl Served {
    fn request(&self, method: Method, path: &str, token: &str) -> reqwest::RequestBuilder {
        reqwest::Client::new()
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(token)
    }

    async fn get(&self, path: &str, token: &str) -> reqwest::Response {
        let request = self.request(Method::GET, path, token);
        request.send().await.expect("request")
    }

    /// `POST /v1/workspaces` with `token`; the answer's status.
    async fn create_workspace(&self, token: &str, name: &str) -> reqwest::StatusCode {
        let request = self.request(Method::POST, "/v1/workspaces", token);
        let res = request.json(&json!({"name": name})).send().await;
        res.expect("request").status()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `content-pipeline serve` and waits until it logs the address it listens on.
fn serve(dir: &Path) -> Served {
    let child = cli(dir)
        .arg("serve")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn serve");
    // Owned by the guard from here on, so the process is killed on every path, panics included.
    let mut served = Served {
        child,
        base: String::new(),
        stderr: String::new(),
    };
    let stderr = served.child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(line) = rx.recv_timeout(left) else {
            panic!(
                "serve did not report its address; stderr:\n{}",
                served.stderr
            );
        };
        served.stderr.push_str(&line);
        served.stderr.push('\n');
        if line.contains("listening") {
            let at = line
                .find("127.0.0.1:")
                .expect("address in the listening line");
            let port: String = line[at + "127.0.0.1:".len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            served.base = format!("http://127.0.0.1:{port}");
            return served;
        }
    }
}

fn platform_token_in(stderr: &str) -> Option<String> {
    stderr
        .split_whitespace()
        .find(|w| w.starts_with("cpt_"))
        .map(str::to_owned)
}

#[tokio::test]
async fn cli_workspaces_create_prints_exactly_the_workspace_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = testkit::Repo::init(&dir.path().join("repo"));
    let repo_text = repo.path.to_str().expect("utf-8");

    let out = run(
        cli(dir.path()),
        &[
            "workspaces",
            "create",
            "--name",
            "From CLI",
            "--repo-path",
            repo_text,
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ws: Value = serde_json::from_str(&stdout(&out)).expect("stdout is only JSON");
    assert!(ws["id"].as_str().is_some_and(|id| id.starts_with("ws_")));
    assert_eq!(ws["name"], "From CLI");
    assert_eq!(ws["repo_path"], repo_text);
    assert_eq!(ws["active"], true);

    let bad = run(
        cli(dir.path()),
        &[
            "workspaces",
            "create",
            "--name",
            "Bad",
            "--repo-path",
            "relative",
        ],
    );
    assert!(!bad.status.success(), "a relative repo path is refused");
    assert!(stdout(&bad).is_empty());
}

#[tokio::test]
async fn cli_tokens_create_prints_exactly_a_working_token() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = run(cli(dir.path()), &["workspaces", "create", "--name", "W"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ws: Value = serde_json::from_str(&stdout(&out)).expect("json");
    let ws_id = ws["id"].as_str().expect("id").to_owned();

    let out = run(
        cli(dir.path()),
        &[
            "tokens",
            "create",
            "--scope",
            "read",
            "--workspace",
            &ws_id,
            "--name",
            "ci",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    let token = text.trim_end_matches('\n');
    assert!(token.starts_with("cpt_"), "{text:?}");
    assert!(
        !token.contains(char::is_whitespace),
        "only the token: {text:?}"
    );

    let out = run(cli(dir.path()), &["tokens", "create", "--scope", "admin"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let platform = stdout(&out).trim_end().to_owned();

    let server = serve(dir.path());
    let res = server.get("/v1/workspaces", token).await;
    assert_eq!(res.status(), 200);
    let list = body(res).await;
    assert_eq!(list["data"][0]["id"], ws_id.as_str());
    assert_eq!(list["data"].as_array().map(Vec::len), Some(1));
    let res = server
        .request(Method::POST, &format!("/v1/workspaces/{ws_id}/runs"), token)
        .json(&json!({"feature_id": "x"}))
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), 403, "the token has the read scope only");

    assert_eq!(
        server
            .create_workspace(&platform, "By platform token")
            .await,
        201,
        "a CLI platform token is a platform admin"
    );
}

#[tokio::test]
async fn cli_platform_tokens_must_be_admin() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = run(cli(dir.path()), &["tokens", "create", "--scope", "read"]);
    assert!(!out.status.success());
    assert!(stdout(&out).is_empty(), "no token printed");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--workspace"));
}

#[tokio::test]
async fn cli_openapi_prints_the_document() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = run(cli(dir.path()), &["openapi"]);
    assert!(out.status.success());
    let doc: Value = serde_json::from_str(&stdout(&out)).expect("stdout is only JSON");
    assert!(
        doc["openapi"]
            .as_str()
            .is_some_and(|v| v.starts_with("3.1."))
    );
    assert_eq!(doc["info"]["version"], "1.0.0");
    assert!(doc["paths"]["/v1/workspaces/{ws}/runs"]["post"].is_object());
}

#[tokio::test]
async fn first_start_prints_a_platform_token_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let first = serve(dir.path());
    let label_line = first
        .stderr
        .lines()
        .find(|l| l.to_lowercase().contains("platform") && l.to_lowercase().contains("token"))
        .unwrap_or_else(|| panic!("no labelled token on first start:\n{}", first.stderr));
    assert!(!label_line.is_empty());
    let token = platform_token_in(&first.stderr).expect("the token itself");
    assert_eq!(first.stderr.matches("cpt_").count(), 1, "printed once");

    assert_eq!(
        first.create_workspace(&token, "First").await,
        201,
        "the printed token is a platform admin token"
    );
    drop(first);

    let second = serve(dir.path());
    assert!(
        platform_token_in(&second.stderr).is_none(),
        "no token on the second start:\n{}",
        second.stderr
    );
    let res = second.get("/v1/workspaces", &token).await;
    assert_eq!(res.status(), 200, "the first token survives a restart");
}
