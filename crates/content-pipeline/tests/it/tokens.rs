//! Token management: create, list, reissue and revoke over HTTP.

use serde_json::{Value, json};

use crate::app;
use crate::helpers::{Call, TestApp};

fn create_token<'a>(app: &'a TestApp, ws: &str, caller: &str, payload: Value) -> Call<'a> {
    app.post(&format!("/v1/workspaces/{ws}/tokens"))
        .token(caller)
        .json(&payload)
}

#[tokio::test]
async fn the_secret_is_shown_once_and_works() {
    let app = app!();
    let ws = app.workspace("W").await;
    let admin = app.token(&ws, "admin").await;
    let created = create_token(
        &app,
        &ws,
        &admin,
        json!({"scope": "write", "name": "deploy bot"}),
    )
    .expect(201)
    .await;
    let id = created["id"].as_str().expect("id").to_owned();
    assert!(id.starts_with("tok_"));
    assert_eq!(created["workspace_id"], ws.as_str());
    assert_eq!(created["scope"], "write");
    assert_eq!(created["name"], "deploy bot");
    assert!(created["revoked_at"].is_null());
    let secret = created["token"].as_str().expect("token").to_owned();
    assert!(secret.starts_with("cpt_"));

    // The new write token can trigger.
    app.post(&format!("/v1/workspaces/{ws}/runs"))
        .token(&secret)
        .json(&json!({"feature_id": "src"}))
        .expect(201)
        .await;

    let text = app
        .get(&format!("/v1/workspaces/{ws}/tokens"))
        .token(&admin)
        .expect_text(200)
        .await;
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

/// JSON has one number type: `269.0` is the integer the schema's `"type": "integer"` admits
/// (schemathesis sent it and was refused), and a fraction is still refused.
#[tokio::test]
async fn an_integral_float_is_an_integer() {
    let app = app!();
    let ws = app.workspace("W").await;
    let admin = app.token(&ws, "admin").await;
    for (sent, kept) in [(json!(269.0), 269), (json!(2e2), 200)] {
        let created = create_token(
            &app,
            &ws,
            &admin,
            json!({"scope": "read", "rate_limit": sent}),
        )
        .expect(201)
        .await;
        assert_eq!(created["rate_limit"], kept);
    }
    let err = create_token(
        &app,
        &ws,
        &admin,
        json!({"scope": "read", "rate_limit": 269.5}),
    )
    .expect_error(422, "validation_failed")
    .await;
    assert_eq!(err["error"]["param"], "rate_limit");
}

#[tokio::test]
async fn scopes_are_the_ladder_values() {
    let app = app!();
    let ws = app.workspace("W").await;
    let admin = app.token(&ws, "admin").await;
    // Admin may mint admin.
    create_token(&app, &ws, &admin, json!({"scope": "admin"}))
        .expect(201)
        .await;
    let err = create_token(&app, &ws, &admin, json!({"scope": "root"}))
        .expect_error(422, "validation_failed")
        .await;
    assert_eq!(err["error"]["param"], "scope");
}

#[tokio::test]
async fn reissue_replaces_the_secret_at_once() {
    let app = app!();
    let ws = app.workspace("W").await;
    let created = create_token(&app, &ws, &app.platform_token, json!({"scope": "read"}))
        .expect(201)
        .await;
    let id = created["id"].as_str().expect("id");
    let old = created["token"].as_str().expect("token");
    app.get("/v1/workspaces").token(old).expect(200).await;

    let reissued = app
        .post(&format!("/v1/tokens/{id}/reissue"))
        .expect(200)
        .await;
    assert_eq!(reissued["id"], id);
    assert_eq!(reissued["scope"], "read");
    let new = reissued["token"].as_str().expect("new token");
    assert_ne!(new, old);

    app.get("/v1/workspaces")
        .token(old)
        .expect_error(401, "unauthenticated")
        .await;
    let listed = app.get("/v1/workspaces").token(new).expect(200).await;
    assert_eq!(listed["data"][0]["id"], ws.as_str());
}

#[tokio::test]
async fn revoke_stops_the_token() {
    let app = app!();
    let ws = app.workspace("W").await;
    let created = create_token(&app, &ws, &app.platform_token, json!({"scope": "publish"}))
        .expect(201)
        .await;
    let id = created["id"].as_str().expect("id");
    let secret = created["token"].as_str().expect("token");
    app.get("/v1/workspaces").token(secret).expect(200).await;

    let token = format!("/v1/tokens/{id}");
    let revoked = app.delete(&token).expect(200).await;
    assert!(revoked["revoked_at"].as_str().is_some());
    assert!(revoked.get("token").is_none());

    app.get("/v1/workspaces")
        .token(secret)
        .expect_error(401, "unauthenticated")
        .await;

    let again = app.delete(&token).expect(200).await;
    assert_eq!(
        again["revoked_at"], revoked["revoked_at"],
        "first time kept"
    );

    let list = app
        .get(&format!("/v1/workspaces/{ws}/tokens"))
        .expect(200)
        .await;
    let listed = list["data"]
        .as_array()
        .expect("data")
        .iter()
        .find(|t| t["id"] == id)
        .cloned()
        .expect("revoked tokens stay listed");
    assert_eq!(listed["revoked_at"], revoked["revoked_at"]);

    app.post(&format!("/v1/tokens/{id}/reissue"))
        .expect_error(409, "conflict")
        .await;
}

#[tokio::test]
async fn a_workspace_token_cannot_see_another_workspaces_tokens() {
    let app = app!();
    let a = app.workspace("A").await;
    let b = app.workspace("B").await;
    let admin_a = app.token(&a, "admin").await;
    let b_token = create_token(&app, &b, &app.platform_token, json!({"scope": "read"}))
        .expect(201)
        .await;
    let b_id = b_token["id"].as_str().expect("id");

    for call in [
        app.get(&format!("/v1/workspaces/{b}/tokens")),
        create_token(&app, &b, &admin_a, json!({"scope": "read"})),
        app.post(&format!("/v1/tokens/{b_id}/reissue")),
        app.delete(&format!("/v1/tokens/{b_id}")),
    ] {
        call.token(&admin_a).expect_error(404, "not_found").await;
    }

    let still = b_token["token"].as_str().expect("token");
    let res = app.get("/v1/workspaces").token(still).send().await;
    assert_eq!(res.status(), 200, "untouched");
}
