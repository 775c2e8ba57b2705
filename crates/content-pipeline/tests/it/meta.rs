//! Everything outside the resources: health, readiness, metrics, the OpenAPI document and the
//! readable reference.

use std::time::Duration;

use reqwest::Method;
use serde_json::Value;
use testkit::eventually;

use crate::app;
use crate::helpers::TestApp;

/// Every operation the server answers, as (method, OpenAPI path template).
const OPERATIONS: &[(&str, &str)] = &[
    ("get", "/v1/workspaces"),
    ("post", "/v1/workspaces"),
    ("get", "/v1/workspaces/{id}"),
    ("delete", "/v1/workspaces/{id}"),
    ("get", "/v1/workspaces/{ws}/articles"),
    ("get", "/v1/articles/{id}"),
    ("get", "/v1/articles/{id}/versions"),
    ("post", "/v1/articles/{id}/publish"),
    ("post", "/v1/articles/{id}/regenerate"),
    ("get", "/v1/workspaces/{ws}/runs"),
    ("post", "/v1/workspaces/{ws}/runs"),
    ("get", "/v1/runs/{id}"),
    ("get", "/v1/runs/{id}/log"),
    ("get", "/v1/workspaces/{ws}/webhooks"),
    ("post", "/v1/workspaces/{ws}/webhooks"),
    ("get", "/v1/webhooks/{id}"),
    ("patch", "/v1/webhooks/{id}"),
    ("delete", "/v1/webhooks/{id}"),
    ("post", "/v1/webhooks/{id}/rotate-secret"),
    ("post", "/v1/webhooks/{id}/replay"),
    ("get", "/v1/webhooks/{id}/deliveries"),
    ("get", "/v1/deliveries/{id}"),
    ("get", "/v1/workspaces/{ws}/tokens"),
    ("post", "/v1/workspaces/{ws}/tokens"),
    ("post", "/v1/tokens/{id}/reissue"),
    ("delete", "/v1/tokens/{id}"),
    ("get", "/healthz"),
    ("get", "/readyz"),
    ("get", "/metrics"),
    ("get", "/openapi.json"),
    ("get", "/docs"),
    ("get", "/docs/errors"),
    ("get", "/published/{id}"),
];

/// The error types of CONTRACT section 2.
const ERROR_TYPES: &[&str] = &[
    "invalid_request",
    "unauthenticated",
    "insufficient_scope",
    "not_found",
    "method_not_allowed",
    "conflict",
    "idempotency_in_progress",
    "payload_too_large",
    "unsupported_media_type",
    "validation_failed",
    "idempotency_key_reused",
    "rate_limited",
    "internal_error",
];

#[tokio::test]
async fn health_and_readiness_answer_without_a_token() {
    let app = app!();
    let health = app.get("/healthz").anonymous().expect(200).await;
    assert_eq!(health["status"], "ok");
    // 200: the database answers.
    let ready = app.get("/readyz").anonymous().expect(200).await;
    assert_eq!(ready["status"], "ready");
}

