//! The error envelope on every kind of failure, and that a rejected request changes nothing.

use reqwest::Method;
use serde_json::json;

use crate::app;
use crate::helpers::{TestApp, body, expect_error};

async fn run_count(app: &TestApp, ws: &str) -> usize {
    let v = body(
        app.get(
            &format!("/v1/workspaces/{ws}/runs?limit=100"),
            &app.platform_token,
        )
        .await,
    )
    .await;
    v["data"].as_array().map(Vec::len).unwrap_or(0)
}

#[tokio::test]
async fn unknown_routes_and_wrong_methods_use_the_envelope() {
    let app = app!();
    let t = app.platform_token.clone();
    expect_error(app.get("/v1/nothing-here", &t).await, 404, "not_found").await;
    expect_error(app.get("/nothing-here", &t).await, 404, "not_found").await;
    let res = app
        .request(Method::PUT, "/v1/workspaces", &t)
        .send()
        .await
        .unwrap();
    let allow = res
        .headers()
        .get("allow")
        .map(|v| v.to_str().unwrap().to_owned());
    expect_error(res, 405, "method_not_allowed").await;
    assert!(allow.is_some_and(|a| a.contains("GET") && a.contains("POST")));
}

#[tokio::test]
async fn rejected_bodies_get_the_right_error_and_change_nothing() {
    let app = app!();
    let ws = app.workspace("errors").await;
    let t = app.token(&ws, "write").await;
    let path = format!("/v1/workspaces/{ws}/runs");

    let res = app
        .request(Method::POST, &path, &t)
        .header("content-type", "text/plain")
        .body(r#"{"feature_id":"src"}"#)
        .send()
        .await
        .unwrap();
    expect_error(res, 415, "unsupported_media_type").await;

    let res = app
        .request(Method::POST, &path, &t)
        .body(r#"{"feature_id":"src"}"#)
        .send()
        .await
        .unwrap();
    expect_error(res, 415, "unsupported_media_type").await;

    let huge = format!(r#"{{"feature_id":"{}"}}"#, "x".repeat(1024 * 1024 + 10));
    let res = app
        .request(Method::POST, &path, &t)
        .header("content-type", "application/json")
        .body(huge)
        .send()
        .await
        .unwrap();
    expect_error(res, 413, "payload_too_large").await;

    let res = app
        .request(Method::POST, &path, &t)
        .header("content-type", "application/json")
        .body(r#"{"feature_id": "src""#)
        .send()
        .await
        .unwrap();
    expect_error(res, 422, "validation_failed").await;

    let v = expect_error(
        app.post(&path, &t, &json!({"feature_id": 5})).await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(v["error"]["param"], "feature_id");

    let v = expect_error(
        app.post(&path, &t, &json!({"feature_id": "src", "bogus": 1}))
            .await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(v["error"]["param"], "bogus");

    let v = expect_error(
        app.post(&path, &t, &json!({})).await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(v["error"]["param"], "feature_id");

    let v = expect_error(
        app.post(&path, &t, &json!({"feature_id": "f".repeat(201)}))
            .await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(v["error"]["param"], "feature_id");

    let v = expect_error(
        app.post(&path, &t, &json!({"feature_id": "src", "tier": "urgent"}))
            .await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(v["error"]["param"], "tier");

    assert_eq!(
        run_count(&app, &ws).await,
        0,
        "no rejected request may create a run"
    );
    assert_eq!(
        app.post(&path, &t, &json!({"feature_id": "src"}))
            .await
            .status(),
        201
    );
    assert_eq!(run_count(&app, &ws).await, 1);
}

#[tokio::test]
async fn every_response_carries_our_own_request_id() {
    let app = app!();
    let ok = app
        .request(Method::GET, "/v1/workspaces", &app.platform_token)
        .header("x-request-id", "client-chosen")
        .send()
        .await
        .unwrap();
    let id = ok.headers()["request-id"].to_str().unwrap().to_owned();
    assert!(id.starts_with("req_"), "{id}");
    assert_eq!(ok.headers()["x-request-id"].to_str().unwrap(), id);
    let other = app.get("/healthz", "").await;
    let id2 = other.headers()["request-id"].to_str().unwrap().to_owned();
    assert!(id2.starts_with("req_") && id2 != id);
    // The error body's request_id equals the header (checked inside expect_error).
    expect_error(
        app.get("/v1/workspaces", "nope").await,
        401,
        "unauthenticated",
    )
    .await;
}
