//! The test harness: every test gets its own running service on port 0 with its own database
//! (a SQLite file in a temp dir, or a fresh PostgreSQL database when
//! `CONTENT_PIPELINE_TEST_ENGINE=postgres`), a controllable clock, and a platform token.

use std::path::{Path, PathBuf};
use std::process::Command;

use content_pipeline::config::DatabaseUrl;
use content_pipeline::{Application, Config};
use domain::Clock;
use reqwest::{Method, RequestBuilder, Response};
use serde_json::{Value, json};
use store::Store;

pub const DEFAULT_PG_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

pub struct TestApp {
    pub base: String,
    pub client: reqwest::Client,
    pub platform_token: String,
    pub store: Store,
    /// The use cases the server runs, for setting up what no request can.
    pub ops: operations::Operations,
    pub clock: Clock,
    pub dir: tempfile::TempDir,
    _server: tokio::task::JoinHandle<()>,
}

/// Which engine the HTTP tests run on.
pub fn engine() -> &'static str {
    match std::env::var("CONTENT_PIPELINE_TEST_ENGINE").as_deref() {
        Ok("postgres") => "postgres",
        _ => "sqlite",
    }
}

/// A fresh PostgreSQL database URL, or `None` (with a visible message) when no server answers
/// and `CONTENT_PIPELINE_REQUIRE_POSTGRES` is not set.
pub async fn fresh_postgres() -> Option<String> {
    let admin = std::env::var("CONTENT_PIPELINE_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| DEFAULT_PG_URL.to_owned());
    let required = std::env::var("CONTENT_PIPELINE_REQUIRE_POSTGRES").as_deref() == Ok("1");
    let pool = match sqlx::postgres::PgPoolOptions::new()
        .max_connections(1)
        .acquire_timeout(std::time::Duration::from_secs(3))
        .connect(&admin)
        .await
    {
        Ok(p) => p,
        Err(e) if !required => {
            eprintln!(
                "SKIPPED: PostgreSQL is not reachable at {admin} ({e}); set CONTENT_PIPELINE_REQUIRE_POSTGRES=1 to fail instead"
            );
            return None;
        }
        Err(e) => panic!("PostgreSQL is required but not reachable at {admin}: {e}"),
    };
    let name = format!("cp_test_{}", uuid_like());
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&pool)
        .await
        .expect("create test database");
    pool.close().await;
    let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap_or(&admin);
    Some(format!("{base}/{name}"))
}

/// A platform token minted as the operator does it (the CLI): its secret text.
pub async fn mint_platform_token(
    ops: &operations::Operations,
    name: &str,
    rate_limit: Option<i64>,
) -> String {
    let (writer, name) = (ops.clone(), name.to_owned());
    let minted = ops
        .store
        .write(move |tx| {
            Box::pin(async move {
                writer
                    .create_platform_token(tx, &operations::Caller::operator(), &name, rate_limit)
                    .await
            })
        })
        .await
        .expect("platform token");
    minted.secret
}

fn uuid_like() -> String {
    domain::RunId::generate()
        .to_string()
        .trim_start_matches("run_")
        .to_owned()
}

impl TestApp {
    pub async fn spawn() -> Option<TestApp> {
        Self::spawn_with(|_| {}).await
    }

    /// Starts a service; `None` only when the PostgreSQL engine was asked for and is absent.
    pub async fn spawn_with(configure: impl FnOnce(&mut Config)) -> Option<TestApp> {
        Self::spawn_full(configure, api::deprecation::DEPRECATIONS).await
    }

