//! Settings → API tokens and Members: a workspace admin's pages. Each action calls the use
//! case the API's handler calls, with the person's caller, so the rules (never a scope above
//! one's own, quotas, a deleted workspace refuses changes) are the API's.
//!
//! A new secret (a token's, a sign-up link) is shown only in the answer to the POST that made
//! it, never after a redirect: leaving or reloading the page loses it, and pages are
//! `Cache-Control: no-store`.

use std::time::Duration;

use askama::Template;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect};
use axum::routing::get;
use axum::{Form, Router};
use domain::{Scope, Timestamp, TokenId, UserId};
use operations::accounts::Member as Person;
use operations::tokens::{CreateToken, MAX_EXPIRY, expired};
use operations::{Caller, Operations};
use serde::Deserialize;
use store::{KeysetPage, TokenRecord, Tx, WorkspaceRecord, WriteFuture};

use super::Member;
use crate::Portal;
use crate::web::{Nav, PageError, PageResult, render, when};

/// Rows a settings list shows.
const SHOWN: i64 = 100;
const DAY: Duration = Duration::from_secs(24 * 3600);

pub fn router() -> Router<Portal> {
    Router::new()
        .route("/portal/w/{ws}/settings", get(settings))
        .route(
            "/portal/w/{ws}/settings/tokens",
            get(tokens_page).post(create_token),
        )
        .route(
            "/portal/w/{ws}/settings/tokens/{id}/reissue",
            axum::routing::post(reissue_token),
        )
        .route(
            "/portal/w/{ws}/settings/tokens/{id}/revoke",
            get(confirm_revoke).post(revoke_token),
        )
        .route(
            "/portal/w/{ws}/settings/members",
            get(members_page).post(invite_member),
        )
        .route(
            "/portal/w/{ws}/settings/members/{user}/role",
            axum::routing::post(change_role),
        )
        .route(
            "/portal/w/{ws}/settings/members/{user}/remove",
            get(confirm_remove).post(remove_member),
        )
}

/// Settings are the workspace admins' (a platform admin is one everywhere).
pub(super) fn admin(member: &Member) -> PageResult<()> {
    member.caller.check_scope(Scope::Admin)?;
    Ok(())
}

/// Runs `work` in one transaction as the member, in their workspace, which must be active:
/// the write tail of every settings action.
pub(super) async fn in_workspace<T, F>(
    portal: &Portal,
    member: &Member,
    work: F,
) -> operations::Result<T>
where
    F: for<'t> FnOnce(
            &'t mut Tx,
            Operations,
            Caller,
            WorkspaceRecord,
        ) -> WriteFuture<'t, T, operations::Error>
        + Send
        + 'static,
    T: Send + 'static,
{
    let ws = portal
        .ops
        .active_workspace(&member.caller, member.ws.id, Scope::Admin)
        .await?;
    let (ops, caller) = (portal.ops.clone(), member.caller.clone());
    portal
        .ops
        .store
        .write(move |tx| work(tx, ops, caller, ws))
        .await
}

async fn settings(member: Member) -> PageResult {
    admin(&member)?;
    Ok(Redirect::to(&format!("/portal/w/{}/settings/tokens", member.ws.id)).into_response())
}

struct TokenRow {
    id: TokenId,
    name: String,
    scope: Scope,
    created: String,
    last_used: Option<String>,
    expires: Option<String>,
    expired: bool,
    revoked: bool,
}

/// A secret shown once, with what it belongs to.
pub(super) struct Shown {
    pub(super) what: String,
    pub(super) secret: String,
}

#[derive(Template)]
#[template(path = "portal/settings_tokens.html")]
struct TokensPage {
    nav: Nav,
    rows: Vec<TokenRow>,
    scopes: Vec<Scope>,
    shown: Option<Shown>,
    error: Option<String>,
    /// Changes are possible (an admin, in an active workspace).
    may_admin: bool,
    /// The date input's bounds: tomorrow and a year from today.
    min_date: String,
    max_date: String,
}

fn day(t: Timestamp) -> String {
    t.to_string().get(..10).unwrap_or_default().to_owned()
}

