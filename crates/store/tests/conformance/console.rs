//! The webhook console's storage: the attempt log written with each outcome, its purge, the
//! delivery filters, test events and recovery, on both engines.

use std::collections::BTreeMap;

use domain::{AttemptError, DeliveryStatus, EventType};
use store::{AttemptLog, AttemptRecord, DeliveryFilter, KeysetPage, NextStep, Position, Saturated};

use super::{Db, at, deliveries_of, hook, insert_hook, open, record, workspace};

conformance!(
    attempts_are_logged_with_their_outcome_and_read_newest_first,
    old_attempts_are_purged,
    deliveries_filter_by_status_type_and_time,
    a_test_event_goes_to_its_subscription_alone,
    recovery_replays_failed_and_dead_deliveries_once_within_its_cap,
);

fn log(number: i64, seconds: i64, status: Option<u16>, error: Option<AttemptError>) -> AttemptLog {
    AttemptLog {
        number,
        started_at: at(seconds),
        duration_ms: 12,
        request_headers: BTreeMap::from([("webhook-id".to_owned(), "evt_x".to_owned())]),
        response_status: status,
        response_headers: status.map(|_| BTreeMap::from([("x-a".to_owned(), "b".to_owned())])),
        response_body: status.map(|s| format!("answer {s}")),
        response_body_truncated: false,
        error_kind: error,
        error_message: error.map(|e| format!("failed: {e}")),
    }
}

/// Claims every due delivery at `seconds` and records `outcome` for each.
async fn attempt_all(store: &Db, seconds: i64, outcome: impl Fn(&str) -> (NextStep, AttemptLog)) {
    let claimed = store
        .claim_deliveries(
            at(seconds),
            "w",
            at(seconds + 60),
            100,
            &Saturated::default(),
        )
        .await
        .expect("claim");
    assert!(!claimed.is_empty(), "something to claim at {seconds}");
    let records: Vec<AttemptRecord> = claimed
        .iter()
        .map(|d| {
            let (next, log) = outcome(&d.url);
            AttemptRecord {
                delivery: d.id,
                subscription: d.subscription_id,
                workspace: d.workspace_id,
                lease_owner: "w".into(),
                at: at(seconds),
                status_code: log.response_status,
                target_url: d.url.clone(),
                next,
                log: Some(log),
            }
        })
        .collect();
    let lost = store
        .record_attempts(&records, at(seconds))
        .await
        .expect("record");
    assert_eq!(lost, 0);
}

