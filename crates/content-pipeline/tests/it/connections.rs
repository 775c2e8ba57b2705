//! Connection bounds (issue 8, point 6), black-box on raw sockets: slow and idle clients are cut,
//! the connection cap holds without starving a well-behaved client for long, and an oversized
//! request head is refused while the server lives on.

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::app;
use crate::helpers::{Builder, TestApp};

fn limits(header_secs: u64, idle_secs: u64, max_connections: usize) -> Builder {
    TestApp::builder()
        .http_timeouts(
            Duration::from_secs(header_secs),
            Duration::from_secs(idle_secs),
        )
        .http_max_connections(max_connections)
}

async fn connect(app: &TestApp) -> TcpStream {
    let address = app.base.trim_start_matches("http://");
    TcpStream::connect(address).await.expect("connect")
}

/// Sends a keep-alive `GET /healthz` on `stream`; returns what the first read of the answer got.
async fn healthz_on(stream: &mut TcpStream) -> Vec<u8> {
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        .await
        .expect("write");
    let mut buf = [0u8; 4096];
    let n = stream.read(&mut buf).await.expect("response");
    buf[..n].to_vec()
}

/// Reads until the server closes the connection (end of stream or reset) and returns what it
/// sent; `None` when it is still open after `patience`.
async fn until_closed(stream: &mut TcpStream, patience: Duration) -> Option<Vec<u8>> {
    let mut received = Vec::new();
    let mut buf = [0u8; 4096];
    tokio::time::timeout(patience, async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => received.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await
    .ok()
    .map(|()| received)
}

/// Sends one header line every 200 ms (each byte well inside any per-read timeout, the head
/// never complete) until the server closes the connection; false if it is still open after 10 s.
async fn drip_until_closed(stream: TcpStream) -> bool {
    let (mut reader, mut writer) = stream.into_split();
    let drip = tokio::spawn(async move {
        for i in 0..100 {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if writer
                .write_all(format!("X-Drip-{i}: x\r\n").as_bytes())
                .await
                .is_err()
            {
                return;
            }
        }
    });
    let mut buf = [0u8; 1024];
    let closed = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match reader.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await;
    drip.abort();
    closed.is_ok()
}

/// A client that connects anew for every request, as a health checker does.
fn fresh_client() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .expect("client")
}

async fn healthz_within(app: &TestApp, patience: Duration) -> bool {
    fresh_client()
        .get(app.url("/healthz"))
        .timeout(patience)
        .send()
        .await
        .is_ok_and(|r| r.status() == 200)
}

#[tokio::test]
async fn a_client_sending_its_headers_slowly_is_cut_after_the_header_timeout() {
    let app = app!(limits(1, 30, 100));
    let mut stream = connect(&app).await;
    let started = Instant::now();
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: test\r\n")
        .await
        .expect("write");
    let closed = drip_until_closed(stream).await;
    let elapsed = started.elapsed();
    assert!(closed, "the slow client was still connected after 10 s");
    assert!(
        elapsed >= Duration::from_millis(900) && elapsed < Duration::from_secs(5),
        "closed after {elapsed:?}, expected about the 1 s header timeout"
    );
    assert!(healthz_within(&app, Duration::from_secs(5)).await);
}

/// The watchdog is not woken by each request (that would cost every request a task switch):
/// it looks again at least once per header timeout, so a head that starts trickling on an idle
/// keep-alive connection is cut by the header timeout, not after the much longer idle one.
#[tokio::test]
async fn a_slow_second_request_head_is_cut_after_the_header_timeout_not_the_idle_one() {
    let app = app!(limits(1, 30, 100));
    let mut stream = connect(&app).await;
    let first = healthz_on(&mut stream).await;
    assert!(first.starts_with(b"HTTP/1.1 200"), "{first:?}");
    // Longer than the header timeout: the watchdog has seen the connection idle.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let started = Instant::now();
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\n")
        .await
        .expect("write");
    let closed = drip_until_closed(stream).await;
    let elapsed = started.elapsed();
    assert!(closed, "the slow head was still open after 10 s");
    assert!(
        elapsed >= Duration::from_millis(900) && elapsed < Duration::from_secs(3),
        "closed {elapsed:?} after the second head began, expected about the 1 s header timeout"
    );
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_after_the_idle_timeout() {
    let app = app!(limits(30, 1, 100));
    let mut stream = connect(&app).await;
    let answer = healthz_on(&mut stream).await;
    let answered = Instant::now();
    assert!(
        answer.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&answer)
    );
    let rest = until_closed(&mut stream, Duration::from_secs(10)).await;
    let idle = answered.elapsed();
    assert!(
        rest.is_some(),
        "the idle connection was still open after 10 s"
    );
    assert!(
        idle >= Duration::from_millis(900) && idle < Duration::from_secs(5),
        "closed after {idle:?} idle, expected about the 1 s idle timeout (the header timeout is 30 s)"
    );
}

