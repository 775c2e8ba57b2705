//! What a workspace token sees of workspaces: its own workspace only, never the server path
//! (`repo_path`) that platform tokens see.

use serde_json::{Value, json};

use crate::app;

#[tokio::test]
async fn a_workspace_token_sees_only_its_workspace() {
    let app = app!();
    let a = app.workspace("A").await;
    let _b = app.workspace("B").await;
    let token = app.token(&a, "read").await;
    let v = app.get("/v1/workspaces").token(&token).expect(200).await;
    assert_eq!(v["data"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["data"][0]["id"], a.as_str());
    assert!(v["next_cursor"].is_null());
    app.post("/v1/workspaces")
        .token(&token)
        .json(&json!({"name": "nope"}))
        .expect_error(403, "insufficient_scope")
        .await;
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
