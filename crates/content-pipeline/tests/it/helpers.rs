//! The test harness. Each test starts its own service on port 0 with a database of its own
//! (`testkit::TestDatabase`: a SQLite file, or a PostgreSQL database when
//! `CONTENT_PIPELINE_TEST_ENGINE=postgres`), a clock it can move and a platform token, and talks
//! to it over HTTP:
//!
//! - `let app = app!();` or `let app = app!(TestApp::builder().workers().run_concurrency(1));`
//! - `app.post(path).token(&t).json(&body).expect(201).await` is the JSON body, after checking
//!   the status; `.expect_error(403, "insufficient_scope")`, `.expect_text(200)`,
//!   `.expect_with_headers(201)`, or `.send()` for the raw response;
//! - `app.drained().await` waits until the workers are idle; `testkit::eventually` polls.
//!
//! What the tests need from inside the service (its configuration fields, `Application`, token
//! minting, deprecations, the API's hashing) is reached from this file only.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use content_pipeline::{Application, Config, config};
use domain::{Clock, EventType, Surface};
use operations::{Caller, Operations};
use reqwest::header::HeaderMap;
use reqwest::{Method, Response};
use serde_json::{Value, json};
use store::Store;
use testkit::{Repo, TestDatabase, eventually};

/// A running service and what a test needs to talk to it.
pub struct TestApp {
    pub base: String,
    pub client: reqwest::Client,
    pub platform_token: String,
    pub store: Store,
    /// The use cases the server runs, for setting up what no request can.
    pub ops: Operations,
    pub clock: Clock,
    /// The service's database, for SQL the API cannot express.
    pub db: TestDatabase,
    /// The test's own files: the key file, fixture repositories.
    pub dir: tempfile::TempDir,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    server: tokio::task::JoinHandle<()>,
}

/// Starts a [`TestApp`] (`app!()` or `app!(TestApp::builder()…)`), or ends the test as
/// skipped when its database engine is absent and not required.
#[macro_export]
macro_rules! app {
    () => {
        $crate::app!($crate::helpers::TestApp::builder())
    };
    ($builder:expr) => {
        match $builder.start().await {
            Some(app) => app,
            None => return,
        }
    };
}

/// How a [`TestApp`] is configured before it starts.
#[must_use]
pub struct Builder {
    config: Config,
    dir: tempfile::TempDir,
    database: Option<TestDatabase>,
    deprecations: Vec<api::deprecation::Deprecation>,
}

impl Builder {
    /// Runs the background workers: webhook delivery, and runs with [`Builder::run_concurrency`].
    pub fn workers(mut self) -> Self {
        self.config.workers = true;
        self
    }

    /// The workers with one run at a time and no periodic drift check: the test's own runs and
    /// checks are the only ones.
    pub fn run_worker(self) -> Self {
        self.workers()
            .run_concurrency(1)
            .drift_interval(Duration::ZERO)
    }

    pub fn run_concurrency(mut self, runs: usize) -> Self {
        self.config.run_concurrency = runs;
        self
    }

    /// How often the workers check every workspace for drift; zero turns that off.
    pub fn drift_interval(mut self, every: Duration) -> Self {
        self.config.drift_interval = every;
        self
    }

    pub fn run_deadline(mut self, deadline: Duration) -> Self {
        self.config.run_deadline = deadline;
        self
    }

    pub fn run_memory_limit_mb(mut self, megabytes: u64) -> Self {
        self.config.run_memory_limit_mb = megabytes;
        self
    }

    pub fn limits(mut self, limits: pipeline::Limits) -> Self {
        self.config.limits = limits;
        self
    }

    /// Delays before each attempt, e.g. `0s,200ms`.
    pub fn webhook_retry_schedule(mut self, schedule: &str) -> Self {
        self.config.webhook_retry_schedule =
            config::parse_retry_schedule(schedule).expect("a retry schedule");
        self
    }

