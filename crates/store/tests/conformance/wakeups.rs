//! Wake-ups: committed work wakes the workers of its queue, in this process on both engines
//! and on every other node through `NOTIFY` on PostgreSQL; rolled-back work wakes nobody; and
//! an idle worker learns when the next delivery or lease falls due.

use std::time::Duration;

use domain::{EventType, LogLevel, LogStage, RunStatus, Tier};
use serde_json::json;
use store::{Engine, Queue, RunEnding, Store, Wakeup};

use super::{Db, at, hook, insert_hook, new_run, open, record, trigger, workspace};

conformance!(
    committed_work_wakes_its_queue_here_and_on_other_nodes,
    the_next_due_delivery_and_lease_are_known,
    a_store_listens_once_it_needs_to,
    warming_up_opens_every_connection_of_the_pools,
);

const QUIET: Duration = Duration::from_millis(150);
const WOKEN: Duration = Duration::from_secs(2);

async fn quiet(w: &mut Wakeup, what: &str) {
    assert!(
        tokio::time::timeout(QUIET, w.woken()).await.is_err(),
        "no wake-up expected: {what}"
    );
}

async fn woken(w: &mut Wakeup, what: &str) {
    tokio::time::timeout(WOKEN, w.woken())
        .await
        .unwrap_or_else(|_| panic!("not woken: {what}"));
    // On PostgreSQL the committing node hears its own NOTIFY too, a moment after its
    // in-process wake-up: let that echo pass before the next step.
    tokio::time::sleep(Duration::from_millis(100)).await;
    w.arm();
}

/// This store's wake-ups, and those of a second node on the same database (PostgreSQL only:
/// a second SQLite process is left to its safety poll).
struct Waiters {
    here: Wakeup,
    there: Option<Wakeup>,
}

impl Waiters {
    fn new(here: &Store, there: Option<&Store>, queue: Queue) -> Self {
        let mut w = Self {
            here: here.wakeup(queue),
            there: there.map(|s| s.wakeup(queue)),
        };
        w.here.arm();
        if let Some(t) = w.there.as_mut() {
            t.arm();
        }
        w
    }

    async fn woken(&mut self, what: &str) {
        woken(&mut self.here, what).await;
        if let Some(t) = self.there.as_mut() {
            woken(t, &format!("{what} (on the other node)")).await;
        }
    }

    async fn quiet(&mut self, what: &str) {
        quiet(&mut self.here, what).await;
        if let Some(t) = self.there.as_mut() {
            quiet(t, &format!("{what} (on the other node)")).await;
        }
    }
}

async fn committed_work_wakes_its_queue_here_and_on_other_nodes(store: Db) {
    let other = match store.engine() {
        Engine::Postgres => Some(open(store.db.clone()).await),
        Engine::Sqlite => None,
    };
    let other = other.as_ref().map(|o| &o.store);
    let ws = workspace(&store, "A", at(1)).await;
    insert_hook(
        &store,
        &hook(ws, "https://a.example/h", &[EventType::RunCompleted], true),
        at(1),
    )
    .await
    .expect("hook");

    // Deliveries: an event with a subscriber, once committed; not a rolled-back one.
    let mut deliveries = Waiters::new(&store, other, Queue::Deliveries);
    let mut runs = Waiters::new(&store, other, Queue::Runs);
    let mut tx = store.begin().await.expect("begin");
    tx.record_event(ws, EventType::RunCompleted, json!({}), at(2))
        .await
        .expect("record");
    deliveries.quiet("before the commit").await;
    tx.commit().await.expect("commit");
    deliveries.woken("a committed event").await;
    let mut tx = store.begin().await.expect("begin");
    tx.record_event(ws, EventType::RunCompleted, json!({}), at(3))
        .await
        .expect("record");
    drop(tx);
    deliveries.quiet("a rolled-back event").await;
    runs.quiet("deliveries are not runs").await;

    // Runs: a queued run, a claim that ends in a hand-back, a finished run, a drift check.
    let run = trigger(&store, new_run(ws, "f", Tier::Standard, false), at(4))
        .await
        .expect("trigger")
        .run()
        .id;
    runs.woken("a queued run").await;
    let joined = trigger(&store, new_run(ws, "f", Tier::Priority, false), at(4))
        .await
        .expect("trigger again");
    assert_eq!(joined.run().id, run, "joins the queued run");
    runs.quiet("a trigger that joins the queued run adds no work")
        .await;
    let claimed = store
        .claim_run("w1", at(600), at(5), 3)
        .await
        .expect("claim")
        .expect("claimed");
    assert_eq!(claimed.id, run);
    runs.quiet("a claim queues nothing").await;
    assert!(
        store
            .hand_back_run(run, "w1", at(6))
            .await
            .expect("hand back")
    );
    runs.woken("a run handed back").await;
    store
        .claim_run("w2", at(600), at(7), 3)
        .await
        .expect("claim")
        .expect("claimed again");
    runs.quiet("a claim queues nothing").await;
    let mut tx = store.begin().await.expect("begin");
    let ending = RunEnding {
        status: RunStatus::Succeeded,
        source_commit: None,
        artifacts: Vec::new(),
        error: None,
    };
    tx.finish_run(run, Some("w2"), &ending, at(8))
        .await
        .expect("finish")
        .expect("finished");
    tx.commit().await.expect("commit");
    runs.woken("a finished run frees its feature").await;
    let mut tx = store.begin().await.expect("begin");
    tx.queue_drift_check(ws, "", at(9)).await.expect("queue");
    tx.commit().await.expect("commit");
    runs.woken("a queued drift check").await;
    deliveries.quiet("runs are not deliveries").await;

    // A run's followers on another node hear its log (this node's: see the signals test).
    if let Some(other) = other {
        let next = trigger(&store, new_run(ws, "g", Tier::Standard, false), at(10))
            .await
            .expect("trigger")
            .run()
            .id;
        let mut follower = other.follow_run(next);
        store
            .log_run_event(
                next,
                LogLevel::Info,
                LogStage::Resolve,
                "hi",
                &json!({}),
                at(11),
            )
            .await
            .expect("log");
        tokio::time::timeout(WOKEN, follower.changed())
            .await
            .expect("the other node's follower woke");
        other.close().await;
    }
}

