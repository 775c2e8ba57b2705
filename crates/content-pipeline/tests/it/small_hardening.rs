//! The smaller findings of the hardening review: bodies with trailing garbage, webhook
//! addresses that reach a refused IPv4 address through an IPv6 form, the headers of published
//! articles, and the server path a workspace token must not see.

use domain::Surface;
use reqwest::Method;
use serde_json::{Value, json};

use crate::app;
use crate::helpers::{TestApp, body, expect_error};

async fn raw_post(app: &TestApp, path: &str, text: &'static str) -> reqwest::Response {
    app.request(Method::POST, path, &app.platform_token)
        .header("content-type", "application/json")
        .body(text)
        .send()
        .await
        .expect("request")
}

#[tokio::test]
async fn json_with_trailing_garbage_is_422_but_trailing_whitespace_is_fine() {
    let app = app!();
    for text in [
        r#"{"name": "one"} xx"#,
        r#"{"name": "one"}{"name": "two"}"#,
        r#"{"name": "one"},"#,
    ] {
        expect_error(
            raw_post(&app, "/v1/workspaces", text).await,
            422,
            "validation_failed",
        )
        .await;
    }
    let listed = body(app.get("/v1/workspaces", &app.platform_token).await).await;
    assert_eq!(listed["data"], json!([]), "nothing was created");
    let res = raw_post(&app, "/v1/workspaces", "{\"name\": \"spaced\"} \r\n\t ").await;
    assert_eq!(res.status(), 201);
}

const EMBEDDED_IPV4_URLS: [&str; 6] = [
    "http://[::127.0.0.1]/hook",
    "http://[::10.0.0.1]:8080/hook",
    "http://[fec0::1]/hook",
    "http://[2001::7f00:1]/hook",
    "http://[::ffff:0:127.0.0.1]/hook",
    "http://[2606:4700::5efe:127.0.0.1]/hook",
];

#[tokio::test]
async fn webhook_urls_reaching_a_refused_address_through_ipv6_are_422() {
    let app = app!();
    let ws = app.workspace("addresses").await;
    let hook = app
        .webhook(&ws, "https://example.com/fine", &["run.completed"])
        .await;
    let hook_path = format!("/v1/webhooks/{}", hook["id"].as_str().expect("id"));
    for url in EMBEDDED_IPV4_URLS {
        let created = app
            .post(
                &format!("/v1/workspaces/{ws}/webhooks"),
                &app.platform_token,
                &json!({"url": url, "events": ["run.completed"]}),
            )
            .await;
        let v = expect_error(created, 422, "validation_failed").await;
        assert_eq!(v["error"]["param"], "url", "create {url}");
        let patched = app
            .send_json(
                Method::PATCH,
                &hook_path,
                &app.platform_token,
                &json!({"url": url}),
            )
            .await;
        let v = expect_error(patched, 422, "validation_failed").await;
        assert_eq!(v["error"]["param"], "url", "patch {url}");
    }
    let unchanged = body(app.get(&hook_path, &app.platform_token).await).await;
    assert_eq!(unchanged["url"], "https://example.com/fine");
}

#[tokio::test]
async fn published_articles_are_never_sniffed_or_run_by_browsers() {
    let app = app!();
    let ws = app.workspace("published").await;
    let article = app
        .write_article(
            &ws,
            "a",
            Surface::Blog,
            "# Title\n\n<script>alert(1)</script>\n",
        )
        .await;
    let res = app
        .request(
            Method::POST,
            &format!("/v1/articles/{article}/publish"),
            &app.platform_token,
        )
        .send()
        .await
        .expect("publish");
    assert_eq!(res.status(), 200);
    let public_url = body(res).await["public_url"]
        .as_str()
        .expect("public_url")
        .to_owned();
    let page = app.client.get(&public_url).send().await.expect("page");
    assert_eq!(page.status(), 200);
    let headers = page.headers();
    assert_eq!(headers["x-content-type-options"], "nosniff");
    let csp = headers["content-security-policy"].to_str().expect("ascii");
    assert!(csp.contains("default-src 'none'"), "{csp}");
    assert!(
        headers["content-type"]
            .to_str()
            .expect("ascii")
            .starts_with("text/markdown")
    );
}

#[tokio::test]
async fn repo_path_is_shown_to_platform_tokens_only() {
    let app = app!();
    let ws = app.workspace("private-path").await;
    let path = format!("/v1/workspaces/{ws}");
    let platform = body(app.get(&path, &app.platform_token).await).await;
    assert!(
        platform["repo_path"]
            .as_str()
            .is_some_and(|p| p.starts_with('/')),
        "{platform}"
    );
    let listed = body(app.get("/v1/workspaces", &app.platform_token).await).await;
    assert!(listed["data"][0]["repo_path"].is_string());
    for scope in ["read", "write", "publish", "admin"] {
        let token = app.token(&ws, scope).await;
        let fetched = body(app.get(&path, &token).await).await;
        let listed = body(app.get("/v1/workspaces", &token).await).await;
        let deleted = if scope == "admin" {
            let res = app.delete(&path, &token).await;
            assert_eq!(res.status(), 200);
            Some(body(res).await)
        } else {
            None
        };
        for shown in [Some(fetched), Some(listed["data"][0].clone()), deleted]
            .into_iter()
            .flatten()
        {
            assert_eq!(shown["id"], ws.as_str(), "{scope}: {shown}");
            let object = shown.as_object().expect("object");
            assert!(
                !object.contains_key("repo_path"),
                "{scope} token sees {:?}",
                object.get("repo_path").map(Value::to_string)
            );
        }
    }
}
