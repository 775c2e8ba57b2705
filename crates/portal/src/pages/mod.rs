//! The signed-in pages, one module per part of the portal. A page reads as: who is asking
//! (`SignedIn`, or `Member` inside a workspace: the same tenancy and scope rules as the API,
//! through `Operations::portal_caller`), what it does (a use case of `operations`), what it
//! shows (a template under `templates/portal/`).

mod account;
mod articles;
mod repository;
mod runs;
mod search;
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
        .merge(search::router())
        .merge(webhooks::router())
        .merge(settings::router())
        .merge(repository::router())
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

/// How many rows a list page shows.
pub const PAGE: i64 = 50;

/// One page of a newest-first list, and where the next one starts.
pub struct Listed<T> {
    pub rows: Vec<T>,
    /// The `before` value of the next page, when there is one.
    pub next_before: Option<String>,
}

/// Reads the page of the newest-first list named `list` that starts after `before` (the
/// service's signed cursor of the last row of the previous page; one that is not this list's
/// starts at the top): the store reads one row more than a page, which tells whether a next
/// page exists. `position` gives a row's `(created_at, id)`.
pub async fn list_page<T, Fut, E, Id>(
    cursors: &http_envelope::CursorCodec,
    list: &str,
    before: Option<&str>,
    fetch: impl FnOnce(store::KeysetPage) -> Fut,
    position: impl Fn(&T) -> (domain::Timestamp, Id),
) -> Result<Listed<T>, PageError>
where
    Fut: std::future::Future<Output = Result<Vec<T>, E>>,
    operations::Error: From<E>,
    Id: std::fmt::Display,
{
    let list = format!("portal:{list}");
    let after = before.and_then(|b| cursors.decode_keyset(&list, b));
    let mut rows = fetch(store::KeysetPage { limit: PAGE, after })
        .await
        .map_err(operations::Error::from)?;
    let more = rows.len() as i64 > PAGE;
    rows.truncate(PAGE as usize);
    let next_before = rows.last().filter(|_| more).map(|row| {
        let (created_at, id) = position(row);
        cursors.encode_keyset(&list, created_at, &id)
    });
    Ok(Listed { rows, next_before })
}

/// A list's address with its query: the filters that are set, in order.
pub fn list_url(path: &str, pairs: &[(&str, Option<String>)]) -> String {
    let set: Vec<(&str, &str)> = pairs
        .iter()
        .filter_map(|(k, v)| v.as_deref().map(|v| (*k, v)))
        .collect();
    if set.is_empty() {
        return path.to_owned();
    }
    format!(
        "{path}?{}",
        serde_urlencoded::to_string(set).unwrap_or_default()
    )
}
