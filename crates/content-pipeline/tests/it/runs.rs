//! Triggering, coalescing, reading and listing runs, and the (empty) log of a queued run.

use serde_json::{Value, json};

use crate::app;
use crate::helpers::{TestApp, body, expect_error};

async fn trigger(app: &TestApp, ws: &str, token: &str, payload: Value) -> reqwest::Response {
    app.post(&format!("/v1/workspaces/{ws}/runs"), token, &payload)
        .await
}

#[tokio::test]
async fn trigger_queues_a_new_run() {
    let app = app!();
    let ws = app.workspace("W").await;
    let write = app.token(&ws, "write").await;
    let res = trigger(&app, &ws, &write, json!({"feature_id": "src"})).await;
    assert_eq!(res.status(), 201);
    let location = res
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .expect("Location");
    let run = body(res).await;
    let id = run["id"].as_str().expect("id");
    assert!(id.starts_with("run_"));
    assert_eq!(run["workspace_id"], ws.as_str());
    assert_eq!(run["feature_id"], "src");
    assert_eq!(run["status"], "queued");
    assert_eq!(run["source"], "api");
    assert_eq!(run["tier"], "standard", "default tier");
    assert_eq!(run["notify_on_complete"], true, "default notify");
    assert_eq!(run["runs_url"], app.url(&format!("/v1/runs/{id}")).as_str());
    assert_eq!(
        run["log_url"],
        app.url(&format!("/v1/runs/{id}/log")).as_str()
    );
    assert_eq!(location, app.url(&format!("/v1/runs/{id}")));
    assert!(run["created_at"].as_str().is_some_and(|t| t.ends_with('Z')));
    assert!(run["updated_at"].as_str().is_some_and(|t| t.ends_with('Z')));
    assert!(run.get("error").is_none(), "no error on a queued run");
}

#[tokio::test]
async fn a_second_trigger_joins_the_queued_run() {
    let app = app!();
    let ws = app.workspace("W").await;
    let write = app.token(&ws, "write").await;
    let first = body(
        trigger(
            &app,
            &ws,
            &write,
            json!({"feature_id": "src", "notify_on_complete": false}),
        )
        .await,
    )
    .await;
    assert_eq!(first["notify_on_complete"], false);

    let res = trigger(
        &app,
        &ws,
        &write,
        json!({"feature_id": "src", "tier": "priority", "notify_on_complete": true}),
    )
    .await;
    assert_eq!(res.status(), 200, "coalesced");
    assert!(res.headers().get("location").is_none());
    let joined = body(res).await;
    assert_eq!(joined["id"], first["id"]);
    assert_eq!(joined["status"], "queued");
    assert_eq!(joined["tier"], "priority", "upgraded");
    assert_eq!(joined["notify_on_complete"], true, "OR-ed");

    // A later standard, silent request never downgrades the run.
    let res = trigger(
        &app,
        &ws,
        &write,
        json!({"feature_id": "src", "tier": "standard", "notify_on_complete": false}),
    )
    .await;
    assert_eq!(res.status(), 200);
    let joined = body(res).await;
    assert_eq!(joined["id"], first["id"]);
    assert_eq!(joined["tier"], "priority");
    assert_eq!(joined["notify_on_complete"], true);

    // Another feature is another run.
    let res = trigger(&app, &ws, &write, json!({"feature_id": "src/lib.rs"})).await;
    assert_eq!(res.status(), 201);
    let other = body(res).await;
    assert_ne!(other["id"], first["id"]);

    let list = body(app.get(&format!("/v1/workspaces/{ws}/runs"), &write).await).await;
    assert_eq!(list["data"].as_array().map(Vec::len), Some(2));
}

#[tokio::test]
async fn the_body_is_validated() {
    let app = app!();
    let ws = app.workspace("W").await;
    let write = app.token(&ws, "write").await;

    let err = expect_error(
        trigger(&app, &ws, &write, json!({})).await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(err["error"]["param"], "feature_id");

    let err = expect_error(
        trigger(&app, &ws, &write, json!({"feature_id": ""})).await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(err["error"]["param"], "feature_id");

    let err = expect_error(
        trigger(
            &app,
            &ws,
            &write,
            json!({"feature_id": "src", "tier": "urgent"}),
        )
        .await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(err["error"]["param"], "tier");

    let err = expect_error(
        trigger(
            &app,
            &ws,
            &write,
            json!({"feature_id": "src", "notify_on_complete": "yes"}),
        )
        .await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(err["error"]["param"], "notify_on_complete");

    let list = body(app.get(&format!("/v1/workspaces/{ws}/runs"), &write).await).await;
    assert_eq!(list["data"], json!([]), "no run was queued");
}

#[tokio::test]
async fn a_workspace_without_repository_cannot_run() {
    let app = app!();
    let res = app
        .post(
            "/v1/workspaces",
            &app.platform_token,
            &json!({"name": "Bare"}),
        )
        .await;
    let ws = body(res).await["id"].as_str().expect("id").to_owned();
    let res = trigger(&app, &ws, &app.platform_token, json!({"feature_id": "src"})).await;
    expect_error(res, 422, "validation_failed").await;
    let list = body(
        app.get(&format!("/v1/workspaces/{ws}/runs"), &app.platform_token)
            .await,
    )
    .await;
    assert_eq!(list["data"], json!([]));
}

#[tokio::test]
async fn get_and_list_runs() {
    let app = app!();
    let ws = app.workspace("W").await;
    let read = app.token(&ws, "read").await;
    let a = body(trigger(&app, &ws, &app.platform_token, json!({"feature_id": "src"})).await).await;
    let b = body(
        trigger(
            &app,
            &ws,
            &app.platform_token,
            json!({"feature_id": "src/lib.rs", "tier": "priority"}),
        )
        .await,
    )
    .await;

    let res = app
        .get(
            &format!("/v1/runs/{}", a["id"].as_str().expect("id")),
            &read,
        )
        .await;
    assert_eq!(res.status(), 200);
    let got = body(res).await;
    for field in [
        "id",
        "workspace_id",
        "feature_id",
        "source",
        "tier",
        "created_at",
        "runs_url",
        "log_url",
    ] {
        assert_eq!(
            got[field], a[field],
            "GET shows the triggered run's {field}"
        );
    }

    let list = body(app.get(&format!("/v1/workspaces/{ws}/runs"), &read).await).await;
    let ids: Vec<&Value> = list["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|r| &r["id"])
        .collect();
    assert_eq!(ids, [&b["id"], &a["id"]], "newest first");
    assert_eq!(list["data"][0]["tier"], "priority");
    assert!(list["next_cursor"].is_null());

    let res = app
        .get("/v1/runs/run_0193000000007000800000000000000a", &read)
        .await;
    expect_error(res, 404, "not_found").await;
}

#[tokio::test]
async fn the_log_of_a_queued_run_is_an_empty_page() {
    let app = app!();
    let ws = app.workspace("W").await;
    let read = app.token(&ws, "read").await;
    let run =
        body(trigger(&app, &ws, &app.platform_token, json!({"feature_id": "src"})).await).await;
    let log_url = run["log_url"].as_str().expect("log_url");
    let res = app
        .client
        .get(log_url)
        .bearer_auth(&read)
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), 200);
    assert_eq!(body(res).await, json!({"data": [], "next_cursor": null}));

    let res = app
        .get("/v1/runs/run_0193000000007000800000000000000a/log", &read)
        .await;
    expect_error(res, 404, "not_found").await;
}
