//! Token management: create, list, reissue and revoke over HTTP.

use reqwest::Method;
use serde_json::{Value, json};

use crate::app;
use crate::helpers::{TestApp, body, expect_error};

async fn create_token(app: &TestApp, ws: &str, caller: &str, payload: Value) -> reqwest::Response {
    app.post(&format!("/v1/workspaces/{ws}/tokens"), caller, &payload)
        .await
}

#[tokio::test]
async fn the_secret_is_shown_once_and_works() {
    let app = app!();
    let ws = app.workspace("W").await;
    let admin = app.token(&ws, "admin").await;
    let res = create_token(
        &app,
        &ws,
        &admin,
        json!({"scope": "write", "name": "deploy bot"}),
    )
    .await;
    assert_eq!(res.status(), 201);
    let created = body(res).await;
    let id = created["id"].as_str().expect("id").to_owned();
    assert!(id.starts_with("tok_"));
    assert_eq!(created["workspace_id"], ws.as_str());
    assert_eq!(created["scope"], "write");
    assert_eq!(created["name"], "deploy bot");
    assert!(created["revoked_at"].is_null());
    let secret = created["token"].as_str().expect("token").to_owned();
    assert!(secret.starts_with("cpt_"));

    let res = app
        .post(
            &format!("/v1/workspaces/{ws}/runs"),
            &secret,
            &json!({"feature_id": "src"}),
        )
        .await;
    assert_eq!(res.status(), 201, "the new write token can trigger");

    let res = app
        .get(&format!("/v1/workspaces/{ws}/tokens"), &admin)
        .await;
    assert_eq!(res.status(), 200);
    let text = res.text().await.expect("text");
    assert!(!text.contains(&secret), "the list never shows a secret");
    let list: Value = serde_json::from_str(&text).expect("json");
    let items = list["data"].as_array().expect("data");
    let listed = items
        .iter()
        .find(|t| t["id"] == id.as_str())
        .expect("listed");
    assert!(listed.get("token").is_none());
    assert_eq!(listed["scope"], "write");
    assert!(items.iter().all(|t| t.get("token").is_none()));
}

#[tokio::test]
async fn scopes_are_the_ladder_values() {
    let app = app!();
    let ws = app.workspace("W").await;
    let admin = app.token(&ws, "admin").await;
    let res = create_token(&app, &ws, &admin, json!({"scope": "admin"})).await;
    assert_eq!(res.status(), 201, "admin may mint admin");
    let res = create_token(&app, &ws, &admin, json!({"scope": "root"})).await;
    let err = expect_error(res, 422, "validation_failed").await;
    assert_eq!(err["error"]["param"], "scope");
}

#[tokio::test]
async fn reissue_replaces_the_secret_at_once() {
    let app = app!();
    let ws = app.workspace("W").await;
    let created =
        body(create_token(&app, &ws, &app.platform_token, json!({"scope": "read"})).await).await;
    let id = created["id"].as_str().expect("id");
    let old = created["token"].as_str().expect("token");
    assert_eq!(app.get("/v1/workspaces", old).await.status(), 200);

    let res = app
        .request(
            Method::POST,
            &format!("/v1/tokens/{id}/reissue"),
            &app.platform_token,
        )
        .send()
        .await
        .expect("reissue");
    assert_eq!(res.status(), 200);
    let reissued = body(res).await;
    assert_eq!(reissued["id"], id);
    assert_eq!(reissued["scope"], "read");
    let new = reissued["token"].as_str().expect("new token");
    assert_ne!(new, old);

    let res = app.get("/v1/workspaces", old).await;
    expect_error(res, 401, "unauthenticated").await;
    let res = app.get("/v1/workspaces", new).await;
    assert_eq!(res.status(), 200);
    assert_eq!(body(res).await["data"][0]["id"], ws.as_str());
}

#[tokio::test]
async fn revoke_stops_the_token() {
    let app = app!();
    let ws = app.workspace("W").await;
    let created =
        body(create_token(&app, &ws, &app.platform_token, json!({"scope": "publish"})).await).await;
    let id = created["id"].as_str().expect("id");
    let secret = created["token"].as_str().expect("token");
    assert_eq!(app.get("/v1/workspaces", secret).await.status(), 200);

    let res = app
        .delete(&format!("/v1/tokens/{id}"), &app.platform_token)
        .await;
    assert_eq!(res.status(), 200);
    let revoked = body(res).await;
    assert!(revoked["revoked_at"].as_str().is_some());
    assert!(revoked.get("token").is_none());

    let res = app.get("/v1/workspaces", secret).await;
    expect_error(res, 401, "unauthenticated").await;

    let again = app
        .delete(&format!("/v1/tokens/{id}"), &app.platform_token)
        .await;
    assert_eq!(again.status(), 200);
    assert_eq!(
        body(again).await["revoked_at"],
        revoked["revoked_at"],
        "first time kept"
    );

    let list = body(
        app.get(&format!("/v1/workspaces/{ws}/tokens"), &app.platform_token)
            .await,
    )
    .await;
    let listed = list["data"]
        .as_array()
        .expect("data")
        .iter()
        .find(|t| t["id"] == id)
        .cloned()
        .expect("revoked tokens stay listed");
    assert_eq!(listed["revoked_at"], revoked["revoked_at"]);

    let res = app
        .request(
            Method::POST,
            &format!("/v1/tokens/{id}/reissue"),
            &app.platform_token,
        )
        .send()
        .await
        .expect("reissue");
    expect_error(res, 409, "conflict").await;
}

#[tokio::test]
async fn a_workspace_token_cannot_see_another_workspaces_tokens() {
    let app = app!();
    let a = app.workspace("A").await;
    let b = app.workspace("B").await;
    let admin_a = app.token(&a, "admin").await;
    let b_token =
        body(create_token(&app, &b, &app.platform_token, json!({"scope": "read"})).await).await;
    let b_id = b_token["id"].as_str().expect("id");

    let res = app
        .get(&format!("/v1/workspaces/{b}/tokens"), &admin_a)
        .await;
    expect_error(res, 404, "not_found").await;
    let res = create_token(&app, &b, &admin_a, json!({"scope": "read"})).await;
    expect_error(res, 404, "not_found").await;
    let res = app
        .request(
            Method::POST,
            &format!("/v1/tokens/{b_id}/reissue"),
            &admin_a,
        )
        .send()
        .await
        .expect("reissue");
    expect_error(res, 404, "not_found").await;
    let res = app.delete(&format!("/v1/tokens/{b_id}"), &admin_a).await;
    expect_error(res, 404, "not_found").await;

    let still = b_token["token"].as_str().expect("token");
    assert_eq!(
        app.get("/v1/workspaces", still).await.status(),
        200,
        "untouched"
    );
}
