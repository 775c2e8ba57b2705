//! Export benchmark (issue 33: "export of 1,000 articles ≤ 2 s and its memory"). Seeds a fresh
//! SQLite database through the store with one workspace on a generated repository (40
//! captures of 24 KiB), 250 finished runs at its commit and their 1,000 articles, all
//! published (help-center with steps, frames and callouts; dev-docs with code and tables;
//! changelog with entries; blog posts linking to other articles), starts the release binary on
//! it with `serve --no-workers`, and downloads `GET /v1/workspaces/{ws}/export` in each format
//! over HTTP: one warm-up, then `BENCH_EXPORTS` timed exports per format (default 5).
//!
//! Prints per format the median and slowest wall time (request sent → last byte read), the
//! archive's size and its files; then the server's peak resident memory (`VmHWM`) after start
//! and after all the exports, and the server's CPU time per export.
//!
//!     cargo bench -p content-pipeline --bench export

use std::path::Path;
use std::time::{Duration, Instant};

use domain::{ArticleStatus, Clock, RunSource, RunStatus, Surface, Tier};
use store::{Artifact, NewArticleVersion, NewRun, RunEnding, Store};
use testkit::Repo;

mod common;
use common::{cli, cpu_time, free_port, start};

const FEATURES: usize = 250;
const CAPTURES: usize = 40;
const FORMATS: [&str; 4] = ["docusaurus", "mintlify", "starlight", "mkdocs-material"];

fn main() {
    let exports: usize = std::env::var("BENCH_EXPORTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(bench(exports));
}

async fn bench(exports: usize) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut repo = Repo::init(&dir.path().join("repo"));
    for i in 0..CAPTURES {
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png.extend((0..24 * 1024).map(|b| ((b * 31 + i * 7) % 251) as u8));
        repo.write(&format!("docs/captures/step-{i:02}.png"), png);
    }
    let commit = repo.commit("docs: captures");
    let url = format!("sqlite://{}", dir.path().join("bench.db").display());
    let base_port = free_port();
    let base = format!("http://127.0.0.1:{base_port}");
    let ws = seed(&url, &base, &repo.path, &commit).await;

    let env = vec![
        ("CONTENT_PIPELINE_DATABASE_URL", url.clone()),
        (
            "CONTENT_PIPELINE_KEY_FILE",
            dir.path().join("key").display().to_string(),
        ),
        ("CONTENT_PIPELINE_BIND", format!("127.0.0.1:{base_port}")),
        ("CONTENT_PIPELINE_LOG", "warn".into()),
    ];
    let token = cli(
        &env,
        &["tokens", "create", "--scope", "read", "--workspace", &ws],
    );
    let server = start(&env, &["serve", "--no-workers"], &base, dir.path()).await;
    let pid = server.0.id();
    let started_peak = peak_memory(pid);
    let http = reqwest::Client::new();
    let cpu_before = cpu_time(pid);
    let mut total_exports = 0;
    println!(
        "export of 1,000 published articles ({CAPTURES} captures of 24 KiB), {exports} timed per format"
    );
    for format in FORMATS {
        let url = format!("{base}/v1/workspaces/{ws}/export?format={format}");
        let get = || async {
            let started = Instant::now();
            let res = http
                .get(&url)
                .bearer_auth(&token)
                .send()
                .await
                .expect("request");
            assert_eq!(res.status(), 200, "{format}");
            let bytes = res.bytes().await.expect("the archive");
            (started.elapsed(), bytes)
        };
        let (_, archive) = get().await;
        total_exports += 1;
        let mut times = Vec::with_capacity(exports);
        for _ in 0..exports {
            times.push(get().await.0);
            total_exports += 1;
        }
        times.sort();
        let files = tar::Archive::new(flate2::read::GzDecoder::new(archive.as_ref()))
            .entries()
            .expect("a tar stream")
            .count();
        println!(
            "  {format:<16} median {:>7.0} ms   slowest {:>7.0} ms   {:>6.1} MiB, {files} files",
            times[times.len() / 2].as_secs_f64() * 1000.0,
            times[times.len() - 1].as_secs_f64() * 1000.0,
            archive.len() as f64 / (1024.0 * 1024.0)
        );
    }
    let cpu = cpu_time(pid).saturating_sub(cpu_before);
    println!(
        "  server peak memory (VmHWM): {:.0} MiB after start, {:.0} MiB after the exports",
        started_peak as f64 / 1024.0,
        peak_memory(pid) as f64 / 1024.0
    );
    println!(
        "  server CPU per export: {:.0} ms",
        cpu.as_secs_f64() * 1000.0 / total_exports as f64
    );
    drop(server);
}

