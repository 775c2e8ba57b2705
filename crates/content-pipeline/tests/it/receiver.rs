//! A real webhook receiver on loopback that records every request and answers as told (the
//! answer can change mid-test), and an independent Standard Webhooks verifier: the Python
//! reference package `standardwebhooks`, run as a subprocess.

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use tokio::sync::Notify;

/// One request as the receiver saw it.
#[derive(Clone, Debug)]
pub struct Received {
    pub headers: HeaderMap,
    pub body: Bytes,
    pub at: Instant,
}

impl Received {
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_else(|| panic!("missing header {name}"))
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("JSON body")
    }
}

/// How the receiver answers.
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    pub delay: Duration,
    pub headers: Vec<(&'static str, String)>,
    pub body: String,
}

impl Reply {
    pub fn status(status: u16) -> Self {
        Self {
            status,
            delay: Duration::ZERO,
            headers: Vec::new(),
            body: String::new(),
        }
    }

    pub fn body(mut self, body: impl Into<String>) -> Self {
        self.body = body.into();
        self
    }

    pub fn header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    pub fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

struct Inner {
    received: Mutex<Vec<Received>>,
    reply: Mutex<Reply>,
    arrived: Notify,
}

#[derive(Clone)]
pub struct Receiver {
    pub port: u16,
    /// `http://127.0.0.1:<port>/hook`.
    pub url: String,
    inner: Arc<Inner>,
}

impl Receiver {
    pub async fn start() -> Receiver {
        Self::start_with(Reply::status(200)).await
    }

    pub async fn start_with(reply: Reply) -> Receiver {
        let inner = Arc::new(Inner {
            received: Mutex::new(Vec::new()),
            reply: Mutex::new(reply),
            arrived: Notify::new(),
        });
        let state = inner.clone();
        let router = axum::Router::new().fallback(move |headers: HeaderMap, body: Bytes| {
            let state = state.clone();
            async move { answer(state, headers, body).await }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind receiver");
        let port = listener.local_addr().expect("addr").port();
        tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Receiver {
            port,
            url: format!("http://127.0.0.1:{port}/hook"),
            inner,
        }
    }

    /// Changes the answer from now on.
    pub fn reply(&self, reply: Reply) {
        *self.inner.reply.lock().expect("lock") = reply;
    }

    pub fn received(&self) -> Vec<Received> {
        self.inner.received.lock().expect("lock").clone()
    }

    pub fn count(&self) -> usize {
        self.inner.received.lock().expect("lock").len()
    }

    /// Waits until at least `n` requests arrived; panics after `within`.
    pub async fn wait_for(&self, n: usize, within: Duration) -> Vec<Received> {
        let deadline = Instant::now() + within;
        loop {
            let notified = self.inner.arrived.notified();
            let got = self.received();
            if got.len() >= n {
                return got;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "receiver got {} of {n} requests within {within:?}",
                got.len()
            );
            let _ = tokio::time::timeout(left, notified).await;
        }
    }
}

async fn answer(state: Arc<Inner>, headers: HeaderMap, body: Bytes) -> Response {
    state.received.lock().expect("lock").push(Received {
        headers,
        body,
        at: Instant::now(),
    });
    state.arrived.notify_waiters();
    let reply = state.reply.lock().expect("lock").clone();
    if !reply.delay.is_zero() {
        tokio::time::sleep(reply.delay).await;
    }
    let mut response = (
        StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        reply.body,
    )
        .into_response();
    for (name, value) in reply.headers {
        if let (Ok(n), Ok(v)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            response.headers_mut().insert(n, v);
        }
    }
    response
}

/// What the independent verifier said.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    Valid,
    Invalid(String),
    /// Python or the package is missing (only allowed when `CI` is unset).
    Skipped,
}

const VERIFY_PY: &str = r#"
import sys
try:
    from standardwebhooks import Webhook
except ImportError:
    sys.exit(3)
secret, msg_id, timestamp, signature = sys.argv[1:5]
body = sys.stdin.buffer.read()
try:
    Webhook(secret).verify(body, {"webhook-id": msg_id, "webhook-timestamp": timestamp, "webhook-signature": signature})
except Exception as e:
    print(type(e).__name__, e)
    sys.exit(1)
"#;

/// Verifies `request` with the Python `standardwebhooks` package (pip install
/// standardwebhooks==1.1.0), holding `secret`; `signature` overrides the header when given.
pub fn verify(secret: &str, request: &Received, signature: Option<&str>) -> Verdict {
    let spawned = Command::new("python3")
        .args(["-c", VERIFY_PY, secret])
        .arg(request.header("webhook-id"))
        .arg(request.header("webhook-timestamp"))
        .arg(signature.unwrap_or_else(|| request.header("webhook-signature")))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => return unavailable(&format!("python3 cannot run: {e}")),
    };
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&request.body)
        .expect("write body");
    let out = child.wait_with_output().expect("python3 output");
    match out.status.code() {
        Some(0) => Verdict::Valid,
        Some(3) => unavailable("the Python package standardwebhooks is not installed"),
        _ => Verdict::Invalid(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )),
    }
}

fn unavailable(why: &str) -> Verdict {
    crate::helpers::tool_missing(
        "CONTENT_PIPELINE_REQUIRE_VERIFIER",
        &format!("{why} (pip install standardwebhooks==1.1.0)"),
    );
    Verdict::Skipped
}

/// Asserts the verifier accepts (or was skipped).
pub fn assert_verifies(secret: &str, request: &Received) {
    let verdict = verify(secret, request, None);
    assert!(
        matches!(verdict, Verdict::Valid | Verdict::Skipped),
        "standardwebhooks rejected the request: {verdict:?}"
    );
}

/// Asserts the verifier refuses (unless skipped).
pub fn assert_rejected(secret: &str, request: &Received) {
    let verdict = verify(secret, request, None);
    assert!(
        !matches!(verdict, Verdict::Valid),
        "standardwebhooks accepted a request it should not have"
    );
}