#[tokio::test]
async fn metrics_count_requests_in_prometheus_text() {
    let app = app!();
    app.get("/v1/workspaces").expect(200).await;
    let res = app.get("/metrics").anonymous().send().await;
    assert_eq!(res.status(), 200);
    let content_type = res
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    assert!(content_type.starts_with("text/plain"), "{content_type}");
    let text = res.text().await.expect("text");
    assert!(
        text.contains("# TYPE http_requests_total counter"),
        "Prometheus exposition:\n{text}"
    );
    let line = text
        .lines()
        .find(|l| {
            l.starts_with("http_requests_total{")
                && l.contains("route=\"/v1/workspaces\"")
                && l.contains("method=\"GET\"")
                && l.contains("status=\"200\"")
        })
        .unwrap_or_else(|| panic!("no sample for GET /v1/workspaces:\n{text}"));
    let count: f64 = line
        .rsplit(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a number");
    assert!(count >= 1.0);
}

/// The OpenAPI document, read without a token.
async fn openapi(app: &TestApp) -> Value {
    app.get("/openapi.json").anonymous().expect(200).await
}

#[tokio::test]
async fn the_openapi_document_is_3_1_version_1_0_0_with_bearer_and_errors() {
    let app = app!();
    let doc = openapi(&app).await;
    assert!(
        doc["openapi"]
            .as_str()
            .is_some_and(|v| v.starts_with("3.1.")),
        "{}",
        doc["openapi"]
    );
    assert_eq!(doc["info"]["version"], "1.0.0");
    let scheme = &doc["components"]["securitySchemes"]["bearer"];
    assert_eq!(scheme["type"], "http");
    assert_eq!(scheme["scheme"], "bearer");
    let envelope = &doc["components"]["schemas"]["ErrorEnvelope"];
    assert!(envelope.is_object(), "ErrorEnvelope schema");
    let ops = doc["paths"].as_object().expect("paths");
    let trigger = &ops["/v1/workspaces/{ws}/runs"]["post"];
    assert_eq!(trigger["security"][0]["bearer"][0], "write");
    assert!(
        trigger["responses"]["422"]["content"]["application/json"]["schema"]["$ref"]
            .as_str()
            .is_some_and(|r| r.ends_with("/ErrorEnvelope"))
    );
    let publish = &ops["/v1/articles/{id}/publish"]["post"];
    assert_eq!(publish["security"][0]["bearer"][0], "publish");
    // Every POST and PATCH documents the Idempotency-Key header once; no GET does.
    let key = &doc["components"]["parameters"]["Idempotency-Key"];
    assert_eq!(key["in"], "header");
    for (path, item) in ops {
        for (method, op) in item.as_object().expect("operations") {
            let keyed = op["parameters"].as_array().map_or(0, |ps| {
                ps.iter()
                    .filter(|p| p["$ref"] == "#/components/parameters/Idempotency-Key")
                    .count()
            });
            // …except the forges' webhook endpoint, which has no bearer token to key by.
            let unauthenticated = op["security"] == serde_json::json!([{}]);
            let expected =
                usize::from(matches!(method.as_str(), "post" | "patch") && !unauthenticated);
            assert_eq!(keyed, expected, "{method} {path}");
        }
    }
    let doc_text = doc.to_string();
    for kind in ERROR_TYPES {
        assert!(doc_text.contains(kind), "error type {kind} is described");
    }
}

#[tokio::test]
async fn every_route_is_in_the_openapi_document_and_every_documented_route_answers() {
    let app = app!();
    let doc = openapi(&app).await;
    let paths = doc["paths"].as_object().expect("paths");
    let missing: Vec<String> = OPERATIONS
        .iter()
        .filter(|(method, path)| {
            !paths
                .get(*path)
                .is_some_and(|item| item[*method].is_object())
        })
        .map(|(method, path)| format!("{} {path}", method.to_uppercase()))
        .collect();
    assert!(missing.is_empty(), "not in /openapi.json: {missing:?}");

    let dummy_id = "0193000000007000800000000000000a";
    for (path, item) in paths {
        for (method, _) in item.as_object().expect("path item") {
            let concrete = path
                .replace("{ws}", &format!("ws_{dummy_id}"))
                .replace("{id}", &format!("x_{dummy_id}"));
            let method = Method::from_bytes(method.to_uppercase().as_bytes()).expect("method");
            let res = app.call(method.clone(), &concrete).send().await;
            let status = res.status();
            let text = res.text().await.unwrap_or_default();
            assert_ne!(status, 405, "{method} {path} is documented but not routed");
            assert!(
                !text.contains("No such route"),
                "{method} {path} is documented but not routed"
            );
        }
    }
}

#[tokio::test]
async fn docs_and_the_error_catalogue_are_served() {
    let app = app!();
    let res = app.get("/docs").anonymous().send().await;
    assert_eq!(res.status(), 200);
    assert!(
        res.headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|c| c.starts_with("text/html"))
    );
    let html = res.text().await.expect("html");
    assert!(
        html.contains("/v1/workspaces/{ws}/runs"),
        "operations are listed"
    );
    assert!(html.contains("/v1/webhooks/{id}/rotate-secret"));

    let html = app.get("/docs/errors").anonymous().expect_text(200).await;
    for kind in ERROR_TYPES {
        assert!(
            html.contains(&format!("id=\"{kind}\"")),
            "/docs/errors has an anchor for {kind}"
        );
    }
}

