//! The portal's accounts, through the use cases the portal calls on a running service (its
//! real database and clock) and through the real binary's `users` commands: sign-in links,
//! passwords, sessions, throttling, and who may open which workspace.

use std::net::IpAddr;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use axum::response::IntoResponse;
use domain::{Scope, UserId, WorkspaceId};
use operations::accounts::{Member, NewUser, SignInLink, StartedSession};
use operations::{Caller, Error, ErrorKind};
use serde_json::Value;
use store::KeysetPage;
use testkit::TestDatabase;

use crate::helpers::{TestApp, cli};

const PASSWORD: &str = "correct horse battery";
const HOUR: Duration = Duration::from_secs(3600);

fn ip(text: &str) -> IpAddr {
    text.parse().expect("an IP address")
}

/// The token of a sign-in link.
fn token(link: &SignInLink) -> String {
    link.url
        .split_once("?token=")
        .map(|(_, token)| token.to_owned())
        .unwrap_or_else(|| panic!("no token in {}", link.url))
}

/// `content-pipeline users create` as the service does it: the user's sign-in link.
async fn create(
    app: &TestApp,
    email: &str,
    admin: bool,
    role_in: Option<(&str, Scope)>,
) -> SignInLink {
    let membership = role_in.map(|(ws, role)| (ws.parse().expect("workspace id"), role));
    let new = NewUser {
        email: email.into(),
        platform_admin: admin,
        membership,
    };
    app.ops.create_user(new).await.expect("create the user")
}

/// `content-pipeline users reset-password`: a new sign-in link.
async fn reset(app: &TestApp, email: &str) -> SignInLink {
    app.ops
        .reset_password_link(email)
        .await
        .expect("a reset link")
}

/// A new user of `ws` with `role` who has set [`PASSWORD`] through their link.
async fn member(app: &TestApp, email: &str, ws: &str, role: Scope) -> StartedSession {
    let link = create(app, email, false, Some((ws, role))).await;
    app.ops
        .set_password_with_link(&token(&link), PASSWORD)
        .await
        .expect("set the password")
}

async fn sign_in(
    app: &TestApp,
    email: &str,
    password: &str,
    from: &str,
) -> Result<StartedSession, Error> {
    app.ops.sign_in(email, password, ip(from)).await
}

/// Signs in with credentials that are not right: refused, and not throttled.
async fn refused(app: &TestApp, email: &str, password: &str, from: &str) -> Error {
    let e = sign_in(app, email, password, from)
        .await
        .expect_err("wrong credentials");
    assert_eq!(
        e.kind,
        ErrorKind::Unauthenticated,
        "{email} from {from}: {}",
        e.message
    );
    e
}

async fn is_live(app: &TestApp, started: &StartedSession) -> bool {
    app.ops
        .session(&started.cookie)
        .await
        .expect("session lookup")
        .is_some()
}

fn retry_after(e: &Error) -> u64 {
    match e.kind {
        ErrorKind::Throttled { retry_after_secs } => retry_after_secs,
        ref other => panic!("not throttled but {other:?}: {}", e.message),
    }
}

