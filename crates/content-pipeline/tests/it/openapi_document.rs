//! The OpenAPI document says exactly what the server does: valid OpenAPI 3.1 for an
//! independent validator, the wire values of every enum, the constraints the server checks,
//! and links from each create to what acts on the created resource. A request that matches
//! no operation never touches an idempotency record.

use std::process::Command;

use reqwest::Method;
use serde_json::{Value, json};

use crate::app;
use crate::helpers::body;

async fn document(app: &crate::helpers::TestApp) -> Value {
    body(
        app.client
            .get(app.url("/openapi.json"))
            .send()
            .await
            .expect("doc"),
    )
    .await
}

/// Runs an independent checker (`program` with `args`, then the path of the served document)
/// and fails with its output on any finding. Absent, it skips, unless `required` names the
/// environment variable CI sets to make its absence a failure.
async fn check_with(program: &std::path::Path, args: &[&str], required: &str, install: &str) {
    let present = Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !present {
        assert!(
            std::env::var(required).as_deref() != Ok("1"),
            "{} is required: {install}",
            program.display()
        );
        eprintln!("SKIPPED: {install} to run this test");
        return;
    }
    let app = app!();
    let file = app.dir.path().join("openapi.json");
    std::fs::write(&file, document(&app).await.to_string()).expect("write");
    let out = Command::new(program)
        .args(args)
        .arg(&file)
        .output()
        .expect("run the checker");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `openapi-spec-validator` (PyPI), the reference validator of OpenAPI 3.1; CI installs it.
#[tokio::test]
async fn the_document_is_valid_openapi_3_1() {
    check_with(
        std::path::Path::new("openapi-spec-validator"),
        &[],
        "CONTENT_PIPELINE_REQUIRE_VALIDATOR",
        "pip install openapi-spec-validator",
    )
    .await;
}

#[tokio::test]
async fn enum_schemas_list_the_values_the_server_accepts() {
    let app = app!();
    let doc = document(&app).await;
    let values = |name: &str| -> Vec<String> {
        doc["components"]["schemas"][name]["enum"]
            .as_array()
            .unwrap_or_else(|| panic!("{name} has an enum"))
            .iter()
            .map(|v| v.as_str().expect("text").to_owned())
            .collect()
    };
    assert_eq!(
        values("EventType"),
        [
            "run.completed",
            "run.failed",
            "article.drafted",
            "article.published",
            "drift.detected"
        ]
    );
    assert_eq!(values("Tier"), ["standard", "priority"]);
    assert_eq!(
        values("Surface"),
        ["help-center", "dev-docs", "changelog", "blog"]
    );
    assert_eq!(
        values("DeliveryStatus"),
        ["pending", "delivering", "delivered", "failed", "dead"]
    );
    assert_eq!(
        values("ArticleStatus"),
        ["draft", "published", "capture_grounded"]
    );
    // What the document lists, the server takes.
    let ws = app.workspace("enums").await;
    app.post(&format!("/v1/workspaces/{ws}/webhooks"))
        .json(&json!({"url": "https://example.com/hook", "events": values("EventType")}))
        .expect(201)
        .await;
}

#[tokio::test]
async fn a_constraint_the_server_checks_is_in_the_schema() {
    let app = app!();
    let doc = document(&app).await;
    let name = &doc["components"]["schemas"]["CreateWorkspace"]["properties"]["name"];
    assert_eq!(name["minLength"], 1);
    assert_eq!(name["maxLength"], 200);
    app.post("/v1/workspaces")
        .json(&json!({"name": ""}))
        .expect_error(422, "validation_failed")
        .await;
    let events = &doc["components"]["schemas"]["CreateWebhook"]["properties"]["events"];
    assert_eq!(events["minItems"], 1);
    // Every keyed operation can answer a reused key; no parameter is null.
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("item") {
            if matches!(method.as_str(), "post" | "patch") {
                assert!(
                    op["responses"]["422"].is_object() && op["responses"]["409"].is_object(),
                    "{method} {path} lists 409 and 422"
                );
            }
            // A query parameter or a header is absent or a value, never `null`: a client told
            // it may be sends the text `null` (schemathesis sent `Last-Event-ID: null`).
            for param in op["parameters"].as_array().into_iter().flatten() {
                let types = &param["schema"]["type"];
                let nullable = types.as_array().is_some_and(|t| t.contains(&json!("null")));
                assert!(
                    types != "null" && !nullable,
                    "{method} {path} {}: {types}",
                    param["name"]
                );
            }
        }
    }
}

