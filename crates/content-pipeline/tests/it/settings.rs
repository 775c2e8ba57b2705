//! Settings → API tokens and Members over HTTP: token expiry and last use, and a workspace's
//! members, with the API's rules (tenancy, scope, deleted workspaces, bad input, idempotency).

use std::time::Duration;

use domain::Timestamp;
use operations::accounts::NewUser;
use serde_json::{Value, json};

use crate::app;
use crate::helpers::TestApp;
use crate::portal::PASSWORD;

/// The server's "now" plus `ahead`, as the API writes times.
fn from_now(app: &TestApp, ahead: Duration) -> String {
    Timestamp::from(app.clock.now()).plus(ahead).to_string()
}

fn ago(app: &TestApp, behind: Duration) -> String {
    Timestamp::from(app.clock.now()).minus(behind).to_string()
}

async fn listed_token(app: &TestApp, ws: &str, admin: &str, id: &str) -> Value {
    let list = app
        .get(&format!("/v1/workspaces/{ws}/tokens?limit=100"))
        .token(admin)
        .expect(200)
        .await;
    list["data"]
        .as_array()
        .expect("data")
        .iter()
        .find(|t| t["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("{id} in {list}"))
}

/// The validation envelope, naming `param`.
fn assert_invalid(body: &Value, param: &str) {
    let e = &body["error"];
    assert_eq!(e["type"], "validation_failed", "{body}");
    assert_eq!(e["param"], param, "{body}");
    assert!(e["message"].as_str().is_some_and(|m| !m.is_empty()));
    assert!(
        e["request_id"]
            .as_str()
            .is_some_and(|r| r.starts_with("req_"))
    );
    assert!(
        e["docs"]
            .as_str()
            .is_some_and(|d| d.ends_with("/docs/errors#validation_failed"))
    );
}

#[tokio::test]
async fn a_token_keeps_its_expiry_and_is_refused_like_a_revoked_one_once_expired() {
    let app = app!();
    let ws = app.workspace("W").await;
    let admin = app.token(&ws, "admin").await;
    let expires_at = from_now(&app, Duration::from_secs(3600));
    let created = app
        .post(&format!("/v1/workspaces/{ws}/tokens"))
        .token(&admin)
        .json(&json!({"scope": "read", "name": "short-lived", "expires_at": expires_at}))
        .expect(201)
        .await;
    assert_eq!(created["expires_at"], expires_at.as_str());
    assert!(created["last_used_at"].is_null(), "{created}");
    let id = created["id"].as_str().expect("id");
    let secret = created["token"].as_str().expect("secret").to_owned();
    let listed = listed_token(&app, &ws, &admin, id).await;
    assert_eq!(listed["expires_at"], expires_at.as_str());
    let admin_id = app.token_id(&admin).await;
    let forever = listed_token(&app, &ws, &admin, &admin_id).await;
    assert!(
        forever.get("expires_at").is_some_and(Value::is_null),
        "always present, null without expiry: {forever}"
    );

    // Reissue keeps the expiry.
    let reissued = app
        .post(&format!("/v1/tokens/{id}/reissue"))
        .token(&admin)
        .expect(200)
        .await;
    assert_eq!(reissued["expires_at"], expires_at.as_str());
    let secret_2 = reissued["token"].as_str().expect("secret").to_owned();
    assert_ne!(secret, secret_2);
    app.get(&format!("/v1/workspaces/{ws}"))
        .token(&secret_2)
        .expect(200)
        .await;

    app.clock.advance(Duration::from_secs(3600));
    let refused = app
        .get(&format!("/v1/workspaces/{ws}"))
        .token(&secret_2)
        .send()
        .await;
    assert_eq!(refused.status(), 401);
    assert_eq!(
        refused.headers()["www-authenticate"],
        "Bearer error=\"invalid_token\""
    );
    let body: Value = refused.json().await.expect("json");
    assert_eq!(body["error"]["type"], "unauthenticated");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("expired")),
        "{body}"
    );

    // An expired token cannot be brought back by a reissue, but can still be revoked.
    app.post(&format!("/v1/tokens/{id}/reissue"))
        .token(&admin)
        .expect_error(409, "conflict")
        .await;
    let revoked = app
        .delete(&format!("/v1/tokens/{id}"))
        .token(&admin)
        .expect(200)
        .await;
    assert!(revoked["revoked_at"].is_string());
}

