//! The optional prose polish against a stub OpenAI-compatible endpoint on loopback.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::http::HeaderMap;
use axum::routing::post;
use serde_json::{Value, json};

use crate::app;
use crate::helpers::{Builder, TestApp};

/// A chat-completions stub answering `reply` and recording what it was sent.
async fn stub(reply: &'static str) -> (String, Arc<Mutex<Vec<(Value, String)>>>) {
    let seen: Arc<Mutex<Vec<(Value, String)>>> = Arc::default();
    let record = seen.clone();
    let router = axum::Router::new().route(
        "/v1/chat/completions",
        post(move |headers: HeaderMap, Json(req): Json<Value>| {
            let record = record.clone();
            async move {
                let auth = headers
                    .get("authorization")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_owned();
                record.lock().unwrap().push((req, auth));
                Json(json!({"choices": [{"message": {"role": "assistant", "content": reply}}]}))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://{}/v1/chat/completions",
        listener.local_addr().unwrap()
    );
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    (url, seen)
}

async fn generate(app: &TestApp) -> Vec<Value> {
    let ws = app.workspace("polish").await;
    let run = app.run_feature(&ws, "src").await;
    assert_eq!(
        run["status"], "succeeded",
        "polish must never fail a run: {run}"
    );
    let list = app
        .get(&format!("/v1/workspaces/{ws}/articles"))
        .expect(200)
        .await;
    list["data"].as_array().unwrap().clone()
}

fn workers_with_polish(url: &str) -> Builder {
    TestApp::builder()
        .run_worker()
        .polish(url, "m1", "sk-test", Duration::from_secs(2))
}

#[tokio::test]
async fn a_configured_endpoint_polishes_the_prose_and_keeps_the_frontmatter() {
    let (url, seen) = stub("## Overview\n\nPolished prose.").await;
    let app = app!(workers_with_polish(&url));
    let articles = generate(&app).await;
    assert_eq!(articles.len(), 4);
    for a in &articles {
        let mdx = a["mdx_body"].as_str().unwrap();
        assert!(
            mdx.starts_with("---\n") && mdx.contains("source_commit:"),
            "{mdx}"
        );
        assert!(mdx.contains("Polished prose."), "{mdx}");
        pipeline::validate_mdx(mdx).unwrap();
    }
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 4);
    for (req, auth) in seen.iter() {
        assert_eq!(auth, "Bearer sk-test");
        assert_eq!(req["model"], "m1");
        let sent = req["messages"][1]["content"].as_str().unwrap();
        assert!(!sent.contains("source_commit:"), "only the body is sent");
    }
}

#[tokio::test]
async fn any_failure_keeps_the_deterministic_text() {
    // An answer that is not valid MDX.
    let (url, _) = stub("<Unclosed attribute={").await;
    let app = app!(workers_with_polish(&url));
    let articles = generate(&app).await;
    let dev = articles
        .iter()
        .find(|a| a["surface"] == "dev-docs")
        .unwrap();
    let mdx = dev["mdx_body"].as_str().unwrap();
    assert!(!mdx.contains("Unclosed") && mdx.contains("add"), "{mdx}");

    // An endpoint that does not answer at all.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        drop(l);
        format!("http://127.0.0.1:{port}/v1/chat/completions")
    };
    let app = app!(workers_with_polish(&closed));
    let articles = generate(&app).await;
    assert_eq!(articles.len(), 4);
    let dev = articles
        .iter()
        .find(|a| a["surface"] == "dev-docs")
        .unwrap();
    assert!(dev["mdx_body"].as_str().unwrap().contains("add"));
}
