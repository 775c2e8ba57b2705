//! Workspace quotas (issue 8, point 7; CONTRACT section 2, Rate limits): how many tokens and
//! subscriptions a workspace holds, and how high a token's `rate_limit` may go. Over HTTP, on
//! the engine the suite runs on (CONTENT_PIPELINE_TEST_ENGINE).

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use testkit::TestDatabase;

use crate::app;
use crate::helpers::{Call, TestApp, cli};

fn create_token<'a>(app: &'a TestApp, ws: &str, caller: &str, payload: Value) -> Call<'a> {
    app.post(&format!("/v1/workspaces/{ws}/tokens"))
        .token(caller)
        .json(&payload)
}

fn create_webhook<'a>(app: &'a TestApp, ws: &str, url: &str, active: bool) -> Call<'a> {
    app.post(&format!("/v1/workspaces/{ws}/webhooks"))
        .json(&json!({"url": url, "events": ["run.completed"], "active": active}))
}

/// A read token with `rate_limit`, asked for by `caller`.
fn read_token<'a>(app: &'a TestApp, ws: &str, caller: &str, rate_limit: i64) -> Call<'a> {
    create_token(
        app,
        ws,
        caller,
        json!({"scope": "read", "rate_limit": rate_limit}),
    )
}

/// Asserts that `call` is refused for a `rate_limit` above `highest`, which the message names.
async fn refused_above(call: Call<'_>, highest: &str) {
    let err = call.expect_error(422, "validation_failed").await;
    assert_eq!(err["error"]["param"], "rate_limit");
    assert!(
        err["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains(highest)),
        "{err}"
    );
}

async fn live_tokens(db: &TestDatabase, ws: &str) -> i64 {
    db.count(&format!(
        "SELECT COUNT(*) FROM tokens WHERE workspace_id = '{ws}' AND revoked_at IS NULL"
    ))
    .await
}

async fn all_tokens(db: &TestDatabase) -> i64 {
    db.count("SELECT COUNT(*) FROM tokens").await
}

#[tokio::test]
async fn a_rate_limit_above_the_workspace_ceiling_is_refused() {
    let app = app!();
    let db = &app.db;
    let ws = app.workspace("ceiling").await;
    let before = all_tokens(db).await;
    for limit in [1_000_000, 6_001] {
        refused_above(read_token(&app, &ws, &app.platform_token, limit), "6000").await;
    }
    assert_eq!(all_tokens(db).await, before, "nothing was created");
    // The ceiling itself is allowed.
    let created = read_token(&app, &ws, &app.platform_token, 6_000)
        .expect(201)
        .await;
    assert_eq!(created["rate_limit"], 6_000);
}

#[tokio::test]
async fn a_token_cannot_hand_out_more_than_its_own_quota() {
    let app = app!();
    let db = &app.db;
    let ws = app.workspace("creator").await;
    let admin = app.token_with_limit(&ws, "admin", 50).await;
    let before = all_tokens(db).await;
    refused_above(read_token(&app, &ws, &admin, 51), "50").await;
    assert_eq!(all_tokens(db).await, before, "nothing was created");

    // Its own quota is allowed.
    read_token(&app, &ws, &admin, 50).expect(201).await;
    let created = create_token(&app, &ws, &admin, json!({"scope": "read"}))
        .expect(201)
        .await;
    assert_eq!(
        created["rate_limit"], 50,
        "without rate_limit the new token gets the creator's quota, below the default 600"
    );

    // A write token cannot manage tokens at all.
    let write = app.token_with_limit(&ws, "write", 50).await;
    read_token(&app, &ws, &write, 10)
        .expect_error(403, "insufficient_scope")
        .await;
}

#[tokio::test]
async fn a_platform_token_answers_to_the_ceiling_only() {
    let app = app!(TestApp::builder().workspace_max_rate_limit(2_000));
    let ws = app.workspace("platform").await;
    // A platform token made by the operator with a small quota of its own.
    let small_platform = app.mint_platform_token("ops", 10).await;
    // Not held to its own quota of 10.
    read_token(&app, &ws, &small_platform, 2_000)
        .expect(201)
        .await;
    let err = read_token(&app, &ws, &small_platform, 2_001)
        .expect_error(422, "validation_failed")
        .await;
    assert_eq!(err["error"]["param"], "rate_limit");
}

#[tokio::test]
async fn a_token_minted_above_a_lowered_ceiling_is_held_to_it() {
    let app = app!(TestApp::builder().workspace_max_rate_limit(1_000));
    let ws = app.workspace("lowered").await;
    let token = app.token_with_limit(&ws, "read", 1_000).await;
    // As if it had been minted before the ceiling existed.
    app.db
        .execute(&format!(
            "UPDATE tokens SET rate_limit = 1000000 WHERE workspace_id = '{ws}'"
        ))
        .await;
    let res = app
        .get(&format!("/v1/workspaces/{ws}"))
        .token(&token)
        .send()
        .await;
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
    let app = app!(TestApp::builder().workspace_max_tokens(3));
    let db = &app.db;
    let ws = app.workspace("full").await;
    let admin = app.token(&ws, "admin").await;
    let mut ids = Vec::new();
    for _ in 0..2 {
        let created = create_token(&app, &ws, &admin, json!({"scope": "read"}))
            .expect(201)
            .await;
        ids.push(created["id"].as_str().expect("id").to_owned());
    }
    assert_eq!(live_tokens(db, &ws).await, 3);
    let before = all_tokens(db).await;
    let err = create_token(&app, &ws, &admin, json!({"scope": "read"}))
        .expect_error(409, "conflict")
        .await;
    assert!(
        err["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("quota of 3")),
        "{err}"
    );
    assert_eq!(all_tokens(db).await, before, "nothing was created");

    // Another workspace has its own quota.
    let other = app.workspace("other").await;
    create_token(&app, &other, &app.platform_token, json!({"scope": "read"}))
        .expect(201)
        .await;

    // A revoked token frees its place.
    app.delete(&format!("/v1/tokens/{}", ids[0]))
        .token(&admin)
        .expect(200)
        .await;
    create_token(&app, &ws, &admin, json!({"scope": "read"}))
        .expect(201)
        .await;
    assert_eq!(live_tokens(db, &ws).await, 3);
}

#[tokio::test]
async fn concurrent_creations_never_pass_the_token_quota() {
    let app = app!(TestApp::builder().workspace_max_tokens(3));
    let ws = app.workspace("race").await;
    let mut statuses = futures_util::future::join_all((0..10).map(|_| async {
        let res = create_token(&app, &ws, &app.platform_token, json!({"scope": "read"}))
            .send()
            .await;
        res.status().as_u16()
    }))
    .await;
    statuses.sort();
    assert_eq!(statuses, [201, 201, 201, 409, 409, 409, 409, 409, 409, 409]);
    assert_eq!(live_tokens(&app.db, &ws).await, 3);
}

#[tokio::test]
async fn the_subscription_past_the_workspace_quota_is_refused_and_nothing_is_created() {
    let app = app!(TestApp::builder().workspace_max_webhooks(2));
    let ws = app.workspace("hooks").await;
    let first = create_webhook(&app, &ws, "https://example.com/a", true)
        .expect(201)
        .await;
    let first = first["id"].as_str().expect("id").to_owned();
    // A paused subscription counts: it can be re-activated.
    create_webhook(&app, &ws, "https://example.com/b", false)
        .expect(201)
        .await;
    let count_sql = format!("SELECT COUNT(*) FROM webhooks WHERE workspace_id = '{ws}'");
    let count = || app.db.count(&count_sql);
    assert_eq!(count().await, 2);
    let err = create_webhook(&app, &ws, "https://example.com/c", true)
        .expect_error(409, "conflict")
        .await;
    assert!(
        err["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("quota of 2")),
        "{err}"
    );
    assert_eq!(count().await, 2, "nothing was created");

    let res = app.delete(&format!("/v1/webhooks/{first}")).send().await;
    assert!(res.status().is_success());
    // A deleted subscription frees its place.
    create_webhook(&app, &ws, "https://example.com/c", true)
        .expect(201)
        .await;
}

#[tokio::test]
async fn the_cli_holds_workspace_tokens_to_the_ceiling_but_not_platform_tokens() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = with_ceiling(dir.path())
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
        let mut cmd = with_ceiling(dir.path());
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

/// The CLI with a rate-limit ceiling of 1000.
fn with_ceiling(dir: &Path) -> Command {
    let mut cmd = cli(dir);
    cmd.env("CONTENT_PIPELINE_WORKSPACE_MAX_RATE_LIMIT", "1000");
    cmd
}