#[tokio::test]
async fn a_link_sets_the_password_then_people_sign_in_and_out() {
    let app = crate::app!();
    let ws = app.workspace("Docs").await;
    let link = create(&app, "  Ada@Example.COM ", false, Some((&ws, Scope::Write))).await;
    assert_eq!(link.user.email, "ada@example.com");
    assert!(
        link.url
            .starts_with(&format!("{}/portal/password?token=", app.base)),
        "{}",
        link.url
    );
    let validity = link.expires_at.unix_seconds() - app.clock.timestamp().unix_seconds();
    assert!((86_390..=86_400).contains(&validity), "{validity} s");
    let token = token(&link);
    assert_eq!(
        app.ops.sign_in_link_user(&token).await.expect("usable").id,
        link.user.id
    );

    let short = app.ops.set_password_with_link(&token, "eleven char").await;
    let e = short.expect_err("11 characters");
    assert_eq!(
        (e.kind, e.param.as_deref()),
        (ErrorKind::Validation, Some("password"))
    );
    assert!(e.message.contains("12"), "{}", e.message);
    let long = app
        .ops
        .set_password_with_link(&token, &"x".repeat(1025))
        .await;
    assert!(long.expect_err("over 1024 bytes").message.contains("1024"));

    let first = app
        .ops
        .set_password_with_link(&token, PASSWORD)
        .await
        .expect("set the password");
    assert_eq!(first.session.user.email, "ada@example.com");
    assert_eq!(first.cookie.len(), 43, "256 bits, unpadded base64url");
    let found = app
        .ops
        .session(&first.cookie)
        .await
        .expect("lookup")
        .expect("signed in by setting the password");
    assert_eq!(found.user.id, link.user.id);
    assert_eq!(found.expires_at, first.session.expires_at);
    let lifetime = found.expires_at.unix_seconds() - app.clock.timestamp().unix_seconds();
    assert!(
        (7 * 86_400 - 10..=7 * 86_400).contains(&lifetime),
        "{lifetime} s"
    );
    assert!(found.csrf_matches(&first.session.csrf_token));
    assert!(!found.csrf_matches("forged"));
    let stored = app
        .store
        .user(link.user.id)
        .await
        .expect("read")
        .expect("user");
    let hash = stored.password_hash.expect("a password hash");
    assert!(
        hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
        "{hash}"
    );

    let reused = app
        .ops
        .set_password_with_link(&token, "another good password")
        .await;
    assert_eq!(reused.expect_err("used").kind, ErrorKind::Unauthenticated);

    let second = sign_in(&app, "ADA@example.com ", PASSWORD, "192.0.2.1")
        .await
        .expect("sign in");
    assert_ne!(second.cookie, first.cookie);
    assert_ne!(second.session.csrf_token, first.session.csrf_token);
    assert!(is_live(&app, &second).await);
    app.ops.sign_out(&second.cookie).await.expect("sign out");
    assert!(!is_live(&app, &second).await, "signed out");
    assert!(is_live(&app, &first).await, "the other session goes on");
    app.ops
        .sign_out(&second.cookie)
        .await
        .expect("again: nothing to do");

    for junk in [
        "",
        "x",
        &"A".repeat(4096),
        &first.cookie[1..],
        &format!("{}A", first.cookie),
    ] {
        assert!(app.ops.session(junk).await.expect("lookup").is_none());
        app.ops.sign_out(junk).await.expect("nothing to end");
    }
}

#[tokio::test]
async fn a_wrong_password_and_an_unknown_email_get_the_same_answer() {
    let app = crate::app!();
    let ws = app.workspace("Docs").await;
    member(&app, "ada@example.com", &ws, Scope::Read).await;
    let wrong = refused(&app, "ada@example.com", "not the password", "192.0.2.1").await;
    let unknown = refused(&app, "nobody@example.com", PASSWORD, "192.0.2.1").await;
    assert_eq!(
        (&wrong.kind, &wrong.message, &wrong.param),
        (&unknown.kind, &unknown.message, &unknown.param)
    );
    assert_eq!(wrong.message, "The email or password is not right.");

    // A user who never set a password cannot sign in with any, and hears the same.
    create(&app, "new@example.com", false, None).await;
    let unset = refused(&app, "new@example.com", "", "192.0.2.1").await;
    assert_eq!(unset.message, wrong.message);

    let malformed = sign_in(&app, "not an email", PASSWORD, "192.0.2.1")
        .await
        .expect_err("malformed");
    assert_eq!(malformed.param.as_deref(), Some("email"));
}

