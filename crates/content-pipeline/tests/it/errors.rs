//! The error envelope on every kind of failure, and that a rejected request changes nothing.

use reqwest::Method;
use serde_json::json;

use crate::app;
use crate::helpers::{Call, TestApp, expect_error};

async fn run_count(app: &TestApp, ws: &str) -> usize {
    let v = app
        .get(&format!("/v1/workspaces/{ws}/runs?limit=100"))
        .expect(200)
        .await;
    v["data"].as_array().map(Vec::len).unwrap_or(0)
}

#[tokio::test]
async fn unknown_routes_and_wrong_methods_use_the_envelope() {
    let app = app!();
    app.get("/v1/nothing-here")
        .expect_error(404, "not_found")
        .await;
    app.get("/nothing-here")
        .expect_error(404, "not_found")
        .await;
    let res = app.call(Method::PUT, "/v1/workspaces").send().await;
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
    let runs = || app.post(&path).token(&t);

    runs()
        .header("content-type", "text/plain")
        .text(r#"{"feature_id":"src"}"#)
        .expect_error(415, "unsupported_media_type")
        .await;

    runs()
        .text(r#"{"feature_id":"src"}"#)
        .expect_error(415, "unsupported_media_type")
        .await;

    let huge = format!(r#"{{"feature_id":"{}"}}"#, "x".repeat(1024 * 1024 + 10));
    runs()
        .header("content-type", "application/json")
        .text(huge)
        .expect_error(413, "payload_too_large")
        .await;

    runs()
        .header("content-type", "application/json")
        .text(r#"{"feature_id": "src""#)
        .expect_error(422, "validation_failed")
        .await;

    for (payload, param) in [
        (json!({"feature_id": 5}), "feature_id"),
        (json!({"feature_id": "src", "bogus": 1}), "bogus"),
        (json!({}), "feature_id"),
        (json!({"feature_id": "f".repeat(201)}), "feature_id"),
        (json!({"feature_id": "src", "tier": "urgent"}), "tier"),
    ] {
        let v = runs()
            .json(&payload)
            .expect_error(422, "validation_failed")
            .await;
        assert_eq!(v["error"]["param"], param);
    }

    assert_eq!(
        run_count(&app, &ws).await,
        0,
        "no rejected request may create a run"
    );
    runs().json(&json!({"feature_id": "src"})).expect(201).await;
    assert_eq!(run_count(&app, &ws).await, 1);
}

#[tokio::test]
async fn every_response_carries_our_own_request_id() {
    let app = app!();
    let ok = app
        .get("/v1/workspaces")
        .header("x-request-id", "client-chosen")
        .send()
        .await;
    let id = ok.headers()["request-id"].to_str().unwrap().to_owned();
    assert!(id.starts_with("req_"), "{id}");
    assert_eq!(ok.headers()["x-request-id"].to_str().unwrap(), id);
    let other = app.get("/healthz").token("").send().await;
    let id2 = other.headers()["request-id"].to_str().unwrap().to_owned();
    assert!(id2.starts_with("req_") && id2 != id);
    // The error body's request_id equals the header (checked inside expect_error).
    app.get("/v1/workspaces")
        .token("nope")
        .expect_error(401, "unauthenticated")
        .await;
}

fn raw_post<'a>(app: &'a TestApp, path: &str, text: &'static str) -> Call<'a> {
    app.post(path)
        .header("content-type", "application/json")
        .text(text)
}

#[tokio::test]
async fn json_with_trailing_garbage_is_422_but_trailing_whitespace_is_fine() {
    let app = app!();
    for text in [
        r#"{"name": "one"} xx"#,
        r#"{"name": "one"}{"name": "two"}"#,
        r#"{"name": "one"},"#,
    ] {
        raw_post(&app, "/v1/workspaces", text)
            .expect_error(422, "validation_failed")
            .await;
    }
    let listed = app.get("/v1/workspaces").expect(200).await;
    assert_eq!(listed["data"], json!([]), "nothing was created");
    raw_post(&app, "/v1/workspaces", "{\"name\": \"spaced\"} \r\n\t ")
        .expect(201)
        .await;
}