async fn attempts_are_logged_with_their_outcome_and_read_newest_first(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let h = insert_hook(
        &store,
        &hook(ws, "https://e.com/a", &[EventType::RunFailed], true),
        at(2),
    )
    .await
    .expect("insert");
    let event = record(&store, ws, EventType::RunFailed, at(3)).await;
    attempt_all(&store, 4, |_| {
        (NextStep::RetryAt(at(10)), log(1, 4, Some(500), None))
    })
    .await;
    attempt_all(&store, 10, |_| {
        (
            NextStep::Delivered,
            log(2, 10, None, Some(AttemptError::Tls)),
        )
    })
    .await;
    let delivery = deliveries_of(&store, h.id).await.remove(0);
    let attempts = store
        .delivery_attempts(delivery.id, &KeysetPage::first(10))
        .await
        .expect("attempts");
    assert_eq!(attempts.len(), 2);
    let (second, first) = (&attempts[0], &attempts[1]);
    assert_eq!((first.attempt, second.attempt), (1, 2));
    assert_eq!(first.response_status, Some(500));
    assert_eq!(first.response_body.as_deref(), Some("answer 500"));
    assert_eq!(
        first.response_headers.as_ref().map(|h| h.0["x-a"].as_str()),
        Some("b")
    );
    assert_eq!(first.next_attempt_at, Some(at(10)));
    assert_eq!(first.error_kind, None);
    assert_eq!(second.error_kind, Some(AttemptError::Tls));
    assert_eq!(second.response_status, None);
    assert_eq!(second.next_attempt_at, None);
    assert_eq!(first.request_headers.0["webhook-id"], "evt_x");
    assert_eq!(
        (first.delivery_id, first.subscription_id, first.workspace_id),
        (delivery.id, h.id, ws)
    );
    assert_eq!(first.url, "https://e.com/a");
    let after_second = KeysetPage {
        limit: 1,
        after: Some(Position {
            created_at: second.started_at,
            id: second.id.to_string(),
        }),
    };
    let rest = store
        .delivery_attempts(delivery.id, &after_second)
        .await
        .expect("page");
    assert_eq!(rest.iter().map(|a| a.id).collect::<Vec<_>>(), [first.id]);
    assert_eq!(
        store.event_payload(event.id).await.expect("payload"),
        Some(event.payload)
    );

    // An outcome recorded without the lease writes no attempt either.
    let mut tx = store.begin().await.expect("begin");
    let _ = tx
        .record_event(ws, EventType::RunFailed, serde_json::json!({}), at(20))
        .await;
    tx.commit().await.expect("commit");
    let claimed = store
        .claim_deliveries(at(21), "w2", at(80), 10, &Saturated::default())
        .await
        .expect("claim");
    let stale = AttemptRecord {
        delivery: claimed[0].id,
        subscription: h.id,
        workspace: ws,
        lease_owner: "someone else".into(),
        at: at(22),
        status_code: Some(200),
        target_url: "https://e.com/a".into(),
        next: NextStep::Delivered,
        log: Some(log(1, 21, Some(200), None)),
    };
    assert_eq!(
        store
            .record_attempts(&[stale], at(22))
            .await
            .expect("record"),
        1
    );
    assert!(
        store
            .delivery_attempts(claimed[0].id, &KeysetPage::first(10))
            .await
            .expect("attempts")
            .is_empty()
    );
}

async fn old_attempts_are_purged(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let h = insert_hook(
        &store,
        &hook(ws, "https://e.com/a", &[EventType::RunFailed], true),
        at(2),
    )
    .await
    .expect("insert");
    record(&store, ws, EventType::RunFailed, at(3)).await;
    attempt_all(&store, 4, |_| {
        (NextStep::RetryAt(at(100)), log(1, 4, Some(500), None))
    })
    .await;
    attempt_all(&store, 100, |_| {
        (NextStep::Delivered, log(2, 100, Some(200), None))
    })
    .await;
    let delivery = deliveries_of(&store, h.id).await.remove(0);
    assert_eq!(
        store.purge_delivery_attempts(at(50)).await.expect("purge"),
        1
    );
    let left = store
        .delivery_attempts(delivery.id, &KeysetPage::first(10))
        .await
        .expect("attempts");
    assert_eq!(left.iter().map(|a| a.attempt).collect::<Vec<_>>(), [2]);
    assert_eq!(
        store.purge_delivery_attempts(at(50)).await.expect("purge"),
        0
    );
}

