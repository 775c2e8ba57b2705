//! Authentication, the scope ladder on every operation, and tenant isolation.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::app;
use crate::helpers::{TestApp, expect_error, unissued_token};

#[tokio::test]
async fn bad_credentials_are_401_with_a_bearer_challenge() {
    let app = app!();
    let res = app.get("/v1/workspaces").anonymous().send().await;
    assert_eq!(res.headers()["www-authenticate"], "Bearer");
    expect_error(res, 401, "unauthenticated").await;

    let valid_shape_unknown = unissued_token();
    let mut typo = app.platform_token.clone().into_bytes();
    typo[8] = if typo[8] == b'a' { b'b' } else { b'a' };
    let typo = String::from_utf8(typo).unwrap();
    for token in ["garbage", valid_shape_unknown.as_str(), typo.as_str()] {
        let res = app.get("/v1/workspaces").token(token).send().await;
        assert_eq!(
            res.headers()["www-authenticate"],
            "Bearer error=\"invalid_token\""
        );
        expect_error(res, 401, "unauthenticated").await;
    }
    app.get("/v1/workspaces")
        .anonymous()
        .header("authorization", format!("Basic {}", app.platform_token))
        .expect_error(401, "unauthenticated")
        .await;
}

#[tokio::test]
async fn revoked_tokens_stop_working_at_once() {
    let app = app!();
    let ws = app.workspace("revoke").await;
    let created = app
        .post(&format!("/v1/workspaces/{ws}/tokens"))
        .json(&json!({"scope": "read"}))
        .expect(201)
        .await;
    let token = created["token"].as_str().unwrap();
    app.get("/v1/workspaces").token(token).expect(200).await;
    app.delete(&format!("/v1/tokens/{}", created["id"].as_str().unwrap()))
        .expect(200)
        .await;
    app.get("/v1/workspaces")
        .token(token)
        .expect_error(401, "unauthenticated")
        .await;
}

/// A workspace with one of every resource, for the matrices below.
struct Fixture {
    ws: String,
    run: String,
    article: String,
    webhook: String,
    delivery: String,
    token_id: String,
}

async fn fixture(app: &TestApp, name: &str) -> Fixture {
    let ws = app.workspace(name).await;
    let run = app
        .post(&format!("/v1/workspaces/{ws}/runs"))
        .json(&json!({"feature_id": "src"}))
        .expect(201)
        .await;
    let hook = app
        .webhook(&ws, "https://hooks.example.com/in", &["article.published"])
        .await;
    let article = app
        .write_article_version(&store::NewArticleVersion {
            workspace_id: ws.parse().unwrap(),
            feature_id: "src".into(),
            surface: domain::Surface::DevDocs,
            title: "Src".into(),
            status: domain::ArticleStatus::Draft,
            mdx_body: "---\ntitle: Src\n---\n\n# Src\n".into(),
            plain_text: "Src".into(),
            provenance: json!({"commit": "abc"}),
            run_id: run["id"].as_str().unwrap().parse().unwrap(),
        })
        .await;
    app.post(&format!("/v1/articles/{}/publish", article.id))
        .json(&json!({}))
        .expect(200)
        .await;
    let deliveries = app
        .get(&format!(
            "/v1/webhooks/{}/deliveries",
            hook["id"].as_str().unwrap()
        ))
        .expect(200)
        .await;
    let token = app
        .post(&format!("/v1/workspaces/{ws}/tokens"))
        .json(&json!({"scope": "read"}))
        .expect(201)
        .await;
    Fixture {
        ws,
        run: run["id"].as_str().unwrap().into(),
        article: article.id.to_string(),
        webhook: hook["id"].as_str().unwrap().into(),
        delivery: deliveries["data"][0]["id"]
            .as_str()
            .expect("a delivery")
            .into(),
        token_id: token["id"].as_str().unwrap().into(),
    }
}

