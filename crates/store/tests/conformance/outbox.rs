//! The outbox's batched statements: an event's fan-out to many subscriptions in one INSERT,
//! and a batch of outcomes recorded in one UPDATE, on both engines.

use std::collections::{BTreeMap, HashMap};

use domain::{DeliveryId, DeliveryStatus, EventType, WebhookId};
use serde_json::json;
use store::{AttemptLog, AttemptRecord, NextStep, Saturated};

use super::{Db, at, deliveries_of, hook, insert_hook, open, workspace};

conformance!(
    an_event_fans_out_to_every_matching_subscription_once,
    a_batch_of_outcomes_updates_each_delivery_it_still_holds,
);

async fn an_event_fans_out_to_every_matching_subscription_once(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let other_ws = workspace(&store, "B", at(1)).await;
    let published = [EventType::ArticlePublished];
    let mut matching = Vec::new();
    let mut left_out = Vec::new();
    for i in 0..40 {
        let url = format!("https://e.com/{i}");
        // One in four matches on another of its types; every fifth is inactive, every
        // seventh deleted, every ninth listens to something else.
        let events: &[EventType] = match i {
            _ if i % 9 == 0 => &[EventType::RunCompleted],
            _ if i % 4 == 0 => &[EventType::RunFailed, EventType::ArticlePublished],
            _ => &published,
        };
        let h = insert_hook(&store, &hook(ws, &url, events, i % 5 != 0), at(2))
            .await
            .expect("insert");
        if i % 7 == 0 {
            let mut tx = store.begin().await.expect("begin");
            tx.delete_webhook(h.id, at(3)).await.expect("delete");
            tx.commit().await.expect("commit");
        }
        if i % 9 == 0 || i % 5 == 0 || i % 7 == 0 {
            left_out.push(h);
        } else {
            matching.push(h);
        }
    }
    let foreign = insert_hook(
        &store,
        &hook(other_ws, "https://e.com/0", &published, true),
        at(2),
    )
    .await
    .expect("insert");
    left_out.push(foreign);
    assert!(matching.len() > 20, "{} matching", matching.len());

    // Two events in one transaction: each fans out on its own.
    let mut tx = store.begin().await.expect("begin");
    let first = tx
        .record_event(ws, EventType::ArticlePublished, json!({"n": 1}), at(4))
        .await
        .expect("record");
    let second = tx
        .record_event(ws, EventType::ArticlePublished, json!({"n": 2}), at(5))
        .await
        .expect("record");
    tx.commit().await.expect("commit");
    assert_eq!(first.created_at, at(4));
    assert_eq!(
        store.event_payload(second.id).await.expect("payload"),
        Some(second.payload.clone())
    );

    for sub in &matching {
        let mut got = deliveries_of(&store, sub.id).await;
        got.sort_by_key(|d| d.created_at);
        let events: Vec<_> = got.iter().map(|d| d.event_id).collect();
        assert_eq!(events, [first.id, second.id], "{}", sub.url);
        for (d, now) in got.iter().zip([at(4), at(5)]) {
            assert_eq!(d.workspace_id, ws);
            assert_eq!(d.event_type, EventType::ArticlePublished);
            assert_eq!(d.status, DeliveryStatus::Pending);
            assert_eq!(d.attempts, 0);
            assert_eq!(d.last_status_code, None);
            assert_eq!(d.target_url, sub.url);
            assert!(!d.is_replay);
            assert_eq!((d.created_at, d.updated_at), (now, now));
            assert_eq!(d.next_attempt_at, Some(now));
        }
    }
    for sub in &left_out {
        assert!(
            deliveries_of(&store, sub.id).await.is_empty(),
            "{}",
            sub.url
        );
    }
    assert_eq!(
        store.db.count("SELECT COUNT(*) FROM deliveries").await,
        2 * matching.len() as i64
    );
    let ids = store
        .db
        .count("SELECT COUNT(DISTINCT id) FROM deliveries")
        .await;
    assert_eq!(
        ids,
        2 * matching.len() as i64,
        "every delivery has its own id"
    );
}

fn log(number: i64) -> AttemptLog {
    AttemptLog {
        number,
        started_at: at(20),
        duration_ms: 3,
        request_headers: BTreeMap::from([("webhook-id".to_owned(), "evt_x".to_owned())]),
        response_status: Some(200),
        response_headers: None,
        response_body: Some(String::new()),
        response_body_truncated: false,
        error_kind: None,
        error_message: None,
    }
}