    /// Like [`TestApp::spawn_with`], with operations announced as deprecated.
    pub async fn spawn_full(
        configure: impl FnOnce(&mut Config),
        deprecations: &'static [api::deprecation::Deprecation],
    ) -> Option<TestApp> {
        let dir = tempfile::tempdir().expect("tempdir");
        let database_url = match engine() {
            "postgres" => fresh_postgres().await?,
            _ => format!("sqlite://{}", dir.path().join("test.db").display()),
        };
        let mut config = Config {
            database_url: DatabaseUrl::parse(&database_url).expect("database url"),
            bind: "127.0.0.1:0".into(),
            secret_key: Some(domain::Secret::new(webhooks::SecretBox::generate_key())),
            key_file: dir.path().join("key"),
            // API tests want runs to stay queued and deliveries pending; tests of the workers
            // turn them on.
            workers: false,
            run_concurrency: 0,
            // Runs and drift checks execute in children of the real binary.
            sandbox_program: Some(PathBuf::from(env!("CARGO_BIN_EXE_content-pipeline"))),
            ..Config::default()
        };
        configure(&mut config);
        let clock = Clock::system();
        let app = Application::build(config, clock.clone())
            .await
            .and_then(|app| app.announcing(deprecations))
            .expect("build app");
        let base = format!("http://{}", app.address);
        let store = app.store.clone();
        let ops = app.state.ops.clone();
        // The first-start token is printed, not returned; mint our own platform token.
        let platform_token = mint_platform_token(&ops, "tests", Some(1_000_000)).await;
        let server = tokio::spawn(async move {
            let _ = app.run_until(std::future::pending()).await;
        });
        Some(TestApp {
            base,
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("client"),
            platform_token,
            store,
            ops,
            clock,
            dir,
            _server: server,
        })
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn request(&self, method: Method, path: &str, token: &str) -> RequestBuilder {
        self.client
            .request(method, self.url(path))
            .bearer_auth(token)
    }

    pub async fn get(&self, path: &str, token: &str) -> Response {
        self.request(Method::GET, path, token)
            .send()
            .await
            .expect("request")
    }

    pub async fn send_json(
        &self,
        method: Method,
        path: &str,
        token: &str,
        body: &Value,
    ) -> Response {
        self.request(method, path, token)
            .json(body)
            .send()
            .await
            .expect("request")
    }

    pub async fn post(&self, path: &str, token: &str, body: &Value) -> Response {
        self.send_json(Method::POST, path, token, body).await
    }

    /// A real git repository with one commit, inside the test's temp dir.
    pub fn git_repo(&self, name: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::create_dir_all(path.join("src")).expect("mkdir");
        std::fs::write(
            path.join("src/lib.rs"),
            "/// Adds.\npub fn add(a: i32, b: i32) -> i32 { a + b }\n",
        )
        .expect("write");
        let mut manifest = String::new();
        for id in feature_ids() {
            manifest.push_str(&format!(
                "[[features]]\nid = \"{id}\"\ntitle = \"Feature {id}\"\nsummary = \"What {id} does.\"\npaths = [\"src/**\"]\n\n"
            ));
        }
        std::fs::create_dir_all(path.join(".content-pipeline")).expect("mkdir");
        std::fs::write(path.join(".content-pipeline/features.toml"), manifest).expect("write");
        git(&path, &["init", "-q", "-b", "main"]);
        git(&path, &["add", "."]);
        git(&path, &["commit", "-q", "-m", "feat: add numbers"]);
        path
    }

    /// Polls a run until it has finished (succeeded or failed) and returns it.
    pub async fn wait_for_run(&self, run: &str) -> Value {
        for _ in 0..300 {
            let v = body(
                self.get(&format!("/v1/runs/{run}"), &self.platform_token)
                    .await,
            )
            .await;
            if v["status"] == "succeeded" || v["status"] == "failed" {
                return v;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!("run {run} did not finish");
    }

    /// Triggers a run of `feature` in `ws` and waits until it has finished.
    pub async fn run_feature(&self, ws: &str, feature: &str) -> Value {
        let res = self
            .post(
                &format!("/v1/workspaces/{ws}/runs"),
                &self.platform_token,
                &json!({"feature_id": feature}),
            )
            .await;
        assert!(
            res.status().is_success(),
            "trigger {feature}: {}",
            res.status()
        );
        let run = body(res).await;
        self.wait_for_run(run["id"].as_str().expect("run id")).await
    }

    /// Creates a workspace on a fresh repository; returns its id.
    pub async fn workspace(&self, name: &str) -> String {
        let repo = self.git_repo(&format!("repo-{}", uuid_like()));
        let res = self
            .post(
                "/v1/workspaces",
                &self.platform_token,
                &json!({"name": name, "repo_path": repo}),
            )
            .await;
        assert_eq!(res.status(), 201, "create workspace");
        body(res).await["id"].as_str().expect("id").to_owned()
    }

    /// A token of `scope` in workspace `ws`, with the highest quota a workspace token may have
    /// unless one is given.
    pub async fn token(&self, ws: &str, scope: &str) -> String {
        self.token_with_limit(
            ws,
            scope,
            i64::from(api::WorkspaceQuotas::default().rate_limit),
        )
        .await
    }

    pub async fn token_with_limit(&self, ws: &str, scope: &str, limit: i64) -> String {
        let res = self
            .post(
                &format!("/v1/workspaces/{ws}/tokens"),
                &self.platform_token,
                &json!({"scope": scope, "name": format!("{scope} token"), "rate_limit": limit}),
            )
            .await;
        assert_eq!(res.status(), 201, "create token");
        body(res).await["token"].as_str().expect("token").to_owned()
    }
}

/// The feature ids the fixture repository's manifest declares (besides implicit features such
/// as `src`): `f0`…`f149`, `old0`…`old59`, `new0`…`new39` and a few names.
pub fn feature_ids() -> Vec<String> {
    let mut ids: Vec<String> = ["a", "b", "docs", "ok", "zzz", "x"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    ids.extend((0..150).map(|i| format!("f{i}")));
    ids.extend((0..60).map(|i| format!("old{i}")));
    ids.extend((0..40).map(|i| format!("new{i}")));
    ids
}

pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

pub async fn body(res: Response) -> Value {
    let text = res.text().await.expect("body");
    serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"))
}

/// Asserts the contract's error envelope and returns the body.
pub async fn expect_error(res: Response, status: u16, kind: &str) -> Value {
    assert_eq!(res.status(), status, "status");
    let request_id = res
        .headers()
        .get("request-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .expect("Request-Id header");
    let base = res.url().origin().ascii_serialization();
    let v = body(res).await;
    assert_eq!(v["error"]["type"], kind, "error type in {v}");
    assert_eq!(v["error"]["request_id"], request_id.as_str());
    assert_eq!(
        v["error"]["docs"],
        format!("{base}/docs/errors#{kind}").as_str()
    );
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty())
    );
    v
}

/// Unwraps the harness's `Option` or ends the test as skipped.
#[macro_export]
macro_rules! app {
    () => {
        match $crate::helpers::TestApp::spawn().await {
            Some(app) => app,
            None => return,
        }
    };
    ($configure:expr) => {
        match $crate::helpers::TestApp::spawn_with($configure).await {
            Some(app) => app,
            None => return,
        }
    };
}

/// Direct SQL on a test's database, for fixtures the API cannot create (a failing
/// subscription, a delivered delivery) and for looking at the outbox.
pub struct Database {
    pub url: String,
}

impl Database {
    pub async fn execute(&self, sql: &str) -> u64 {
        let sql = sqlx::AssertSqlSafe(sql.to_owned());
        if self.url.starts_with("sqlite:") {
            let pool = sqlx::SqlitePool::connect(&self.url)
                .await
                .expect("sqlite connect");
            let n = sqlx::query(sql)
                .execute(&pool)
                .await
                .expect("execute")
                .rows_affected();
            pool.close().await;
            n
        } else {
            let pool = sqlx::PgPool::connect(&self.url).await.expect("pg connect");
            let n = sqlx::query(sql)
                .execute(&pool)
                .await
                .expect("execute")
                .rows_affected();
            pool.close().await;
            n
        }
    }

    pub async fn count(&self, sql: &str) -> i64 {
        let sql = sqlx::AssertSqlSafe(sql.to_owned());
        if self.url.starts_with("sqlite:") {
            let pool = sqlx::SqlitePool::connect(&self.url)
                .await
                .expect("sqlite connect");
            let n: i64 = sqlx::query_scalar(sql)
                .fetch_one(&pool)
                .await
                .expect("count");
            pool.close().await;
            n
        } else {
            let pool = sqlx::PgPool::connect(&self.url).await.expect("pg connect");
            let n: i64 = sqlx::query_scalar(sql)
                .fetch_one(&pool)
                .await
                .expect("count");
            pool.close().await;
            n
        }
    }
}

impl TestApp {
    /// Like [`TestApp::spawn`], also giving direct access to the service's database.
    pub async fn spawn_with_database() -> Option<(TestApp, Database)> {
        let mut url = String::new();
        let app = Self::spawn_with(|c| url = c.database_url.expose().to_owned()).await?;
        Some((app, Database { url }))
    }

    /// Writes the next version of the (workspace, feature, surface) article through the store,
    /// as a run would; returns the article's id.
    pub async fn write_article(
        &self,
        ws: &str,
        feature: &str,
        surface: domain::Surface,
        mdx_body: &str,
    ) -> String {
        let new = store::NewArticleVersion {
            workspace_id: ws.parse().expect("workspace id"),
            feature_id: feature.to_owned(),
            surface,
            title: format!("{feature} on {surface}"),
            status: domain::ArticleStatus::Draft,
            mdx_body: mdx_body.to_owned(),
            provenance: json!({"commit": "0123456789abcdef0123456789abcdef01234567"}),
            run_id: domain::RunId::generate(),
        };
        let mut tx = self.store.begin().await.expect("tx");
        let article = tx
            .write_article_version(&new, self.clock.timestamp())
            .await
            .expect("write article version");
        tx.commit().await.expect("commit");
        article.id.to_string()
    }

    /// Creates a webhook subscription on a public URL; returns its JSON (with the secret).
    pub async fn webhook(&self, ws: &str, url: &str, events: &[&str]) -> Value {
        let res = self
            .post(
                &format!("/v1/workspaces/{ws}/webhooks"),
                &self.platform_token,
                &json!({"url": url, "events": events}),
            )
            .await;
        assert_eq!(res.status(), 201, "create webhook");
        body(res).await
    }

    pub async fn delete(&self, path: &str, token: &str) -> Response {
        self.request(Method::DELETE, path, token)
            .send()
            .await
            .expect("request")
    }
}

/// Like `app!()`, also binding the database: `let (app, db) = app_db!();`.
#[macro_export]
macro_rules! app_db {
    () => {
        match $crate::helpers::TestApp::spawn_with_database().await {
            Some(pair) => pair,
            None => return,
        }
    };
}
