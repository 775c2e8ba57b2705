use serde_json::json;

use crate::app;
use crate::helpers::{body, expect_error};

#[tokio::test]
async fn a_workspace_token_sees_only_its_workspace() {
    let app = app!();
    let a = app.workspace("A").await;
    let _b = app.workspace("B").await;
    let token = app.token(&a, "read").await;
    let res = app.get("/v1/workspaces", &token).await;
    assert_eq!(res.status(), 200);
    let v = body(res).await;
    assert_eq!(v["data"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["data"][0]["id"], a.as_str());
    assert!(v["next_cursor"].is_null());
    let res = app
        .post("/v1/workspaces", &token, &json!({"name": "nope"}))
        .await;
    expect_error(res, 403, "insufficient_scope").await;
}
