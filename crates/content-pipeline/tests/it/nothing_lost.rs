//! "Nothing lost": the real binary delivers a few thousand events, is killed with SIGKILL in
//! the middle, and a restarted process finishes the job. Every event reaches its receiver at
//! least once and every delivery ends `delivered`.

use std::collections::HashSet;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use domain::{Clock, EventType};
use serde_json::json;
use store::{NewWebhook, Store};
use webhooks::{SECRETS_KEY_PURPOSE, SecretBox, SigningSecret, derive_key};

use crate::receiver::{Receiver, Reply};

const EVENTS: usize = 1500;

fn start(command: &str, dir: &std::path::Path, db: &str, key: &str, log: &str) -> Child {
    let log = std::fs::File::create(dir.join(log)).expect("log file");
    Command::new(env!("CARGO_BIN_EXE_content-pipeline"))
        .arg(command)
        .env("CONTENT_PIPELINE_DATABASE_URL", db)
        .env("CONTENT_PIPELINE_BIND", "127.0.0.1:0")
        .env("CONTENT_PIPELINE_SECRET_KEY", key)
        .env("CONTENT_PIPELINE_KEY_FILE", dir.join("key"))
        .env(
            "CONTENT_PIPELINE_WEBHOOK_ALLOWED_CIDRS",
            "127.0.0.0/8,::1/128",
        )
        .env(
            "CONTENT_PIPELINE_WEBHOOK_RETRY_SCHEDULE",
            "0s,200ms,200ms,200ms,200ms",
        )
        .env("CONTENT_PIPELINE_WEBHOOK_TIMEOUT", "1s")
        .env("CONTENT_PIPELINE_WEBHOOK_CONCURRENCY", "16")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("start content-pipeline")
}

async fn count(pool: &sqlx::SqlitePool, status: &'static str) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM deliveries WHERE status = $1")
        .bind(status)
        .fetch_one(pool)
        .await
        .expect("count")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_event_survives_a_sigkill_in_the_middle_of_delivery() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = format!("sqlite://{}", dir.path().join("nothing-lost.db").display());
    let key_text = SecretBox::generate_key_text();
    let key: [u8; 32] = base64::engine::general_purpose::STANDARD
        .decode(&key_text)
        .expect("key")
        .try_into()
        .expect("32 bytes");
    let secrets = SecretBox::new(&derive_key(&key, SECRETS_KEY_PURPOSE));
    let receivers = [
        Receiver::start_with(Reply::status(200).after(Duration::from_millis(5))).await,
        Receiver::start_with(Reply::status(200).after(Duration::from_millis(5))).await,
    ];

    let store = Store::connect(&db).await.expect("store");
    store.migrate().await.expect("migrate");
    let clock = Clock::system();
    let mut tx = store.begin().await.expect("tx");
    let ws = tx
        .insert_workspace("nothing lost", None, clock.timestamp())
        .await
        .expect("workspace");
    for r in &receivers {
        tx.insert_webhook(
            &NewWebhook {
                workspace_id: ws.id,
                url: r.url.clone(),
                events: vec![EventType::RunCompleted],
                description: None,
                active: true,
                secret: secrets.seal(&SigningSecret::generate()),
            },
            clock.timestamp(),
        )
        .await
        .expect("webhook");
    }
    tx.commit().await.expect("commit");
    let mut events = HashSet::new();
    for chunk in 0..EVENTS / 100 {
        let mut tx = store.begin().await.expect("tx");
        for i in 0..100 {
            let e = tx
                .record_event(
                    ws.id,
                    EventType::RunCompleted,
                    json!({"n": chunk * 100 + i}),
                    clock.timestamp(),
                )
                .await
                .expect("event");
            events.insert(e.id.to_string());
        }
        tx.commit().await.expect("commit");
    }
    store.close().await;
    let total = EVENTS * receivers.len();

    let mut serve = start("serve", dir.path(), &db, &key_text, "serve.log");
    let started = Instant::now();
    while receivers.iter().map(Receiver::count).sum::<usize>() < total / 4 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "deliveries did not start; see serve.log"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    serve.kill().expect("SIGKILL");
    serve.wait().expect("reap");
    let at_kill: usize = receivers.iter().map(Receiver::count).sum();

    let pool = sqlx::SqlitePool::connect(&db).await.expect("pool");
    let unfinished = count(&pool, "pending").await + count(&pool, "delivering").await;
    assert!(
        at_kill < total && unfinished > 0,
        "the kill came too late to interrupt delivery ({at_kill} of {total} received)"
    );
    eprintln!(
        "killed after {at_kill} of {total} requests; {} deliveries were in flight",
        count(&pool, "delivering").await
    );

    let mut worker = start("worker", dir.path(), &db, &key_text, "worker.log");
    let restarted = Instant::now();
    while count(&pool, "delivered").await < total as i64 {
        assert!(
            restarted.elapsed() < Duration::from_secs(120),
            "deliveries did not finish after the restart; see worker.log"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    worker.kill().expect("stop worker");
    worker.wait().expect("reap");

    let all: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM deliveries")
        .fetch_one(&pool)
        .await
        .expect("count");
    assert_eq!(all, total as i64);
    assert_eq!(count(&pool, "delivered").await, total as i64);
    let mut duplicates = 0;
    for r in &receivers {
        let got = r.received();
        let ids: HashSet<String> = got
            .iter()
            .map(|req| req.header("webhook-id").to_owned())
            .collect();
        assert_eq!(ids, events, "every event reached {} at least once", r.url);
        duplicates += got.len() - ids.len();
    }
    eprintln!("{duplicates} requests were repeats of attempts cut off by the kill");
}