#[tokio::test]
async fn sign_in_is_throttled_per_account_even_for_the_right_password() {
    let app = crate::app!();
    let ws = app.workspace("Docs").await;
    member(&app, "ada@example.com", &ws, Scope::Read).await;
    // Five wrong guesses, each from another address: the account's own limit.
    for i in 0..5 {
        refused(&app, "ada@example.com", "guess", &format!("198.51.100.{i}")).await;
    }
    let refused = sign_in(&app, "ada@example.com", PASSWORD, "192.0.2.99")
        .await
        .expect_err("throttled before the password is checked");
    let wait = retry_after(&refused);
    assert!((1..=900).contains(&wait), "{wait}");
    assert_eq!(
        refused.message,
        "Too many sign-in attempts. Try again in 15 minutes."
    );

    // The API renders it as the contract's 429 with Retry-After.
    let response = api::error::ApiError::from(refused).into_response();
    assert_eq!(response.status(), 429);
    assert_eq!(
        response.headers()["retry-after"].to_str().ok(),
        Some(wait.to_string().as_str())
    );

    // Unknown emails are throttled alike, so throttling tells nothing about who exists.
    for _ in 0..5 {
        let _ = sign_in(&app, "nobody@example.com", "guess", "192.0.2.50").await;
    }
    let e = sign_in(&app, "nobody@example.com", "guess", "192.0.2.51")
        .await
        .expect_err("throttled");
    retry_after(&e);

    app.clock.advance(Duration::from_secs(15 * 60));
    let back = sign_in(&app, "ada@example.com", PASSWORD, "192.0.2.99").await;
    assert!(back.is_ok(), "the window ended: {:?}", back.err());
}

#[tokio::test]
async fn sign_in_is_throttled_per_client_address_across_accounts() {
    let app = crate::app!();
    let ws = app.workspace("Docs").await;
    member(&app, "ada@example.com", &ws, Scope::Read).await;
    for i in 0..20 {
        refused(
            &app,
            &format!("user{i}@example.com"),
            "guess",
            "2001:db8:7:7::1",
        )
        .await;
    }
    // Another address of the same /64 is the same client.
    let refused = sign_in(&app, "ada@example.com", PASSWORD, "2001:db8:7:7:ffff::2")
        .await
        .expect_err("the address is throttled");
    assert!(retry_after(&refused) <= 900);
    assert!(
        refused.message.contains("Try again in"),
        "{}",
        refused.message
    );

    let elsewhere = sign_in(&app, "ada@example.com", PASSWORD, "2001:db8:7:8::1").await;
    assert!(elsewhere.is_ok(), "another network: {:?}", elsewhere.err());

    // Successful sign-ins do not use up an address's attempts (people behind one NAT).
    for _ in 0..21 {
        sign_in(&app, "ada@example.com", PASSWORD, "203.0.113.9")
            .await
            .expect("sign in");
    }
}

#[tokio::test]
async fn a_new_password_ends_every_session_of_the_user() {
    let app = crate::app!();
    let ws = app.workspace("Docs").await;
    let from_link = member(&app, "ada@example.com", &ws, Scope::Read).await;
    let laptop = sign_in(&app, "ada@example.com", PASSWORD, "192.0.2.1")
        .await
        .expect("sign in");
    let phone = sign_in(&app, "ada@example.com", PASSWORD, "192.0.2.2")
        .await
        .expect("sign in");
    let bob = member(&app, "bob@example.com", &ws, Scope::Read).await;

    let user = laptop.session.user.clone();
    let wrong = app
        .ops
        .change_password(
            &user,
            "not it at all",
            "a brand new password",
            ip("192.0.2.1"),
        )
        .await
        .expect_err("the current password is checked");
    assert_eq!(wrong.param.as_deref(), Some("current_password"));
    assert!(is_live(&app, &phone).await, "nothing changed");

    let changed = app
        .ops
        .change_password(&user, PASSWORD, "a brand new password", ip("192.0.2.1"))
        .await
        .expect("change");
    for (name, old) in [("link", &from_link), ("laptop", &laptop), ("phone", &phone)] {
        assert!(!is_live(&app, old).await, "the {name} session ended");
    }
    assert!(
        is_live(&app, &changed).await,
        "the caller goes on in a new session"
    );
    assert!(is_live(&app, &bob).await, "another user's session stays");
    assert!(
        sign_in(&app, "ada@example.com", PASSWORD, "192.0.2.1")
            .await
            .is_err()
    );
    sign_in(&app, "ada@example.com", "a brand new password", "192.0.2.1")
        .await
        .expect("the new password works");

    // A reset through a link does the same.
    let reset = reset(&app, "ada@example.com").await;
    let after_reset = app
        .ops
        .set_password_with_link(&token(&reset), "the third password")
        .await
        .expect("reset");
    assert!(!is_live(&app, &changed).await);
    assert!(is_live(&app, &after_reset).await);
}

