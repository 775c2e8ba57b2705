//! Triggering, coalescing, reading and listing runs, and the (empty) log of a queued run.

use serde_json::{Value, json};

use crate::app;
use crate::helpers::{Call, TestApp};

fn trigger<'a>(app: &'a TestApp, ws: &str, token: &str, payload: Value) -> Call<'a> {
    app.post(&format!("/v1/workspaces/{ws}/runs"))
        .token(token)
        .json(&payload)
}

#[tokio::test]
async fn trigger_queues_a_new_run() {
    let app = app!();
    let ws = app.workspace("W").await;
    let write = app.token(&ws, "write").await;
    let (headers, run) = trigger(&app, &ws, &write, json!({"feature_id": "src"}))
        .expect_with_headers(201)
        .await;
    let location = headers
        .get("location")
        .and_then(|v| v.to_str().ok())
        .expect("Location");
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
    let first = trigger(
        &app,
        &ws,
        &write,
        json!({"feature_id": "src", "notify_on_complete": false}),
    )
    .expect(201)
    .await;
    assert_eq!(first["notify_on_complete"], false);

    // Coalesced: 200 and no Location.
    let (headers, joined) = trigger(
        &app,
        &ws,
        &write,
        json!({"feature_id": "src", "tier": "priority", "notify_on_complete": true}),
    )
    .expect_with_headers(200)
    .await;
    assert!(headers.get("location").is_none());
    assert_eq!(joined["id"], first["id"]);
    assert_eq!(joined["status"], "queued");
    assert_eq!(joined["tier"], "priority", "upgraded");
    assert_eq!(joined["notify_on_complete"], true, "OR-ed");

    // A later standard, silent request never downgrades the run.
    let joined = trigger(
        &app,
        &ws,
        &write,
        json!({"feature_id": "src", "tier": "standard", "notify_on_complete": false}),
    )
    .expect(200)
    .await;
    assert_eq!(joined["id"], first["id"]);
    assert_eq!(joined["tier"], "priority");
    assert_eq!(joined["notify_on_complete"], true);

    // Another feature is another run.
    let other = trigger(&app, &ws, &write, json!({"feature_id": "src/lib.rs"}))
        .expect(201)
        .await;
    assert_ne!(other["id"], first["id"]);

    let list = app
        .get(&format!("/v1/workspaces/{ws}/runs"))
        .token(&write)
        .expect(200)
        .await;
    assert_eq!(list["data"].as_array().map(Vec::len), Some(2));
}

#[tokio::test]
async fn the_body_is_validated() {
    let app = app!();
    let ws = app.workspace("W").await;
    let write = app.token(&ws, "write").await;

    for (payload, param) in [
        (json!({}), "feature_id"),
        (json!({"feature_id": ""}), "feature_id"),
        (json!({"feature_id": "src", "tier": "urgent"}), "tier"),
        (
            json!({"feature_id": "src", "notify_on_complete": "yes"}),
            "notify_on_complete",
        ),
    ] {
        let err = trigger(&app, &ws, &write, payload)
            .expect_error(422, "validation_failed")
            .await;
        assert_eq!(err["error"]["param"], param);
    }

    let list = app
        .get(&format!("/v1/workspaces/{ws}/runs"))
        .token(&write)
        .expect(200)
        .await;
    assert_eq!(list["data"], json!([]), "no run was queued");
}

#[tokio::test]
async fn a_workspace_without_repository_cannot_run() {
    let app = app!();
    let ws = app
        .post("/v1/workspaces")
        .json(&json!({"name": "Bare"}))
        .expect(201)
        .await;
    let ws = ws["id"].as_str().expect("id");
    trigger(&app, ws, &app.platform_token, json!({"feature_id": "src"}))
        .expect_error(422, "validation_failed")
        .await;
    let list = app
        .get(&format!("/v1/workspaces/{ws}/runs"))
        .expect(200)
        .await;
    assert_eq!(list["data"], json!([]));
}

#[tokio::test]
async fn get_and_list_runs() {
    let app = app!();
    let ws = app.workspace("W").await;
    let read = app.token(&ws, "read").await;
    let a = trigger(&app, &ws, &app.platform_token, json!({"feature_id": "src"}))
        .expect(201)
        .await;
    let b = trigger(
        &app,
        &ws,
        &app.platform_token,
        json!({"feature_id": "src/lib.rs", "tier": "priority"}),
    )
    .expect(201)
    .await;

    let got = app
        .get(&format!("/v1/runs/{}", a["id"].as_str().expect("id")))
        .token(&read)
        .expect(200)
        .await;
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

    let list = app
        .get(&format!("/v1/workspaces/{ws}/runs"))
        .token(&read)
        .expect(200)
        .await;
    let ids: Vec<&Value> = list["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|r| &r["id"])
        .collect();
    assert_eq!(ids, [&b["id"], &a["id"]], "newest first");
    assert_eq!(list["data"][0]["tier"], "priority");
    assert!(list["next_cursor"].is_null());

    app.get("/v1/runs/run_0193000000007000800000000000000a")
        .token(&read)
        .expect_error(404, "not_found")
        .await;
}

#[tokio::test]
async fn the_log_of_a_queued_run_is_an_empty_page() {
    let app = app!();
    let ws = app.workspace("W").await;
    let read = app.token(&ws, "read").await;
    let run = trigger(&app, &ws, &app.platform_token, json!({"feature_id": "src"}))
        .expect(201)
        .await;
    let log_url = run["log_url"].as_str().expect("log_url");
    let log = app.get(log_url).token(&read).expect(200).await;
    assert_eq!(log, json!({"data": [], "next_cursor": null}));

    app.get("/v1/runs/run_0193000000007000800000000000000a/log")
        .token(&read)
        .expect_error(404, "not_found")
        .await;
}