async fn tokens_view(
    portal: &Portal,
    member: &Member,
    shown: Option<Shown>,
    error: Option<String>,
) -> PageResult<TokensPage> {
    admin(member)?;
    let now = portal.ops.clock.timestamp();
    let mut records = portal
        .ops
        .store
        .tokens(member.ws.id, &KeysetPage::first(SHOWN))
        .await
        .map_err(operations::Error::from)?;
    records.truncate(SHOWN as usize);
    let rows = records
        .iter()
        .map(|t: &TokenRecord| TokenRow {
            id: t.id,
            name: t.name.clone(),
            scope: t.scope,
            created: when(t.created_at),
            last_used: t.last_used_at.map(when),
            expires: t.expires_at.map(when),
            expired: expired(t, now),
            revoked: t.revoked_at.is_some(),
        })
        .collect();
    Ok(TokensPage {
        nav: member.nav("settings"),
        rows,
        scopes: Scope::ALL
            .into_iter()
            .filter(|s| member.caller.scope.includes(*s))
            .collect(),
        shown,
        error,
        may_admin: member.ws.active,
        min_date: day(now.plus(DAY)),
        max_date: day(now.plus(MAX_EXPIRY).minus(DAY)),
    })
}

async fn tokens_page(State(portal): State<Portal>, member: Member) -> PageResult {
    render(&tokens_view(&portal, &member, None, None).await?)
}

#[derive(Deserialize)]
struct CreateForm {
    #[serde(default)]
    name: String,
    scope: String,
    #[serde(default)]
    expiry: String,
    #[serde(default)]
    date: String,
}

/// The expiry the form asks for: none, 7, 30 or 90 days from now, or the end of a date (UTC).
fn expiry(form: &CreateForm, now: Timestamp) -> Result<Option<Timestamp>, String> {
    match form.expiry.as_str() {
        "" | "none" => Ok(None),
        "7" | "30" | "90" => {
            let days: u64 = form.expiry.parse().unwrap_or(0);
            Ok(Some(now.plus(DAY * u32::try_from(days).unwrap_or(0))))
        }
        "date" => {
            let date = form.date.trim();
            let start: Option<Timestamp> = (date.len() == 10)
                .then(|| serde_json::from_value(serde_json::json!(format!("{date}T00:00:00Z"))))
                .and_then(Result::ok);
            start
                .map(|s| Some(s.plus(DAY)))
                .ok_or_else(|| "Pick the date on which the token expires.".to_owned())
        }
        _ => Err("Choose when the token expires.".to_owned()),
    }
}

/// A page that shows `page` answering a POST: 200 on success, the error's status otherwise.
pub(super) fn answer(page: &impl Template, status: StatusCode) -> PageResult {
    let mut response = render(page)?;
    *response.status_mut() = status;
    Ok(response)
}

async fn create_token(
    State(portal): State<Portal>,
    member: Member,
    Form(form): Form<CreateForm>,
) -> PageResult {
    admin(&member)?;
    let now = portal.ops.clock.timestamp();
    let req = match (form.scope.parse::<Scope>(), expiry(&form, now)) {
        (Ok(scope), Ok(expires_at)) => CreateToken {
            scope,
            name: Some(form.name.trim().to_owned()),
            rate_limit: None,
            expires_at,
        },
        (Err(_), _) => return refused_token(&portal, &member, "Choose a scope.").await,
        (_, Err(message)) => return refused_token(&portal, &member, &message).await,
    };
    let minted = in_workspace(&portal, &member, |tx, ops, caller, ws| {
        Box::pin(async move { ops.create_token(tx, &caller, &ws, req).await })
    })
    .await;
    match minted {
        Ok(minted) => {
            let shown = Shown {
                what: display_name(&minted.record.name),
                secret: minted.secret,
            };
            render(&tokens_view(&portal, &member, Some(shown), None).await?)
        }
        Err(e) if e.kind == operations::ErrorKind::Validation => {
            refused_token(&portal, &member, &e.message).await
        }
        Err(e) => Err(e.into()),
    }
}