#[tokio::test]
async fn with_the_cap_full_of_idle_connections_healthz_waits_then_answers_within_the_timeouts() {
    let app = app!(limits(2, 2, 10));
    let mut held = Vec::new();
    // Half of the slots to connections that never send anything, half to keep-alive ones
    // that made one request and went quiet.
    for _ in 0..5 {
        held.push(connect(&app).await);
    }
    for _ in 0..5 {
        let mut stream = connect(&app).await;
        assert!(healthz_on(&mut stream).await.starts_with(b"HTTP/1.1 200"));
        held.push(stream);
    }
    let full = Instant::now();
    assert!(
        !healthz_within(&app, Duration::from_millis(300)).await,
        "a connection past the cap was served at once"
    );
    assert!(
        healthz_within(&app, Duration::from_secs(10)).await,
        "healthz never answered"
    );
    let waited = full.elapsed();
    assert!(
        waited < Duration::from_secs(5),
        "healthz answered {waited:?} after the cap filled; the idle ones time out after 2 s"
    );
}

#[tokio::test]
async fn five_hundred_idle_connections_neither_slow_healthz_nor_stay_open() {
    let app = app!(limits(3, 3, 1000));
    let mut idle = Vec::new();
    for _ in 0..500 {
        idle.push(connect(&app).await);
    }
    let opened = Instant::now();
    let client = fresh_client();
    let mut timings = Vec::new();
    for _ in 0..20 {
        let started = Instant::now();
        let res = client
            .get(app.url("/healthz"))
            .send()
            .await
            .expect("healthz");
        assert_eq!(res.status(), 200);
        timings.push(started.elapsed());
    }
    timings.sort();
    let median = timings[timings.len() / 2];
    assert!(
        median < Duration::from_millis(100),
        "healthz took {median:?} (median of {timings:?}) with 500 idle connections open"
    );
    let closed = futures_util::future::join_all(
        idle.iter_mut()
            .map(|s| until_closed(s, Duration::from_secs(10))),
    )
    .await;
    let still_open = closed.iter().filter(|c| c.is_none()).count();
    assert_eq!(
        still_open, 0,
        "{still_open} idle connections were still open 10 s after the 3 s header timeout"
    );
    assert!(opened.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn an_oversized_request_head_is_refused_and_the_server_lives_on() {
    let app = app!(TestApp::builder().http_max_header_bytes(16 * 1024));
    let mut stream = connect(&app).await;
    let big = "a".repeat(32 * 1024);
    let request = format!("GET /healthz HTTP/1.1\r\nHost: test\r\nX-Big: {big}\r\n\r\n");
    // The server may refuse before reading it all, so a failed write is an acceptable outcome.
    let _ = stream.write_all(request.as_bytes()).await;
    let answer = until_closed(&mut stream, Duration::from_secs(10))
        .await
        .expect("the connection was closed after the refusal");
    let text = String::from_utf8_lossy(&answer);
    assert!(
        answer.is_empty() || text.starts_with("HTTP/1.1 431"),
        "expected 431 or a closed connection, got: {}",
        text.chars().take(200).collect::<String>()
    );
    let within = format!(
        "GET /healthz HTTP/1.1\r\nHost: test\r\nX-Fits: {}\r\nConnection: close\r\n\r\n",
        "a".repeat(8 * 1024)
    );
    let mut stream = connect(&app).await;
    stream.write_all(within.as_bytes()).await.expect("write");
    let answer = until_closed(&mut stream, Duration::from_secs(10))
        .await
        .expect("closed");
    assert!(
        answer.starts_with(b"HTTP/1.1 200"),
        "a head under the cap is served"
    );
    assert!(healthz_within(&app, Duration::from_secs(5)).await);
}

#[tokio::test]
async fn h2c_with_prior_knowledge_is_served() {
    let app = app!();
    let stream = connect(&app).await;
    let (mut sender, connection) = hyper::client::conn::http2::handshake(
        hyper_util::rt::TokioExecutor::new(),
        hyper_util::rt::TokioIo::new(stream),
    )
    .await
    .expect("h2 handshake");
    tokio::spawn(connection);
    let request = hyper::Request::get(app.url("/healthz"))
        .body(http_body_util::Empty::<hyper::body::Bytes>::new())
        .expect("request");
    let response = tokio::time::timeout(Duration::from_secs(5), sender.send_request(request))
        .await
        .expect("answered in time")
        .expect("response");
    assert_eq!(response.status(), 200);
    assert_eq!(response.version(), hyper::Version::HTTP_2);
}

#[tokio::test]
async fn a_stopping_server_closes_connections_waiting_for_a_head_at_once() {
    if testkit::selected_engine() != store::Engine::Sqlite {
        return;
    }
    let mut app =
        app!(TestApp::builder().http_timeouts(Duration::from_secs(30), Duration::from_secs(30)));
    let _silent = connect(&app).await;
    let mut half = connect(&app).await;
    half.write_all(b"GET /healthz HTTP/1.1\r\nHost: test\r\n")
        .await
        .expect("write");
    let mut idle = connect(&app).await;
    assert!(healthz_on(&mut idle).await.starts_with(b"HTTP/1.1 200"));
    tokio::time::sleep(Duration::from_millis(200)).await;

    let stopping = Instant::now();
    let ended = tokio::time::timeout(Duration::from_secs(10), app.stop()).await;
    assert!(
        ended.is_ok(),
        "the server still waited for its quiet connections 10 s after being told to stop"
    );
    assert!(stopping.elapsed() < Duration::from_secs(5));
}