#[tokio::test]
async fn expired_used_and_replaced_links_are_refused() {
    let app = crate::app!();
    let link = create(&app, "ada@example.com", false, None).await;
    app.clock.advance(24 * HOUR + Duration::from_secs(1));
    let expired = app.ops.sign_in_link_user(&token(&link)).await;
    assert_eq!(
        expired.expect_err("expired").kind,
        ErrorKind::Unauthenticated
    );
    let e = app
        .ops
        .set_password_with_link(&token(&link), PASSWORD)
        .await
        .expect_err("expired");
    assert!(e.message.contains("Ask an administrator"), "{}", e.message);

    let older = reset(&app, "ADA@example.com").await;
    let newer = reset(&app, "ada@example.com").await;
    assert_ne!(token(&older), token(&newer));
    assert!(
        app.ops.sign_in_link_user(&token(&older)).await.is_err(),
        "a newer link replaces it"
    );
    app.ops
        .set_password_with_link(&token(&newer), PASSWORD)
        .await
        .expect("the newest works");
    assert!(
        app.ops.sign_in_link_user(&token(&newer)).await.is_err(),
        "used"
    );

    let missing = app.ops.reset_password_link("nobody@example.com").await;
    assert_eq!(missing.expect_err("no such user").kind, ErrorKind::NotFound);
    for junk in ["", "abc", &"A".repeat(43), &"é".repeat(40)] {
        assert!(app.ops.sign_in_link_user(junk).await.is_err(), "{junk}");
    }
}

#[tokio::test]
async fn sessions_end_when_idle_and_after_their_lifetime() {
    let minutes = |n: u64| Duration::from_secs(n * 60);
    let app = crate::app!(TestApp::builder().session_timeouts(minutes(10), minutes(60)));
    let ws = app.workspace("Docs").await;
    member(&app, "ada@example.com", &ws, Scope::Read).await;

    let idle = sign_in(&app, "ada@example.com", PASSWORD, "192.0.2.1")
        .await
        .expect("sign in");
    app.clock.advance(minutes(9));
    assert!(is_live(&app, &idle).await, "used within the idle timeout");
    app.clock.advance(minutes(9));
    assert!(
        is_live(&app, &idle).await,
        "each use starts the idle timeout again"
    );
    app.clock.advance(minutes(11));
    assert!(!is_live(&app, &idle).await, "idle too long");

    let busy = sign_in(&app, "ada@example.com", PASSWORD, "192.0.2.1")
        .await
        .expect("sign in");
    for _ in 0..6 {
        assert!(is_live(&app, &busy).await);
        app.clock.advance(minutes(9));
    }
    assert!(is_live(&app, &busy).await, "54 minutes in");
    app.clock.advance(minutes(6));
    assert!(
        !is_live(&app, &busy).await,
        "an hour after sign-in, however busy"
    );

    // Housekeeping forgets both.
    assert!(app.ops.purge_accounts().await.expect("purge") >= 2);
}