#[tokio::test]
async fn an_expiry_in_the_past_too_far_ahead_or_not_a_time_is_refused_in_the_envelope() {
    let app = app!();
    let ws = app.workspace("W").await;
    let admin = app.token(&ws, "admin").await;
    let year_and_two_days = Duration::from_secs(368 * 24 * 3600);
    for bad in [
        json!(ago(&app, Duration::from_secs(60))),
        json!(from_now(&app, Duration::ZERO)),
        json!(from_now(&app, year_and_two_days)),
        json!("next tuesday"),
        json!("2027-01-01"),
        json!(1_800_000_000),
    ] {
        let body = app
            .post(&format!("/v1/workspaces/{ws}/tokens"))
            .token(&admin)
            .json(&json!({"scope": "read", "expires_at": bad}))
            .expect_error(422, "validation_failed")
            .await;
        assert_invalid(&body, "expires_at");
    }
    // A year ahead is fine, and so is null (never).
    let year = app
        .post(&format!("/v1/workspaces/{ws}/tokens"))
        .token(&admin)
        .json(&json!({"scope": "read", "expires_at": from_now(&app, Duration::from_secs(365 * 24 * 3600))}))
        .expect(201)
        .await;
    assert!(year["expires_at"].is_string());
    let never = app
        .post(&format!("/v1/workspaces/{ws}/tokens"))
        .token(&admin)
        .json(&json!({"scope": "read", "expires_at": null}))
        .expect(201)
        .await;
    assert!(never["expires_at"].is_null());
}

