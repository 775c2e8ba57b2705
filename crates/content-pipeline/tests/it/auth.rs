//! Authentication, the scope ladder on every operation, and tenant isolation.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::app;
use crate::helpers::{TestApp, body, expect_error};

#[tokio::test]
async fn bad_credentials_are_401_with_a_bearer_challenge() {
    let app = app!();
    let res = app
        .client
        .get(app.url("/v1/workspaces"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["www-authenticate"], "Bearer");
    expect_error(res, 401, "unauthenticated").await;

    let valid_shape_unknown = operations::tokens::generate_token();
    let mut typo = app.platform_token.clone().into_bytes();
    typo[8] = if typo[8] == b'a' { b'b' } else { b'a' };
    let typo = String::from_utf8(typo).unwrap();
    for token in ["garbage", valid_shape_unknown.as_str(), typo.as_str()] {
        let res = app.get("/v1/workspaces", token).await;
        assert_eq!(
            res.headers()["www-authenticate"],
            "Bearer error=\"invalid_token\""
        );
        expect_error(res, 401, "unauthenticated").await;
    }
    let res = app
        .client
        .get(app.url("/v1/workspaces"))
        .header("authorization", format!("Basic {}", app.platform_token))
        .send()
        .await
        .unwrap();
    expect_error(res, 401, "unauthenticated").await;
}

#[tokio::test]
async fn revoked_tokens_stop_working_at_once() {
    let app = app!();
    let ws = app.workspace("revoke").await;
    let res = app
        .post(
            &format!("/v1/workspaces/{ws}/tokens"),
            &app.platform_token,
            &json!({"scope": "read"}),
        )
        .await;
    let created = body(res).await;
    let token = created["token"].as_str().unwrap();
    assert_eq!(app.get("/v1/workspaces", token).await.status(), 200);
    let res = app
        .request(
            Method::DELETE,
            &format!("/v1/tokens/{}", created["id"].as_str().unwrap()),
            &app.platform_token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    expect_error(
        app.get("/v1/workspaces", token).await,
        401,
        "unauthenticated",
    )
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
    let t = &app.platform_token;
    let run = body(
        app.post(
            &format!("/v1/workspaces/{ws}/runs"),
            t,
            &json!({"feature_id": "src"}),
        )
        .await,
    )
    .await;
    let hook = body(
        app.post(
            &format!("/v1/workspaces/{ws}/webhooks"),
            t,
            &json!({"url": "https://hooks.example.com/in", "events": ["article.published"]}),
        )
        .await,
    )
    .await;
    let ws_id: domain::WorkspaceId = ws.parse().unwrap();
    let run_id: domain::RunId = run["id"].as_str().unwrap().parse().unwrap();
    let mut tx = app.store.begin().await.unwrap();
    let article = tx
        .write_article_version(
            &store::NewArticleVersion {
                workspace_id: ws_id,
                feature_id: "src".into(),
                surface: domain::Surface::DevDocs,
                title: "Src".into(),
                status: domain::ArticleStatus::Draft,
                mdx_body: "---\ntitle: Src\n---\n\n# Src\n".into(),
                provenance: json!({"commit": "abc"}),
                run_id,
            },
            app.clock.timestamp(),
        )
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let published = app
        .post(
            &format!("/v1/articles/{}/publish", article.id),
            t,
            &json!({}),
        )
        .await;
    assert_eq!(published.status(), 200);
    let deliveries = body(
        app.get(
            &format!("/v1/webhooks/{}/deliveries", hook["id"].as_str().unwrap()),
            t,
        )
        .await,
    )
    .await;
    let token = body(
        app.post(
            &format!("/v1/workspaces/{ws}/tokens"),
            t,
            &json!({"scope": "read"}),
        )
        .await,
    )
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
    let mut req = app.request(method.clone(), path, token);
    if let Some(b) = body {
        req = req.json(b);
    }
    req.send().await.unwrap()
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
    expect_error(
        app.post("/v1/workspaces", admin, &json!({"name": "x"}))
            .await,
        403,
        "insufficient_scope",
    )
    .await;
}

async fn snapshot(app: &TestApp, f: &Fixture) -> Vec<Value> {
    let t = &app.platform_token;
    let mut out = Vec::new();
    for path in [
        format!("/v1/workspaces/{}", f.ws),
        format!("/v1/workspaces/{}/runs", f.ws),
        format!("/v1/workspaces/{}/articles", f.ws),
        format!("/v1/workspaces/{}/webhooks", f.ws),
        format!("/v1/workspaces/{}/tokens", f.ws),
        format!("/v1/webhooks/{}/deliveries", f.webhook),
    ] {
        out.push(body(app.get(&path, t).await).await);
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
    let list = body(app.get("/v1/workspaces", &token).await).await;
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
}