async fn refused_token(portal: &Portal, member: &Member, message: &str) -> PageResult {
    let page = tokens_view(portal, member, None, Some(message.to_owned())).await?;
    answer(&page, StatusCode::UNPROCESSABLE_ENTITY)
}

fn display_name(name: &str) -> String {
    if name.is_empty() {
        "The new token".to_owned()
    } else {
        format!("Token “{name}”")
    }
}

/// The token `id` of this workspace, for a change by the member.
async fn token_of(portal: &Portal, member: &Member, id: &str) -> PageResult<TokenRecord> {
    admin(member)?;
    let id: TokenId = id.parse().map_err(|_| PageError::not_found())?;
    let token = portal.ops.token_for_change(&member.caller, id).await?;
    match token.workspace_id {
        Some(ws) => member.owns(ws)?,
        None => return Err(PageError::not_found()),
    }
    Ok(token)
}

async fn reissue_token(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id)): Path<(String, String)>,
) -> PageResult {
    let token = token_of(&portal, &member, &id).await?;
    let ops = portal.ops.clone();
    let minted = portal
        .ops
        .store
        .write(move |tx| Box::pin(async move { ops.reissue_token(tx, &token).await }))
        .await?;
    let shown = Shown {
        what: display_name(&minted.record.name),
        secret: minted.secret,
    };
    render(&tokens_view(&portal, &member, Some(shown), None).await?)
}

#[derive(Template)]
#[template(path = "portal/settings_confirm.html")]
struct ConfirmPage {
    nav: Nav,
    title: String,
    question: String,
    action: String,
    button: String,
    back: String,
}

async fn confirm_revoke(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id)): Path<(String, String)>,
) -> PageResult {
    let token = token_of(&portal, &member, &id).await?;
    let ws = member.ws.id;
    render(&ConfirmPage {
        nav: member.nav("settings"),
        title: "Revoke token".into(),
        question: format!(
            "Revoke {}? Every request with it is refused from now on; this cannot be undone.",
            match token.name.as_str() {
                "" => "this token".to_owned(),
                name => format!("the token “{name}”"),
            }
        ),
        action: format!("/portal/w/{ws}/settings/tokens/{}/revoke", token.id),
        button: "Revoke token".into(),
        back: format!("/portal/w/{ws}/settings/tokens"),
    })
}

async fn revoke_token(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id)): Path<(String, String)>,
) -> PageResult {
    let token = token_of(&portal, &member, &id).await?;
    let ops = portal.ops.clone();
    portal
        .ops
        .store
        .write(move |tx| Box::pin(async move { ops.revoke_token(tx, &token).await }))
        .await?;
    Ok(Redirect::to(&format!("/portal/w/{}/settings/tokens", member.ws.id)).into_response())
}

// ---- Members

struct MemberRow {
    id: UserId,
    email: String,
    role: Scope,
    since: String,
}

#[derive(Template)]
#[template(path = "portal/settings_members.html")]
struct MembersPage {
    nav: Nav,
    rows: Vec<MemberRow>,
    scopes: Vec<Scope>,
    shown: Option<Shown>,
    error: Option<String>,
    may_admin: bool,
}

async fn members_view(
    portal: &Portal,
    member: &Member,
    shown: Option<Shown>,
    error: Option<String>,
) -> PageResult<MembersPage> {
    admin(member)?;
    let mut people = portal
        .ops
        .members(&member.caller, &member.ws, &KeysetPage::first(SHOWN))
        .await?;
    people.truncate(SHOWN as usize);
    Ok(MembersPage {
        nav: member.nav("settings"),
        rows: people
            .into_iter()
            .map(|p: Person| MemberRow {
                id: p.user.id,
                email: p.user.email,
                role: p.role,
                since: when(p.since),
            })
            .collect(),
        scopes: Scope::ALL
            .into_iter()
            .filter(|s| member.caller.scope.includes(*s))
            .collect(),
        shown,
        error,
        may_admin: member.ws.active,
    })
}

async fn members_page(State(portal): State<Portal>, member: Member) -> PageResult {
    render(&members_view(&portal, &member, None, None).await?)
}

