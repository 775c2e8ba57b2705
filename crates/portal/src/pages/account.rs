//! Signing in and out, and setting a password through a one-time link.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};

use askama::Template;
use axum::extract::{ConnectInfo, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Extension, Form, Router};
use axum_extra::extract::CookieJar;
use operations::ErrorKind;
use operations::accounts::StartedSession;
use serde::Deserialize;

use crate::Portal;
use crate::session::{
    self, CurrentSession, SignedIn, pre_session_token, safe_next, session_cookie_name,
};
use crate::web::{PageError, PageResult, render};

pub fn router() -> Router<Portal> {
    Router::new()
        .route("/", get(|| async { Redirect::to("/portal") }))
        .route("/portal", get(home))
        .route("/portal/", get(home))
        .route("/portal/sign-in", get(sign_in_page).post(sign_in))
        .route("/portal/sign-out", post(sign_out))
        .route("/portal/password", get(password_page).post(set_password))
}

async fn home(Extension(CurrentSession(session)): Extension<CurrentSession>) -> Redirect {
    match session {
        Some(_) => Redirect::to("/portal/workspaces"),
        None => Redirect::to("/portal/sign-in"),
    }
}

#[derive(Template)]
#[template(path = "portal/sign_in.html")]
struct SignInPage {
    csrf: String,
    next: String,
    email: String,
    error: Option<String>,
}

#[derive(Deserialize)]
struct NextQuery {
    next: Option<String>,
}

async fn sign_in_page(
    State(portal): State<Portal>,
    jar: CookieJar,
    Query(q): Query<NextQuery>,
) -> PageResult {
    let (jar, csrf) = pre_session_token(&portal, jar);
    let page = SignInPage {
        csrf,
        next: safe_next(q.next.as_deref()),
        email: String::new(),
        error: None,
    };
    Ok((jar, render(&page)?).into_response())
}

#[derive(Deserialize)]
struct SignInForm {
    email: String,
    password: String,
    next: Option<String>,
}

/// The client's address, for throttling sign-in attempts per address: the connection's peer,
/// unless the peer is a trusted proxy. Then `X-Forwarded-For` is read from the right, where
/// each proxy appends the address it saw, to the first address that is not a trusted proxy;
/// what a client wrote in the header itself stands further left and is never reached. A
/// header that does not parse on the way counts the request under the peer.
fn client_address(
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: &HeaderMap,
    trusted: &[ipnet::IpNet],
) -> IpAddr {
    let peer = peer.map_or(
        IpAddr::V6(Ipv6Addr::UNSPECIFIED),
        |Extension(ConnectInfo(a))| a.ip(),
    );
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| net.contains(ip));
    if !is_trusted(&peer) {
        return peer;
    }
    let mut hops = Vec::new();
    for value in headers.get_all("x-forwarded-for") {
        let Ok(text) = value.to_str() else {
            return peer;
        };
        hops.extend(text.split(',').map(str::trim));
    }
    for hop in hops.into_iter().rev() {
        let Some(ip) = hop
            .parse::<IpAddr>()
            .ok()
            .or_else(|| hop.parse::<SocketAddr>().ok().map(|a| a.ip()))
        else {
            return peer;
        };
        if !is_trusted(&ip) {
            return ip;
        }
    }
    peer
}

async fn sign_in(
    State(portal): State<Portal>,
    jar: CookieJar,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    Form(form): Form<SignInForm>,
) -> PageResult {
    let next = safe_next(form.next.as_deref());
    let address = client_address(peer, &headers, &portal.config.trusted_proxies);
    match portal
        .ops
        .sign_in(&form.email, &form.password, address)
        .await
    {
        Ok(started) => Ok(signed_in(&portal, jar, started, &next)),
        Err(e) => {
            let status = match e.kind {
                ErrorKind::Internal | ErrorKind::Unavailable => return Err(e.into()),
                ErrorKind::Validation => StatusCode::UNPROCESSABLE_ENTITY,
                ErrorKind::Throttled { .. } => StatusCode::TOO_MANY_REQUESTS,
                _ => StatusCode::UNAUTHORIZED,
            };
            let (jar, csrf) = pre_session_token(&portal, jar);
            let page = SignInPage {
                csrf,
                next,
                email: form.email.chars().take(254).collect(),
                error: Some(e.message),
            };
            Ok((status, jar, render(&page)?).into_response())
        }
    }
}

/// Sets the new session's cookie and goes on to `next`.
fn signed_in(portal: &Portal, jar: CookieJar, started: StartedSession, next: &str) -> Response {
    let jar = jar.add(session::cookie(
        portal,
        session_cookie_name(portal),
        started.cookie,
    ));
    (jar, Redirect::to(next)).into_response()
}

async fn sign_out(State(portal): State<Portal>, jar: CookieJar, _: SignedIn) -> PageResult {
    if let Some(c) = jar.get(session_cookie_name(&portal)) {
        portal.ops.sign_out(c.value()).await?;
    }
    let jar = jar.add(session::removal(&portal));
    Ok((jar, Redirect::to("/portal/sign-in")).into_response())
}

#[derive(Template)]
#[template(path = "portal/password.html")]
struct PasswordPage {
    csrf: String,
    token: String,
    email: String,
    error: Option<String>,
}

#[derive(Deserialize)]
struct TokenQuery {
    token: Option<String>,
}

async fn password_page(
    State(portal): State<Portal>,
    jar: CookieJar,
    Query(q): Query<TokenQuery>,
) -> PageResult {
    let token = q.token.unwrap_or_default();
    let user = portal
        .ops
        .sign_in_link_user(&token)
        .await
        .map_err(link_error)?;
    let (jar, csrf) = pre_session_token(&portal, jar);
    let page = PasswordPage {
        csrf,
        token,
        email: user.email,
        error: None,
    };
    Ok((jar, render(&page)?).into_response())
}

#[derive(Deserialize)]
struct PasswordForm {
    token: String,
    password: String,
    confirm: String,
}

async fn set_password(
    State(portal): State<Portal>,
    jar: CookieJar,
    Form(form): Form<PasswordForm>,
) -> PageResult {
    let user = portal
        .ops
        .sign_in_link_user(&form.token)
        .await
        .map_err(link_error)?;
    let outcome = if form.password != form.confirm {
        Err(operations::Error::validation(
            "confirm",
            "The two passwords differ.",
        ))
    } else {
        portal
            .ops
            .set_password_with_link(&form.token, &form.password)
            .await
    };
    match outcome {
        Ok(started) => Ok(signed_in(&portal, jar, started, "/portal/workspaces")),
        Err(e) if e.kind == ErrorKind::Validation => {
            let (jar, csrf) = pre_session_token(&portal, jar);
            let page = PasswordPage {
                csrf,
                token: form.token,
                email: user.email,
                error: Some(e.message),
            };
            Ok((StatusCode::UNPROCESSABLE_ENTITY, jar, render(&page)?).into_response())
        }
        Err(e) => Err(link_error(e)),
    }
}

/// A link that is unknown, used or expired says so, and what to do.
fn link_error(e: operations::Error) -> PageError {
    match e.kind {
        ErrorKind::Internal | ErrorKind::Unavailable => e.into(),
        _ => PageError::new(
            StatusCode::NOT_FOUND,
            "This sign-in link is not valid: it may have been used already or have expired. \
             Ask an admin for a new one (content-pipeline users reset-password).",
        ),
    }
}
