//! "Nothing lost": the real binary delivers a few thousand events, is killed with SIGKILL in
//! the middle, and a restarted process finishes the job. Every event reaches its receiver at
//! least once and every delivery ends `delivered`.

use std::collections::HashSet;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use base64::Engine as _;
use domain::{Clock, EventType};
use serde_json::json;
use store::Store;
use testkit::{TestDatabase, eventually};
use webhooks::{SECRETS_KEY_PURPOSE, SecretBox, derive_key};

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

async fn count(db: &TestDatabase, status: &str) -> i64 {
    db.count(&format!(
        "SELECT COUNT(*) FROM deliveries WHERE status = '{status}'"
    ))
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_event_survives_a_sigkill_in_the_middle_of_delivery() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = TestDatabase::sqlite();
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

    let store = Store::connect(db.url()).await.expect("store");
    store.migrate().await.expect("migrate");
    let clock = Clock::system();
    let ws = testkit::subscribed_workspace(
        &store,
        "nothing lost",
        receivers.iter().map(|r| r.url.clone()),
        &[EventType::RunCompleted],
        &secrets,
        clock.timestamp(),
    )
    .await;
    let mut events = HashSet::new();
    for chunk in 0..EVENTS / 100 {
        let mut tx = store.begin().await.expect("tx");
        for i in 0..100 {
            let e = tx
                .record_event(
                    ws,
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

    let mut serve = start("serve", dir.path(), db.url(), &key_text, "serve.log");
    eventually(
        Duration::from_secs(60),
        "deliveries started (see serve.log)",
        || async {
            (receivers.iter().map(Receiver::count).sum::<usize>() >= total / 4).then_some(())
        },
    )
    .await;
    serve.kill().expect("SIGKILL");
    serve.wait().expect("reap");
    let at_kill: usize = receivers.iter().map(Receiver::count).sum();

    let unfinished = count(&db, "pending").await + count(&db, "delivering").await;
    assert!(
        at_kill < total && unfinished > 0,
        "the kill came too late to interrupt delivery ({at_kill} of {total} received)"
    );
    eprintln!(
        "killed after {at_kill} of {total} requests; {} deliveries were in flight",
        count(&db, "delivering").await
    );

    let mut worker = start("worker", dir.path(), db.url(), &key_text, "worker.log");
    eventually(
        Duration::from_secs(120),
        "deliveries finished after the restart (see worker.log)",
        || async { (count(&db, "delivered").await >= total as i64).then_some(()) },
    )
    .await;
    worker.kill().expect("stop worker");
    worker.wait().expect("reap");

    let all = db.count("SELECT COUNT(*) FROM deliveries").await;
    assert_eq!(all, total as i64);
    assert_eq!(count(&db, "delivered").await, total as i64);
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
