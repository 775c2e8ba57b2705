//! What every page shares: the error page, rendering a template into a response, and the
//! frame around each page (who is signed in, which workspace, the CSRF token for its forms).

use askama::Template;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::{Scope, WorkspaceId};
use operations::ErrorKind;
use operations::accounts::Session;
use store::WorkspaceRecord;

/// A page that could not be shown, rendered as an HTML page with the status the API would
/// answer: another workspace's resource is 404, a too-low role 403, a deleted workspace 409.
#[derive(Debug)]
pub struct PageError {
    pub status: StatusCode,
    pub message: String,
}

impl PageError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }

    pub fn not_found() -> Self {
        Self::new(StatusCode::NOT_FOUND, "There is no such page.")
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, message)
    }
}

impl From<operations::Error> for PageError {
    fn from(e: operations::Error) -> Self {
        let status = match e.kind {
            ErrorKind::NotFound => StatusCode::NOT_FOUND,
            ErrorKind::InsufficientScope { challenge } => {
                let needed = challenge.map_or("a higher".to_owned(), |s| format!("the '{s}'"));
                return Self::forbidden(format!(
                    "This needs {needed} role in this workspace; ask one of its admins."
                ));
            }
            ErrorKind::Conflict => StatusCode::CONFLICT,
            ErrorKind::Validation => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorKind::Unauthenticated => StatusCode::UNAUTHORIZED,
            ErrorKind::Throttled { .. } => StatusCode::TOO_MANY_REQUESTS,
            ErrorKind::Unavailable => {
                tracing::warn!(error = %e.message, "a portal page found the database busy");
                return Self::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "The service is busy right now; try again in a moment.",
                );
            }
            ErrorKind::Internal => {
                tracing::error!(error = %e.message, "a portal page failed");
                return Self::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "Something went wrong on our side; try again in a moment.",
                );
            }
        };
        Self::new(status, e.message)
    }
}

#[derive(Template)]
#[template(path = "portal/error.html")]
struct ErrorPage<'a> {
    status: u16,
    reason: &'a str,
    message: &'a str,
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let page = ErrorPage {
            status: self.status.as_u16(),
            reason: self.status.canonical_reason().unwrap_or("Error"),
            message: &self.message,
        };
        match page.render() {
            Ok(html) => (self.status, Html(html)).into_response(),
            Err(_) => (self.status, self.message).into_response(),
        }
    }
}

pub type PageResult<T = Response> = Result<T, PageError>;

/// Renders `page` as the response.
pub fn render(page: &impl Template) -> PageResult {
    page.render()
        .map(|html| Html(html).into_response())
        .map_err(|e| PageError::from(operations::Error::internal(e)))
}

/// The workspace a page is about, as its frame shows it.
#[derive(Clone, Debug)]
pub struct WorkspaceNav {
    pub id: WorkspaceId,
    pub name: String,
    pub active: bool,
    pub role: Scope,
}

impl WorkspaceNav {
    pub fn new(ws: &WorkspaceRecord, role: Scope) -> Self {
        Self {
            id: ws.id,
            name: ws.name.clone(),
            active: ws.active,
            role,
        }
    }

    /// May the signed-in person do what needs `scope` here (and is the workspace writable)?
    pub fn may(&self, scope: Scope) -> bool {
        self.active && self.role.includes(scope)
    }

    pub fn may_write(&self) -> bool {
        self.may(Scope::Write)
    }

    pub fn may_publish(&self) -> bool {
        self.may(Scope::Publish)
    }

    /// Settings (tokens, members) are the workspace admins'.
    pub fn may_admin(&self) -> bool {
        self.may(Scope::Admin)
    }
}

/// The frame of every signed-in page.
#[derive(Clone, Debug)]
pub struct Nav {
    pub email: String,
    pub platform_admin: bool,
    pub csrf: String,
    pub workspace: Option<WorkspaceNav>,
    /// "workspaces", "runs", "articles", "search", "webhooks" or "settings": the section to mark as
    /// current.
    pub section: &'static str,
}

impl Nav {
    pub fn new(session: &Session, workspace: Option<WorkspaceNav>, section: &'static str) -> Self {
        Self {
            email: session.user.email.clone(),
            platform_admin: session.user.platform_admin,
            csrf: session.csrf_token.clone(),
            workspace,
            section,
        }
    }

    /// The published site's stylesheet: the rendered articles' components, shared by the
    /// preview and the public page.
    pub fn site_stylesheet(&self) -> &'static str {
        crate::site::SITE_STYLESHEET.as_str()
    }

    /// The highlighted code's stylesheet.
    pub fn highlight_stylesheet(&self) -> &'static str {
        crate::site::HIGHLIGHT_STYLESHEET.as_str()
    }

    /// The id of the page's workspace, for its links.
    pub fn ws_id(&self) -> String {
        self.workspace
            .as_ref()
            .map(|w| w.id.to_string())
            .unwrap_or_default()
    }

    /// `aria-current` for a navigation link.
    pub fn current(&self, section: &str) -> &'static str {
        if self.section == section {
            "page"
        } else {
            "false"
        }
    }
}

/// A time as people read it: `2026-11-24 14:05:09 UTC`.
pub fn when(t: domain::Timestamp) -> String {
    let s = t.to_string();
    match (s.get(..10), s.get(11..19)) {
        (Some(day), Some(time)) => format!("{day} {time} UTC"),
        _ => s,
    }
}

/// A duration as people read it: `850 ms`, `12.3 s`, `4 min 05 s`.
pub fn duration_between(from: domain::Timestamp, to: domain::Timestamp) -> String {
    let micros = to.micros().saturating_sub(from.micros()).max(0);
    let ms = micros / 1000;
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        format!("{} min {:02} s", ms / 60_000, (ms / 1000) % 60)
    }
}

/// The first 12 characters of a commit id.
pub fn short_commit(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}