#[derive(Deserialize)]
struct InviteForm {
    email: String,
    role: String,
}

async fn invite_member(
    State(portal): State<Portal>,
    member: Member,
    Form(form): Form<InviteForm>,
) -> PageResult {
    admin(&member)?;
    let Ok(role) = form.role.parse::<Scope>() else {
        let page = members_view(&portal, &member, None, Some("Choose a role.".into())).await?;
        return answer(&page, StatusCode::UNPROCESSABLE_ENTITY);
    };
    let email = form.email;
    let added = in_workspace(&portal, &member, move |tx, ops, caller, ws| {
        Box::pin(async move { ops.add_member(tx, &caller, &ws, &email, role).await })
    })
    .await;
    match added {
        Ok((person, link)) => {
            let shown = link.map(|l| Shown {
                what: person.user.email.clone(),
                secret: l.url,
            });
            render(&members_view(&portal, &member, shown, None).await?)
        }
        Err(e)
            if matches!(
                e.kind,
                operations::ErrorKind::Validation | operations::ErrorKind::Conflict
            ) =>
        {
            let status = match e.kind {
                operations::ErrorKind::Conflict => StatusCode::CONFLICT,
                _ => StatusCode::UNPROCESSABLE_ENTITY,
            };
            let page = members_view(&portal, &member, None, Some(e.message)).await?;
            answer(&page, status)
        }
        Err(e) => Err(e.into()),
    }
}

fn user_id(text: &str) -> PageResult<UserId> {
    text.parse().map_err(|_| PageError::not_found())
}

#[derive(Deserialize)]
struct RoleForm {
    role: String,
}

async fn change_role(
    State(portal): State<Portal>,
    member: Member,
    Path((_, user)): Path<(String, String)>,
    Form(form): Form<RoleForm>,
) -> PageResult {
    admin(&member)?;
    let user = user_id(&user)?;
    let role: Scope = form
        .role
        .parse()
        .map_err(|_| PageError::new(StatusCode::UNPROCESSABLE_ENTITY, "Choose a role."))?;
    in_workspace(&portal, &member, move |tx, ops, caller, ws| {
        Box::pin(async move { ops.change_member_role(tx, &caller, &ws, user, role).await })
    })
    .await?;
    Ok(Redirect::to(&format!("/portal/w/{}/settings/members", member.ws.id)).into_response())
}

async fn confirm_remove(
    State(portal): State<Portal>,
    member: Member,
    Path((_, user)): Path<(String, String)>,
) -> PageResult {
    admin(&member)?;
    let user = user_id(&user)?;
    let person = portal
        .ops
        .store
        .membership(user, member.ws.id)
        .await
        .map_err(operations::Error::from)?
        .ok_or_else(PageError::not_found)?;
    let email = portal
        .ops
        .store
        .user(person.user_id)
        .await
        .map_err(operations::Error::from)?
        .map(|u| u.email)
        .unwrap_or_default();
    let ws = member.ws.id;
    render(&ConfirmPage {
        nav: member.nav("settings"),
        title: "Remove member".into(),
        question: format!(
            "Remove {email} from this workspace? Their portal sessions end at once; they keep \
             their account and their other workspaces."
        ),
        action: format!("/portal/w/{ws}/settings/members/{user}/remove"),
        button: "Remove member".into(),
        back: format!("/portal/w/{ws}/settings/members"),
    })
}

async fn remove_member(
    State(portal): State<Portal>,
    member: Member,
    Path((_, user)): Path<(String, String)>,
) -> PageResult {
    admin(&member)?;
    let user = user_id(&user)?;
    in_workspace(&portal, &member, move |tx, ops, caller, ws| {
        Box::pin(async move { ops.remove_member(tx, &caller, &ws, user).await })
    })
    .await?;
    // Removing oneself ends one's own session too: the sign-in page follows.
    let to = if Some(user) == member.caller.user_id {
        "/portal/sign-in".to_owned()
    } else {
        format!("/portal/w/{}/settings/members", member.ws.id)
    };
    Ok(Redirect::to(&to).into_response())
}
