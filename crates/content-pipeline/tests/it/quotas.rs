//! Workspace quotas (issue 8, point 7; CONTRACT section 2, Rate limits): how many tokens and
//! subscriptions a workspace holds, and how high a token's `rate_limit` may go. Over HTTP, on
//! the engine the suite runs on (CONTENT_PIPELINE_TEST_ENGINE).

use std::process::Command;

use content_pipeline::Config;
use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{Database, TestApp, body, expect_error, mint_platform_token};

async fn spawn(configure: impl FnOnce(&mut Config)) -> Option<(TestApp, Database)> {
    let mut url = String::new();
    let app = TestApp::spawn_with(|c| {
        configure(c);
        url = c.database_url.expose().to_owned();
    })
    .await?;
    Some((app, Database { url }))
}

macro_rules! app_db_with {
    ($configure:expr) => {
        match spawn($configure).await {
            Some(pair) => pair,
            None => return,
        }
    };
}

async fn create_token(app: &TestApp, ws: &str, caller: &str, payload: Value) -> reqwest::Response {
    app.post(&format!("/v1/workspaces/{ws}/tokens"), caller, &payload)
        .await
}

async fn create_webhook(app: &TestApp, ws: &str, url: &str, active: bool) -> reqwest::Response {
    app.post(
        &format!("/v1/workspaces/{ws}/webhooks"),
        &app.platform_token,
        &json!({"url": url, "events": ["run.completed"], "active": active}),
    )
    .await
}

async fn live_tokens(db: &Database, ws: &str) -> i64 {
    db.count(&format!(
        "SELECT COUNT(*) FROM tokens WHERE workspace_id = '{ws}' AND revoked_at IS NULL"
    ))
    .await
}

async fn all_tokens(db: &Database) -> i64 {
    db.count("SELECT COUNT(*) FROM tokens").await
}

