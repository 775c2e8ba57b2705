//! The signed-in pages, one module per part of the portal. A page reads as: who is asking
//! (`SignedIn`, or `Member` inside a workspace: the same tenancy and scope rules as the API,
//! through `Operations::portal_caller`), what it does (a use case of `operations`), what it
//! shows (a template under `templates/portal/`).

mod account;
mod articles;
mod runs;
mod settings;
mod webhooks;
mod workspaces;

use std::sync::Arc;

use axum::Router;
use axum::extract::{FromRequestParts, RawPathParams};
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use domain::{Scope, WorkspaceId};
use operations::Caller;
use operations::accounts::Session;
use store::WorkspaceRecord;

use crate::Portal;
use crate::session::SignedIn;
use crate::web::{Nav, PageError, WorkspaceNav};

pub fn router() -> Router<Portal> {
    Router::new()
        .merge(account::router())
        .merge(workspaces::router())
        .merge(runs::router())
        .merge(articles::router())
        .merge(webhooks::router())
        .merge(settings::router())
        .route("/portal/{*rest}", axum::routing::any(crate::not_found))
}

/// A signed-in person inside the workspace `{ws}` of the path: their caller (their role
/// there, or the platform's for a platform admin) and the workspace. Anyone else gets the 404
/// of a missing workspace.
pub struct Member {
    pub session: Arc<Session>,
    pub caller: Caller,
    pub ws: WorkspaceRecord,
}

impl Member {
    /// The frame of a page of this workspace.
    pub fn nav(&self, section: &'static str) -> Nav {
        let role = if self.caller.is_platform() {
            Scope::Admin
        } else {
            self.caller.scope
        };
        Nav::new(
            &self.session,
            Some(WorkspaceNav::new(&self.ws, role)),
            section,
        )
    }

    /// A resource of this workspace: one of another workspace is missing here, even for a
    /// platform admin who may see both.
    pub fn owns(&self, workspace: WorkspaceId) -> Result<(), PageError> {
        if workspace == self.ws.id {
            Ok(())
        } else {
            Err(PageError::not_found())
        }
    }
}

impl FromRequestParts<Portal> for Member {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, portal: &Portal) -> Result<Self, Response> {
        let SignedIn(session) = SignedIn::from_request_parts(parts, portal).await?;
        let params = RawPathParams::from_request_parts(parts, portal)
            .await
            .map_err(|_| PageError::not_found().into_response())?;
        let ws: WorkspaceId = params
            .iter()
            .find(|(k, _)| *k == "ws")
            .and_then(|(_, v)| v.parse().ok())
            .ok_or_else(|| PageError::not_found().into_response())?;
        let found = async {
            let caller = portal.ops.portal_caller(&session.user, ws).await?;
            let ws: WorkspaceRecord = portal.ops.load(&caller, ws, Scope::Read).await?;
            Ok::<_, operations::Error>((caller, ws))
        }
        .await;
        match found {
            Ok((caller, ws)) => Ok(Self {
                session,
                caller,
                ws,
            }),
            Err(e) => Err(PageError::from(e).into_response()),
        }
    }
}

/// A page's position in a newest-first list: `?before=<micros>.<id>` of the last row shown.
pub fn page_after(before: Option<&str>, limit: i64) -> store::KeysetPage {
    let after = before.and_then(|b| {
        let (micros, id) = b.split_once('.')?;
        let created_at = domain::Timestamp::from_micros(micros.parse().ok()?).ok()?;
        (id.len() <= 64).then(|| store::Position {
            created_at,
            id: id.to_owned(),
        })
    });
    store::KeysetPage { limit, after }
}

/// The `before` value that continues after a row.
pub fn before_value(created_at: domain::Timestamp, id: impl std::fmt::Display) -> String {
    format!("{}.{id}", created_at.micros())
}