    pub fn webhook_timeout(mut self, timeout: Duration) -> Self {
        self.config.webhook_timeout = timeout;
        self
    }

    /// Ranges receivers may be in although they are private, e.g. `127.0.0.0/8`.
    pub fn webhook_allowed_cidrs(mut self, cidrs: &str) -> Self {
        self.config.webhook_allowed_cidrs = cidrs
            .split(',')
            .map(|c| c.trim().parse().expect("a CIDR range"))
            .collect();
        self
    }

    /// Any other setting, as the configuration file or environment would give it.
    pub fn configure(mut self, change: impl FnOnce(&mut Config)) -> Self {
        change(&mut self.config);
        self
    }

    pub fn webhook_concurrency(mut self, attempts: usize) -> Self {
        self.config.webhook_concurrency = attempts;
        self
    }

    pub fn log_stream_lifetime(mut self, lifetime: Duration) -> Self {
        self.config.log_stream_lifetime = lifetime;
        self
    }

    pub fn http_timeouts(mut self, header: Duration, idle: Duration) -> Self {
        self.config.http_header_timeout = header;
        self.config.http_idle_timeout = idle;
        self
    }

    pub fn http_max_connections(mut self, connections: usize) -> Self {
        self.config.http_max_connections = connections;
        self
    }

    pub fn http_max_header_bytes(mut self, bytes: usize) -> Self {
        self.config.http_max_header_bytes = bytes;
        self
    }

    /// Polishes prose with the chat-completions endpoint at `url`.
    pub fn polish(mut self, url: &str, model: &str, api_key: &str, timeout: Duration) -> Self {
        self.config.polish_url = Some(config::ServiceUrl::http(url).expect("an http URL"));
        self.config.polish_model = model.to_owned();
        self.config.polish_api_key = Some(domain::Secret::new(api_key.to_owned()));
        self.config.polish_timeout = timeout;
        self
    }

    /// Shares the rate limiter through the Redis at `url`.
    pub fn redis(mut self, url: &str) -> Self {
        self.config.redis_url = Some(config::ServiceUrl::redis(url).expect("a Redis URL"));
        self
    }

    /// How long the node trusts a token it read (zero: not at all).
    pub fn principal_cache_ttl(mut self, ttl: Duration) -> Self {
        self.config.principal_cache_ttl = ttl;
        self
    }

    pub fn workspace_max_tokens(mut self, tokens: u32) -> Self {
        self.config.workspace_max_tokens = tokens;
        self
    }

    pub fn workspace_max_webhooks(mut self, webhooks: u32) -> Self {
        self.config.workspace_max_webhooks = webhooks;
        self
    }

    pub fn workspace_max_rate_limit(mut self, limit: u32) -> Self {
        self.config.workspace_max_rate_limit = limit;
        self
    }

    /// Announces the operation `method path` (a route template) as deprecated.
    pub fn deprecated(
        mut self,
        method: Method,
        path: &str,
        since: time::OffsetDateTime,
        sunset: time::OffsetDateTime,
        link: &str,
    ) -> Self {
        // The table is static in the server; a test's entries live as long as the test binary.
        self.deprecations.push(api::deprecation::Deprecation {
            method,
            path: String::leak(path.to_owned()),
            since,
            sunset,
            link: String::leak(link.to_owned()),
        });
        self
    }

    /// How long a portal session may stay unused, and last in all.
    pub fn session_timeouts(mut self, idle: Duration, lifetime: Duration) -> Self {
        self.config.session_idle_timeout = idle;
        self.config.session_lifetime = lifetime;
        self
    }

    /// Serves from `db` (another node's database) instead of a database of its own.
    pub fn database(mut self, db: &TestDatabase) -> Self {
        self.database = Some(db.clone());
        self
    }

    /// Starts the service; `None` only when its database engine is absent and not required.
    pub async fn start(self) -> Option<TestApp> {
        Some(self.try_start().await?.expect("start the service"))
    }

