use serde_json::json;

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