/// One workspace on `repo`, 250 runs at `commit`, 1,000 articles, all published.
async fn seed(url: &str, base: &str, repo: &Path, commit: &str) -> String {
    let store = Store::connect(url).await.expect("connect");
    store.migrate().await.expect("migrate");
    let now = Clock::system().timestamp();
    let minute = Duration::from_secs(60);
    let first = now.minus(minute * (FEATURES as u32 + 1));
    let mut tx = store.begin().await.expect("begin");
    let repo_path = repo.display().to_string();
    let workspace = tx
        .insert_workspace("Export bench", Some(&repo_path), first)
        .await
        .expect("workspace")
        .id;
    tx.commit().await.expect("commit");
    let mut article_ids = Vec::new();
    for i in 0..FEATURES {
        let at = first.plus(minute * i as u32);
        let feature = format!("feature-{i:03}");
        let new = NewRun {
            workspace_id: workspace,
            feature_id: feature.clone(),
            git_ref: String::new(),
            trigger: None,
            surfaces: None,
            source: RunSource::Api,
            tier: Tier::Standard,
            notify_on_complete: false,
        };
        let mut tx = store.begin().await.expect("begin");
        tx.trigger_run(new, at).await.expect("trigger");
        tx.commit().await.expect("commit");
        let run = store
            .claim_run("bench", at.plus(minute), at, 3)
            .await
            .expect("claim")
            .expect("the run just queued");
        let mut tx = store.begin().await.expect("begin");
        let mut artifacts = Vec::new();
        for &surface in Surface::ALL {
            let mdx_body = body(&feature, surface, i, article_ids.first());
            let new = NewArticleVersion {
                workspace_id: workspace,
                feature_id: feature.clone(),
                surface,
                title: format!("{feature} ({surface})"),
                status: ArticleStatus::CaptureGrounded,
                plain_text: pipeline::plain_text(&mdx_body),
                mdx_body,
                provenance: serde_json::json!({"commit": commit}),
                run_id: run.id,
            };
            let article = tx.write_article_version(&new, at).await.expect("article");
            article_ids.push(article.id.to_string());
            artifacts.push(Artifact {
                article_id: article.id,
                surface,
                version: article.version,
                unchanged: false,
            });
        }
        let ending = RunEnding {
            status: RunStatus::Succeeded,
            source_commit: Some(commit.to_owned()),
            artifacts,
            error: None,
        };
        tx.finish_run(
            run.id,
            Some("bench"),
            &ending,
            at.plus(Duration::from_secs(5)),
        )
        .await
        .expect("finish")
        .expect("the run is the bench's");
        tx.commit().await.expect("commit");
    }
    let mut tx = store.begin().await.expect("begin");
    for id in &article_ids {
        let parsed = id.parse().expect("an article id");
        tx.publish_article(parsed, &format!("{base}/published/{id}"), now)
            .await
            .expect("publish");
    }
    tx.commit().await.expect("commit");
    store.close().await;
    workspace.to_string()
}

/// An article as the pipeline writes one for `surface` (about 3–5 KiB).
fn body(feature: &str, surface: Surface, i: usize, linked: Option<&String>) -> String {
    let front = format!(
        "---\ntitle: \"{feature} ({surface})\"\ndescription: \"What {feature} does.\"\nfeature: \"{feature}\"\nsurface: \"{surface}\"\nversion: 1\nsource_commit: \"0123abc\"\n---\n\n"
    );
    let capture = |n: usize| format!("/docs/captures/step-{:02}.png", (i + n) % CAPTURES);
    let rows: String = (0..24)
        .map(|s| format!("| `{feature}::item_{s}` | function | Does step {s} of {feature}. |\n"))
        .collect();
    let text = match surface {
        Surface::HelpCenter => format!(
            "Small helpers for {feature}.\n\n<Steps>\n<Step title=\"Open {feature}\">\n\nChoose **{feature}** in the sidebar.\n\n<Frame>\n  <img src=\"{}\" alt=\"Open {feature}\" />\n</Frame>\n\n</Step>\n<Step title=\"Configure it\">\n\nSet `{feature}.enabled = true`.\n\n<Frame>\n  <img src=\"{}\" alt=\"Configure {feature}\" />\n</Frame>\n\n</Step>\n</Steps>\n\n<Note>\nLarge inputs take a minute.\n</Note>\n\n## Guide\n\nThe flow, in words: read, check, write.\n",
            capture(0),
            capture(1)
        ),
        Surface::DevDocs => format!(
            "## API reference\n\n<a id=\"{feature}-run\" />\n\n### `run`\n\n```rust\npub fn run(input: &str) -> Result<String, Error>\n```\n\n<Warning>\n\n**Deprecated.** Use `stream`.\n\n</Warning>\n\nRuns {feature} on its input.\n\n| Symbol | Kind | Summary |\n|---|---|---|\n{rows}"
        ),
        Surface::Changelog => format!(
            "<Update label=\"v1.{i}.0\" description=\"2026-11-01\">\n\n## Added\n\n- **{feature}:** Stream large inputs (`abc1234`)\n- **{feature}:** A `--json` flag (`def5678`)\n\n## Fixed\n\n- Empty inputs no longer panic (`0a1b2c3`)\n\n</Update>\n\n<Update label=\"v1.0.0\" description=\"2026-10-01\">\n\n## Added\n\n- The first release (`1234567`)\n\n</Update>\n"
        ),
        Surface::Blog => format!(
            "{feature} is here: read, check and write in one call.\n\n## What's new\n\n- Streams large inputs\n- A `--json` flag\n\n## Learn more\n\n- [The walkthrough](/published/{})\n- [The source](https://example.com/{feature})\n",
            linked.map(String::as_str).unwrap_or("art_0")
        ),
    };
    format!("{front}{text}")
}

/// The process's peak resident set (`VmHWM`), in KiB.
fn peak_memory(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
