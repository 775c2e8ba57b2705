//! Page benchmark (issue 12: "a portal page renders in under 50 ms at p99 with 1,000 runs and
//! 1,000 articles in the workspace"). Seeds a fresh database through the store with one
//! workspace of 1,000 finished runs (with their logs) and 1,000 articles (about 3,700
//! versions, half of the articles published), starts the release binary on it with
//! `serve --no-workers`, and times GET requests to each page given, one after the other over
//! a kept-alive connection (or `BENCH_CONCURRENCY` at once), after a warm-up:
//!
//!     bash bench/portal.sh                                     # the stand-in pages
//!     bash bench/portal.sh '/portal/{ws}/runs' '/portal/articles/{article}'
//!     BENCH_ENGINE=postgres bash bench/portal.sh               # PostgreSQL
//!
//! A page is a path on the service in which `{ws}`, `{run}` and `{article}` (a published
//! article) are replaced by seeded ids. API paths (`/v1/…`) are sent with a read token of the
//! workspace; every request carries `Cookie: $BENCH_COOKIE` when it is set. Prints, per page,
//! the latency distribution and the server's CPU time per request (user + system time of the
//! server process over the timed requests, from `/proc` in 10 ms clock ticks, divided by their
//! number: ±10 µs at 1,000 requests). Any answer but 200 stops the benchmark.
//!
//! Portal pages need a signed-in member of the workspace: the benchmark makes one with `users
//! create` and signs them in through the printed link, over HTTP, as a person would; every
//! request carries that session's cookie (or `$BENCH_COOKIE`).
//!
//! Settings: `BENCH_REQUESTS` (timed requests per page, default 1,000), `BENCH_CONCURRENCY`
//! (default 1), `BENCH_PUBLISH_ALL=1` (publish all 1,000 articles, not every other one: the
//! search figures), `BENCH_ENGINE=postgres` (a fresh database on
//! `CONTENT_PIPELINE_TEST_POSTGRES_URL`'s server, as the tests make them; SQLite otherwise),
//! `BENCH_COOKIE`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use domain::{
    ArticleStatus, Clock, LogLevel, LogStage, RunId, RunSource, RunStatus, Surface, Tier,
    WorkspaceId,
};
use store::{Artifact, NewArticleVersion, NewRun, RunEnding, Store};
use testkit::TestDatabase;

mod common;
use common::{SERVER, cpu_time, free_port, start};

const RUNS: usize = 1_000;
/// Features of the workspace; each run writes the four articles of one, so the first 250
/// runs create the 1,000 articles and the later ones add versions.
const FEATURES: usize = 250;
/// Every tenth run fails and writes nothing.
const FAILING_EVERY: usize = 10;
const WARM_UP: usize = 50;

/// The pages measured when none are given: the portal's, as a signed-in member with the
/// publish role sees them, the published site's, and, as the baseline in the same run, the
/// API's pages with the same data.
const DEFAULT_PAGES: &[&str] = &[
    "/portal/w/{ws}/runs",
    "/portal/w/{ws}/runs?status=failed",
    "/portal/w/{ws}/runs/{run}",
    "/portal/w/{ws}/articles",
    "/portal/w/{ws}/articles?surface=dev-docs",
    "/portal/w/{ws}/articles/{article}",
    "/portal/w/{ws}/articles/{article}/source",
    "/portal/w/{ws}/articles/{article}/versions",
    "/portal/w/{ws}/articles/{article}/diff",
    "/published/{article}",
    "/published/workspaces/{ws}",
    // Search (issue 33): a word of every article, a feature's words, the script's fragment as
    // a reader types, and a member's search with drafts.
    "/published/workspaces/{ws}/search?q=configure",
    "/published/workspaces/{ws}/search?q=feature+042",
    "/published/workspaces/{ws}/search/results?q=confi",
    "/portal/w/{ws}/search?q=configure",
    "/v1/workspaces/{ws}/runs",
    "/v1/workspaces/{ws}/articles",
    "/v1/runs/{run}",
    "/v1/articles/{article}/versions",
];