async fn deliveries_filter_by_status_type_and_time(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let h = insert_hook(
        &store,
        &hook(
            ws,
            "https://e.com/a",
            &[EventType::RunFailed, EventType::DriftDetected],
            true,
        ),
        at(2),
    )
    .await
    .expect("insert");
    for (seconds, event) in [
        (10, EventType::RunFailed),
        (20, EventType::DriftDetected),
        (30, EventType::RunFailed),
    ] {
        record(&store, ws, event, at(seconds)).await;
    }
    let seconds_of = |filter: DeliveryFilter| {
        let store = store.clone();
        async move {
            store
                .deliveries(h.id, &filter, &KeysetPage::first(10))
                .await
                .expect("list")
                .iter()
                .map(|d| (d.created_at.micros() - at(0).micros()) / 1_000_000)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(seconds_of(DeliveryFilter::default()).await, [30, 20, 10]);
    let runs = DeliveryFilter {
        event_type: Some(EventType::RunFailed),
        ..DeliveryFilter::default()
    };
    assert_eq!(seconds_of(runs.clone()).await, [30, 10]);
    let window = DeliveryFilter {
        since: Some(at(20)),
        until: Some(at(30)),
        ..DeliveryFilter::default()
    };
    assert_eq!(
        seconds_of(window).await,
        [20],
        "since inclusive, until exclusive"
    );
    let none = DeliveryFilter {
        status: Some(DeliveryStatus::Dead),
        ..runs
    };
    assert!(seconds_of(none).await.is_empty());
}

async fn a_test_event_goes_to_its_subscription_alone(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let tested = insert_hook(
        &store,
        &hook(ws, "https://e.com/a", &[EventType::RunFailed], true),
        at(2),
    )
    .await
    .expect("insert");
    let other = insert_hook(
        &store,
        &hook(ws, "https://e.com/b", &[EventType::DriftDetected], true),
        at(2),
    )
    .await
    .expect("insert");
    let mut tx = store.begin().await.expect("begin");
    let delivery = tx
        .record_test_event(
            &tested,
            EventType::DriftDetected,
            serde_json::json!({"test": true}),
            at(3),
        )
        .await
        .expect("test event");
    tx.commit().await.expect("commit");
    assert_eq!(delivery.subscription_id, tested.id);
    assert_eq!(delivery.event_type, EventType::DriftDetected);
    assert_eq!(delivery.status, DeliveryStatus::Pending);
    assert!(!delivery.is_replay);
    assert!(deliveries_of(&store, other.id).await.is_empty());
    let payload = store
        .event_payload(delivery.event_id)
        .await
        .expect("payload")
        .expect("stored");
    let body: serde_json::Value = serde_json::from_str(&payload).expect("JSON");
    assert_eq!(body["data"]["test"], true);
    assert_eq!(body["type"], "drift.detected");
    assert_eq!(body["workspace_id"], ws.to_string());
}

async fn recovery_replays_failed_and_dead_deliveries_once_within_its_cap(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let h = insert_hook(
        &store,
        &hook(ws, "https://e.com/a", &[EventType::RunFailed], true),
        at(2),
    )
    .await
    .expect("insert");
    let other = insert_hook(
        &store,
        &hook(ws, "https://e.com/b", &[EventType::RunFailed], true),
        at(2),
    )
    .await
    .expect("insert");
    // Statuses set directly: before `since` (10), then failed, dead, delivered, pending.
    let mut events = Vec::new();
    for (seconds, status) in [
        (5, "dead"),
        (10, "failed"),
        (11, "dead"),
        (12, "delivered"),
        (13, "pending"),
        (14, "failed"),
    ] {
        let e = record(&store, ws, EventType::RunFailed, at(seconds)).await;
        store
            .db
            .try_execute(
                "UPDATE deliveries SET status = $1 WHERE event_id = $2",
                &[status, &e.id.to_string()],
            )
            .await
            .expect("set status");
        events.push((e.id, status));
    }
    let recover = |cap: u32, now: i64| {
        let (store, h) = (store.clone(), h.clone());
        async move {
            let mut tx = store.begin().await.expect("begin");
            let r = tx
                .recover_deliveries(&h, at(10), cap, at(now))
                .await
                .expect("recover");
            tx.commit().await.expect("commit");
            r
        }
    };
    let first = recover(2, 20).await;
    assert_eq!((first.queued, first.has_more), (2, true));
    let second = recover(2, 21).await;
    assert_eq!((second.queued, second.has_more), (1, false));
    let third = recover(2, 22).await;
    assert_eq!((third.queued, third.has_more), (0, false));

    let replays: Vec<_> = deliveries_of(&store, h.id)
        .await
        .into_iter()
        .filter(|d| d.is_replay)
        .collect();
    let mut replayed: Vec<_> = replays.iter().map(|d| d.event_id).collect();
    replayed.sort();
    let mut expected: Vec<_> = events
        .iter()
        .filter(|(_, s)| matches!(*s, "failed" | "dead"))
        .skip(1)
        .map(|(id, _)| *id)
        .collect();
    expected.sort();
    assert_eq!(replayed, expected, "failed and dead since 10, each once");
    for r in &replays {
        assert_eq!(r.status, DeliveryStatus::Pending);
        assert_eq!(r.target_url, "https://e.com/a");
    }
    assert_eq!(
        deliveries_of(&store, other.id).await.len(),
        6,
        "other subscription untouched"
    );
}