/// Every operation of the API on the resources of `f`, with a valid body and its minimum scope.
fn operations(f: &Fixture) -> Vec<(Method, String, Option<Value>, &'static str)> {
    let ws = &f.ws;
    vec![
        (Method::GET, format!("/v1/workspaces/{ws}"), None, "read"),
        (
            Method::GET,
            format!("/v1/workspaces/{ws}/articles"),
            None,
            "read",
        ),
        (
            Method::GET,
            format!("/v1/workspaces/{ws}/runs"),
            None,
            "read",
        ),
        (
            Method::GET,
            format!("/v1/workspaces/{ws}/webhooks"),
            None,
            "read",
        ),
        (
            Method::GET,
            format!("/v1/articles/{}", f.article),
            None,
            "read",
        ),
        (
            Method::GET,
            format!("/v1/articles/{}/versions", f.article),
            None,
            "read",
        ),
        (Method::GET, format!("/v1/runs/{}", f.run), None, "read"),
        (Method::GET, format!("/v1/runs/{}/log", f.run), None, "read"),
        (
            Method::GET,
            format!("/v1/webhooks/{}", f.webhook),
            None,
            "read",
        ),
        (
            Method::GET,
            format!("/v1/webhooks/{}/deliveries", f.webhook),
            None,
            "read",
        ),
        (
            Method::GET,
            format!("/v1/deliveries/{}", f.delivery),
            None,
            "read",
        ),
        (
            Method::POST,
            format!("/v1/workspaces/{ws}/runs"),
            Some(json!({"feature_id": "docs"})),
            "write",
        ),
        (
            Method::POST,
            format!("/v1/workspaces/{ws}/webhooks"),
            Some(json!({"url": "https://other.example.com/x", "events": ["run.failed"]})),
            "write",
        ),
        (
            Method::PATCH,
            format!("/v1/webhooks/{}", f.webhook),
            Some(json!({"description": "changed"})),
            "write",
        ),
        (
            Method::POST,
            format!("/v1/webhooks/{}/rotate-secret", f.webhook),
            Some(json!({})),
            "write",
        ),
        (
            Method::POST,
            format!("/v1/webhooks/{}/replay", f.webhook),
            Some(json!({"delivery_id": f.delivery})),
            "write",
        ),
        (
            Method::POST,
            format!("/v1/articles/{}/regenerate", f.article),
            Some(json!({})),
            "write",
        ),
        (
            Method::POST,
            format!("/v1/articles/{}/publish", f.article),
            Some(json!({})),
            "publish",
        ),
        (
            Method::GET,
            format!("/v1/workspaces/{ws}/tokens"),
            None,
            "admin",
        ),
        (
            Method::POST,
            format!("/v1/workspaces/{ws}/tokens"),
            Some(json!({"scope": "read"})),
            "admin",
        ),
        (
            Method::POST,
            format!("/v1/tokens/{}/reissue", f.token_id),
            None,
            "admin",
        ),
        (
            Method::DELETE,
            format!("/v1/webhooks/{}", f.webhook),
            None,
            "write",
        ),
        (
            Method::DELETE,
            format!("/v1/tokens/{}", f.token_id),
            None,
            "admin",
        ),
        (
            Method::DELETE,
            format!("/v1/workspaces/{ws}"),
            None,
            "admin",
        ),
    ]
}

async fn call(
    app: &TestApp,
    method: &Method,
    path: &str,
    body: &Option<Value>,
    token: &str,
) -> reqwest::Response {
    let call = app.call(method.clone(), path).token(token);
    match body {
        Some(b) => call.json(b).send().await,
        None => call.send().await,
    }
}

const LADDER: [&str; 4] = ["read", "write", "publish", "admin"];

#[tokio::test]
async fn every_operation_requires_its_scope() {
    let app = app!();
    let f = fixture(&app, "ladder").await;
    let mut tokens = Vec::new();
    for scope in LADDER {
        tokens.push((scope, app.token(&f.ws, scope).await));
    }
    for (method, path, body_json, needed) in operations(&f) {
        let needed_rank = LADDER.iter().position(|s| *s == needed).unwrap();
        for (rank, (scope, token)) in tokens.iter().enumerate() {
            let res = call(&app, &method, &path, &body_json, token).await;
            if rank < needed_rank {
                let challenge = res.headers()["www-authenticate"]
                    .to_str()
                    .unwrap()
                    .to_owned();
                assert_eq!(
                    challenge,
                    format!("Bearer error=\"insufficient_scope\", scope=\"{needed}\""),
                    "{method} {path}"
                );
                expect_error(res, 403, "insufficient_scope").await;
            } else {
                assert!(
                    ![StatusCode::UNAUTHORIZED, StatusCode::FORBIDDEN].contains(&res.status()),
                    "{method} {path} with {scope} gave {}",
                    res.status()
                );
                // Only the least scope performs a write; the others would repeat it.
                break;
            }
        }
    }
    // Creating workspaces is for platform tokens only, even a workspace admin's.
    let admin = &tokens[3].1;
    app.post("/v1/workspaces")
        .token(admin)
        .json(&json!({"name": "x"}))
        .expect_error(403, "insufficient_scope")
        .await;
}

async fn snapshot(app: &TestApp, f: &Fixture) -> Vec<Value> {
    let mut out = Vec::new();
    for path in [
        format!("/v1/workspaces/{}", f.ws),
        format!("/v1/workspaces/{}/runs", f.ws),
        format!("/v1/workspaces/{}/articles", f.ws),
        format!("/v1/workspaces/{}/webhooks", f.ws),
        format!("/v1/workspaces/{}/tokens", f.ws),
        format!("/v1/webhooks/{}/deliveries", f.webhook),
    ] {
        out.push(app.get(&path).expect(200).await);
    }
    out
}

#[tokio::test]
async fn another_workspace_is_invisible_to_every_operation() {
    let app = app!();
    let victim = fixture(&app, "victim").await;
    let other = app.workspace("other").await;
    let before = snapshot(&app, &victim).await;
    for scope in LADDER {
        let token = app.token(&other, scope).await;
        for (method, path, body_json, _) in operations(&victim) {
            let res = call(&app, &method, &path, &body_json, &token).await;
            let v = expect_error(res, 404, "not_found").await;
            assert!(!v.to_string().contains("insufficient"), "{method} {path}");
        }
    }
    assert_eq!(
        snapshot(&app, &victim).await,
        before,
        "nothing in the victim workspace changed"
    );
    // The other workspace's list shows only itself.
    let token = app.token(&other, "admin").await;
    let list = app.get("/v1/workspaces").token(&token).expect(200).await;
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
}
