//! Who is signed in, and protection against cross-site requests.
//!
//! One middleware (`load`) runs before every portal route: it finds the session the cookie
//! names (one read) and, for every state-changing request, checks that it comes from our own
//! pages: its `Origin` (or, without one, its `Referer`) must be the portal's origin, and its
//! CSRF token (the form's `csrf` field or the `X-CSRF-Token` header) must be the session's.
//! Before anyone has signed in (the sign-in and set-password forms), the token is a random
//! value also kept in a cookie (double submit). The pages then read the session from the
//! request (`SignedIn`).

use std::sync::Arc;

use axum::body::{Body, to_bytes};
use axum::extract::{FromRequestParts, OriginalUri, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum_extra::extract::cookie::{Cookie, CookieJar, SameSite};
use operations::accounts::Session;
use subtle::ConstantTimeEq;

use crate::Portal;
use crate::web::PageError;

/// The largest form the portal accepts.
pub const FORM_LIMIT: usize = 64 * 1024;
/// The form field and the header that carry the CSRF token.
pub const CSRF_FIELD: &str = "csrf";
const CSRF_HEADER: &str = "x-csrf-token";

/// The session found for this request, if any.
#[derive(Clone)]
pub struct CurrentSession(pub Option<Arc<Session>>);

/// Cookie names: with https, the `__Host-` prefix pins the cookie to this host and path `/`.
pub fn session_cookie_name(portal: &Portal) -> &'static str {
    if portal.config.secure_cookies {
        "__Host-cp_session"
    } else {
        "cp_session"
    }
}

fn pre_session_cookie_name(portal: &Portal) -> &'static str {
    if portal.config.secure_cookies {
        "__Host-cp_csrf"
    } else {
        "cp_csrf"
    }
}

/// A cookie with the portal's attributes: HttpOnly, SameSite=Lax, path `/`, Secure with
/// https. Without `max_age` it lasts as long as the browser session; the server ends it
/// earlier (idle and absolute expiry).
pub fn cookie(portal: &Portal, name: &'static str, value: String) -> Cookie<'static> {
    Cookie::build((name, value))
        .http_only(true)
        .same_site(SameSite::Lax)
        .path("/")
        .secure(portal.config.secure_cookies)
        .build()
}

/// Ends the session cookie in the browser.
pub fn removal(portal: &Portal) -> Cookie<'static> {
    let mut c = cookie(portal, session_cookie_name(portal), String::new());
    c.make_removal();
    c
}

/// The pre-session CSRF token of this browser, or a new one to set.
pub fn pre_session_token(portal: &Portal, jar: CookieJar) -> (CookieJar, String) {
    let name = pre_session_cookie_name(portal);
    if let Some(c) = jar.get(name)
        && c.value().len() == 43
    {
        let token = c.value().to_owned();
        return (jar, token);
    }
    let token = operations::accounts::random_token();
    (jar.add(cookie(portal, name, token.clone())), token)
}

pub async fn load(State(portal): State<Portal>, req: Request, next: Next) -> Response {
    let jar = CookieJar::from_headers(req.headers());
    let session = match jar.get(session_cookie_name(&portal)) {
        Some(c) => match portal.ops.session(c.value()).await {
            Ok(s) => s.map(Arc::new),
            Err(e) => return PageError::from(e).into_response(),
        },
        None => None,
    };
    let req = if is_safe(req.method()) {
        req
    } else {
        match check_request(&portal, &jar, session.as_deref(), req).await {
            Ok(req) => req,
            Err(refusal) => return refusal.into_response(),
        }
    };
    let mut req = req;
    req.extensions_mut().insert(CurrentSession(session));
    next.run(req).await
}

fn is_safe(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// The checks of a state-changing request; gives the request back with its body.
async fn check_request(
    portal: &Portal,
    jar: &CookieJar,
    session: Option<&Session>,
    req: Request,
) -> Result<Request, PageError> {
    if !same_origin(portal, req.headers()) {
        return Err(PageError::forbidden(
            "This request did not come from the portal's own pages.",
        ));
    }
    let (parts, body) = req.into_parts();
    let bytes = to_bytes(body, FORM_LIMIT)
        .await
        .map_err(|_| PageError::new(StatusCode::PAYLOAD_TOO_LARGE, "The form is too large."))?;
    let presented = parts
        .headers
        .get(CSRF_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .or_else(|| form_field(&bytes, CSRF_FIELD));
    let expected = match session {
        Some(s) => Some(s.csrf_token.clone()),
        None => jar
            .get(pre_session_cookie_name(portal))
            .map(|c| c.value().to_owned()),
    };
    let matches = match (presented, expected) {
        (Some(p), Some(e)) => bool::from(p.as_bytes().ct_eq(e.as_bytes())),
        _ => false,
    };
    if !matches {
        return Err(PageError::forbidden(
            "This form has expired or did not come from the portal; reload the page and try again.",
        ));
    }
    Ok(Request::from_parts(parts, Body::from(bytes)))
}

/// The request's `Origin`, or without one its `Referer`'s origin, is the portal's. A request
/// with neither is refused: every browser that runs the portal sends `Origin` with a POST.
fn same_origin(portal: &Portal, headers: &HeaderMap) -> bool {
    let origin = &portal.config.origin;
    if let Some(o) = headers.get(header::ORIGIN) {
        return o.to_str().is_ok_and(|o| o == origin);
    }
    headers
        .get(header::REFERER)
        .and_then(|r| r.to_str().ok())
        .and_then(|r| r.strip_prefix(origin.as_str()))
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

fn form_field(body: &[u8], name: &str) -> Option<String> {
    serde_urlencoded::from_bytes::<Vec<(String, String)>>(body)
        .ok()?
        .into_iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
}

/// A page that needs someone signed in: without a session, a GET is sent to the sign-in page
/// (and back afterwards), anything else is refused.
pub struct SignedIn(pub Arc<Session>);

impl FromRequestParts<Portal> for SignedIn {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, _: &Portal) -> Result<Self, Self::Rejection> {
        if let Some(CurrentSession(Some(s))) = parts.extensions.get::<CurrentSession>() {
            return Ok(Self(s.clone()));
        }
        if parts.method == Method::GET {
            let here = parts
                .extensions
                .get::<OriginalUri>()
                .map(|u| u.0.to_string())
                .unwrap_or_else(|| parts.uri.to_string());
            let next = serde_urlencoded::to_string([("next", here)]).unwrap_or_default();
            return Err(Redirect::to(&format!("/portal/sign-in?{next}")).into_response());
        }
        Err(PageError::new(
            StatusCode::UNAUTHORIZED,
            "Your session has ended; sign in again.",
        )
        .into_response())
    }
}

/// Where to go after signing in: only a path of the portal itself, never another site.
pub fn safe_next(next: Option<&str>) -> String {
    match next {
        Some(n)
            if n.starts_with("/portal/")
                && !n.starts_with("//")
                && !n.contains('\\')
                && !n.chars().any(char::is_control) =>
        {
            n.to_owned()
        }
        _ => "/portal/workspaces".to_owned(),
    }
}