#[tokio::test]
async fn a_rate_limit_above_the_workspace_ceiling_is_refused() {
    let (app, db) = app_db_with!(|_| {});
    let ws = app.workspace("ceiling").await;
    let before = all_tokens(&db).await;
    for limit in [1_000_000, 6_001] {
        let res = create_token(
            &app,
            &ws,
            &app.platform_token,
            json!({"scope": "read", "rate_limit": limit}),
        )
        .await;
        let err = expect_error(res, 422, "validation_failed").await;
        assert_eq!(err["error"]["param"], "rate_limit");
        assert!(
            err["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("6000")),
            "{err}"
        );
    }
    assert_eq!(all_tokens(&db).await, before, "nothing was created");
    let res = create_token(
        &app,
        &ws,
        &app.platform_token,
        json!({"scope": "read", "rate_limit": 6_000}),
    )
    .await;
    assert_eq!(res.status(), 201, "the ceiling itself is allowed");
    assert_eq!(body(res).await["rate_limit"], 6_000);
}

#[tokio::test]
async fn a_token_cannot_hand_out_more_than_its_own_quota() {
    let (app, db) = app_db_with!(|_| {});
    let ws = app.workspace("creator").await;
    let admin = app.token_with_limit(&ws, "admin", 50).await;
    let before = all_tokens(&db).await;
    let res = create_token(
        &app,
        &ws,
        &admin,
        json!({"scope": "read", "rate_limit": 51}),
    )
    .await;
    let err = expect_error(res, 422, "validation_failed").await;
    assert_eq!(err["error"]["param"], "rate_limit");
    assert!(
        err["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("50")),
        "{err}"
    );
    assert_eq!(all_tokens(&db).await, before, "nothing was created");

    let res = create_token(
        &app,
        &ws,
        &admin,
        json!({"scope": "read", "rate_limit": 50}),
    )
    .await;
    assert_eq!(res.status(), 201, "its own quota is allowed");
    let res = create_token(&app, &ws, &admin, json!({"scope": "read"})).await;
    assert_eq!(res.status(), 201);
    assert_eq!(
        body(res).await["rate_limit"],
        50,
        "without rate_limit the new token gets the creator's quota, below the default 600"
    );

    // A write token cannot manage tokens at all.
    let write = app.token_with_limit(&ws, "write", 50).await;
    let res = create_token(
        &app,
        &ws,
        &write,
        json!({"scope": "read", "rate_limit": 10}),
    )
    .await;
    expect_error(res, 403, "insufficient_scope").await;
}

#[tokio::test]
async fn a_platform_token_answers_to_the_ceiling_only() {
    let (app, _db) = app_db_with!(|c: &mut Config| c.workspace_max_rate_limit = 2_000);
    let ws = app.workspace("platform").await;
    // A platform token made by the operator with a small quota of its own.
    let small_platform = mint_platform_token(&app.ops, "ops", Some(10)).await;
    let res = create_token(
        &app,
        &ws,
        &small_platform,
        json!({"scope": "read", "rate_limit": 2_000}),
    )
    .await;
    assert_eq!(res.status(), 201, "not held to its own quota of 10");
    let res = create_token(
        &app,
        &ws,
        &small_platform,
        json!({"scope": "read", "rate_limit": 2_001}),
    )
    .await;
    let err = expect_error(res, 422, "validation_failed").await;
    assert_eq!(err["error"]["param"], "rate_limit");
}

#[tokio::test]
async fn a_token_minted_above_a_lowered_ceiling_is_held_to_it() {
    let (app, db) = app_db_with!(|c: &mut Config| c.workspace_max_rate_limit = 1_000);
    let ws = app.workspace("lowered").await;
    let token = app.token_with_limit(&ws, "read", 1_000).await;
    // As if it had been minted before the ceiling existed.
    db.execute(&format!(
        "UPDATE tokens SET rate_limit = 1000000 WHERE workspace_id = '{ws}'"
    ))
    .await;
    let res = app.get(&format!("/v1/workspaces/{ws}"), &token).await;
    assert_eq!(res.status(), 200);
    assert_eq!(
        res.headers()
            .get("x-ratelimit-limit")
            .and_then(|v| v.to_str().ok()),
        Some("1000")
    );
}

#[tokio::test]
async fn the_token_past_the_workspace_quota_is_refused_and_nothing_is_created() {
    let (app, db) = app_db_with!(|c: &mut Config| c.workspace_max_tokens = 3);
    let ws = app.workspace("full").await;
    let admin = app.token(&ws, "admin").await;
    let mut ids = Vec::new();
    for _ in 0..2 {
        let res = create_token(&app, &ws, &admin, json!({"scope": "read"})).await;
        assert_eq!(res.status(), 201);
        ids.push(body(res).await["id"].as_str().expect("id").to_owned());
    }
    assert_eq!(live_tokens(&db, &ws).await, 3);
    let before = all_tokens(&db).await;
    let res = create_token(&app, &ws, &admin, json!({"scope": "read"})).await;
    let err = expect_error(res, 409, "conflict").await;
    assert!(
        err["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("quota of 3")),
        "{err}"
    );
    assert_eq!(all_tokens(&db).await, before, "nothing was created");

    // Another workspace has its own quota.
    let other = app.workspace("other").await;
    let res = create_token(&app, &other, &app.platform_token, json!({"scope": "read"})).await;
    assert_eq!(res.status(), 201);

    // A revoked token frees its place.
    let res = app.delete(&format!("/v1/tokens/{}", ids[0]), &admin).await;
    assert_eq!(res.status(), 200);
    let res = create_token(&app, &ws, &admin, json!({"scope": "read"})).await;
    assert_eq!(res.status(), 201);
    assert_eq!(live_tokens(&db, &ws).await, 3);
}

#[tokio::test]
async fn concurrent_creations_never_pass_the_token_quota() {
    let (app, db) = app_db_with!(|c: &mut Config| c.workspace_max_tokens = 3);
    let ws = app.workspace("race").await;
    let mut tasks = Vec::new();
    for _ in 0..10 {
        let request = app
            .request(
                Method::POST,
                &format!("/v1/workspaces/{ws}/tokens"),
                &app.platform_token,
            )
            .json(&json!({"scope": "read"}));
        tasks.push(tokio::spawn(async move {
            request.send().await.expect("request").status().as_u16()
        }));
    }
    let mut statuses = Vec::new();
    for t in tasks {
        statuses.push(t.await.expect("task"));
    }
    statuses.sort();
    assert_eq!(statuses, [201, 201, 201, 409, 409, 409, 409, 409, 409, 409]);
    assert_eq!(live_tokens(&db, &ws).await, 3);
}

#[tokio::test]
async fn the_subscription_past_the_workspace_quota_is_refused_and_nothing_is_created() {
    let (app, db) = app_db_with!(|c: &mut Config| c.workspace_max_webhooks = 2);
    let ws = app.workspace("hooks").await;
    let first = create_webhook(&app, &ws, "https://example.com/a", true).await;
    assert_eq!(first.status(), 201);
    let first = body(first).await["id"].as_str().expect("id").to_owned();
    // A paused subscription counts: it can be re-activated.
    let res = create_webhook(&app, &ws, "https://example.com/b", false).await;
    assert_eq!(res.status(), 201);
    let count_sql = format!("SELECT COUNT(*) FROM webhooks WHERE workspace_id = '{ws}'");
    let count = || db.count(&count_sql);
    assert_eq!(count().await, 2);
    let res = create_webhook(&app, &ws, "https://example.com/c", true).await;
    let err = expect_error(res, 409, "conflict").await;
    assert!(
        err["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("quota of 2")),
        "{err}"
    );
    assert_eq!(count().await, 2, "nothing was created");

    let res = app
        .delete(&format!("/v1/webhooks/{first}"), &app.platform_token)
        .await;
    assert!(res.status().is_success());
    let res = create_webhook(&app, &ws, "https://example.com/c", true).await;
    assert_eq!(res.status(), 201, "a deleted subscription frees its place");
}

#[tokio::test]
async fn the_cli_holds_workspace_tokens_to_the_ceiling_but_not_platform_tokens() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cli = || {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_content-pipeline"));
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env(
                "CONTENT_PIPELINE_DATABASE_URL",
                format!("sqlite://{}", dir.path().join("cli.db").display()),
            )
            .env("CONTENT_PIPELINE_KEY_FILE", dir.path().join("server.key"))
            .env("CONTENT_PIPELINE_WORKSPACE_MAX_RATE_LIMIT", "1000")
            .current_dir(dir.path());
        cmd
    };
    let out = cli()
        .args(["workspaces", "create", "--name", "cli"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ws: Value = serde_json::from_slice(&out.stdout).expect("workspace JSON");
    let ws = ws["id"].as_str().expect("id");
    let create = |limit: &str, workspace: Option<&str>| {
        let mut cmd = cli();
        cmd.args([
            "tokens",
            "create",
            "--scope",
            "admin",
            "--rate-limit",
            limit,
        ]);
        if let Some(ws) = workspace {
            cmd.args(["--workspace", ws]);
        }
        cmd.output().expect("run")
    };
    let refused = create("1001", Some(ws));
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("1000"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    assert!(create("1000", Some(ws)).status.success());
    assert!(
        create("1000000", None).status.success(),
        "a platform token is the operator's own"
    );
}
