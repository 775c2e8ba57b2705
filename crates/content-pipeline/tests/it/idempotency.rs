//! Idempotency keys: replays, reuse, in-flight duplicates, expiry and concurrency.

use std::time::Duration;

use reqwest::Method;
use serde_json::json;

use crate::app;
use crate::helpers::{Call, TestApp, body, expect_error, request_fingerprint};

fn keyed<'a>(app: &'a TestApp, path: &str, key: &str, body: &serde_json::Value) -> Call<'a> {
    app.post(path).header("idempotency-key", key).json(body)
}

async fn count(app: &TestApp, path: &str) -> usize {
    app.get(path).expect(200).await["data"]
        .as_array()
        .unwrap()
        .len()
}

#[tokio::test]
async fn a_retry_replays_the_stored_response_byte_for_byte() {
    let app = app!();
    let ws = app.workspace("idem").await;
    let path = format!("/v1/workspaces/{ws}/webhooks");
    let req =
        json!({"url": "https://example.com/a", "events": ["run.completed"], "description": "x"});
    let first = keyed(&app, &path, "key-1", &req).send().await;
    assert_eq!(first.status(), 201);
    assert!(first.headers().get("idempotent-replayed").is_none());
    let location = first.headers()["location"].clone();
    let first_body = first.bytes().await.unwrap();
    // Same request, keys in another order: the same fingerprint.
    let reordered =
        json!({"description": "x", "events": ["run.completed"], "url": "https://example.com/a"});
    let second = keyed(&app, &path, "key-1", &reordered).send().await;
    assert_eq!(second.status(), 201);
    assert_eq!(second.headers()["idempotent-replayed"], "true");
    assert_eq!(second.headers()["location"], location);
    assert_eq!(
        second.bytes().await.unwrap(),
        first_body,
        "byte for byte, secret included"
    );
    assert_eq!(count(&app, &path).await, 1);
    // A structured-field string names the same key.
    let third = keyed(&app, &path, "\"key-1\"", &req).send().await;
    assert_eq!(third.headers()["idempotent-replayed"], "true");
}

#[tokio::test]
async fn a_key_reused_for_another_request_is_422() {
    let app = app!();
    let ws = app.workspace("reuse").await;
    let runs = format!("/v1/workspaces/{ws}/runs");
    keyed(&app, &runs, "k", &json!({"feature_id": "a"}))
        .expect(201)
        .await;
    keyed(&app, &runs, "k", &json!({"feature_id": "b"}))
        .expect_error(422, "idempotency_key_reused")
        .await;
    let hooks = format!("/v1/workspaces/{ws}/webhooks");
    keyed(&app, &hooks, "k", &json!({"feature_id": "a"}))
        .expect_error(422, "idempotency_key_reused")
        .await;
    assert_eq!(count(&app, &runs).await, 1);
    // Keys are scoped to the calling token: another workspace's token may use "k" freely.
    let other = app.workspace("other").await;
    let token = app.token(&other, "write").await;
    let other_runs = format!("/v1/workspaces/{other}/runs");
    keyed(&app, &other_runs, "k", &json!({"feature_id": "zzz"}))
        .token(&token)
        .expect(201)
        .await;
}

#[tokio::test]
async fn malformed_keys_are_400() {
    let app = app!();
    let ws = app.workspace("bad-keys").await;
    let runs = format!("/v1/workspaces/{ws}/runs");
    for key in ["", &"k".repeat(256), "has space"] {
        let v = keyed(&app, &runs, key, &json!({"feature_id": "a"}))
            .expect_error(400, "invalid_request")
            .await;
        assert_eq!(v["error"]["param"], "Idempotency-Key");
    }
    assert_eq!(count(&app, &runs).await, 0);
    keyed(&app, &runs, &"k".repeat(255), &json!({"feature_id": "a"}))
        .expect(201)
        .await;
}