#[tokio::test]
async fn portal_callers_are_the_platform_or_a_member_with_their_role() {
    let app = crate::app!();
    let docs = app.workspace("Docs").await;
    let other = app.workspace("Other").await;
    let gone = app.workspace("Gone").await;
    let ada = member(&app, "ada@example.com", &docs, Scope::Publish)
        .await
        .session
        .user;
    // A second membership, of a workspace deleted next.
    create(&app, "ada@example.com", false, Some((&gone, Scope::Admin))).await;
    app.delete(&format!("/v1/workspaces/{gone}"))
        .expect(200)
        .await;

    let docs_id: WorkspaceId = docs.parse().expect("id");
    let caller = app
        .ops
        .portal_caller(&ada, docs_id)
        .await
        .expect("a member");
    assert_eq!(caller.workspace, Some(docs_id));
    assert_eq!(caller.scope, Scope::Publish);
    assert_eq!(caller.user_id, Some(ada.id));
    assert_eq!(caller.token_id, None);
    assert!(
        caller.check_scope(Scope::Admin).is_err(),
        "403 above the role"
    );

    let e = app
        .ops
        .portal_caller(&ada, other.parse().expect("id"))
        .await
        .expect_err("not a member");
    assert_eq!(e.kind, ErrorKind::NotFound);
    assert_eq!(
        e.message,
        Error::not_found("workspace", &other).message,
        "the same 404 as a missing workspace"
    );
    // The member's caller meets the API's rules: another workspace's run is a 404.
    let run = app
        .platform_api()
        .trigger_run(
            &other.parse().expect("id"),
            &client::TriggerRun {
                feature_id: "a".into(),
                ..Default::default()
            },
        )
        .await
        .expect("a run elsewhere");
    let foreign = app
        .ops
        .load::<store::RunRecord>(&caller, run.id, Scope::Read)
        .await;
    assert_eq!(foreign.expect_err("foreign").kind, ErrorKind::NotFound);

    let listed: Vec<(String, Scope)> = app
        .ops
        .workspaces_of(&ada)
        .await
        .expect("list")
        .into_iter()
        .map(|(w, role)| (w.id.to_string(), role))
        .collect();
    assert_eq!(
        listed,
        [(docs.clone(), Scope::Publish)],
        "active memberships only"
    );

    let admin = create(&app, "root@example.com", true, None).await.user;
    let platform = app.ops.portal_caller(&admin, docs_id).await.expect("admin");
    assert_eq!((platform.workspace, platform.scope), (None, Scope::Admin));
    assert_eq!(platform.user_id, Some(admin.id));
    let all: Vec<String> = app
        .ops
        .workspaces_of(&admin)
        .await
        .expect("list")
        .into_iter()
        .map(|(w, role)| {
            assert_eq!(role, Scope::Admin);
            w.id.to_string()
        })
        .collect();
    for ws in [&docs, &other, &gone] {
        assert!(all.contains(ws), "{ws} (deleted ones too) in {all:?}");
    }
}

/// `add_member` as a front end calls it: the workspace loaded, then one transaction.
async fn add_member(
    app: &TestApp,
    caller: &Caller,
    ws: WorkspaceId,
    email: &str,
    role: Scope,
) -> Result<(Member, Option<SignInLink>), Error> {
    let ws = app.ops.active_workspace(caller, ws, Scope::Read).await?;
    let (ops, caller, email) = (app.ops.clone(), caller.clone(), email.to_owned());
    app.ops
        .store
        .write(move |tx| {
            Box::pin(async move { ops.add_member(tx, &caller, &ws, &email, role).await })
        })
        .await
}

async fn remove_member(
    app: &TestApp,
    caller: &Caller,
    ws: WorkspaceId,
    user: UserId,
) -> Result<Member, Error> {
    let ws = app.ops.active_workspace(caller, ws, Scope::Read).await?;
    let (ops, caller) = (app.ops.clone(), caller.clone());
    app.ops
        .store
        .write(move |tx| Box::pin(async move { ops.remove_member(tx, &caller, &ws, user).await }))
        .await
}