/// Each value is taken by `pattern` and by the server (`{field: value}` posted to `path`), or
/// refused by both.
async fn agree(
    app: &crate::helpers::TestApp,
    pattern: &regex::Regex,
    path: &str,
    field: &str,
    values: &[(&str, bool)],
) {
    for (value, taken) in values {
        assert_eq!(pattern.is_match(value), *taken, "{field} {value:?}");
        let res = app.post(path).json(&json!({ field: value })).send().await;
        assert_eq!(res.status().is_success(), *taken, "{field} {value:?}");
    }
}

/// A pattern admits exactly what the server takes: blanks by Rust's definition (which regex
/// dialects disagree on: Python's `\s` has `\x1c`, ECMAScript's has U+FEFF, neither is
/// Rust's) and control characters are refused by both; anything else is taken.
#[tokio::test]
async fn each_pattern_admits_what_the_server_takes() {
    let app = app!();
    let doc = document(&app).await;
    let pattern = |schema: &str, field: &str| {
        let text = doc["components"]["schemas"][schema]["properties"][field]["pattern"]
            .as_str()
            .unwrap_or_else(|| panic!("{schema}.{field} has a pattern"));
        regex::Regex::new(text).expect("a pattern the regex crate reads")
    };

    let name = pattern("CreateWorkspace", "name");
    agree(
        &app,
        &name,
        "/v1/workspaces",
        "name",
        &[
            ("docs", true),
            (" a ", true),
            ("\u{feff}", true),
            ("\u{1c}", true),
            (" ", false),
            ("\u{3000}\t", false),
            ("\u{85}", false),
        ],
    )
    .await;
    let repo_path = pattern("CreateWorkspace", "repo_path");
    assert!(!repo_path.is_match("relative/path"));
    app.post("/v1/workspaces")
        .json(&json!({"name": "relative", "repo_path": "relative/path"}))
        .expect_error(422, "validation_failed")
        .await;

    let ws = app.workspace("patterns").await;
    let feature = pattern("TriggerRun", "feature_id");
    let runs = format!("/v1/workspaces/{ws}/runs");
    agree(
        &app,
        &feature,
        &runs,
        "feature_id",
        &[
            ("src/lib.rs", true),
            ("docs", true),
            (" ", false),
            ("\u{3000}", false),
            ("docs\u{85}", false),
            ("docs\u{7f}", false),
            ("\tdocs", false),
        ],
    )
    .await;
}

#[tokio::test]
async fn each_create_links_to_the_operations_on_what_it_created() {
    let app = app!();
    let doc = document(&app).await;
    let links = &doc["paths"]["/v1/workspaces"]["post"]["responses"]["201"]["links"];
    assert_eq!(links["get_workspace"]["operationId"], "get_workspace");
    assert_eq!(
        links["get_workspace"]["parameters"]["id"],
        "$response.body#/id"
    );
    assert_eq!(
        links["trigger_run"]["parameters"]["ws"],
        "$response.body#/id"
    );
    let hooks = &doc["paths"]["/v1/workspaces/{ws}/webhooks"]["post"]["responses"]["201"]["links"];
    for op in ["get_webhook", "update_webhook", "delete_webhook"] {
        assert_eq!(hooks[op]["operationId"], op);
    }
    // Every link names an operation of the document.
    let ids: Vec<&str> = doc["paths"]
        .as_object()
        .expect("paths")
        .values()
        .flat_map(|item| item.as_object().expect("item").values())
        .filter_map(|op| op["operationId"].as_str())
        .collect();
    for item in doc["paths"].as_object().expect("paths").values() {
        for op in item.as_object().expect("item").values() {
            for response in op["responses"]
                .as_object()
                .into_iter()
                .flat_map(|r| r.values())
            {
                for link in response["links"]
                    .as_object()
                    .into_iter()
                    .flat_map(|l| l.values())
                {
                    let target = link["operationId"].as_str().expect("operationId");
                    assert!(ids.contains(&target), "link to unknown {target}");
                }
            }
        }
    }
}