async fn hold_key(app: &TestApp, owner: &str, key: &str, path: &str, body: &serde_json::Value) {
    let now = app.clock.timestamp();
    let print = request_fingerprint(&Method::POST, path, body);
    let claim = store::Claim {
        owner: owner.into(),
        key: key.into(),
        token: "held by the test".into(),
    };
    let outcome = app
        .store
        .claim_idempotency_key(
            claim,
            &print,
            now,
            now.minus(Duration::from_secs(86_400)),
            now.minus(Duration::from_secs(60)),
        )
        .await
        .unwrap();
    assert!(matches!(outcome, store::ClaimOutcome::Claimed(_)));
}

#[tokio::test]
async fn a_duplicate_in_flight_is_409_with_retry_after() {
    let app = app!();
    let ws = app.workspace("inflight").await;
    let runs = format!("/v1/workspaces/{ws}/runs");
    let req = json!({"feature_id": "a"});
    // Another node is processing this request right now: it holds the key.
    let platform = app.token_id(&app.platform_token).await;
    hold_key(&app, &platform, "busy", &runs, &req).await;
    let res = keyed(&app, &runs, "busy", &req).send().await;
    assert_eq!(res.headers()["retry-after"], "1");
    expect_error(res, 409, "idempotency_in_progress").await;
    assert_eq!(count(&app, &runs).await, 0);
    // A claim abandoned by a crashed process is taken over after a minute.
    app.clock.advance(Duration::from_secs(61));
    keyed(&app, &runs, "busy", &req).expect(201).await;
}

#[tokio::test]
async fn records_expire_after_24_hours() {
    let app = app!();
    let ws = app.workspace("expiry").await;
    let tokens = format!("/v1/workspaces/{ws}/tokens");
    let req = json!({"scope": "read", "name": "ci"});
    let first = keyed(&app, &tokens, "daily", &req).expect(201).await;
    app.clock.advance(Duration::from_secs(23 * 3600));
    let replay = keyed(&app, &tokens, "daily", &req).send().await;
    assert_eq!(replay.headers()["idempotent-replayed"], "true");
    assert_eq!(body(replay).await["id"], first["id"]);
    app.clock.advance(Duration::from_secs(3600 + 1));
    let fresh = keyed(&app, &tokens, "daily", &req).send().await;
    assert_eq!(fresh.status(), 201);
    assert!(fresh.headers().get("idempotent-replayed").is_none());
    assert_ne!(body(fresh).await["id"], first["id"]);
}

#[tokio::test]
async fn client_errors_are_stored_but_auth_failures_are_not() {
    let app = app!();
    let ws = app.workspace("outcomes").await;
    let runs = format!("/v1/workspaces/{ws}/runs");
    let bad = json!({"feature_id": ""});
    let first = keyed(&app, &runs, "e1", &bad).send().await;
    assert_eq!(first.status(), 422);
    let first_body = first.bytes().await.unwrap();
    let again = keyed(&app, &runs, "e1", &bad).send().await;
    assert_eq!(again.status(), 422);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    assert_eq!(again.bytes().await.unwrap(), first_body);

    // A 403 is not stored: the same key works once the caller has the scope.
    let reader = app.token(&ws, "read").await;
    let writer = app.token(&ws, "write").await;
    let req = json!({"feature_id": "ok"});
    for (token, status) in [(&reader, 403), (&writer, 201)] {
        let res = keyed(&app, &runs, "scoped", &req).token(token).send().await;
        assert_eq!(res.status(), status);
        assert!(res.headers().get("idempotent-replayed").is_none());
    }
}