    /// Like [`Builder::start`], giving a start-up error back instead of failing the test.
    pub async fn try_start(mut self) -> Option<anyhow::Result<TestApp>> {
        let db = match self.database.take() {
            Some(db) => db,
            None => TestDatabase::selected().await?,
        };
        self.config.database_url = config::DatabaseUrl::parse(db.url()).expect("database url");
        let clock = Clock::system();
        let deprecations: &'static [api::deprecation::Deprecation] = match self.deprecations {
            none if none.is_empty() => api::deprecation::DEPRECATIONS,
            listed => Vec::leak(listed),
        };
        let app = match Application::build(self.config, clock.clone())
            .await
            .and_then(|app| app.announcing(deprecations))
        {
            Ok(app) => app,
            Err(e) => return Some(Err(e)),
        };
        let base = format!("http://{}", app.address);
        let store = app.store.clone();
        let ops = app.state.ops.clone();
        // The first-start token is printed, not returned; mint our own platform token.
        let platform_token = mint_platform_token(&ops, "tests", 1_000_000).await;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(async move {
            // Until `TestApp::stop`; a dropped `TestApp` leaves it serving until the test ends.
            let shutdown = async move {
                if stopped.await.is_err() {
                    std::future::pending::<()>().await;
                }
            };
            let _ = app.run_until(shutdown).await;
        });
        Some(Ok(TestApp {
            base,
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("client"),
            platform_token,
            store,
            ops,
            clock,
            db,
            dir: self.dir,
            stop: Some(stop),
            server,
        }))
    }
}

/// A platform token minted as the operator does it (the CLI): its secret text.
async fn mint_platform_token(ops: &Operations, name: &str, rate_limit: i64) -> String {
    let (writer, name) = (ops.clone(), name.to_owned());
    let minted = ops
        .store
        .write(move |tx| {
            Box::pin(async move {
                writer
                    .create_platform_token(tx, &Caller::operator(), &name, Some(rate_limit))
                    .await
            })
        })
        .await
        .expect("platform token");
    minted.secret
}

impl TestApp {
    /// A service with the workers off (runs stay queued, deliveries pending), the real binary
    /// as the sandbox of runs and drift checks, and a database of its own.
    pub fn builder() -> Builder {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = Config {
            bind: "127.0.0.1:0".into(),
            secret_key: Some(domain::Secret::new(webhooks::SecretBox::generate_key())),
            key_file: dir.path().join("key"),
            workers: false,
            run_concurrency: 0,
            sandbox_program: Some(PathBuf::from(env!("CARGO_BIN_EXE_content-pipeline"))),
            mirror_dir: Some(dir.path().join("mirrors")),
            ..Config::default()
        };
        Builder {
            config,
            dir,
            database: None,
            deprecations: Vec::new(),
        }
    }