/// The sample of `name` whose labels include `label` in a Prometheus exposition, if any.
fn sample(text: &str, name: &str, label: &str) -> Option<f64> {
    text.lines()
        .find(|l| l.starts_with(&format!("{name}{{")) && l.contains(label))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
}

/// Any token is a valid HTTP method, and the client chooses it: counted under its own name,
/// each new one would be a series kept for the life of the process.
#[tokio::test]
async fn metrics_count_methods_outside_the_standard_ones_as_other() {
    let app = app!();
    let client = reqwest::Client::new();
    for name in ["FOOA", "FOOB", "FOOC"] {
        let method = reqwest::Method::from_bytes(name.as_bytes()).expect("method");
        let res = client
            .request(method, app.url("/v1/workspaces"))
            .send()
            .await
            .expect("send");
        // Without a token: anyone can send them.
        assert_eq!(res.status(), 401);
    }
    let text = app
        .get("/metrics")
        .anonymous()
        .send()
        .await
        .text()
        .await
        .expect("text");
    assert!(
        !text.contains("FOO"),
        "a client's method became a label:\n{text}"
    );
    let line = text
        .lines()
        .find(|l| {
            l.starts_with("http_requests_total{")
                && l.contains("method=\"other\"")
                && l.contains("route=\"/v1/workspaces\"")
                && l.contains("status=\"401\"")
        })
        .unwrap_or_else(|| panic!("no sample for the other methods:\n{text}"));
    let count: f64 = line
        .rsplit(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a number");
    assert!(count >= 3.0, "{line}");
}

#[tokio::test]
async fn metrics_count_finished_runs_and_delivery_attempts() {
    let app = app!(
        TestApp::builder()
            .workers()
            .run_concurrency(1)
            .webhook_allowed_cidrs("127.0.0.0/8")
    );
    let receiver = crate::receiver::Receiver::start().await;
    let ws = app.workspace("metrics").await;
    app.webhook(&ws, &receiver.url, &["run.completed"]).await;
    let run = app.run_feature(&ws, "src").await;
    assert_eq!(run["status"], "succeeded", "{run}");
    receiver.wait_for(1, Duration::from_secs(10)).await;
    // The attempt is counted once the worker has stored its outcome.
    let text = eventually(
        Duration::from_secs(5),
        "the delivered attempt counted",
        || async {
            let text = app.get("/metrics").anonymous().expect_text(200).await;
            let delivered = sample(
                &text,
                "webhook_delivery_attempts_total",
                "result=\"delivered\"",
            );
            delivered.is_some().then_some(text)
        },
    )
    .await;
    let finished = sample(
        &text,
        "pipeline_runs_finished_total",
        "status=\"succeeded\"",
    );
    assert!(finished.is_some_and(|n| n >= 1.0), "{text}");
    let delivered = sample(
        &text,
        "webhook_delivery_attempts_total",
        "result=\"delivered\"",
    );
    assert!(delivered.is_some_and(|n| n >= 1.0), "{text}");
    assert!(text.contains("pipeline_run_duration_seconds"), "{text}");
    assert!(
        text.contains("webhook_delivery_attempt_duration_seconds"),
        "{text}"
    );
}
