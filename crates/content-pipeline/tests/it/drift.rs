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

    // The documented function changes: the reference that documents it drifted; the
    // help-center, changelog and blog articles, which do not show it, did not.
    repo.write(
        "src/lib.rs",
        "/// Adds.\npub fn add(a: i64, b: i64) -> i64 { a + b }\n",
    );
    repo.commit("feat: widen add");
    let changed = check(&app, &ws).await;
    let drifted = changed["drifted"].as_array().unwrap();
    assert_eq!(drifted.len(), 1, "{changed}");
    let report = &drifted[0];
    assert_eq!(report["surface"], "dev-docs");
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
    assert_eq!(drift_events(&app, &hook).await, 1);
    // Once per (article, HEAD): checking again reports the drift but records nothing new.
    let again = check(&app, &ws).await;
    assert_eq!(again["drifted"].as_array().unwrap().len(), 1);
    assert_eq!(again["events_recorded"], 0);
    assert_eq!(drift_events(&app, &hook).await, 1);

    // Deleted at a new HEAD: reported again, as deleted.
    repo.remove("src/lib.rs").write("README.md", "docs\n");
    repo.commit("refactor!: remove add");
    let deleted = check(&app, &ws).await;
    assert_eq!(
        drift_events(&app, &hook).await,
        2,
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
        1
    );
    assert_eq!(drift_events(&app, &hook).await, 1);
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

#[tokio::test]
async fn an_added_public_function_drifts_the_reference_as_added() {
    let app = app!(TestApp::builder().run_worker());
    let mut repo = app.repo("added");
    let ws = app.workspace_on("added", &repo.path).await;
    assert_eq!(app.run_feature(&ws, "src").await["status"], "succeeded");
    repo.write(
        "src/lib.rs",
        "/// Adds.\npub fn add(a: i32, b: i32) -> i32 { a + b }\n\n/// Subtracts.\npub fn sub(a: i32, b: i32) -> i32 { a - b }\n",
    );
    repo.commit("feat: subtract");
    let checked = check(&app, &ws).await;
    let drifted = checked["drifted"].as_array().unwrap();
    assert_eq!(drifted.len(), 1, "{checked}");
    assert_eq!(drifted[0]["surface"], "dev-docs");
    assert_eq!(
        drifted[0]["changes"],
        json!([{"path": "src/lib.rs", "kind": "added", "symbols": ["sub"]}])
    );
}

/// The features whose articles the reports of `drifted` name.
fn features_of(drifted: &Value) -> Vec<String> {
    let mut features: Vec<String> = drifted
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["feature_id"].as_str().unwrap().to_owned())
        .collect();
    features.sort();
    features.dedup();
    features
}

#[tokio::test]
async fn the_check_after_a_run_reads_only_the_runs_feature() {
    let app = app!(TestApp::builder().run_worker());
    let mut repo = app.repo("scoped");
    let ws = app.workspace_on("scoped", &repo.path).await;
    let features = crate::helpers::feature_ids();
    let (first, second) = (features[0].as_str(), features[1].as_str());
    assert_eq!(app.run_feature(&ws, first).await["status"], "succeeded");
    assert_eq!(app.run_feature(&ws, second).await["status"], "succeeded");
    // The check after a run follows its end: one more run of the first feature (one run at a
    // time) makes sure the second's check read the old HEAD before the commit below.
    assert_eq!(app.run_feature(&ws, first).await["status"], "succeeded");
    repo.write(
        "src/lib.rs",
        "/// Adds.\npub fn add(a: i64, b: i64) -> i64 { a + b }\n",
    );
    repo.commit("feat: widen add");
    // A regenerate of the first feature's changelog runs at the new HEAD: its check after the
    // run looks at the first feature's articles only (its dev-docs drifted), not the second's.
    let article = app
        .get(&format!(
            "/v1/workspaces/{ws}/articles?feature_id={first}&surface=changelog"
        ))
        .expect(200)
        .await["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let run = app
        .post(&format!("/v1/articles/{article}/regenerate"))
        .json(&json!({}))
        .send()
        .await;
    assert!(run.status().is_success(), "{}", run.status());
    let run = crate::helpers::body(run).await;
    assert_eq!(
        app.wait_for_run(run["id"].as_str().unwrap()).await["status"],
        "succeeded"
    );
    // The check after the run records its notices in one transaction, after the run ended.
    const NOTICES: &str = "SELECT COUNT(*) FROM drift_notices";
    testkit::eventually(
        std::time::Duration::from_secs(30),
        "the check after the run",
        || async { (app.db.count(NOTICES).await > 0).then_some(()) },
    )
    .await;
    assert_eq!(app.db.count(NOTICES).await, 1, "the first feature's only");
    // The workspace-wide check finds the second feature's drift too.
    let all = check(&app, &ws).await;
    assert_eq!(features_of(&all["drifted"]), [first, second]);
    assert_eq!(
        all["events_recorded"], 1,
        "the first feature's was already recorded"
    );
}