    /// Tells the server to stop; its task ends once it has.
    pub fn stop(&mut self) -> &mut tokio::task::JoinHandle<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        &mut self.server
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn get(&self, path: &str) -> Call<'_> {
        self.call(Method::GET, path)
    }

    pub fn post(&self, path: &str) -> Call<'_> {
        self.call(Method::POST, path)
    }

    pub fn patch(&self, path: &str) -> Call<'_> {
        self.call(Method::PATCH, path)
    }

    pub fn delete(&self, path: &str) -> Call<'_> {
        self.call(Method::DELETE, path)
    }

    /// A request to `path` on this service, or to a whole URL (a `Location`, a public page),
    /// with the platform token.
    pub fn call(&self, method: Method, path: &str) -> Call<'_> {
        let url = match path.starts_with("http") {
            true => path.to_owned(),
            false => self.url(path),
        };
        Call {
            app: self,
            method,
            url,
            token: Some(self.platform_token.clone()),
            headers: Vec::new(),
            body: None,
        }
    }

    /// The typed client of this service with `token` (the tests' vocabulary for anything that
    /// is not about the raw HTTP).
    pub fn api(&self, token: &str) -> client::Client {
        client::Client::new(&self.base, token).expect("a client of the test server")
    }

    /// The typed client with the platform token.
    pub fn platform_api(&self) -> client::Client {
        self.api(&self.platform_token)
    }

    /// Another platform token, with a rate limit of its own, as the operator makes them.
    pub async fn mint_platform_token(&self, name: &str, rate_limit: i64) -> String {
        mint_platform_token(&self.ops, name, rate_limit).await
    }

    /// The id of the token whose secret is `token`.
    pub async fn token_id(&self, token: &str) -> String {
        self.store
            .token_by_hash(&operations::tokens::hash_token(token))
            .await
            .expect("token lookup")
            .expect("a known token")
            .id
            .to_string()
    }

    /// A fixture repository `name` in the test's folder: `src/lib.rs` with one documented
    /// function, `src/README.md` saying how to use it (so that the help center has a
    /// walkthrough) and a manifest declaring [`feature_ids`], in one commit.
    pub fn repo(&self, name: &str) -> Repo {
        let mut repo = Repo::init(&self.dir.path().join(name));
        let manifest: String = feature_ids()
            .iter()
            .map(|id| {
                format!(
                    "[[features]]\nid = \"{id}\"\ntitle = \"Feature {id}\"\nsummary = \"What {id} does.\"\npaths = [\"src/**\"]\n\n"
                )
            })
            .collect();
        repo.write(
            "src/lib.rs",
            "/// Adds.\npub fn add(a: i32, b: i32) -> i32 { a + b }\n",
        )
        .write(
            "src/README.md",
            "# Numbers\n\n## Usage\n\n1. Add `numbers` to your dependencies.\n2. Call `add(1, 2)`.\n",
        )
        .write(".content-pipeline/features.toml", manifest);
        repo.commit("feat: add numbers");
        repo
    }

    /// Creates a workspace on a fresh fixture repository; returns its id.
    pub async fn workspace(&self, name: &str) -> String {
        static REPOS: AtomicUsize = AtomicUsize::new(0);
        let repo = self.repo(&format!("repo-{}", REPOS.fetch_add(1, Ordering::Relaxed)));
        self.workspace_on(name, &repo.path).await
    }

    /// Creates a workspace on the repository at `repo`; returns its id.
    pub async fn workspace_on(&self, name: &str, repo: &Path) -> String {
        let body = client::CreateWorkspace {
            name: name.into(),
            repo_path: Some(repo.display().to_string()),
            ..Default::default()
        };
        let ws = self.platform_api().create_workspace(&body).await;
        ws.expect("create the workspace").id.to_string()
    }

    /// A token of `scope` in workspace `ws`, with the highest quota a workspace token may have.
    pub async fn token(&self, ws: &str, scope: &str) -> String {
        let highest = api::WorkspaceQuotas::default().rate_limit;
        self.token_with_limit(ws, scope, i64::from(highest)).await
    }

    pub async fn token_with_limit(&self, ws: &str, scope: &str, limit: i64) -> String {
        let body = client::CreateToken {
            scope: scope.parse().expect("a scope"),
            name: Some(format!("{scope} token")),
            rate_limit: Some(limit),
            expires_at: None,
        };
        let ws = ws.parse().expect("a workspace id");
        let created = self.platform_api().create_token(&ws, &body).await;
        created
            .expect("create the token")
            .token
            .expect("the secret")
    }

    /// Creates a webhook subscription; returns its JSON (with the secret).
    pub async fn webhook(&self, ws: &str, url: &str, events: &[&str]) -> Value {
        let body = client::CreateWebhook {
            url: url.into(),
            events: events
                .iter()
                .map(|e| e.parse().expect("an event type"))
                .collect(),
            ..Default::default()
        };
        let ws = ws.parse().expect("a workspace id");
        let created = self.platform_api().create_webhook(&ws, &body).await;
        serde_json::to_value(created.expect("create the webhook")).expect("JSON")
    }

    /// Triggers a run of `feature` in `ws` and waits until it has finished.
    pub async fn run_feature(&self, ws: &str, feature: &str) -> Value {
        let body = client::TriggerRun {
            feature_id: feature.into(),
            ..Default::default()
        };
        let ws = ws.parse().expect("a workspace id");
        let run = self.platform_api().trigger_run(&ws, &body).await;
        let run = run.unwrap_or_else(|e| panic!("trigger {feature}: {e}"));
        self.wait_for_run(&run.id.to_string()).await
    }

    /// Polls a run until it has finished (succeeded or failed) and returns it.
    pub async fn wait_for_run(&self, run: &str) -> Value {
        let id = run.parse().expect("a run id");
        let api = self.platform_api();
        let finished = eventually(
            Duration::from_secs(30),
            &format!("run {run} finished"),
            || async {
                let run = api.get_run(&id).await.expect("read the run");
                run.status.is_finished().then_some(run)
            },
        )
        .await;
        serde_json::to_value(finished).expect("JSON")
    }

    /// Waits until the workers have nothing left to do: no run queued or running, no delivery
    /// pending, waiting for a retry or in flight, no drift check queued or running.
    pub async fn drained(&self) {
        const OUTSTANDING: &str = "SELECT
              (SELECT COUNT(*) FROM runs WHERE status IN ('queued', 'running'))
            + (SELECT COUNT(*) FROM deliveries WHERE status IN ('pending', 'failed', 'delivering'))
            + (SELECT COUNT(*) FROM drift_checks WHERE status IN ('queued', 'running'))";
        eventually(Duration::from_secs(30), "the workers drained", || async {
            (self.db.count(OUTSTANDING).await == 0).then_some(())
        })
        .await;
    }

    /// Writes an article version through the store, as a run would.
    pub async fn write_article_version(
        &self,
        new: &store::NewArticleVersion,
    ) -> store::ArticleRecord {
        let mut tx = self.store.begin().await.expect("tx");
        let article = tx
            .write_article_version(new, self.clock.timestamp())
            .await
            .expect("write article version");
        tx.commit().await.expect("commit");
        article
    }

    /// Writes the next version of the (workspace, feature, surface) article; returns its id.
    pub async fn write_article(
        &self,
        ws: &str,
        feature: &str,
        surface: Surface,
        mdx_body: &str,
    ) -> String {
        let new = store::NewArticleVersion {
            workspace_id: ws.parse().expect("workspace id"),
            feature_id: feature.to_owned(),
            surface,
            title: format!("{feature} on {surface}"),
            status: domain::ArticleStatus::Draft,
            mdx_body: mdx_body.to_owned(),
            plain_text: pipeline::plain_text(mdx_body),
            provenance: json!({"commit": "0123456789abcdef0123456789abcdef01234567"}),
            run_id: domain::RunId::generate(),
        };
        self.write_article_version(&new).await.id.to_string()
    }

    /// Appends a line to a run's log at level info, as the run's `stage` would.
    pub async fn log(&self, run: &str, stage: &str, message: &str) {
        let run = run.parse().expect("run id");
        self.store
            .log_run_event(
                run,
                domain::LogLevel::Info,
                stage.parse().expect("a log stage"),
                message,
                &json!({}),
                self.clock.timestamp(),
            )
            .await
            .expect("log");
    }

    /// Records an event of `ws` the way the pipeline does (in a write transaction); returns
    /// its id.
    pub async fn record_event(&self, ws: &str, event_type: EventType, data: Value) -> String {
        let ws = ws.parse().expect("workspace id");
        let mut tx = self.store.begin().await.expect("tx");
        let event = tx
            .record_event(ws, event_type, data, self.clock.timestamp())
            .await
            .expect("record event");
        tx.commit().await.expect("commit");
        event.id.to_string()
    }
}

