//! Drift: articles compared with the repository's HEAD on real commits.

use serde_json::{Value, json};

use crate::app;
use crate::helpers::TestApp;

/// `drift.detected` events recorded so far, counted from a subscription's deliveries: the
/// worker's own check after each run may record them before the test's check does.
async fn drift_events(app: &TestApp, hook: &str) -> usize {
    let v = app
        .get(&format!("/v1/webhooks/{hook}/deliveries?limit=100"))
        .expect(200)
        .await;
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["event_type"] == "drift.detected")
        .count()
}

async fn subscribe(app: &TestApp, ws: &str) -> String {
    let hook = app
        .webhook(ws, "https://hooks.example.com/drift", &["drift.detected"])
        .await;
    hook["id"].as_str().unwrap().to_owned()
}

async fn check(app: &TestApp, ws: &str) -> Value {
    app.post(&format!("/v1/workspaces/{ws}/drift-check"))
        .json(&json!({}))
        .expect(200)
        .await
}

#[tokio::test]
async fn changed_and_deleted_sources_drift_once_per_head_and_moves_do_not() {
    let app = app!(TestApp::builder().run_worker());
    let mut repo = app.repo("drifting");
    let ws = app.workspace_on("drift", &repo.path).await;
    let hook = subscribe(&app, &ws).await;
    assert_eq!(app.run_feature(&ws, "src").await["status"], "succeeded");

    let fresh = check(&app, &ws).await;
    assert_eq!(fresh["articles_checked"], 4);
    assert_eq!(fresh["drifted"], json!([]));

    // Only moved: a comment and blank lines above the function. Not drift.
    repo.write(
        "src/lib.rs",
        "// Arithmetic helpers.\n\n\n/// Adds.\npub fn add(a: i32, b: i32) -> i32 { a + b }\n",
    );
    repo.commit("chore: move things around");
    let moved = check(&app, &ws).await;
    assert_eq!(moved["drifted"], json!([]), "{moved}");
    assert_eq!(moved["events_recorded"], 0);

    // The documented function changes: every article built from it drifted.
    repo.write(
        "src/lib.rs",
        "/// Adds.\npub fn add(a: i64, b: i64) -> i64 { a + b }\n",
    );
    repo.commit("feat: widen add");
    let changed = check(&app, &ws).await;
    let drifted = changed["drifted"].as_array().unwrap();
    assert_eq!(drifted.len(), 4, "{changed}");
    let report = &drifted[0];
    assert_eq!(report["feature_id"], "src");
    assert_eq!(report["current_commit"], changed["head_commit"]);
    assert_ne!(report["article_commit"], report["current_commit"]);
    assert_eq!(report["changes"][0]["path"], "src/lib.rs");
    assert_eq!(report["changes"][0]["kind"], "modified");
    assert!(
        report["changes"][0]["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s.as_str().unwrap().contains("add"))
    );
    assert_eq!(drift_events(&app, &hook).await, 4);
    // Once per (article, HEAD): checking again reports the drift but records nothing new.
    let again = check(&app, &ws).await;
    assert_eq!(again["drifted"].as_array().unwrap().len(), 4);
    assert_eq!(again["events_recorded"], 0);
    assert_eq!(drift_events(&app, &hook).await, 4);

    // Deleted at a new HEAD: reported again, as deleted.
    repo.remove("src/lib.rs").write("README.md", "docs\n");
    repo.commit("refactor!: remove add");
    let deleted = check(&app, &ws).await;
    assert_eq!(
        drift_events(&app, &hook).await,
        8,
        "reported again at the new HEAD"
    );
    assert_eq!(deleted["drifted"][0]["changes"][0]["kind"], "deleted");

    // Checking needs the write scope.
    let read = app.token(&ws, "read").await;
    app.post(&format!("/v1/workspaces/{ws}/drift-check"))
        .token(&read)
        .json(&json!({}))
        .expect_error(403, "insufficient_scope")
        .await;
}

#[tokio::test]
async fn drift_events_reach_subscriptions() {
    let app = app!(TestApp::builder().run_worker());
    let mut repo = app.repo("events");
    let ws = app.workspace_on("ev", &repo.path).await;
    let hook = subscribe(&app, &ws).await;
    assert_eq!(app.run_feature(&ws, "src").await["status"], "succeeded");
    repo.write(
        "src/lib.rs",
        "/// Adds.\npub fn add(a: u8, b: u8) -> u8 { a + b }\n",
    );
    repo.commit("fix: bytes");
    assert_eq!(
        check(&app, &ws).await["drifted"].as_array().unwrap().len(),
        4
    );
    assert_eq!(drift_events(&app, &hook).await, 4);
}

#[tokio::test]
async fn a_drift_check_without_a_repository_or_with_a_bad_body_is_422() {
    let app = app!();
    let ws = app
        .post("/v1/workspaces")
        .json(&json!({"name": "no-repo"}))
        .expect(201)
        .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let check = format!("/v1/workspaces/{ws}/drift-check");
    let error = app
        .post(&check)
        .json(&json!({}))
        .expect_error(422, "validation_failed")
        .await;
    assert_eq!(error["error"]["param"], "repo_path");
    // A bad body is refused before anything is checked.
    let res = app
        .post(&check)
        .json(&json!({"unexpected": true}))
        .send()
        .await;
    assert_eq!(res.status(), 422);
}