async fn the_next_due_delivery_and_lease_are_known(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    assert_eq!(store.next_delivery_due().await.expect("due"), None);
    assert_eq!(store.next_lease_expiry(at(1)).await.expect("lease"), None);
    insert_hook(
        &store,
        &hook(ws, "https://a.example/h", &[EventType::RunCompleted], true),
        at(1),
    )
    .await
    .expect("hook");
    record(&store, ws, EventType::RunCompleted, at(20)).await;
    record(&store, ws, EventType::RunCompleted, at(10)).await;
    assert_eq!(store.next_delivery_due().await.expect("due"), Some(at(10)));
    let claimed = store
        .claim_deliveries(at(30), "owner", at(90), 1, &Default::default())
        .await
        .expect("claim");
    assert_eq!(claimed.len(), 1);
    // One is due since 20 s, the other is in hand until 90 s.
    assert_eq!(store.next_delivery_due().await.expect("due"), Some(at(20)));

    let run = trigger(&store, new_run(ws, "f", Tier::Standard, false), at(2))
        .await
        .expect("trigger")
        .run()
        .id;
    let claimed = store
        .claim_run("w1", at(300), at(3), 3)
        .await
        .expect("claim")
        .expect("claimed");
    assert_eq!(claimed.id, run, "the run's lease is the one that expires");
    assert_eq!(
        store.next_lease_expiry(at(4)).await.expect("lease"),
        Some(at(300))
    );
    assert_eq!(
        store.next_lease_expiry(at(300)).await.expect("lease"),
        None,
        "a lease already over is the claim's to find"
    );
    let mut tx = store.begin().await.expect("begin");
    tx.queue_drift_check(ws, "", at(5)).await.expect("queue");
    tx.commit().await.expect("commit");
    store
        .claim_drift_check("w1", at(200), at(6), 3)
        .await
        .expect("claim")
        .expect("claimed");
    assert_eq!(
        store.next_lease_expiry(at(7)).await.expect("lease"),
        Some(at(200))
    );
}

/// A one-shot command (`migrate`, `tokens create`) opens no `LISTEN` connection; a store
/// starts listening the first time it waits on a queue, and then hears what was committed
/// before: everything is woken once.
async fn a_store_listens_once_it_needs_to(store: Db) {
    const LISTENING: &str = "SELECT count(*) FROM pg_stat_activity
         WHERE datname = current_database() AND query LIKE 'LISTEN%'";
    if store.engine() == Engine::Sqlite {
        assert!(
            store.listening(Duration::ZERO).await,
            "SQLite has no one to hear"
        );
        return;
    }
    // `store` listens already (see `open`).
    assert_eq!(store.db.count(LISTENING).await, 1);
    let fresh = Store::connect(store.db.url()).await.expect("connect");
    let ws = workspace(&store, "A", at(1)).await;
    trigger(&store, new_run(ws, "f", Tier::Standard, false), at(2))
        .await
        .expect("trigger");
    tokio::time::sleep(QUIET).await;
    assert_eq!(
        store.db.count(LISTENING).await,
        1,
        "connecting opens no LISTEN"
    );

    let mut runs = fresh.wakeup(Queue::Runs);
    woken(&mut runs, "the run queued before the store listened").await;
    assert!(fresh.listening(WOKEN).await);
    assert_eq!(
        store.db.count(LISTENING).await,
        2,
        "waiting on a queue listens"
    );
    fresh.close().await;
}

/// `serve` and `worker` open the warm core of their pools before they work (see
/// `Store::warm_up`): two connections in each of the two pools on PostgreSQL, beside the
/// `LISTEN` connection; the rest opens on demand.
async fn warming_up_opens_every_connection_of_the_pools(store: Db) {
    store.warm_up().await.expect("warm up");
    if store.engine() == Engine::Sqlite {
        return;
    }
    const OURS: &str = "SELECT count(*) FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid()";
    // The warm core of both pools, and the LISTEN connection.
    let (pools, listen) = (2 * store::WARM_CORE as i64, 1);
    let open = store.db.count(OURS).await;
    assert!(
        open >= pools + listen,
        "{open} connections open after warming up"
    );
    store.warm_up().await.expect("warm up again");
    assert_eq!(
        store.db.count(OURS).await,
        open,
        "warming up twice opens nothing more"
    );
}