/// One request, built up and then sent: with the platform token unless told otherwise, and
/// no body unless given one.
#[must_use]
pub struct Call<'a> {
    app: &'a TestApp,
    method: Method,
    url: String,
    token: Option<String>,
    headers: Vec<(&'static str, String)>,
    body: Option<Body>,
}

enum Body {
    Json(Value),
    Text(String),
}

impl Call<'_> {
    pub fn token(mut self, token: &str) -> Self {
        self.token = Some(token.to_owned());
        self
    }

    /// Without an `Authorization` header.
    pub fn anonymous(mut self) -> Self {
        self.token = None;
        self
    }

    pub fn header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    pub fn json(mut self, body: &Value) -> Self {
        self.body = Some(Body::Json(body.clone()));
        self
    }

    /// A body sent as it is, without a `Content-Type` unless a header gives one.
    pub fn text(mut self, body: impl Into<String>) -> Self {
        self.body = Some(Body::Text(body.into()));
        self
    }

    pub async fn send(self) -> Response {
        let mut request = self.app.client.request(self.method, self.url);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        for (name, value) in self.headers {
            request = request.header(name, value);
        }
        request = match self.body {
            Some(Body::Json(v)) => request.json(&v),
            Some(Body::Text(text)) => request.body(text),
            None => request,
        };
        request.send().await.expect("request")
    }

    /// Sends; fails the test unless the answer has `status`; returns the JSON body.
    pub async fn expect(self, status: u16) -> Value {
        self.expect_with_headers(status).await.1
    }

    /// Like [`Call::expect`], with the response's headers.
    pub async fn expect_with_headers(self, status: u16) -> (HeaderMap, Value) {
        let label = format!("{} {}", self.method, self.url);
        let res = self.send().await;
        let headers = res.headers().clone();
        let text = checked(res, status, &label).await;
        let v = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{label}: not JSON: {text}"));
        (headers, v)
    }

    /// Like [`Call::expect`], for a body that is not JSON.
    pub async fn expect_text(self, status: u16) -> String {
        let label = format!("{} {}", self.method, self.url);
        checked(self.send().await, status, &label).await
    }

    /// Sends and asserts the error envelope (see [`expect_error`]).
    pub async fn expect_error(self, status: u16, kind: &str) -> Value {
        expect_error(self.send().await, status, kind).await
    }
}