#[tokio::test]
async fn workspace_admins_manage_members_within_their_own_role() {
    let app = crate::app!();
    let docs = app.workspace("Docs").await;
    let docs_id: WorkspaceId = docs.parse().expect("id");
    let lead = member(&app, "lead@example.com", &docs, Scope::Admin)
        .await
        .session
        .user;
    let caller = app.ops.portal_caller(&lead, docs_id).await.expect("caller");

    let (bob, link) = add_member(&app, &caller, docs_id, "Bob@Example.com", Scope::Write)
        .await
        .expect("add");
    assert_eq!(bob.user.email, "bob@example.com");
    assert!(link.is_some(), "a new person gets a sign-in link");
    member(
        &app,
        "ada@example.com",
        &app.workspace("Other").await,
        Scope::Read,
    )
    .await;
    let (_, none) = add_member(&app, &caller, docs_id, "ada@example.com", Scope::Admin)
        .await
        .expect("someone known");
    assert!(none.is_none(), "someone with a password needs no link");
    let again = add_member(&app, &caller, docs_id, "lead@example.com", Scope::Read).await;
    assert_eq!(again.expect_err("a member").kind, ErrorKind::Conflict);
    let ws = app
        .ops
        .active_workspace(&caller, docs_id, Scope::Admin)
        .await
        .expect("ws");
    let members: Vec<(String, Scope)> = app
        .ops
        .members(&caller, &ws, &KeysetPage::first(100))
        .await
        .expect("members")
        .into_iter()
        .map(|m| (m.user.email, m.role))
        .collect();
    assert_eq!(
        members,
        [
            ("ada@example.com".to_owned(), Scope::Admin),
            ("bob@example.com".to_owned(), Scope::Write),
            ("lead@example.com".to_owned(), Scope::Admin),
        ]
    );

    let writer = app
        .ops
        .portal_caller(&bob.user, docs_id)
        .await
        .expect("bob");
    let e = add_member(&app, &writer, docs_id, "eve@example.com", Scope::Read)
        .await
        .expect_err("not an admin");
    assert!(
        matches!(e.kind, ErrorKind::InsufficientScope { .. }),
        "{e:?}"
    );

    remove_member(&app, &caller, docs_id, bob.user.id)
        .await
        .expect("remove");
    let gone = app.ops.portal_caller(&bob.user, docs_id).await;
    assert_eq!(
        gone.expect_err("no longer a member").kind,
        ErrorKind::NotFound
    );
    let again = remove_member(&app, &caller, docs_id, bob.user.id).await;
    assert_eq!(again.expect_err("not a member").kind, ErrorKind::NotFound);
}

// ---- The CLI, through the real binary, on the selected engine ----

