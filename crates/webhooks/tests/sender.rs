//! The sender against real sockets on loopback: the address policy is applied at connect
//! time, to literal addresses and to what a host name resolves to.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use webhooks::{AddressPolicy, Attempt, AttemptOutcome, Sender, SigningSecret};

/// A listener that answers 200 to anything and counts connections.
async fn listener(addr: &str) -> Option<(u16, tokio::sync::mpsc::UnboundedReceiver<()>)> {
    let listener = TcpListener::bind(addr).await.ok()?;
    let port = listener.local_addr().ok()?.port();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let _ = tx.send(());
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = socket.read(&mut buf).await;
                let _ = socket
                    .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                    .await;
            });
        }
    });
    Some((port, rx))
}

async fn send(policy: AddressPolicy, url: &str) -> AttemptOutcome {
    exchange_with(policy, url, Duration::from_secs(2))
        .await
        .outcome
}

#[tokio::test]
async fn private_targets_are_refused_before_any_connection() {
    let (port, mut connections) = listener("127.0.0.1:0").await.expect("bind loopback");
    let v6 = listener("[::1]:0").await;
    let mut urls = vec![
        format!("http://127.0.0.1:{port}/"),
        format!("http://[::ffff:127.0.0.1]:{port}/"),
        format!("http://localhost:{port}/"),
    ];
    if let Some((v6_port, _)) = &v6 {
        urls.push(format!("http://[::1]:{v6_port}/"));
    } else {
        eprintln!("no IPv6 loopback here: the [::1] case is covered by the URL check only");
        urls.push(format!("http://[::1]:{port}/"));
    }
    for url in &urls {
        assert_eq!(
            send(AddressPolicy::default(), url).await,
            AttemptOutcome::Refused,
            "{url}"
        );
    }
    assert!(connections.try_recv().is_err(), "no connection was made");
    if let Some((_, mut v6_connections)) = v6 {
        assert!(v6_connections.try_recv().is_err());
    }
}

#[tokio::test]
async fn allowed_ranges_open_loopback_by_address_and_by_name() {
    let (port, mut connections) = listener("127.0.0.1:0").await.expect("bind loopback");
    let policy = AddressPolicy::from_allowed_list("127.0.0.0/8").expect("policy");
    for url in [
        format!("http://127.0.0.1:{port}/"),
        format!("http://[::ffff:127.0.0.1]:{port}/"),
        format!("http://localhost:{port}/"),
    ] {
        assert_eq!(
            send(policy.clone(), &url).await,
            AttemptOutcome::Delivered { status: 200 },
            "{url}"
        );
        assert!(connections.recv().await.is_some());
    }
}

#[tokio::test]
async fn ipv6_forms_of_a_refused_ipv4_are_refused_at_connect_time_even_with_loopback_allowed() {
    let (port, mut connections) = listener("127.0.0.1:0").await.expect("bind loopback");
    // Loopback is allowed by IPv4 range: only the mapped form (the same address) may use it.
    let policy = AddressPolicy::from_allowed_list("127.0.0.0/8").expect("policy");
    for url in [
        format!("http://[::127.0.0.1]:{port}/"),
        format!("http://[::ffff:0:127.0.0.1]:{port}/"),
        format!("http://[fec0::1]:{port}/"),
        format!("http://[2001::7f00:1]:{port}/"),
        format!("http://[2606:4700::5efe:10.0.0.1]:{port}/"),
    ] {
        assert_eq!(
            send(policy.clone(), &url).await,
            AttemptOutcome::Refused,
            "{url}"
        );
    }
    assert!(connections.try_recv().is_err(), "no connection was made");
}

/// A listener that answers every connection with `response` (raw HTTP/1.1), or never answers
/// when it is `None`.
async fn answering(response: Option<Vec<u8>>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let response = response.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = socket.read(&mut buf).await;
                match response {
                    Some(bytes) => {
                        let _ = socket.write_all(&bytes).await;
                    }
                    None => tokio::time::sleep(Duration::from_secs(30)).await,
                }
            });
        }
    });
    port
}

async fn exchange(url: &str, timeout: Duration) -> webhooks::Exchange {
    let policy = AddressPolicy::from_allowed_list("127.0.0.0/8").expect("policy");
    exchange_with(policy, url, timeout).await
}

async fn exchange_with(policy: AddressPolicy, url: &str, timeout: Duration) -> webhooks::Exchange {
    let sender = Sender::new(policy, timeout).expect("client");
    let secret = SigningSecret::generate();
    sender
        .send(&Attempt {
            url,
            event_id: "evt_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f",
            timestamp: 1_700_000_000,
            body: b"{}",
            secrets: std::slice::from_ref(&secret),
        })
        .await
}