async fn checked(res: Response, status: u16, label: &str) -> String {
    let got = res.status();
    let text = res.text().await.expect("body");
    assert_eq!(got, status, "{label}: {text}");
    text
}

/// The JSON body of a response read raw.
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

/// A token of the right shape that was never issued.
pub fn unissued_token() -> String {
    operations::tokens::generate_token()
}

/// The idempotency layer's fingerprint of a request.
pub fn request_fingerprint(method: &Method, path: &str, body: &Value) -> String {
    api::idempotency::fingerprint(method, path, body.to_string().as_bytes())
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

/// The real binary, configured for a SQLite file and a key file in `dir`, run in `dir`.
pub fn cli(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_content-pipeline"));
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env(
            "CONTENT_PIPELINE_DATABASE_URL",
            format!("sqlite://{}", dir.join("cli.db").display()),
        )
        .env("CONTENT_PIPELINE_KEY_FILE", dir.join("server.key"))
        .env("CONTENT_PIPELINE_BIND", "127.0.0.1:0")
        .env("NO_COLOR", "1")
        .current_dir(dir);
    cmd
}

/// An optional tool of a test is missing. The test goes on without it after a `SKIPPED` line,
/// unless its variable `required` (a `CONTENT_PIPELINE_REQUIRE_*`, which `.ci/run` sets) is
/// `1`: then its absence fails the test.
pub fn tool_missing(required: &str, what: &str) {
    assert!(
        std::env::var(required).as_deref() != Ok("1"),
        "{required}=1 but {what}"
    );
    eprintln!("SKIPPED: {what}; set {required}=1 to fail instead");
}
