//! The members of a workspace: the people who use its portal pages, each with a role on the
//! scope ladder. What the portal's Settings → Members page does, for its admins.

use api_types::{InviteMember, UpdateMember};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use domain::{Scope, UserId, WorkspaceId};
use operations::views::{self, Member};
use store::WorkspaceRecord;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::Id;
use crate::auth::Auth;
use crate::body::JsonBody;
use crate::error::{ApiError, ApiResult, ErrorEnvelope};
use crate::idempotency::{Answer, Idempotency, Recorded};
use crate::paging::{ListQuery, Page, PageParams};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_members, invite_member))
        .routes(routes!(update_member, remove_member))
}

/// The workspace and the member of a `/members/{user_id}` path: an id that does not parse
/// names nothing (404).
fn member_path(ws: &str, user: &str) -> Result<(WorkspaceId, UserId), ApiError> {
    let ws = ws
        .parse()
        .map_err(|_| operations::Error::not_found("workspace", ws))?;
    let user = user
        .parse()
        .map_err(|_| operations::Error::not_found("member", user))?;
    Ok((ws, user))
}

/// List a workspace's members
///
/// Newest membership first. Listed in a deleted workspace too. `sign_up_url` is always null
/// here. Scope: admin.
#[utoipa::path(get, path = "/v1/workspaces/{ws}/members", tag = "Members",
    params(("ws" = String, Path), PageParams), security(("bearer" = ["admin"])),
    responses((status = 200, body = Page<Member>), (status = 400, body = ErrorEnvelope)))]
async fn list_members(
    State(state): State<AppState>,
    auth: Auth,
    Id(ws): Id<WorkspaceRecord>,
    q: ListQuery,
) -> ApiResult<axum::Json<Page<Member>>> {
    let ws: WorkspaceRecord = state.ops.load(&auth, ws, Scope::Admin).await?;
    let (ops, ws, caller) = (&state.ops, &ws, &*auth);
    state
        .cursors
        .keyset_list(
            &format!("members:{}", ws.id),
            &q,
            move |page| async move { ops.members(caller, ws, &page).await },
            |m| views::member(m, None),
        )
        .await
}

/// Invite a member
///
/// Gives the person with `email` the `role` in the workspace, creating their account when
/// the service does not know them. When they have no password yet, `sign_up_url` is a one-time
/// link (valid 24 hours; a newer link replaces it) with which they set one: no mail is sent,
/// hand it to them. Someone already a member is a 409 `conflict` (change their role
/// instead). The role is never above the caller's own (422, `param: "role"`). Scope: admin.
#[utoipa::path(post, path = "/v1/workspaces/{ws}/members", tag = "Members",
    params(("ws" = String, Path)),
    request_body = InviteMember, security(("bearer" = ["admin"])),
    responses((status = 201, body = Member), (status = 409, body = ErrorEnvelope),
        (status = 422, body = ErrorEnvelope)))]
async fn invite_member(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    Id(ws): Id<WorkspaceRecord>,
    body: JsonBody,
) -> ApiResult<Recorded> {
    let ws = state.ops.active_workspace(&auth, ws, Scope::Admin).await?;
    let req: InviteMember = body.parse()?;
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let (member, link) = ops.add_member(tx, &auth, &ws, &req.email, req.role).await?;
                Ok(Answer::with_status(
                    StatusCode::CREATED,
                    views::member(member, link.map(|l| l.url)),
                ))
            })
        })
        .await
}

/// Change a member's role
///
/// The role is never above the caller's own (422, `param: "role"`). The workspace's last admin
/// cannot be demoted (409 `conflict`: make another member admin first), as GitHub refuses to
/// remove an organization's last owner. Scope: admin.
#[utoipa::path(patch, path = "/v1/workspaces/{ws}/members/{user_id}", tag = "Members",
    params(("ws" = String, Path), ("user_id" = String, Path)),
    request_body = UpdateMember, security(("bearer" = ["admin"])),
    responses((status = 200, body = Member), (status = 409, body = ErrorEnvelope),
        (status = 422, body = ErrorEnvelope)))]
async fn update_member(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    Path((ws, user)): Path<(String, String)>,
    body: JsonBody,
) -> ApiResult<Recorded> {
    let (ws, user) = member_path(&ws, &user)?;
    let ws = state.ops.active_workspace(&auth, ws, Scope::Admin).await?;
    let req: UpdateMember = body.parse()?;
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let member = ops
                    .change_member_role(tx, &auth, &ws, user, req.role)
                    .await?;
                Ok(Answer::ok(views::member(member, None)))
            })
        })
        .await
}

/// Remove a member
///
/// Ends the membership: that person's access to this workspace ends at once (a page they have
/// open stops working on its next request); their sessions go on in their other workspaces.
/// The workspace's last admin cannot be removed (409 `conflict`). Answers with the membership
/// as it was; afterwards the member is 404. Scope: admin.
#[utoipa::path(delete, path = "/v1/workspaces/{ws}/members/{user_id}", tag = "Members",
    params(("ws" = String, Path), ("user_id" = String, Path)),
    security(("bearer" = ["admin"])),
    responses((status = 200, body = Member), (status = 409, body = ErrorEnvelope)))]
async fn remove_member(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    Path((ws, user)): Path<(String, String)>,
) -> ApiResult<Recorded> {
    let (ws, user) = member_path(&ws, &user)?;
    let ws = state.ops.active_workspace(&auth, ws, Scope::Admin).await?;
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let member = ops.remove_member(tx, &auth, &ws, user).await?;
                Ok(Answer::ok(views::member(member, None)))
            })
        })
        .await
}