#[tokio::test]
async fn last_used_at_is_written_in_the_background_at_most_once_a_minute() {
    let app = app!();
    let ws = app.workspace("W").await;
    let admin = app.token(&ws, "admin").await;
    let reader = app.token(&ws, "read").await;
    let id = app.token_id(&reader).await;
    assert!(
        listed_token(&app, &ws, &admin, &id).await["last_used_at"].is_null(),
        "never used"
    );

    let used_at = async |app: &TestApp| {
        listed_token(app, &ws, &admin, &id).await["last_used_at"]
            .as_str()
            .map(str::to_owned)
    };
    let before = Timestamp::from(app.clock.now());
    app.get(&format!("/v1/workspaces/{ws}"))
        .token(&reader)
        .expect(200)
        .await;
    let first = testkit::eventually(Duration::from_secs(3), "last_used_at written", || {
        used_at(&app)
    })
    .await;
    let first_at: Timestamp = serde_json::from_value(json!(first)).expect("a time");
    // The API writes milliseconds.
    assert!(
        first_at >= before.minus(Duration::from_millis(1)),
        "{first_at} >= {before}"
    );

    // Within the minute, more use writes nothing.
    app.clock.advance(Duration::from_secs(30));
    for _ in 0..3 {
        app.get(&format!("/v1/workspaces/{ws}"))
            .token(&reader)
            .expect(200)
            .await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(used_at(&app).await.as_deref(), Some(first.as_str()));

    // A minute later, the next use is written.
    app.clock.advance(Duration::from_secs(31));
    app.get(&format!("/v1/workspaces/{ws}"))
        .token(&reader)
        .expect(200)
        .await;
    let second = testkit::eventually(Duration::from_secs(3), "written again", || async {
        used_at(&app).await.filter(|t| *t != first)
    })
    .await;
    let second_at: Timestamp = serde_json::from_value(json!(second)).expect("a time");
    assert!(second_at > first_at);
}

/// A person known to the service with a password set (a member of `ws` as `role`).
async fn person_with_password(app: &TestApp, email: &str, ws: &str, role: &str) {
    let link = app
        .ops
        .create_user(NewUser {
            email: email.into(),
            platform_admin: false,
            membership: Some((ws.parse().expect("ws"), role.parse().expect("role"))),
        })
        .await
        .expect("create");
    let token = link.url.split("token=").nth(1).expect("token");
    app.ops
        .set_password_with_link(token, PASSWORD)
        .await
        .expect("password");
}

fn link_token(url: &str) -> String {
    url.split("token=").nth(1).expect("a token").to_owned()
}

#[tokio::test]
async fn admins_invite_list_change_and_remove_members() {
    let app = app!();
    let ws = app.workspace("Docs").await;
    let elsewhere = app.workspace("Elsewhere").await;
    let admin = app.token(&ws, "admin").await;
    let members = format!("/v1/workspaces/{ws}/members");

    let ana = app
        .post(&members)
        .token(&admin)
        .json(&json!({"email": "  Ana@Example.COM ", "role": "write"}))
        .expect(201)
        .await;
    assert_eq!(ana["email"], "ana@example.com");
    assert_eq!(ana["role"], "write");
    assert!(ana["created_at"].is_string());
    let ana_id = ana["user_id"].as_str().expect("user id").to_owned();
    assert!(ana_id.starts_with("usr_"));
    let url = ana["sign_up_url"].as_str().expect("a sign-up link");
    assert!(
        url.starts_with(&format!("{}/portal/password?token=", app.base)),
        "{url}"
    );
    // The link is the one-time sign-in link: it sets Ana's password.
    app.ops
        .set_password_with_link(&link_token(url), PASSWORD)
        .await
        .expect("the link works");

    // Someone with a password already needs no link.
    person_with_password(&app, "bob@example.com", &elsewhere, "read").await;
    let bob = app
        .post(&members)
        .token(&admin)
        .json(&json!({"email": "bob@example.com", "role": "publish"}))
        .expect(201)
        .await;
    assert!(bob.get("sign_up_url").is_some_and(Value::is_null), "{bob}");
    let bob_id = bob["user_id"].as_str().expect("id").to_owned();

    let again = app
        .post(&members)
        .token(&admin)
        .json(&json!({"email": "ANA@example.com", "role": "read"}))
        .expect_error(409, "conflict")
        .await;
    assert!(
        again["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("already"))
    );

    // Newest first, paged with signed cursors.
    let page = app
        .get(&format!("{members}?limit=1"))
        .token(&admin)
        .expect(200)
        .await;
    assert_eq!(page["data"][0]["user_id"], bob_id.as_str());
    assert!(page["data"][0]["sign_up_url"].is_null());
    let cursor = page["next_cursor"].as_str().expect("a next page");
    let rest = app
        .get(&format!("{members}?limit=1&cursor={cursor}"))
        .token(&admin)
        .expect(200)
        .await;
    assert_eq!(rest["data"][0]["user_id"], ana_id.as_str());
    assert!(rest["next_cursor"].is_null());

    let changed = app
        .patch(&format!("{members}/{ana_id}"))
        .token(&admin)
        .json(&json!({"role": "admin"}))
        .expect(200)
        .await;
    assert_eq!(
        changed["role"], "admin",
        "a workspace admin may grant admin"
    );
    assert_eq!(changed["email"], "ana@example.com");

    // Removing Ana ends her membership of this workspace, and nothing else. (Bob becomes an
    // admin first: the last admin cannot be removed.)
    app.patch(&format!("{members}/{bob_id}"))
        .token(&admin)
        .json(&json!({"role": "admin"}))
        .expect(200)
        .await;
    let session = app
        .ops
        .sign_in(
            "ana@example.com",
            PASSWORD,
            "127.0.0.1".parse().expect("ip"),
        )
        .await
        .expect("sign in");
    assert!(
        app.ops
            .session(&session.cookie)
            .await
            .expect("read")
            .is_some()
    );
    let removed = app
        .delete(&format!("{members}/{ana_id}"))
        .token(&admin)
        .expect(200)
        .await;
    assert_eq!(removed["user_id"], ana_id.as_str());
    assert_eq!(removed["role"], "admin", "the membership as it was");
    let signed_in = app
        .ops
        .session(&session.cookie)
        .await
        .expect("read")
        .expect("her session goes on (for her other workspaces)");
    let inside = app
        .ops
        .portal_caller(&signed_in.user, ws.parse().expect("workspace id"))
        .await;
    assert!(inside.is_err(), "no longer inside this workspace");
    let left = app.get(&members).token(&admin).expect(200).await;
    let ids: Vec<&str> = left["data"]
        .as_array()
        .expect("data")
        .iter()
        .filter_map(|m| m["user_id"].as_str())
        .collect();
    assert_eq!(ids, [bob_id.as_str()]);
    app.delete(&format!("{members}/{ana_id}"))
        .token(&admin)
        .expect_error(404, "not_found")
        .await;
    app.patch(&format!("{members}/{ana_id}"))
        .token(&admin)
        .json(&json!({"role": "read"}))
        .expect_error(404, "not_found")
        .await;
}

#[tokio::test]
async fn members_follow_tenancy_scope_and_deleted_workspace_rules() {
    let app = app!();
    let ws = app.workspace("Docs").await;
    let other = app.workspace("Other").await;
    let admin = app.token(&ws, "admin").await;
    let foreign_admin = app.token(&other, "admin").await;
    let writer = app.token(&ws, "write").await;
    let members = format!("/v1/workspaces/{ws}/members");
    let ana = app
        .post(&members)
        .token(&admin)
        .json(&json!({"email": "ana@example.com", "role": "read"}))
        .expect(201)
        .await;
    let ana_path = format!("{members}/{}", ana["user_id"].as_str().expect("id"));
    let invite = json!({"email": "eve@example.com", "role": "read"});
    let role = json!({"role": "write"});

    // Another workspace's admin: as if it did not exist.
    for (token, status, kind) in [
        (&foreign_admin, 404, "not_found"),
        (&writer, 403, "insufficient_scope"),
    ] {
        app.get(&members)
            .token(token)
            .expect_error(status, kind)
            .await;
        app.post(&members)
            .token(token)
            .json(&invite)
            .expect_error(status, kind)
            .await;
        app.patch(&ana_path)
            .token(token)
            .json(&role)
            .expect_error(status, kind)
            .await;
        app.delete(&ana_path)
            .token(token)
            .expect_error(status, kind)
            .await;
    }
    let refused = app.get(&members).token(&writer).send().await;
    assert_eq!(
        refused.headers()["www-authenticate"],
        "Bearer error=\"insufficient_scope\", scope=\"admin\""
    );
    // A member of another workspace is not a member here; nor is a malformed id.
    let bob = app
        .post(&format!("/v1/workspaces/{other}/members"))
        .token(&foreign_admin)
        .json(&json!({"email": "bob@example.com", "role": "read"}))
        .expect(201)
        .await;
    let bob_here = format!("{members}/{}", bob["user_id"].as_str().expect("id"));
    app.patch(&bob_here)
        .token(&admin)
        .json(&role)
        .expect_error(404, "not_found")
        .await;
    app.delete(&bob_here)
        .token(&admin)
        .expect_error(404, "not_found")
        .await;
    app.delete(&format!("{members}/usr_nonsense"))
        .token(&admin)
        .expect_error(404, "not_found")
        .await;

    // Bad input, in the envelope.
    let long_email = format!("{}@example.com", "a".repeat(250));
    for (body, param) in [
        (json!({"email": "not an email", "role": "read"}), "email"),
        (json!({"email": long_email, "role": "read"}), "email"),
        (json!({"email": "eve@example.com", "role": "owner"}), "role"),
        (json!({"role": "read"}), "email"),
        (
            json!({"email": "eve@example.com", "role": "read", "x": 1}),
            "x",
        ),
    ] {
        let e = app
            .post(&members)
            .token(&admin)
            .json(&body)
            .expect_error(422, "validation_failed")
            .await;
        assert_invalid(&e, param);
    }
    let e = app
        .patch(&ana_path)
        .token(&admin)
        .json(&json!({"role": "root"}))
        .expect_error(422, "validation_failed")
        .await;
    assert_invalid(&e, "role");

    // A deleted workspace still lists its members, and refuses every change.
    app.delete(&format!("/v1/workspaces/{ws}"))
        .token(&app.platform_token)
        .expect(200)
        .await;
    app.get(&members).token(&admin).expect(200).await;
    app.post(&members)
        .token(&admin)
        .json(&invite)
        .expect_error(409, "conflict")
        .await;
    app.patch(&ana_path)
        .token(&admin)
        .json(&role)
        .expect_error(409, "conflict")
        .await;
    app.delete(&ana_path)
        .token(&admin)
        .expect_error(409, "conflict")
        .await;
}

#[tokio::test]
async fn an_invitation_and_a_role_change_replay_under_their_idempotency_key() {
    let app = app!();
    let ws = app.workspace("Docs").await;
    let admin = app.token(&ws, "admin").await;
    let members = format!("/v1/workspaces/{ws}/members");
    let invite = json!({"email": "ana@example.com", "role": "write"});
    let send = |body: Value, key: &'static str| {
        app.post(&members)
            .token(&admin)
            .header("idempotency-key", key)
            .json(&body)
            .send()
    };
    let first = send(invite.clone(), "invite-ana").await;
    assert_eq!(first.status(), 201);
    let first = first.text().await.expect("body");
    let again = send(invite.clone(), "invite-ana").await;
    assert_eq!(again.status(), 201);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    assert_eq!(
        again.text().await.expect("body"),
        first,
        "byte for byte, the one-time link included"
    );
    let listed = app.get(&members).token(&admin).expect(200).await;
    assert_eq!(
        listed["data"].as_array().expect("data").len(),
        1,
        "one member"
    );
    let reused = send(
        json!({"email": "eve@example.com", "role": "write"}),
        "invite-ana",
    )
    .await;
    crate::helpers::expect_error(reused, 422, "idempotency_key_reused").await;

    let ana: Value = serde_json::from_str(&first).expect("json");
    let path = format!("{members}/{}", ana["user_id"].as_str().expect("id"));
    let change = |role: &'static str| {
        app.patch(&path)
            .token(&admin)
            .header("idempotency-key", "ana-role")
            .json(&json!({"role": role}))
            .send()
    };
    assert_eq!(change("publish").await.status(), 200);
    let replay = change("publish").await;
    assert_eq!(replay.headers()["idempotent-replayed"], "true");
    crate::helpers::expect_error(change("read").await, 422, "idempotency_key_reused").await;
}

