//! The one idempotency layer (IETF draft-ietf-httpapi-idempotency-key-header; Stripe).
//!
//! [`layer`] runs on every POST and PATCH after authentication and rate limiting: it validates
//! the key, claims it, and answers replays, mismatches and in-flight duplicates itself. A
//! handler with a side effect writes through [`AppState::write`], which records the response
//! in the same transaction, so the resource and its replayable response commit together, and
//! answers a [`Recorded`] response, which the layer then leaves alone. Any other 2xx/4xx
//! outcome is stored after the handler returns; 401/403/429 and 5xx release the key so a
//! retry runs again.
//!
//! Records belong to the token that made the request, never to its workspace: another token
//! sending the same key is processed on its own. A token's workspace and scope never change,
//! and a 403 is never stored, so a record is only ever replayed to a caller that passed the
//! handler's tenancy and scope checks with this very token. Stored bodies are encrypted with
//! a key derived from the server key (they carry new token and webhook secrets), bound to
//! their owner and key.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{FromRequestParts, MatchedPath, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use operations::Caller;
use serde::Serialize;
use sha2::{Digest, Sha256};
use store::{Claim, ClaimOutcome, StoredResponse, Tx, WriteFuture};
use tracing::Instrument;
use webhooks::SecretBox;

use crate::error::{ApiError, ErrorType};
use crate::state::AppState;

pub const WINDOW: Duration = Duration::from_secs(24 * 3600);
/// How often a request beats its claim while it runs (most answer long before the first).
const BEAT_EVERY: Duration = Duration::from_secs(2);
/// An unfinished claim that has not beaten for this long belonged to a process that died (or
/// stalled) mid-request: a retry takes it over, and the old claimant can no longer store its
/// answer (the claim's token fences it), so its work rolls back.
const ABANDONED_AFTER: Duration = Duration::from_secs(6);
pub const BODY_LIMIT: usize = 1024 * 1024;

/// Headers worth replaying besides the body.
const REPLAYED_HEADERS: [header::HeaderName; 2] = [header::CONTENT_TYPE, header::LOCATION];

#[derive(Clone)]
struct ActiveClaim {
    claim: Claim,
    sealer: SecretBox,
}

impl ActiveClaim {
    /// The record of `response` as it is stored: its body sealed to this claim.
    fn record(
        &self,
        status: StatusCode,
        headers: &axum::http::HeaderMap,
        body: &[u8],
    ) -> Result<StoredResponse, ApiError> {
        Ok(StoredResponse {
            status: status.as_u16(),
            headers: stored_headers(headers),
            body: self
                .sealer
                .seal_bytes(body, &sealing_context(&self.claim))
                .map_err(ApiError::internal)?,
        })
    }
}

/// What a sealed body is bound to: a row copied to another owner or key does not open.
fn sealing_context(claim: &Claim) -> Vec<u8> {
    [claim.owner.as_bytes(), b"\n", claim.key.as_bytes()].concat()
}

/// Parses the header: 1–255 visible ASCII characters, or a Structured-Field string.
fn parse_key(raw: &HeaderValue) -> Result<String, ApiError> {
    let bad = || {
        ApiError::invalid_request(
            "Idempotency-Key",
            "Idempotency-Key must be 1 to 255 visible ASCII characters.",
        )
    };
    let text = raw.to_str().map_err(|_| bad())?;
    let text = match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        Some(inner) if !inner.contains(['"', '\\']) => inner,
        _ => text,
    };
    if text.is_empty() || text.len() > 255 || !text.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(bad());
    }
    Ok(text.to_owned())
}