#[tokio::test]
async fn an_answer_is_reported_with_its_headers_and_the_start_of_its_body() {
    let body = "x".repeat(5000);
    let raw = format!(
        "HTTP/1.1 500 Internal Server Error\r\ncontent-length: {}\r\nx-trace: a\r\nx-trace: b\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let port = answering(Some(raw.into_bytes())).await;
    let got = exchange(&format!("http://127.0.0.1:{port}/"), Duration::from_secs(2)).await;
    assert_eq!(
        got.outcome,
        AttemptOutcome::Rejected {
            status: 500,
            retry_after: None
        }
    );
    assert_eq!(got.outcome.error(), None);
    let response = got.response.expect("a response");
    assert_eq!(response.status, 500);
    assert_eq!(response.body.len(), webhooks::RESPONSE_BODY_CAP);
    assert!(response.body_truncated);
    assert_eq!(
        response.headers.get("x-trace").map(String::as_str),
        Some("a, b")
    );
    let sent = &got.request_headers;
    assert_eq!(sent["webhook-id"], "evt_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f");
    assert_eq!(sent["webhook-timestamp"], "1700000000");
    assert!(sent["webhook-signature"].starts_with("v1,"));
    assert_eq!(sent["content-type"], "application/json");
    assert!(sent["user-agent"].starts_with("content-pipeline-webhooks/"));
    assert!(!sent.values().any(|v| v.contains("whsec_")));
}

#[tokio::test]
async fn failures_without_an_answer_are_classified() {
    // A port nobody listens on: the connection is refused.
    let closed = {
        let l = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        l.local_addr().expect("addr").port()
    };
    let got = exchange(
        &format!("http://127.0.0.1:{closed}/"),
        Duration::from_secs(2),
    )
    .await;
    assert_eq!(got.outcome.error(), Some(domain::AttemptError::Connection));
    assert!(got.response.is_none());
    assert!(got.error_message().is_some_and(|m| !m.is_empty()));

    // TLS to a server that speaks plain HTTP: the handshake fails.
    let plain = answering(Some(
        b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n".to_vec(),
    ))
    .await;
    let got = exchange(
        &format!("https://127.0.0.1:{plain}/"),
        Duration::from_secs(2),
    )
    .await;
    assert_eq!(
        got.outcome.error(),
        Some(domain::AttemptError::Tls),
        "{got:?}"
    );

    // A server that never answers: the attempt times out.
    let silent = answering(None).await;
    let got = exchange(
        &format!("http://127.0.0.1:{silent}/"),
        Duration::from_millis(300),
    )
    .await;
    assert_eq!(got.outcome, AttemptOutcome::TimedOut);
    assert_eq!(got.outcome.error(), Some(domain::AttemptError::Timeout));

    // A literal private address outside the allowed ranges: refused before connecting.
    let got = exchange("http://10.0.0.1/", Duration::from_secs(2)).await;
    assert_eq!(
        got.outcome.error(),
        Some(domain::AttemptError::RefusedAddress)
    );
    assert!(got.request_headers.contains_key("webhook-signature"));
}

/// The commit-status path (`Sender::post`, used for forge APIs) follows the same policy: a
/// host name that resolves to a refused address is refused at connect time, and nothing
/// reaches it; with the range allowed, the same URL is posted to.
#[tokio::test]
async fn a_status_post_to_a_host_name_that_resolves_to_a_refused_address_is_refused() {
    let (port, mut connections) = listener("127.0.0.1:0").await.expect("bind loopback");
    let url = format!("http://localhost:{port}/api/v3/repos/acme/numbers/statuses/abc");
    let post = |policy: AddressPolicy| {
        let url = url.clone();
        async move {
            let sender = Sender::new(policy, Duration::from_secs(2)).expect("sender");
            let headers = [("content-type".to_owned(), "application/json".to_owned())];
            sender
                .post(
                    &url,
                    headers.into_iter().collect(),
                    b"{\"state\":\"pending\"}",
                )
                .await
                .outcome
        }
    };
    assert_eq!(
        post(AddressPolicy::default()).await,
        AttemptOutcome::Refused
    );
    assert!(connections.try_recv().is_err(), "no connection was made");
    let allowed = AddressPolicy::from_allowed_list("127.0.0.0/8").expect("policy");
    assert_eq!(
        post(allowed).await,
        AttemptOutcome::Delivered { status: 200 }
    );
    assert!(connections.recv().await.is_some());
}
