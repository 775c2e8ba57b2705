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
    let sender = Sender::new(policy, Duration::from_secs(2)).expect("client");
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