/// Method, path and the canonical JSON of the body (object keys sorted, no whitespace); a body
/// that is not JSON is hashed as it is.
pub fn fingerprint(method: &Method, path: &str, body: &[u8]) -> String {
    fn canonical(v: serde_json::Value) -> serde_json::Value {
        match v {
            serde_json::Value::Object(map) => {
                let mut entries: Vec<_> = map.into_iter().collect();
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                serde_json::Value::Object(
                    entries
                        .into_iter()
                        .map(|(k, v)| (k, canonical(v)))
                        .collect(),
                )
            }
            serde_json::Value::Array(items) => {
                serde_json::Value::Array(items.into_iter().map(canonical).collect())
            }
            other => other,
        }
    }
    let mut hasher = Sha256::new();
    hasher.update(method.as_str());
    hasher.update(b" ");
    hasher.update(path);
    hasher.update(b"\n");
    match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(v) => hasher.update(canonical(v).to_string()),
        Err(_) => hasher.update(body),
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn replay(sealer: &SecretBox, claim: &Claim, stored: StoredResponse) -> Response {
    let body = match sealer.open_bytes(&stored.body, &sealing_context(claim)) {
        Ok(body) => body,
        // Only a changed server key gets here: the outcome exists but cannot be shown again.
        Err(e) => {
            return ApiError::internal(format!("stored idempotent response: {e}")).into_response();
        }
    };
    let status = StatusCode::from_u16(stored.status).unwrap_or(StatusCode::OK);
    let mut response = (status, body).into_response();
    for (name, value) in stored.headers {
        if let (Ok(n), Ok(v)) = (
            header::HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            response.headers_mut().insert(n, v);
        }
    }
    response
        .headers_mut()
        .insert("idempotent-replayed", HeaderValue::from_static("true"));
    response
        .extensions_mut()
        .insert(crate::error::RenderedError);
    response
}

fn stored_headers(headers: &axum::http::HeaderMap) -> Vec<(String, String)> {
    REPLAYED_HEADERS
        .iter()
        .filter_map(|n| {
            let v = headers.get(n)?.to_str().ok()?;
            Some((n.as_str().to_owned(), v.to_owned()))
        })
        .collect()
}

/// The operations of the document, by route template: a request that matches none (a wrong
/// method on a known path answers 405) never touches an idempotency record.
#[derive(Clone, Debug, Default)]
pub struct KnownOperations(Arc<HashMap<String, Vec<Method>>>);

impl KnownOperations {
    pub fn of(doc: &serde_json::Value) -> Self {
        let mut known: HashMap<String, Vec<Method>> = HashMap::new();
        for (path, item) in doc["paths"].as_object().into_iter().flatten() {
            let methods = item.as_object().into_iter().flat_map(|o| o.keys());
            known.entry(path.clone()).or_default().extend(
                methods.filter_map(|m| Method::from_bytes(m.to_ascii_uppercase().as_bytes()).ok()),
            );
        }
        Self(Arc::new(known))
    }

    fn contains(&self, req: &Request) -> bool {
        req.extensions()
            .get::<MatchedPath>()
            .and_then(|p| self.0.get(p.as_str()))
            .is_some_and(|methods| methods.contains(req.method()))
    }
}

pub async fn layer(
    State((state, operations)): State<(AppState, KnownOperations)>,
    req: Request,
    next: Next,
) -> Response {
    if !matches!(*req.method(), Method::POST | Method::PATCH) || !operations.contains(&req) {
        return next.run(req).await;
    }
    let Some(raw) = req.headers().get("idempotency-key") else {
        return next.run(req).await;
    };
    let key = match parse_key(raw) {
        Ok(k) => k,
        Err(e) => return e.into_response(),
    };
    // Records belong to the token that made the request.
    let Some(owner) = req
        .extensions()
        .get::<Caller>()
        .and_then(|c| c.token_id)
        .map(|t| t.to_string())
    else {
        return next.run(req).await;
    };
    let (parts, body) = req.into_parts();
    let bytes = match axum::body::to_bytes(body, BODY_LIMIT).await {
        Ok(b) => b,
        Err(_) => {
            return ApiError::new(
                ErrorType::PayloadTooLarge,
                "The request body exceeds the 1 MiB limit.",
            )
            .into_response();
        }
    };
    let print = fingerprint(&parts.method, parts.uri.path(), &bytes);
    let request = Request::from_parts(parts, Body::from(bytes));
    // Work does not belong to the connection: once claimed, the request runs to its commit
    // (or rolls back and releases its key) in a task of its own, so a client that gives up
    // halfway (its timeout, a proxy, a dropped connection) leaves an answer for its retry to
    // replay, not a claim that looks in progress until it is abandoned.
    let claim = Claim {
        owner,
        key,
        token: format!("{:032x}", rand::random::<u128>()),
    };
    let work = crate::context::RequestContext::carried(claim_and_answer(
        state, claim, print, request, next,
    ))
    .instrument(tracing::Span::current());
    match tokio::spawn(work).await {
        Ok(response) => response,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(e) => ApiError::internal(e).into_response(),
    }
}

/// Claims the key, then answers: a replay, a mismatch, "in progress", or the handler's
/// response, stored or released (see [`settle`]).
async fn claim_and_answer(
    state: AppState,
    claim: Claim,
    print: String,
    mut req: Request,
    next: Next,
) -> Response {
    let now = state.clock.timestamp();
    let asked = claim.clone();
    let outcome = state
        .store
        .claim_idempotency_key(
            claim,
            &print,
            now,
            now.minus(WINDOW),
            now.minus(ABANDONED_AFTER),
        )
        .await;
    let claim = match outcome {
        Err(e) => return ApiError::from(e).into_response(),
        Ok(ClaimOutcome::Replay(stored)) => return replay(&state.responses, &asked, stored),
        Ok(ClaimOutcome::Mismatch) => {
            return ApiError::new(
                ErrorType::IdempotencyKeyReused,
                "This Idempotency-Key was used with a different request; use a new key.",
            )
            .with_param("Idempotency-Key")
            .into_response();
        }
        Ok(ClaimOutcome::InProgress) => {
            return ApiError::new(
                ErrorType::IdempotencyInProgress,
                "A request with this Idempotency-Key is still in progress.",
            )
            .with_header(header::RETRY_AFTER, "1")
            .into_response();
        }
        Ok(ClaimOutcome::Claimed(claim)) => claim,
    };
    let mut unsettled = Unsettled {
        state: state.clone(),
        claim: Some(claim.clone()),
    };
    let active = ActiveClaim {
        claim,
        sealer: state.responses.clone(),
    };
    req.extensions_mut().insert(active.clone());
    // The claim beats while the handler runs, in this task (no task spawned per request:
    // most requests end before the first beat).
    let handler = next.run(req);
    let beats = beat(state.clone(), active.claim.clone());
    tokio::pin!(handler, beats);
    let mut beating = true;
    let response = loop {
        tokio::select! {
            response = &mut handler => break response,
            () = &mut beats, if beating => beating = false,
        }
    };
    let response = settle(&state, &active, response).await;
    unsettled.claim = None;
    response
}

/// Beats `claim` every [`BEAT_EVERY`] until it is no longer this request's.
async fn beat(state: AppState, claim: Claim) {
    let mut every = tokio::time::interval_at(tokio::time::Instant::now() + BEAT_EVERY, BEAT_EVERY);
    loop {
        every.tick().await;
        match state
            .store
            .beat_idempotency(&claim, state.clock.timestamp())
            .await
        {
            Ok(true) => {}
            Ok(false) => return,
            Err(e) => tracing::warn!(error = %e, "could not beat an idempotency claim"),
        }
    }
}

/// A claim whose outcome is not settled yet. Dropped so (the handler panicked), it releases
/// the key, so that a retry runs again at once instead of waiting until the claim counts as
/// abandoned.
struct Unsettled {
    state: AppState,
    claim: Option<Claim>,
}

impl Drop for Unsettled {
    fn drop(&mut self) {
        let (Some(claim), Ok(runtime)) = (self.claim.take(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        let store = self.state.store.clone();
        runtime.spawn(async move {
            if let Err(e) = store.release_idempotency(&claim).await {
                tracing::warn!(error = %e, "could not release an idempotency key");
            }
        });
    }
}

/// Stores or releases the claim once the handler has answered.
async fn settle(state: &AppState, active: &ActiveClaim, response: Response) -> Response {
    let status = response.status();
    let keep = (status.is_success() || status.is_client_error())
        && !matches!(status.as_u16(), 401 | 403 | 429);
    if !keep {
        release(state, active).await;
        return response;
    }
    if response.extensions().get::<ResponseRecorded>().is_some() {
        return response;
    }
    let (parts, body) = response.into_parts();
    // An answer that cannot be read or sealed is a server error, and those release the key.
    let stored = match axum::body::to_bytes(body, usize::MAX).await {
        Ok(bytes) => active
            .record(status, &parts.headers, &bytes)
            .map(|stored| (stored, bytes)),
        Err(e) => Err(ApiError::internal(e)),
    };
    let (stored, bytes) = match stored {
        Ok(stored) => stored,
        Err(e) => {
            release(state, active).await;
            return e.into_response();
        }
    };
    if let Err(e) = state
        .store
        .complete_idempotency(&active.claim, &stored)
        .await
    {
        release(state, active).await;
        return ApiError::from(e).into_response();
    }
    Response::from_parts(parts, Body::from(bytes))
}

async fn release(state: &AppState, active: &ActiveClaim) {
    if let Err(e) = state.store.release_idempotency(&active.claim).await {
        tracing::warn!(error = %e, "could not release an idempotency key");
    }
}

/// A handler's handle on the request's idempotency claim (if the client sent a key).
#[derive(Clone)]
pub struct Idempotency(Option<ActiveClaim>);

impl<S: Send + Sync> FromRequestParts<S> for Idempotency {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Idempotency(parts.extensions.get::<ActiveClaim>().cloned()))
    }
}

/// Marks a response whose idempotency record is already written (in the transaction of its
/// side effect), so the layer does not store it again.
#[derive(Clone, Copy, Debug)]
struct ResponseRecorded;

/// A response recorded for the request's `Idempotency-Key` together with the write it
/// answers: the only way a handler tells the layer it has stored the response itself.
pub struct Recorded(Response);

impl IntoResponse for Recorded {
    fn into_response(self) -> Response {
        let mut response = self.0;
        response.extensions_mut().insert(ResponseRecorded);
        response
    }
}

/// What a write answers: status, optional `Location`, JSON body.
pub struct Answer<T> {
    status: StatusCode,
    location: Option<String>,
    body: T,
}

impl<T: Serialize> Answer<T> {
    pub fn ok(body: T) -> Self {
        Self::with_status(StatusCode::OK, body)
    }

    pub fn with_status(status: StatusCode, body: T) -> Self {
        Self {
            status,
            location: None,
            body,
        }
    }

    /// 201 with the new resource's `Location`.
    pub fn created(location: String, body: T) -> Self {
        Self {
            status: StatusCode::CREATED,
            location: Some(location),
            body,
        }
    }
}

impl Idempotency {
    /// Builds the JSON response and, when the request carries a key, records it in `tx` so it
    /// commits with the side effect.
    async fn respond<T: Serialize>(
        &self,
        tx: &mut Tx,
        answer: Answer<T>,
    ) -> Result<Recorded, ApiError> {
        let bytes = Bytes::from(serde_json::to_vec(&answer.body).map_err(ApiError::internal)?);
        let mut response = (answer.status, bytes.clone()).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        if let Some(loc) = answer.location.and_then(|l| HeaderValue::from_str(&l).ok()) {
            headers.insert(header::LOCATION, loc);
        }
        if let Some(active) = &self.0 {
            let stored = active.record(answer.status, response.headers(), &bytes)?;
            tx.complete_idempotency(&active.claim, &stored).await?;
        }
        Ok(Recorded(response))
    }
}

impl AppState {
    /// The write tail of every handler with a side effect: runs `work` in one transaction
    /// and records its answer there for the request's `Idempotency-Key`, so the change and
    /// its replayable response commit together (or neither does).
    pub async fn write<T, F>(&self, idem: &Idempotency, work: F) -> Result<Recorded, ApiError>
    where
        F: for<'t> FnOnce(&'t mut Tx) -> WriteFuture<'t, Answer<T>, ApiError> + Send + 'static,
        T: Serialize + Send + 'static,
    {
        let idem = idem.clone();
        self.store
            .write(move |tx| {
                Box::pin(async move {
                    let answer = work(tx).await?;
                    idem.respond(tx, answer).await
                })
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_ignores_key_order_and_whitespace_only() {
        let a = fingerprint(&Method::POST, "/v1/x", br#"{"a":1,"b":[{"d":2,"c":3}]}"#);
        let b = fingerprint(&Method::POST, "/v1/x", br#"{ "b":[{"c":3,"d":2}], "a":1 }"#);
        let c = fingerprint(&Method::POST, "/v1/x", br#"{"a":2,"b":[{"d":2,"c":3}]}"#);
        let d = fingerprint(&Method::POST, "/v1/y", br#"{"a":1,"b":[{"d":2,"c":3}]}"#);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }

    #[test]
    fn keys_are_visible_ascii_or_sf_strings() {
        let ok = |s: &str| parse_key(&HeaderValue::from_str(s).unwrap()).ok();
        assert_eq!(ok("abc-123").as_deref(), Some("abc-123"));
        assert_eq!(ok("\"quoted-key\"").as_deref(), Some("quoted-key"));
        assert_eq!(ok(""), None);
        assert_eq!(ok("has space"), None);
        assert_eq!(ok(&"k".repeat(256)), None);
        assert!(ok(&"k".repeat(255)).is_some());
    }
}