#[tokio::test]
async fn a_request_that_matches_no_operation_never_touches_idempotency_records() {
    let app = app!();
    let send = |method: Method, body: Value| {
        app.call(method, "/v1/workspaces")
            .header("idempotency-key", "wrong-method-1")
            .json(&body)
    };
    send(Method::PATCH, json!({"name": "a"}))
        .expect_error(405, "method_not_allowed")
        .await;
    send(Method::PATCH, json!({"name": "b"}))
        .expect_error(405, "method_not_allowed")
        .await;
    // The key is still unused: a real operation with it runs.
    let created = send(Method::POST, json!({"name": "c"})).send().await;
    assert_eq!(created.status(), 201);
    assert!(created.headers().get("idempotent-replayed").is_none());
}

/// `/docs` is the interactive reference (RapiDoc, "try it" with a pasted token), served with
/// its script from the binary: nothing is loaded from another origin.
#[tokio::test]
async fn the_reference_is_interactive_and_served_from_the_binary() {
    let app = app!();
    let res = app.get("/docs").anonymous().send().await;
    assert_eq!(res.status(), 200);
    let csp = res.headers()["content-security-policy"]
        .to_str()
        .expect("csp")
        .to_owned();
    assert!(csp.contains("script-src 'self'"), "{csp}");
    assert!(csp.contains("connect-src 'self'"), "{csp}");
    let html = res.text().await.expect("html");
    assert!(
        html.contains("<rapi-doc spec-url=\"/openapi.json\""),
        "{html}"
    );
    assert!(html.contains("allow-try=\"true\""));
    assert!(html.contains("allow-authentication=\"true\""));
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "no other origin is referenced"
    );
    let script = html
        .split("<script type=\"module\" src=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a script")
        .to_owned();
    assert!(script.starts_with("/docs/assets/"), "{script}");
    let asset = app.get(&script).anonymous().send().await;
    assert_eq!(asset.status(), 200);
    assert!(
        asset.headers()["content-type"]
            .to_str()
            .is_ok_and(|t| t.starts_with("text/javascript"))
    );
    let js = asset.text().await.expect("script");
    assert!(js.contains("customElements.define(\"rapi-doc\""));
}

/// Every error response of every operation links to the catalogue entries of its types.
#[tokio::test]
async fn every_error_response_links_to_the_error_catalogue() {
    let app = app!();
    let doc = document(&app).await;
    for (path, item) in doc["paths"].as_object().expect("paths") {
        if !path.starts_with("/v1/") {
            continue;
        }
        for (method, op) in item.as_object().expect("item") {
            for (code, response) in op["responses"].as_object().expect("responses") {
                if code.starts_with('4') || code.starts_with('5') {
                    let text = response["description"].as_str().unwrap_or("");
                    assert!(
                        text.contains("](/docs/errors#"),
                        "{method} {path} {code}: {text}"
                    );
                }
            }
        }
    }
}

/// Spectral's `oas` ruleset (`tests/spectral`, installed by `npm ci` there; `.ci/run` does it)
/// finds no error in the served document.
#[tokio::test]
async fn spectral_finds_no_error_in_the_document() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spectral");
    let ruleset = dir.join(".spectral.yaml");
    let ruleset = ruleset.to_str().expect("a UTF-8 path");
    check_with(
        &dir.join("node_modules/.bin/spectral"),
        &[
            "lint",
            "--ruleset",
            ruleset,
            "--fail-severity",
            "error",
            "--format",
            "text",
        ],
        "CONTENT_PIPELINE_REQUIRE_NODE",
        "npm ci in crates/content-pipeline/tests/spectral",
    )
    .await;
}

/// Every request body and every resource the API answers with has an example in the document.
#[tokio::test]
async fn request_bodies_and_resources_have_examples() {
    let app = app!();
    let doc = document(&app).await;
    let schemas = &doc["components"]["schemas"];
    for name in [
        "CreateWorkspace",
        "CreateToken",
        "TriggerRun",
        "RegenerateArticle",
        "CreateWebhook",
        "UpdateWebhook",
        "RotateSecret",
        "ReplayDelivery",
        "Workspace",
        "Article",
        "ArticleVersion",
        "Run",
        "RunLogEvent",
        "Webhook",
        "Delivery",
        "Token",
    ] {
        assert!(
            schemas[name]["example"].is_object(),
            "{name} has an example"
        );
    }
    // The examples use the wire values the server accepts.
    assert_eq!(schemas["Run"]["example"]["status"], "succeeded");
    assert_eq!(
        schemas["CreateWebhook"]["example"]["events"][0],
        "run.completed"
    );
}