/// The settings pages' forms, without JavaScript: what each answers, and the API's rules.
#[tokio::test]
async fn the_settings_forms_work_without_javascript_and_follow_the_api_rules() {
    let app = app!();
    let ws = app.workspace("Docs").await;
    let other = app.workspace("Other").await;
    let admin = app.person("admin@example.com", Some((&ws, "admin"))).await;
    let settings = format!("/portal/w/{ws}/settings");
    let r = admin.get(&settings).await;
    assert_eq!(r.status(), 303);
    assert_eq!(
        r.headers()["location"],
        format!("{settings}/tokens").as_str()
    );

    // A token: its secret only in the answer to the POST, which is not cached.
    let csrf = admin.csrf(&format!("{settings}/tokens")).await;
    let r = admin
        .post(
            &format!("{settings}/tokens"),
            &[
                ("csrf", &csrf),
                ("name", "deploy"),
                ("scope", "write"),
                ("expiry", "date"),
                (
                    "date",
                    &from_now(&app, Duration::from_secs(10 * 24 * 3600))[..10],
                ),
            ],
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["cache-control"], "no-store");
    let html = r.text().await.expect("page");
    let at = html.find("value=\"cpt_").expect("the secret") + 7;
    let secret = &html[at..at + html[at..].find('"').expect("end")];
    app.get(&format!("/v1/workspaces/{ws}"))
        .token(secret)
        .expect(200)
        .await;
    let (_, again) = admin.page(&format!("{settings}/tokens")).await;
    assert!(!again.contains(secret) && again.contains("deploy"));
    // A date in the past is refused on the page.
    let r = admin
        .post(
            &format!("{settings}/tokens"),
            &[
                ("csrf", &csrf),
                ("name", "x"),
                ("scope", "read"),
                ("expiry", "date"),
                ("date", "2001-01-01"),
            ],
        )
        .await;
    assert_eq!(r.status(), 422);

    // Members: invite, change a role, remove after a confirmation page.
    let r = admin
        .post(
            &format!("{settings}/members"),
            &[
                ("csrf", &csrf),
                ("email", "bob@example.com"),
                ("role", "write"),
            ],
        )
        .await;
    assert_eq!(r.status(), 200);
    assert!(
        r.text()
            .await
            .expect("page")
            .contains("/portal/password?token=")
    );
    let bob = app
        .get(&format!("/v1/workspaces/{ws}/members"))
        .token(&app.platform_token)
        .expect(200)
        .await["data"][0]["user_id"]
        .as_str()
        .expect("bob")
        .to_owned();
    let r = admin
        .post(
            &format!("{settings}/members/{bob}/role"),
            &[("csrf", &csrf), ("role", "publish")],
        )
        .await;
    assert_eq!(r.status(), 303);
    let (status, confirm) = admin
        .page(&format!("{settings}/members/{bob}/remove"))
        .await;
    assert_eq!(status, 200);
    assert!(confirm.contains("bob@example.com"), "{confirm}");
    let r = admin
        .post(
            &format!("{settings}/members/{bob}/remove"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(r.status(), 303);
    let left = app
        .get(&format!("/v1/workspaces/{ws}/members"))
        .token(&app.platform_token)
        .expect(200)
        .await;
    assert_eq!(left["data"].as_array().expect("data").len(), 1);

    // Another workspace's settings are missing; a deleted workspace's refuse changes.
    let (status, _) = admin
        .page(&format!("/portal/w/{other}/settings/tokens"))
        .await;
    assert_eq!(status, 404);
    app.delete(&format!("/v1/workspaces/{ws}"))
        .token(&app.platform_token)
        .expect(200)
        .await;
    let platform = app.person("root@example.com", None).await;
    let csrf = platform.csrf(&format!("{settings}/tokens")).await;
    let r = platform
        .post(
            &format!("{settings}/tokens"),
            &[
                ("csrf", &csrf),
                ("name", "late"),
                ("scope", "read"),
                ("expiry", "none"),
            ],
        )
        .await;
    assert_eq!(r.status(), 409);
}

/// The members of `ws` as (email, user id), through the API.
async fn member_ids(app: &TestApp, ws: &str) -> Vec<(String, String)> {
    let list = app
        .get(&format!("/v1/workspaces/{ws}/members"))
        .token(&app.platform_token)
        .expect(200)
        .await;
    list["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|m| {
            (
                m["email"].as_str().unwrap_or_default().to_owned(),
                m["user_id"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn the_last_admin_stays_and_a_removal_ends_one_workspace_only() {
    let app = app!();
    let ws = app.workspace("Docs").await;
    let other = app.workspace("Other").await;
    let lead = app.person("lead@example.com", Some((&ws, "admin"))).await;
    let lead_id = member_ids(&app, &ws).await[0].1.clone();
    let member = |id: &str| format!("/v1/workspaces/{ws}/members/{id}");

    // The only admin can be neither demoted nor removed.
    let refused = app
        .patch(&member(&lead_id))
        .token(&app.platform_token)
        .json(&json!({"role": "write"}))
        .expect(409)
        .await;
    assert_eq!(refused["error"]["type"], "conflict", "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("last admin"),
        "{refused}"
    );
    app.delete(&member(&lead_id))
        .token(&app.platform_token)
        .expect(409)
        .await;

    // With a second admin, the first may go; lead keeps their other workspace.
    app.post(&format!("/v1/workspaces/{ws}/members"))
        .token(&app.platform_token)
        .json(&json!({"email": "ada@example.com", "role": "admin"}))
        .expect(201)
        .await;
    app.post(&format!("/v1/workspaces/{other}/members"))
        .token(&app.platform_token)
        .json(&json!({"email": "lead@example.com", "role": "read"}))
        .expect(201)
        .await;
    let (status, _) = lead.page(&format!("/portal/w/{other}/runs")).await;
    assert_eq!(status, 200);
    app.delete(&member(&lead_id))
        .token(&app.platform_token)
        .expect(200)
        .await;
    let (status, _) = lead.page(&format!("/portal/w/{ws}/runs")).await;
    assert_eq!(status, 404, "no longer a member of Docs");
    let (status, _) = lead.page(&format!("/portal/w/{other}/runs")).await;
    assert_eq!(status, 200, "the session goes on in the other workspace");

    // Ada is now the last admin.
    let ada_id = member_ids(&app, &ws)
        .await
        .into_iter()
        .find(|(email, _)| email == "ada@example.com")
        .expect("ada")
        .1;
    app.patch(&member(&ada_id))
        .token(&app.platform_token)
        .json(&json!({"role": "publish"}))
        .expect(409)
        .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn two_admins_demoting_each_other_at_once_leave_one_admin() {
    let app = app!();
    for round in 0..5 {
        let ws = app.workspace(&format!("Pair {round}")).await;
        let _ = app
            .person(&format!("a{round}@example.com"), Some((&ws, "admin")))
            .await;
        let _ = app
            .person(&format!("b{round}@example.com"), Some((&ws, "admin")))
            .await;
        let ids = member_ids(&app, &ws).await;
        let demote = |id: String| {
            app.patch(&format!("/v1/workspaces/{ws}/members/{id}"))
                .token(&app.platform_token)
                .json(&json!({"role": "write"}))
                .send()
        };
        let (first, second) = tokio::join!(demote(ids[0].1.clone()), demote(ids[1].1.clone()));
        let mut codes = [first.status().as_u16(), second.status().as_u16()];
        codes.sort_unstable();
        assert_eq!(codes, [200, 409], "round {round}: exactly one is refused");
    }
}