async fn a_batch_of_outcomes_updates_each_delivery_it_still_holds(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let types = [EventType::RunCompleted];
    let mut hooks: Vec<WebhookId> = Vec::new();
    for i in 0..8 {
        let url = format!("https://e.com/{i}");
        let h = insert_hook(&store, &hook(ws, &url, &types, true), at(2))
            .await
            .expect("insert");
        hooks.push(h.id);
    }
    let mut tx = store.begin().await.expect("begin");
    tx.record_event(ws, EventType::RunCompleted, json!({}), at(3))
        .await
        .expect("record");
    tx.commit().await.expect("commit");

    // A first attempt fails for hook 7, so that deferring it later makes it `failed`.
    let claimed = store
        .claim_deliveries(at(4), "w0", at(60), 100, &Saturated::default())
        .await
        .expect("claim");
    let d7 = claimed
        .iter()
        .find(|d| d.subscription_id == hooks[7])
        .expect("hook 7's delivery");
    let retry = AttemptRecord {
        delivery: d7.id,
        subscription: d7.subscription_id,
        workspace: ws,
        lease_owner: "w0".into(),
        at: at(5),
        status_code: Some(500),
        target_url: d7.url.clone(),
        next: NextStep::RetryAt(at(6)),
        log: Some(log(1)),
    };
    let others: Vec<AttemptRecord> = claimed
        .iter()
        .filter(|d| d.id != d7.id)
        .map(|d| AttemptRecord {
            next: NextStep::Deferred(at(6)),
            delivery: d.id,
            subscription: d.subscription_id,
            status_code: None,
            target_url: d.url.clone(),
            log: None,
            ..retry.clone()
        })
        .collect();
    let mut first_batch = others;
    first_batch.push(retry);
    assert_eq!(
        store
            .record_attempts(&first_batch, at(5))
            .await
            .expect("record"),
        0
    );

    // Everything is due again: one batch with every kind of outcome.
    let claimed = store
        .claim_deliveries(at(7), "w1", at(60), 100, &Saturated::default())
        .await
        .expect("claim");
    assert_eq!(claimed.len(), 8);
    let by_hook: HashMap<WebhookId, DeliveryId> =
        claimed.iter().map(|d| (d.subscription_id, d.id)).collect();
    let outcome = |i: usize, next: NextStep, code: Option<u16>, owner: &str| AttemptRecord {
        delivery: by_hook[&hooks[i]],
        subscription: hooks[i],
        workspace: ws,
        lease_owner: owner.into(),
        at: at(8),
        status_code: code,
        target_url: format!("https://moved.com/{i}"),
        next,
        log: (!matches!(next, NextStep::Abandoned | NextStep::Deferred(_))).then(|| log(1)),
    };
    let batch = vec![
        outcome(0, NextStep::Delivered, Some(204), "w1"),
        outcome(1, NextStep::RetryAt(at(30)), Some(503), "w1"),
        outcome(2, NextStep::Dead, None, "w1"),
        outcome(3, NextStep::Gone, Some(410), "w1"),
        outcome(4, NextStep::Abandoned, None, "w1"),
        outcome(5, NextStep::Deferred(at(9)), None, "w1"),
        // Lost: recorded with another claim's token.
        outcome(6, NextStep::Delivered, Some(200), "w0"),
        outcome(7, NextStep::Deferred(at(9)), None, "w1"),
    ];
    assert_eq!(
        store.record_attempts(&batch, at(8)).await.expect("record"),
        1,
        "one outcome had lost its lease"
    );

    let state = |i: usize| {
        let store = store.clone();
        let hook = hooks[i];
        async move { deliveries_of(&store, hook).await.remove(0) }
    };
    let expect = [
        // status, attempts, last status code, target URL moved, next attempt
        (DeliveryStatus::Delivered, 1, Some(204), true, None),
        (DeliveryStatus::Failed, 1, Some(503), true, Some(at(30))),
        (DeliveryStatus::Dead, 1, None, true, None),
        (DeliveryStatus::Dead, 1, Some(410), true, None),
        (DeliveryStatus::Dead, 0, None, true, None),
        (DeliveryStatus::Pending, 0, None, false, Some(at(9))),
        (DeliveryStatus::Delivering, 0, None, false, Some(at(6))),
        (DeliveryStatus::Failed, 1, Some(500), false, Some(at(9))),
    ];
    for (i, (status, attempts, code, moved, next)) in expect.into_iter().enumerate() {
        let d = state(i).await;
        assert_eq!(d.status, status, "hook {i}");
        assert_eq!(d.attempts, attempts, "hook {i}");
        assert_eq!(d.last_status_code, code.map(i64::from), "hook {i}");
        let url = if moved {
            format!("https://moved.com/{i}")
        } else {
            format!("https://e.com/{i}")
        };
        assert_eq!(d.target_url, url, "hook {i}");
        assert_eq!(d.next_attempt_at, next, "hook {i}");
        if i != 6 {
            assert_eq!(d.updated_at, at(8), "hook {i}");
        }
    }
    // Leases are released, except the one whose outcome was lost.
    let held: Vec<(String,)> = store
        .db
        .rows("SELECT lease_owner FROM deliveries WHERE lease_owner IS NOT NULL")
        .await;
    assert_eq!(held, [("w1".to_owned(),)]);
    // Attempt rows: hook 7's first one, then one per attempt made and kept (0–3).
    assert_eq!(
        store
            .db
            .count("SELECT COUNT(*) FROM delivery_attempts")
            .await,
        5
    );
    let logged: Vec<(String,)> = store
        .db
        .rows("SELECT delivery_id FROM delivery_attempts")
        .await;
    let mut logged: Vec<String> = logged.into_iter().map(|(id,)| id).collect();
    logged.sort();
    let mut want: Vec<String> = [0, 1, 2, 3, 7]
        .iter()
        .map(|i| by_hook[&hooks[*i]].to_string())
        .collect();
    want.sort();
    assert_eq!(logged, want);
    // Hook 3 answered 410: deactivated; hook 0's success is its last delivery.
    let gone = store.webhook(hooks[3]).await.expect("get").expect("exists");
    assert!(!gone.active);
    let ok = store.webhook(hooks[0]).await.expect("get").expect("exists");
    assert_eq!(ok.last_delivery_at, Some(at(8)));
}
