//! The smaller findings of the hardening review: bodies with trailing garbage, webhook
//! addresses that reach a refused IPv4 address through an IPv6 form, the headers of published
//! articles, and the server path a workspace token must not see.

use domain::Surface;
use serde_json::{Value, json};

use crate::app;
use crate::helpers::{Call, TestApp};

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
        let v = app
            .post(&format!("/v1/workspaces/{ws}/webhooks"))
            .json(&json!({"url": url, "events": ["run.completed"]}))
            .expect_error(422, "validation_failed")
            .await;
        assert_eq!(v["error"]["param"], "url", "create {url}");
        let v = app
            .patch(&hook_path)
            .json(&json!({"url": url}))
            .expect_error(422, "validation_failed")
            .await;
        assert_eq!(v["error"]["param"], "url", "patch {url}");
    }
    let unchanged = app.get(&hook_path).expect(200).await;
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
    let published = app
        .post(&format!("/v1/articles/{article}/publish"))
        .expect(200)
        .await;
    let public_url = published["public_url"].as_str().expect("public_url");
    let mdx = app
        .get(public_url)
        .anonymous()
        .header("accept", "text/markdown")
        .send()
        .await;
    assert_eq!(mdx.status(), 200);
    let headers = mdx.headers();
    assert_eq!(headers["x-content-type-options"], "nosniff");
    let csp = headers["content-security-policy"].to_str().expect("ascii");
    assert!(csp.contains("default-src 'none'"), "{csp}");
    assert!(
        headers["content-type"]
            .to_str()
            .expect("ascii")
            .starts_with("text/markdown")
    );
    // The page renders the article without ever running what it holds.
    let page = app.get(public_url).anonymous().send().await;
    assert_eq!(page.status(), 200);
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(csp.contains("script-src 'self'"), "{csp}");
    let html = page.text().await.expect("body");
    assert!(
        html.contains("<h1 id=\"title\">Title <a class=\"heading-link\""),
        "{html}"
    );
    assert!(!html.contains("<script>alert"), "{html}");
}

#[tokio::test]
async fn repo_path_is_shown_to_platform_tokens_only() {
    let app = app!();
    let ws = app.workspace("private-path").await;
    let path = format!("/v1/workspaces/{ws}");
    let platform = app.get(&path).expect(200).await;
    assert!(
        platform["repo_path"]
            .as_str()
            .is_some_and(|p| p.starts_with('/')),
        "{platform}"
    );
    let listed = app.get("/v1/workspaces").expect(200).await;
    assert!(listed["data"][0]["repo_path"].is_string());
    for scope in ["read", "write", "publish", "admin"] {
        let token = app.token(&ws, scope).await;
        let fetched = app.get(&path).token(&token).expect(200).await;
        let listed = app.get("/v1/workspaces").token(&token).expect(200).await;
        let deleted = if scope == "admin" {
            Some(app.delete(&path).token(&token).expect(200).await)
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