/// The binary on `db`, with its key file in `dir`.
fn users(dir: &Path, db: &TestDatabase, args: &[&str]) -> Output {
    let mut command: Command = cli(dir);
    command.env("CONTENT_PIPELINE_DATABASE_URL", db.url());
    command.args(args).output().expect("run content-pipeline")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The sign-in link's token in a command's output.
fn link_token(output: &str) -> Option<String> {
    output
        .split_whitespace()
        .find_map(|word| word.split_once("/portal/password?token="))
        .map(|(_, token)| token.to_owned())
}

#[tokio::test]
async fn users_commands_print_links_that_work() {
    let Some(db) = TestDatabase::selected().await else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let out = users(dir.path(), &db, &["workspaces", "create", "--name", "Docs"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let ws: Value = serde_json::from_slice(&out.stdout).expect("workspace JSON");
    let ws = ws["id"].as_str().expect("id").to_owned();

    let out = users(
        dir.path(),
        &db,
        &[
            "users",
            "create",
            "--email",
            "Ada@Example.com",
            "--workspace",
            &ws,
            "--role",
            "publish",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("ada@example.com"), "{stdout}");
    assert!(stdout.contains("works until"), "the expiry: {stdout}");
    let created = link_token(&stdout).unwrap_or_else(|| panic!("no link in {stdout}"));

    let out = users(
        dir.path(),
        &db,
        &["users", "reset-password", "--email", "ada@example.com"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let reset = link_token(&text(&out.stdout)).expect("a new link");

    let unknown = "ws_0193a0000000700080000000000000ff";
    for (line, expected) in [
        (
            "users create --email x@example.com --role read".to_owned(),
            "--workspace",
        ),
        (
            format!("users create --email x@example.com --workspace {ws}"),
            "--role",
        ),
        (
            format!("users create --email x@example.com --workspace {ws} --role owner"),
            "owner",
        ),
        (
            format!("users create --email x@example.com --workspace {unknown} --role read"),
            "No such workspace",
        ),
        (
            "users create --email not-an-email".to_owned(),
            "email address",
        ),
        (
            "users reset-password --email nobody@example.com".to_owned(),
            "No such user",
        ),
    ] {
        let args: Vec<&str> = line.split_whitespace().collect();
        let out = users(dir.path(), &db, &args);
        assert!(!out.status.success(), "{args:?} must fail");
        assert!(
            link_token(&text(&out.stdout)).is_none(),
            "{args:?}: no link printed"
        );
        let stderr = text(&out.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }

    // The service on the same database takes the links.
    let app = crate::app!(TestApp::builder().database(&db));
    assert!(
        app.ops.sign_in_link_user(&created).await.is_err(),
        "replaced by the reset"
    );
    let started = app
        .ops
        .set_password_with_link(&reset, PASSWORD)
        .await
        .expect("the reset link works");
    let caller = app
        .ops
        .portal_caller(&started.session.user, ws.parse().expect("id"))
        .await
        .expect("a member");
    assert_eq!(caller.scope, Scope::Publish);

    app.delete(&format!("/v1/workspaces/{ws}"))
        .expect(200)
        .await;
    let out = users(
        dir.path(),
        &db,
        &[
            "users",
            "create",
            "--email",
            "bob@example.com",
            "--workspace",
            &ws,
            "--role",
            "read",
        ],
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("deleted"),
        "{}",
        text(&out.stderr)
    );

    let out = users(
        dir.path(),
        &db,
        &[
            "users",
            "create",
            "--email",
            "root@example.com",
            "--platform-admin",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let root = link_token(&text(&out.stdout)).expect("link");
    let root = app
        .ops
        .set_password_with_link(&root, PASSWORD)
        .await
        .expect("root");
    assert!(root.session.user.platform_admin);
}

#[tokio::test]
async fn the_first_start_prints_a_platform_admins_sign_in_link_once() {
    let Some(db) = TestDatabase::selected().await else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let mut first = cli(dir.path());
    first
        .env("CONTENT_PIPELINE_DATABASE_URL", db.url())
        .env("CONTENT_PIPELINE_ADMIN_EMAIL", " Ops@Example.com ")
        .arg("migrate");
    let out = first.output().expect("run");
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr.matches("cpt_").count(), 1, "the token: {stderr}");
    assert!(stderr.contains("ops@example.com"), "{stderr}");
    assert!(stderr.contains("works until"), "{stderr}");
    let token = link_token(&stderr).unwrap_or_else(|| panic!("no link in {stderr}"));

    let again = users(dir.path(), &db, &["migrate"]);
    let stderr = text(&again.stderr);
    assert!(again.status.success(), "{stderr}");
    assert!(
        link_token(&stderr).is_none() && !stderr.contains("cpt_"),
        "only once: {stderr}"
    );

    let app = crate::app!(TestApp::builder().database(&db));
    let admin = app
        .ops
        .set_password_with_link(&token, PASSWORD)
        .await
        .expect("the link works");
    assert_eq!(admin.session.user.email, "ops@example.com");
    assert!(admin.session.user.platform_admin);
    assert!(
        app.store
            .user_by_email("admin@localhost")
            .await
            .expect("read")
            .is_none(),
        "the configured address replaces the default"
    );
}

#[tokio::test]
async fn a_first_start_with_an_invalid_admin_email_creates_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    for value in ["0", "not an email"] {
        let out = cli(dir.path())
            .env("CONTENT_PIPELINE_ADMIN_EMAIL", value)
            .arg("migrate")
            .output()
            .expect("run");
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{value}: {stderr}");
        assert!(
            stderr
                .contains("CONTENT_PIPELINE_ADMIN_EMAIL / admin_email: expected an email address"),
            "{value}: {stderr}"
        );
        assert!(!stderr.contains("cpt_"), "no token was created: {stderr}");
    }
    // The default works once the variable is gone.
    let out = cli(dir.path()).arg("migrate").output().expect("run");
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("admin@localhost") && link_token(&stderr).is_some(),
        "{stderr}"
    );
}