/// What the pages' placeholders stand for.
struct Seeded {
    workspace: WorkspaceId,
    run: RunId,
    published_article: String,
}

/// One thread: the load generator leaves the cores to the server it measures.
#[tokio::main(flavor = "current_thread")]
async fn main() {
    // `cargo bench` passes `--bench`; anything else that starts with `/` is a page.
    let mut pages: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a.starts_with('/'))
        .collect();
    if pages.is_empty() {
        pages = DEFAULT_PAGES.iter().map(|p| p.to_string()).collect();
    }
    let requests = setting("BENCH_REQUESTS", 1_000);
    let concurrency = setting("BENCH_CONCURRENCY", 1).max(1);

    let db = match std::env::var("BENCH_ENGINE").as_deref() {
        Ok("postgres") => TestDatabase::postgres()
            .await
            .expect("BENCH_ENGINE=postgres needs a PostgreSQL server"),
        _ => TestDatabase::sqlite(),
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");

    let started = Instant::now();
    let seeded = seed(db.url(), &base).await;
    println!(
        "seeded {RUNS} runs and {} articles on {:?} in {:.1} s",
        FEATURES * Surface::ALL.len(),
        db.engine(),
        started.elapsed().as_secs_f64()
    );

    let env = server_env(db.url(), dir.path(), port);
    let token = mint_read_token(&env, seeded.workspace);
    let server = start(&env, &["serve", "--no-workers"], &base, dir.path()).await;
    let cookie = match std::env::var("BENCH_COOKIE").ok() {
        Some(cookie) => Some(cookie),
        None => Some(sign_in_member(&env, &base, seeded.workspace).await),
    };

    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(concurrency)
        .build()
        .expect("client");
    println!(
        "{requests} requests per page after {WARM_UP} to warm up, {concurrency} at a time; {} cores",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!(
        "{:58} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>8}",
        "page", "req/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "CPU µs/req", "KiB"
    );
    let mut over = Vec::new();
    for page in &pages {
        let path = page
            .replace("{ws}", &seeded.workspace.to_string())
            .replace("{run}", &seeded.run.to_string())
            .replace("{article}", &seeded.published_article);
        let target = Target {
            client: client.clone(),
            url: format!("{base}{path}"),
            token: path.starts_with("/v1/").then(|| token.clone()),
            cookie: cookie.clone(),
        };
        let m = measure(&target, server.0.id(), requests, concurrency).await;
        println!(
            "{page:58} {:>8.0} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>9.0} {:>8.1}",
            m.per_second,
            ms(m.percentile(0.50)),
            ms(m.percentile(0.90)),
            ms(m.percentile(0.99)),
            ms(m.percentile(1.0)),
            m.cpu_per_request.as_secs_f64() * 1e6,
            m.bytes as f64 / 1024.0
        );
        if m.percentile(0.99) >= Duration::from_millis(50) {
            over.push(page.clone());
        }
    }
    if over.is_empty() {
        println!("p99 under 50 ms on every page (the portal's target)");
    } else {
        println!(
            "p99 at or over 50 ms (the portal's target): {}",
            over.join(", ")
        );
    }
}

fn setting(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v}: not a number")),
        Err(_) => default,
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// One workspace of [`RUNS`] finished runs, each with a stage-by-stage log, and the articles
/// they wrote, through the store as the run worker writes them.
async fn seed(url: &str, base: &str) -> Seeded {
    let store = Store::connect(url).await.expect("connect");
    store.migrate().await.expect("migrate");
    // The runs happened one an hour, ending now.
    let now = Clock::system().timestamp();
    let hour = Duration::from_secs(3600);
    let first = now.minus(hour * RUNS as u32);
    let mut tx = store.begin().await.expect("begin");
    let workspace = tx
        .insert_workspace("bench", None, first)
        .await
        .expect("workspace")
        .id;
    tx.commit().await.expect("commit");

    let mut run_ids = Vec::with_capacity(RUNS);
    let mut article_ids = Vec::new();
    for i in 0..RUNS {
        let at = first.plus(hour * i as u32);
        let feature = format!("feature-{:03}", i % FEATURES);
        let failed = i >= FEATURES && i % FAILING_EVERY == 0;
        let new = NewRun {
            workspace_id: workspace,
            feature_id: feature.clone(),
            git_ref: String::new(),
            trigger: None,
            surfaces: None,
            source: if i % 3 == 0 {
                RunSource::Portal
            } else {
                RunSource::Api
            },
            tier: Tier::Standard,
            notify_on_complete: false,
        };
        let mut tx = store.begin().await.expect("begin");
        tx.trigger_run(new, at).await.expect("trigger");
        tx.commit().await.expect("commit");
        let run = store
            .claim_run("bench", at.plus(hour), at, 3)
            .await
            .expect("claim")
            .expect("the run just queued");
        run_ids.push(run.id);

        let mut tx = store.begin().await.expect("begin");
        let mut second = 0;
        let mut log = |stage: LogStage, level: LogLevel, message: String| {
            second += 3;
            (stage, level, message, at.plus(Duration::from_secs(second)))
        };
        let mut lines = vec![
            log(
                LogStage::Resolve,
                LogLevel::Info,
                format!("resolved {feature} at HEAD 0123abc"),
            ),
            log(
                LogStage::Collect,
                LogLevel::Info,
                "collected 42 files, 1,204 commits".into(),
            ),
            log(
                LogStage::Extract,
                LogLevel::Info,
                "extracted 318 symbols".into(),
            ),
            log(
                LogStage::Extract,
                LogLevel::Debug,
                "rust: 211, python: 107".into(),
            ),
        ];
        if failed {
            lines.push(log(
                LogStage::Render,
                LogLevel::Error,
                "template dev-docs.mdx.j2: undefined variable `symbols`".into(),
            ));
        } else {
            for &surface in Surface::ALL {
                lines.push(log(
                    LogStage::Render,
                    LogLevel::Info,
                    format!("rendered {surface}"),
                ));
                lines.push(log(
                    LogStage::Validate,
                    LogLevel::Info,
                    format!("validated {surface}"),
                ));
            }
            lines.push(log(
                LogStage::Store,
                LogLevel::Info,
                "stored 4 articles".into(),
            ));
            lines.push(log(
                LogStage::Notify,
                LogLevel::Info,
                "recorded 4 events".into(),
            ));
        }
        for (stage, level, message, ts) in &lines {
            tx.append_run_event(run.id, *level, *stage, message, &serde_json::json!({}), *ts)
                .await
                .expect("log");
        }
        let mut artifacts = Vec::new();
        if !failed {
            for &surface in Surface::ALL {
                let body = article_body(&feature, surface, i);
                let new = NewArticleVersion {
                    workspace_id: workspace,
                    feature_id: feature.clone(),
                    surface,
                    title: format!("{feature} ({surface})"),
                    status: ArticleStatus::Draft,
                    mdx_body: body.clone(),
                    plain_text: pipeline::plain_text(&body),
                    provenance: serde_json::json!({"commit": "0123abc0123abc0123abc0123abc0123abc0123"}),
                    run_id: run.id,
                };
                let article = tx.write_article_version(&new, at).await.expect("article");
                if article.version == 1 {
                    article_ids.push(article.id);
                }
                artifacts.push(Artifact {
                    article_id: article.id,
                    surface,
                    version: article.version,
                    unchanged: false,
                });
            }
        }
        let ending = RunEnding {
            status: if failed {
                RunStatus::Failed
            } else {
                RunStatus::Succeeded
            },
            source_commit: Some("0123abc0123abc0123abc0123abc0123abc0123".into()),
            artifacts,
            error: failed.then(|| "render failed".to_owned()),
        };
        let end = at.plus(Duration::from_secs(second + 2));
        tx.finish_run(run.id, Some("bench"), &ending, end)
            .await
            .expect("finish")
            .expect("the run is the bench's");
        tx.commit().await.expect("commit");
    }

    // Half of the articles, or all of them with `BENCH_PUBLISH_ALL=1`.
    let every = if std::env::var("BENCH_PUBLISH_ALL").is_ok_and(|v| v == "1") {
        1
    } else {
        2
    };
    let mut tx = store.begin().await.expect("begin");
    for id in article_ids.iter().step_by(every) {
        tx.publish_article(*id, &format!("{base}/published/{id}"), now)
            .await
            .expect("publish");
    }
    tx.commit().await.expect("commit");
    store.close().await;
    Seeded {
        workspace,
        run: run_ids[RUNS / 2],
        // An even index: published above.
        published_article: article_ids[(article_ids.len() / 4) * 2].to_string(),
    }
}

/// An article of the size and shape the pipeline writes: frontmatter, steps, callouts, code
/// and a table of symbols (about 4 KiB).
fn article_body(feature: &str, surface: Surface, run: usize) -> String {
    let rows: String = (0..24)
        .map(|s| format!("| `{feature}::item_{s}` | function | Does step {s} of {feature}. |\n"))
        .collect();
    format!(
        "---\ntitle: \"{feature} ({surface})\"\ndescription: \"What {feature} does, from run {run}.\"\n---\n\n\
         # {feature}\n\n<Note>Written from `src/{feature}/` at commit `0123abc`.</Note>\n\n\
         ## Use it\n\n<Steps>\n<Step title=\"Add it\">Add `{feature}` to your dependencies.</Step>\n\
         <Step title=\"Configure it\">Set `{feature}.enabled = true` in your configuration.</Step>\n\
         <Step title=\"Call it\">Call `{feature}::run(input)` and check its result.</Step>\n</Steps>\n\n\
         ```rust\nuse {0}::run;\n\nfn main() -> Result<(), Box<dyn std::error::Error>> {{\n    let out = run(\"input\")?;\n    println!(\"{{out}}\");\n    Ok(())\n}}\n```\n\n\
         <Warning>`run` reads its input whole: stream large inputs instead.</Warning>\n\n\
         ## Reference\n\n| Symbol | Kind | Summary |\n|---|---|---|\n{rows}\n\
         <Tip>See the changelog for what changed in this version.</Tip>\n",
        feature.replace('-', "_")
    )
}

fn server_env(database_url: &str, dir: &Path, port: u16) -> Vec<(&'static str, String)> {
    vec![
        ("CONTENT_PIPELINE_DATABASE_URL", database_url.to_owned()),
        (
            "CONTENT_PIPELINE_KEY_FILE",
            dir.join("key").display().to_string(),
        ),
        ("CONTENT_PIPELINE_BIND", format!("127.0.0.1:{port}")),
        ("CONTENT_PIPELINE_LOG", "warn".into()),
        // One token makes all the requests: lift the ceiling of its quota.
        (
            "CONTENT_PIPELINE_WORKSPACE_MAX_RATE_LIMIT",
            "4000000000".into(),
        ),
    ]
}

/// A read token of `workspace`, made with the CLI as an operator would.
/// A member of the workspace with the publish role, made with `users create` and signed in
/// through the link it prints, as a person would: the `Cookie` header of their session.
async fn sign_in_member(env: &[(&str, String)], base: &str, workspace: WorkspaceId) -> String {
    let out = Command::new(SERVER)
        .args([
            "users",
            "create",
            "--email",
            "bench@example.com",
            "--role",
            "publish",
        ])
        .args(["--workspace", &workspace.to_string()])
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stderr(Stdio::inherit())
        .output()
        .expect("run `content-pipeline users create`");
    assert!(out.status.success(), "users create: {}", out.status);
    let text = String::from_utf8(out.stdout).expect("text");
    let token = text
        .split("token=")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .expect("a sign-in link")
        .to_owned();
    let client = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let page = client
        .get(format!("{base}/portal/password?token={token}"))
        .send()
        .await
        .expect("the password page")
        .text()
        .await
        .expect("a body");
    let field = "name=\"csrf\" value=\"";
    let at = page.find(field).expect("a CSRF field") + field.len();
    let csrf = &page[at..at + page[at..].find('"').expect("its end")];
    let password = "bench password, long enough";
    let answer = client
        .post(format!("{base}/portal/password"))
        .header(reqwest::header::ORIGIN, base)
        .form(&[
            ("csrf", csrf),
            ("token", token.as_str()),
            ("password", password),
            ("confirm", password),
        ])
        .send()
        .await
        .expect("set the password");
    answer
        .headers()
        .get_all(reqwest::header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with("cp_session="))
        .and_then(|c| c.split(';').next())
        .expect("a session cookie")
        .to_owned()
}

fn mint_read_token(env: &[(&str, String)], workspace: WorkspaceId) -> String {
    let out = Command::new(SERVER)
        .args([
            "tokens",
            "create",
            "--scope",
            "read",
            "--rate-limit",
            "4000000000",
        ])
        .args(["--workspace", &workspace.to_string()])
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stderr(Stdio::inherit())
        .output()
        .expect("run `content-pipeline tokens create`");
    assert!(out.status.success(), "tokens create: {}", out.status);
    String::from_utf8(out.stdout)
        .expect("a token")
        .trim()
        .to_owned()
}

/// A page and how to ask for it.
struct Target {
    client: reqwest::Client,
    url: String,
    token: Option<String>,
    cookie: Option<String>,
}

impl Target {
    /// GETs the page; fails the benchmark unless it answers 200. Returns its size.
    async fn get(&self) -> usize {
        let mut request = self.client.get(&self.url);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        if let Some(cookie) = &self.cookie {
            request = request.header(reqwest::header::COOKIE, cookie);
        }
        let res = request.send().await.expect("request");
        let status = res.status();
        let body = res.bytes().await.expect("body");
        assert!(
            status == 200,
            "GET {}: {status} {}",
            self.url,
            String::from_utf8_lossy(&body)
        );
        body.len()
    }
}

struct Measurement {
    sorted: Vec<Duration>,
    per_second: f64,
    cpu_per_request: Duration,
    bytes: usize,
}

impl Measurement {
    fn percentile(&self, p: f64) -> Duration {
        let i = ((self.sorted.len() as f64 - 1.0) * p).round() as usize;
        self.sorted.get(i).copied().unwrap_or_default()
    }
}

async fn measure(target: &Target, server: u32, requests: usize, concurrency: usize) -> Measurement {
    for _ in 0..WARM_UP {
        target.get().await;
    }
    let left = AtomicUsize::new(requests);
    let cpu_before = cpu_time(server);
    let started = Instant::now();
    let workers = (0..concurrency).map(|_| async {
        let mut times = Vec::new();
        let mut bytes = 0;
        while left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok()
        {
            let t = Instant::now();
            bytes = target.get().await;
            times.push(t.elapsed());
        }
        (times, bytes)
    });
    let results = futures_util::future::join_all(workers).await;
    let elapsed = started.elapsed();
    let cpu = cpu_time(server).saturating_sub(cpu_before);
    let bytes = results.iter().map(|(_, b)| *b).max().unwrap_or(0);
    let mut sorted: Vec<Duration> = results.into_iter().flat_map(|(t, _)| t).collect();
    sorted.sort();
    Measurement {
        per_second: requests as f64 / elapsed.as_secs_f64(),
        cpu_per_request: cpu / requests.max(1) as u32,
        sorted,
        bytes,
    }
}
