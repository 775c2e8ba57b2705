//! Runs doing real work: a fixture repository in, articles, log events and outbox events out.

use std::time::Duration;

use serde_json::{Value, json};
use store::Engine;

use crate::app;
use crate::helpers::TestApp;

async fn trigger(app: &TestApp, ws: &str, feature: &str) -> Value {
    app.post(&format!("/v1/workspaces/{ws}/runs"))
        .json(&json!({"feature_id": feature}))
        .expect(201)
        .await
}

#[tokio::test]
async fn a_run_writes_four_articles_with_log_and_events() {
    let app = app!(TestApp::builder().workers().run_concurrency(2));
    let mut repo = app.repo("e2e");
    let ws = app.workspace_on("e2e", &repo.path).await;
    let hook = app
        .webhook(
            &ws,
            "https://hooks.example.com/e2e",
            &["run.completed", "article.drafted"],
        )
        .await;
    let run = trigger(&app, &ws, "src").await;
    let done = app.wait_for_run(run["id"].as_str().unwrap()).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    assert_eq!(done["commit"].as_str().map(str::len), Some(40));
    assert!(done["started_at"].is_string() && done["finished_at"].is_string());
    assert_eq!(done["artifacts"].as_array().map(Vec::len), Some(4));

    let articles = app
        .get(&format!("/v1/workspaces/{ws}/articles"))
        .expect(200)
        .await;
    let list = articles["data"].as_array().unwrap();
    assert_eq!(list.len(), 4);
    let dev = list
        .iter()
        .find(|a| a["surface"] == "dev-docs")
        .expect("dev-docs article");
    assert_eq!(dev["version"], 1);
    let mdx = dev["mdx_body"].as_str().unwrap();
    assert!(mdx.starts_with("---\n"), "frontmatter");
    assert!(
        mdx.contains("add"),
        "documents the fixture's public function: {mdx}"
    );
    pipeline::validate_mdx(mdx).expect("valid MDX");
    let changelog = list.iter().find(|a| a["surface"] == "changelog").unwrap();
    assert!(
        changelog["mdx_body"]
            .as_str()
            .unwrap()
            .contains("Add numbers")
    );

    let log = app
        .get(&format!(
            "/v1/runs/{}/log?limit=100",
            run["id"].as_str().unwrap()
        ))
        .expect(200)
        .await;
    let stages: Vec<&str> = log["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["stage"].as_str().unwrap())
        .collect();
    for stage in [
        "resolve", "collect", "extract", "render", "validate", "store", "notify",
    ] {
        assert!(stages.contains(&stage), "log has {stage}: {stages:?}");
    }
    let seqs: Vec<i64> = log["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["seq"].as_i64().unwrap())
        .collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "oldest first");

    let deliveries = app
        .get(&format!(
            "/v1/webhooks/{}/deliveries?limit=100",
            hook["id"].as_str().unwrap()
        ))
        .expect(200)
        .await;
    let types: Vec<&str> = deliveries["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["event_type"].as_str().unwrap())
        .collect();
    assert_eq!(types.iter().filter(|t| **t == "article.drafted").count(), 4);
    assert_eq!(types.iter().filter(|t| **t == "run.completed").count(), 1);

    // A run at a new HEAD bumps every version and keeps the first readable.
    repo.write(
        "src/lib.rs",
        "/// Adds two.\npub fn add(a: i32, b: i32) -> i32 { a + b }\n",
    );
    repo.commit("docs: reword add");
    let again = trigger(&app, &ws, "src").await;
    assert_eq!(
        app.wait_for_run(again["id"].as_str().unwrap()).await["status"],
        "succeeded"
    );
    let dev_id = dev["id"].as_str().unwrap();
    let versions = app
        .get(&format!("/v1/articles/{dev_id}/versions"))
        .expect(200)
        .await;
    let numbers: Vec<i64> = versions["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["version"].as_i64().unwrap())
        .collect();
    assert_eq!(numbers, vec![2, 1]);
}

/// The `data` of a list the API returns.
async fn data(app: &TestApp, path: &str) -> Vec<Value> {
    app.get(path).expect(200).await["data"]
        .as_array()
        .expect("a list")
        .clone()
}

#[tokio::test]
async fn a_feature_whose_docs_say_nothing_about_usage_gets_no_help_center_article() {
    let app = app!(TestApp::builder().run_worker());
    let mut repo = testkit::Repo::init(&app.dir.path().join("no-usage"));
    repo.write(
        "lib/lib.rs",
        "/// Adds.\npub fn add(a: i32, b: i32) -> i32 { a + b }\n",
    )
    .write("lib/NOTES.md", "# Notes\n\nDesign notes only.\n");
    repo.commit("feat: add numbers");
    let ws = app.workspace_on("no-usage", &repo.path).await;
    let hook = app
        .webhook(&ws, "https://hooks.example.com/none", &["article.drafted"])
        .await;
    let done = app.run_feature(&ws, "lib").await;
    assert_eq!(done["status"], "succeeded", "{done}");
    let surfaces: Vec<&str> = done["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["surface"].as_str().unwrap())
        .collect();
    assert_eq!(surfaces.len(), 3, "{done}");
    assert!(!surfaces.contains(&"help-center"), "{done}");
    let articles = data(&app, &format!("/v1/workspaces/{ws}/articles")).await;
    assert!(articles.iter().all(|a| a["surface"] != "help-center"));
    let log = data(
        &app,
        &format!("/v1/runs/{}/log?limit=100", done["id"].as_str().unwrap()),
    )
    .await;
    assert!(
        log.iter().any(|e| e["stage"] == "render"
            && e["message"]
                .as_str()
                .unwrap()
                .starts_with("no help-center article")),
        "{log:?}"
    );
    let hook = hook["id"].as_str().unwrap();
    let deliveries = data(&app, &format!("/v1/webhooks/{hook}/deliveries?limit=100")).await;
    assert_eq!(
        deliveries.len(),
        3,
        "one article.drafted per article written"
    );

    // Documented later: the help center appears.
    repo.write(
        "lib/README.md",
        "# Numbers\n\n## Usage\n\n1. Add the crate.\n2. Call `add`.\n",
    );
    repo.commit("docs: usage");
    let done = app.run_feature(&ws, "lib").await;
    // The help center and the reference that shows the README; a `docs:` commit gives the
    // changelog and the blog nothing to list, so neither is written again.
    let written: Vec<&str> = done["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["surface"].as_str().unwrap())
        .collect();
    assert_eq!(written, ["help-center", "dev-docs"], "{done}");
    let articles = data(&app, &format!("/v1/workspaces/{ws}/articles")).await;
    let help = articles
        .iter()
        .find(|a| a["surface"] == "help-center")
        .expect("a help-center article")
        .clone();
    assert!(
        help["mdx_body"]
            .as_str()
            .unwrap()
            .contains("<Step title=\"Add the crate\">")
    );

    // The usage goes away: regenerating the help center stores nothing and still succeeds.
    repo.remove("lib/README.md");
    repo.commit("docs: drop usage");
    let write = app.token(&ws, "write").await;
    let id = help["id"].as_str().unwrap();
    let queued = app
        .post(&format!("/v1/articles/{id}/regenerate"))
        .token(&write)
        .expect(201)
        .await;
    let done = app.wait_for_run(queued["id"].as_str().unwrap()).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    assert_eq!(done["artifacts"], json!([]));
    let kept = app.get(&format!("/v1/articles/{id}")).expect(200).await;
    assert_eq!(kept["version"], help["version"], "the last version stays");
}

#[tokio::test]
async fn unknown_features_are_refused_at_trigger_time() {
    let app = app!();
    let ws = app.workspace("unknown").await;
    let runs = format!("/v1/workspaces/{ws}/runs");
    let v = app
        .post(&runs)
        .json(&json!({"feature_id": "no-such-thing"}))
        .expect_error(422, "validation_failed")
        .await;
    assert_eq!(v["error"]["param"], "feature_id");
    for escape in ["../etc", "/etc/passwd", "src/../../x"] {
        app.post(&runs)
            .json(&json!({"feature_id": escape}))
            .expect_error(422, "validation_failed")
            .await;
    }
}

/// `(id, data)` pairs of a Server-Sent-Events body.
fn sse_events(text: &str) -> Vec<(i64, Value)> {
    text.split("\n\n")
        .filter_map(|block| {
            let id = block
                .lines()
                .find_map(|l| l.strip_prefix("id:"))?
                .trim()
                .parse()
                .ok()?;
            let data = block.lines().find_map(|l| l.strip_prefix("data:"))?.trim();
            Some((id, serde_json::from_str(data).ok()?))
        })
        .collect()
}

#[tokio::test]
async fn the_live_log_streams_until_the_run_ends_and_resumes() {
    let app = app!(TestApp::builder().workers().run_concurrency(2));
    let ws = app.workspace("live").await;
    let run = trigger(&app, &ws, "src").await;
    let run_id = run["id"].as_str().unwrap();
    let log = format!("/v1/runs/{run_id}/log");
    let stream = || app.get(&log).header("accept", "text/event-stream");
    // Connected while the run is queued or running: the stream ends by itself when it finishes.
    let res = stream().send().await;
    assert_eq!(res.status(), 200);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let text = tokio::time::timeout(Duration::from_secs(30), res.text())
        .await
        .expect("stream ended")
        .unwrap();
    let events = sse_events(&text);
    let ids: Vec<i64> = events.iter().map(|(id, _)| *id).collect();
    assert!(ids.len() >= 7, "{text}");
    assert_eq!(ids[0], 1);
    assert!(
        ids.windows(2).all(|w| w[1] == w[0] + 1),
        "every event once, in order: {ids:?}"
    );
    assert!(events.iter().any(|(_, e)| e["stage"] == "store"));
    assert_eq!(app.wait_for_run(run_id).await["status"], "succeeded");

    // Resuming after event 3 replays from 4 to the end, then closes (the run is finished).
    let resumed = stream().header("last-event-id", "3").expect_text(200).await;
    let resumed_ids: Vec<i64> = sse_events(&resumed).iter().map(|(id, _)| *id).collect();
    assert_eq!(resumed_ids, ids[3..].to_vec());

    stream()
        .header("last-event-id", "soon")
        .expect_error(400, "invalid_request")
        .await;
    // The JSON view checks the documented header too (schemathesis: it ignored a bad one).
    for bad in ["soon", "-1"] {
        let err = app
            .get(&format!("/v1/runs/{run_id}/log"))
            .header("last-event-id", bad)
            .expect_error(400, "invalid_request")
            .await;
        assert_eq!(err["error"]["param"], "Last-Event-ID");
    }
}

/// A second service on the same SQLite database with its workers on: the "other node".
async fn worker_node(app: &TestApp) -> Option<TestApp> {
    TestApp::builder()
        .database(&app.db)
        .run_worker()
        .start()
        .await
}

#[tokio::test]
async fn a_run_whose_worker_died_is_taken_over_and_stored_once() {
    if testkit::selected_engine() != Engine::Sqlite {
        return; // two nodes share one SQLite file here; the PostgreSQL claim is covered by the store suite
    }
    let app = app!();
    let ws = app.workspace("crash").await;
    let run = trigger(&app, &ws, "src").await;
    let run_id: domain::RunId = run["id"].as_str().unwrap().parse().unwrap();

    // A worker claims the run and dies without a heartbeat: its lease runs out.
    let past = app.clock.timestamp().minus(Duration::from_secs(120));
    let claimed = app
        .store
        .claim_run("dead-worker", past.plus(Duration::from_secs(30)), past, 3)
        .await
        .unwrap();
    assert_eq!(claimed.map(|r| r.id), Some(run_id));

    let Some(node) = worker_node(&app).await else {
        return;
    };
    let done = node.wait_for_run(&run_id.to_string()).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    let stored = app.store.run(run_id).await.unwrap().unwrap();
    assert_eq!(stored.attempts, 2, "claimed again after the lease expired");
    // The log tells the second attempt from the first.
    let log = app
        .get(&format!("/v1/runs/{run_id}/log?limit=100"))
        .expect(200)
        .await;
    let messages: Vec<&str> = log["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        messages.first().copied(),
        Some("attempt 2 of 3: the previous worker's lease expired"),
        "{messages:?}"
    );

    // Exactly one version per article, all written by this run.
    let articles = app
        .get(&format!("/v1/workspaces/{ws}/articles"))
        .expect(200)
        .await;
    for a in articles["data"].as_array().unwrap() {
        assert_eq!(a["version"], 1);
        let versions = app
            .get(&format!(
                "/v1/articles/{}/versions",
                a["id"].as_str().unwrap()
            ))
            .expect(200)
            .await;
        assert_eq!(versions["data"].as_array().unwrap().len(), 1);
    }

    // The dead worker wakes up and tries to store its result: refused on both counts.
    let mut tx = app.store.begin().await.unwrap();
    let ending = store::RunEnding {
        status: domain::RunStatus::Succeeded,
        source_commit: None,
        artifacts: Vec::new(),
        error: None,
    };
    assert!(
        tx.finish_run(run_id, Some("dead-worker"), &ending, app.clock.timestamp())
            .await
            .unwrap()
            .is_none()
    );
    let again = tx
        .write_article_version(
            &store::NewArticleVersion {
                workspace_id: ws.parse().unwrap(),
                feature_id: "src".into(),
                surface: domain::Surface::Blog,
                title: "dup".into(),
                status: domain::ArticleStatus::Draft,
                mdx_body: "---\ntitle: dup\n---\n".into(),
                plain_text: String::new(),
                provenance: json!({}),
                run_id,
            },
            app.clock.timestamp(),
        )
        .await;
    assert!(
        matches!(again, Err(store::StoreError::Conflict)),
        "a run never writes a version twice"
    );
}

#[tokio::test]
async fn a_run_that_loses_its_worker_three_times_fails_with_a_clear_error() {
    if testkit::selected_engine() != Engine::Sqlite {
        return;
    }
    let app = app!();
    let ws = app.workspace("abandoned").await;
    let run = trigger(&app, &ws, "src").await;
    let run_id: domain::RunId = run["id"].as_str().unwrap().parse().unwrap();
    let mut at = app.clock.timestamp().minus(Duration::from_secs(600));
    for attempt in 1..=3 {
        let claimed = app
            .store
            .claim_run(
                &format!("dying-{attempt}"),
                at.plus(Duration::from_secs(30)),
                at,
                3,
            )
            .await
            .unwrap();
        assert_eq!(claimed.map(|r| r.attempts), Some(attempt));
        at = at.plus(Duration::from_secs(60));
    }
    let Some(node) = worker_node(&app).await else {
        return;
    };
    let done = node.wait_for_run(&run_id.to_string()).await;
    assert_eq!(done["status"], "failed");
    assert!(
        done["error"].as_str().unwrap().contains("3 times"),
        "{done}"
    );
}

#[tokio::test]
async fn a_repository_that_vanished_fails_the_run_with_a_clear_error() {
    if testkit::selected_engine() != Engine::Sqlite {
        return;
    }
    let app = app!();
    let repo = app.repo("vanishing");
    let ws = app.workspace_on("gone", &repo.path).await;
    let run = trigger(&app, &ws, "src").await;
    std::fs::remove_dir_all(&repo.path).unwrap();
    let Some(node) = worker_node(&app).await else {
        return;
    };
    let done = node.wait_for_run(run["id"].as_str().unwrap()).await;
    assert_eq!(done["status"], "failed");
    let error = done["error"].as_str().unwrap().to_lowercase();
    assert!(error.contains("repositor"), "{error}");
    let articles = app
        .get(&format!("/v1/workspaces/{ws}/articles"))
        .expect(200)
        .await;
    assert_eq!(articles["data"], json!([]));
}

#[tokio::test]
async fn a_feature_runs_one_run_at_a_time() {
    let app = app!();
    let ws = app.workspace("serial").await;
    let first = trigger(&app, &ws, "src").await;
    let other = trigger(&app, &ws, "docs").await;
    let now = app.clock.timestamp();
    let lease = now.plus(Duration::from_secs(30));
    let claimed = app
        .store
        .claim_run("w1", lease, now, 3)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(claimed.id.to_string(), first["id"].as_str().unwrap());
    // While "src" runs, its next run is queued but not claimable; other features are.
    let second = trigger(&app, &ws, "src").await;
    assert_eq!(second["status"], "queued");
    assert_ne!(second["id"], first["id"]);
    let next = app
        .store
        .claim_run("w2", lease, now, 3)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(next.id.to_string(), other["id"].as_str().unwrap());
    assert!(
        app.store
            .claim_run("w3", lease, now, 3)
            .await
            .unwrap()
            .is_none(),
        "src is busy"
    );
    // Once the first run's lease has expired (its worker died), it is the one taken over.
    let later = now.plus(Duration::from_secs(31));
    let retaken = app
        .store
        .claim_run("w4", later.plus(Duration::from_secs(30)), later, 3)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(retaken.id.to_string(), first["id"].as_str().unwrap());
}

/// `article.drafted` deliveries of subscription `hook` so far.
async fn drafted_deliveries(app: &TestApp, hook: &str) -> usize {
    app.get(&format!("/v1/webhooks/{hook}/deliveries?limit=100"))
        .expect(200)
        .await["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["event_type"] == "article.drafted")
        .count()
}

/// (surface, version, body) of every article of `ws`.
async fn articles(app: &TestApp, ws: &str) -> Vec<(String, i64, String)> {
    let mut list: Vec<(String, i64, String)> = app
        .get(&format!("/v1/workspaces/{ws}/articles"))
        .expect(200)
        .await["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["surface"].as_str().unwrap().to_owned(),
                a["version"].as_i64().unwrap(),
                a["mdx_body"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    list.sort();
    list
}

#[tokio::test]
async fn a_rerun_at_an_unchanged_head_writes_nothing_and_says_so() {
    let app = app!(TestApp::builder().run_worker());
    let mut repo = app.repo("rerun");
    let ws = app.workspace_on("rerun", &repo.path).await;
    // The run's events and their deliveries are written with its end: counted once it ended.
    let hook = app
        .webhook(&ws, "https://hooks.example.com/rerun", &["article.drafted"])
        .await;
    let hook = hook["id"].as_str().unwrap();
    let first = app.run_feature(&ws, "src").await;
    assert_eq!(first["status"], "succeeded", "{first}");
    assert_eq!(drafted_deliveries(&app, hook).await, 4);
    let before = articles(&app, &ws).await;

    // Same HEAD, same templates: the same articles, so nothing is written or announced.
    let again = app.run_feature(&ws, "src").await;
    assert_eq!(again["status"], "succeeded", "{again}");
    assert_eq!(
        articles(&app, &ws).await,
        before,
        "same versions, same bodies"
    );
    assert_eq!(
        drafted_deliveries(&app, hook).await,
        4,
        "no article.drafted"
    );
    let artifacts = again["artifacts"].as_array().unwrap();
    assert_eq!(artifacts.len(), 4, "{again}");
    for (artifact, first) in artifacts.iter().zip(first["artifacts"].as_array().unwrap()) {
        assert_eq!(artifact["unchanged"], true, "{artifact}");
        assert_eq!(artifact["version"], 1);
        assert_eq!(artifact["article_id"], first["article_id"]);
        assert_eq!(first["unchanged"], false);
    }

    // A new commit that changes what the articles show writes new versions again.
    repo.write(
        "src/lib.rs",
        "/// Adds two numbers.\npub fn add(a: i32, b: i32) -> i32 { a + b }\n",
    );
    // (A fix, so the changelog and the blog have something to list: a `docs:` commit alone
    // is left out of both, and they would not be written.)
    repo.commit("fix: say what add adds");
    let changed = app.run_feature(&ws, "src").await;
    assert_eq!(
        changed["artifacts"].as_array().map(Vec::len),
        Some(4),
        "{changed}"
    );
    assert!(
        changed["artifacts"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["unchanged"] == false && a["version"] == 2),
        "{changed}"
    );
    assert_eq!(drafted_deliveries(&app, hook).await, 8);
}

#[tokio::test]
async fn feature_dot_is_the_whole_repository() {
    let app = app!(TestApp::builder().run_worker());
    let repo = app.repo("whole-repo");
    repo.write(
        "tools/cli.py",
        "def main():\n    \"\"\"Runs the tool.\"\"\"\n",
    )
    .write("README.md", "# Whole repo\n\nEverything.\n");
    let mut repo = repo;
    repo.commit("feat: a tool");
    let ws = app.workspace_on("root", &repo.path).await;
    let run = app.run_feature(&ws, ".").await;
    assert_eq!(run["status"], "succeeded", "{run}");
    let articles = app
        .get(&format!(
            "/v1/workspaces/{ws}/articles?feature_id=.&surface=dev-docs"
        ))
        .expect(200)
        .await;
    let dev = &articles["data"][0];
    let body = dev["mdx_body"].as_str().unwrap();
    assert!(body.contains("add") && body.contains("main"), "{body}");
    // Titled after the repository's folder: the fixture repository declares no package.
    assert_eq!(dev["title"], "whole-repo reference", "{body}");
}