#[tokio::test]
async fn fifty_concurrent_identical_requests_create_one_resource() {
    let app = app!();
    let ws = app.workspace("burst").await;
    let hooks = format!("/v1/workspaces/{ws}/webhooks");
    let req = json!({"url": "https://example.com/burst", "events": ["run.failed"]});
    let answers = futures_util::future::join_all((0..50).map(|_| async {
        let res = keyed(&app, &hooks, "same", &req).send().await;
        let status = res.status().as_u16();
        let replayed = res.headers().contains_key("idempotent-replayed");
        let v = body(res).await;
        (status, replayed, v["id"].as_str().map(str::to_owned))
    }))
    .await;
    let mut created = std::collections::HashSet::new();
    let mut originals = 0;
    for (status, replayed, id) in answers {
        assert!(status == 201 || status == 409, "unexpected {status}");
        if status == 201 {
            created.insert(id.unwrap());
            if !replayed {
                originals += 1;
            }
        }
    }
    assert_eq!(originals, 1, "exactly one request did the work");
    assert_eq!(created.len(), 1);
    assert_eq!(count(&app, &hooks).await, 1);
}

/// A handler that panics while its key is claimed releases the key: the retry runs at once
/// (well before a claim counts as abandoned) instead of meeting `409 idempotency_in_progress`,
/// and what the panicking attempt did not commit is not replayed. The service's own routes
/// never panic on purpose, so the keyed route here is served by the API's own idempotency and
/// authentication layers around a handler that panics, then around one that answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_while_a_key_is_claimed_releases_the_key() {
    use axum::middleware::from_fn_with_state;
    use tower::ServiceExt as _;

    let app = app!();
    let ws = app.workspace("panics").await;
    let (usage, _writer) =
        operations::token_usage::token_usage(app.store.clone(), app.clock.clone());
    let state = api::AppState::new(
        app.ops.clone(),
        api::ratelimit::RateLimiter::new(app.clock.clone()),
        usage,
        api::ApiConfig {
            server_key: domain::Secret::new([7; 32]),
            live_logs: operations::live_log::LiveLogLimits {
                per_token: 1,
                lifetime: Duration::from_secs(60),
            },
        },
    );
    let document = api::openapi_document().expect("the OpenAPI document");
    let known = api::idempotency::KnownOperations::of(&document);
    let keyed_route = |handler: axum::routing::MethodRouter<api::AppState>| {
        axum::Router::new()
            .route("/v1/workspaces/{ws}/runs", handler)
            .route_layer(from_fn_with_state(
                (state.clone(), known.clone()),
                api::idempotency::layer,
            ))
            .route_layer(from_fn_with_state(state.clone(), api::auth::authenticate))
            .with_state(state.clone())
    };
    let request = || {
        axum::http::Request::post(format!("/v1/workspaces/{ws}/runs"))
            .header("authorization", format!("Bearer {}", app.platform_token))
            .header("idempotency-key", "panics-once")
            .header("content-type", "application/json")
            .body(axum::body::Body::from(r#"{"feature_id":"src"}"#))
            .expect("request")
    };

    async fn fails() -> axum::http::StatusCode {
        panic!("the handler fails while the key is claimed")
    }
    let panics = keyed_route(axum::routing::post(fails));
    let attempt = tokio::spawn(panics.oneshot(request())).await;
    assert!(
        attempt
            .as_ref()
            .is_err_and(tokio::task::JoinError::is_panic),
        "the handler's panic reaches the connection's task"
    );

    let answers = keyed_route(axum::routing::post(|| async {
        (axum::http::StatusCode::CREATED, "the retry ran")
    }));
    let started = std::time::Instant::now();
    let (status, text) = loop {
        let response = answers
            .clone()
            .oneshot(request())
            .await
            .expect("infallible");
        let status = response.status();
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .expect("body");
        let text = String::from_utf8_lossy(&bytes).into_owned();
        // The key is released by a task the panic's clean-up starts: a retry racing it may
        // still find the claim, for a moment.
        if status == 409 && started.elapsed() < Duration::from_secs(2) {
            assert!(text.contains("idempotency_in_progress"), "{text}");
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        }
        break (status, text);
    };
    assert_eq!(status, 201, "{text}");
    assert_eq!(text, "the retry ran");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "released at once, not after the claim was abandoned: {:?}",
        started.elapsed()
    );
}
