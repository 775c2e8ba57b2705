//! The delivery queue: workers claim due deliveries under a lease, send them, and record each
//! outcome together with its effect on the subscription (failure streak, last success,
//! deactivation).
//!
//! Lock order, to keep PostgreSQL free of deadlocks with the API: subscription rows first
//! (sorted by id), then delivery rows — the order `DELETE /v1/webhooks/{id}` uses too.

use std::collections::BTreeMap;
use std::time::Duration;

use domain::{
    AttemptError, AttemptId, DeliveryId, DeliveryStatus, EventId, Timestamp, WebhookId, WorkspaceId,
};

use crate::engine::{on_tx, read};
use crate::{Engine, JsonText, Store, StoreError};

/// A subscription whose attempts have failed without a success for this long is deactivated.
pub const FAILING_DEACTIVATION: Duration = Duration::from_secs(5 * 24 * 3600);

/// A delivery whose attempt this worker holds the lease of, with what the attempt needs.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ClaimedDelivery {
    pub id: DeliveryId,
    pub subscription_id: WebhookId,
    pub workspace_id: WorkspaceId,
    pub event_id: EventId,
    /// Attempts made before this one.
    pub attempts: i64,
    /// When the event was recorded (the delivery was created with it, or replayed later).
    pub created_at: Timestamp,
    /// The exact body to send.
    pub payload: String,
    /// The subscription's current URL (a PATCH applies to retries too).
    pub url: String,
    /// False when the subscription was deactivated or deleted since: nothing is sent.
    pub subscription_active: bool,
    /// Encrypted; only the webhooks part opens it.
    pub secret: Vec<u8>,
    pub previous_secret: Option<Vec<u8>>,
    pub previous_secret_expires_at: Option<Timestamp>,
}

/// Where a delivery worker already has as many attempts in flight as it allows: a claim
/// leaves their deliveries in the queue.
#[derive(Clone, Debug, Default)]
pub struct Saturated {
    pub subscriptions: Vec<WebhookId>,
    pub workspaces: Vec<WorkspaceId>,
}

/// What happens to a delivery after an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextStep {
    /// A 2xx answer.
    Delivered,
    /// The attempt failed; another one is due at this time.
    RetryAt(Timestamp),
    /// The attempt failed and it was the last one.
    Dead,
    /// 410 Gone: the delivery is dead and the subscription deactivated.
    Gone,
    /// Nothing was sent because the subscription is no longer active: dead, no attempt.
    Abandoned,
    /// Nothing was sent because this worker already has as many attempts in flight to the
    /// subscription (or its workspace) as it allows: back in the queue until this time, no
    /// attempt counted.
    Deferred(Timestamp),
}

/// What one HTTP attempt sent and got, for the attempt log (bounded by the sender).
#[derive(Clone, Debug)]
pub struct AttemptLog {
    /// 1 for the delivery's first attempt.
    pub number: i64,
    pub started_at: Timestamp,
    pub duration_ms: i64,
    pub request_headers: BTreeMap<String, String>,
    pub response_status: Option<u16>,
    pub response_headers: Option<BTreeMap<String, String>>,
    pub response_body: Option<String>,
    pub response_body_truncated: bool,
    pub error_kind: Option<AttemptError>,
    pub error_message: Option<String>,
}

/// The outcome of one claimed delivery, recorded by [`Store::record_attempts`].
#[derive(Clone, Debug)]
pub struct AttemptRecord {
    pub delivery: DeliveryId,
    pub subscription: WebhookId,
    pub workspace: WorkspaceId,
    /// The claim token the delivery was leased with.
    pub lease_owner: String,
    /// When the attempt ended.
    pub at: Timestamp,
    pub status_code: Option<u16>,
    /// Where the attempt went.
    pub target_url: String,
    pub next: NextStep,
    /// The attempt made, for the attempt log; `None` when none was (abandoned, deferred).
    pub log: Option<AttemptLog>,
}

impl AttemptRecord {
    fn status(&self) -> DeliveryStatus {
        match self.next {
            NextStep::Delivered => DeliveryStatus::Delivered,
            NextStep::RetryAt(_) => DeliveryStatus::Failed,
            NextStep::Dead | NextStep::Gone | NextStep::Abandoned => DeliveryStatus::Dead,
            // Decided in SQL from the attempts made: pending before the first, failed after.
            NextStep::Deferred(_) => DeliveryStatus::Pending,
        }
    }
}

/// The combined effect of a batch of outcomes on one subscription, folded in the order the
/// attempts ended so that "consecutive failures, reset by any success" stays exact.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct SubscriptionEffect {
    /// The last success in the batch, if any: it resets the streak.
    last_success: Option<Timestamp>,
    /// Failures after the last success (or all of them when there was none).
    failures: i64,
    /// The first of those failures.
    first_failure: Option<Timestamp>,
    gone: bool,
}

impl SubscriptionEffect {
    fn apply(&mut self, record: &AttemptRecord) {
        match record.next {
            NextStep::Delivered => {
                self.last_success = Some(record.at);
                self.failures = 0;
                self.first_failure = None;
            }
            NextStep::RetryAt(_) | NextStep::Dead | NextStep::Gone => {
                self.failures += 1;
                self.first_failure.get_or_insert(record.at);
                self.gone |= record.next == NextStep::Gone;
            }
            NextStep::Abandoned | NextStep::Deferred(_) => {}
        }
    }

    fn is_empty(&self) -> bool {
        self.last_success.is_none() && self.failures == 0
    }
}

fn effects(records: &[AttemptRecord]) -> BTreeMap<WebhookId, SubscriptionEffect> {
    let mut map: BTreeMap<WebhookId, SubscriptionEffect> = BTreeMap::new();
    for r in records {
        map.entry(r.subscription).or_default().apply(r);
    }
    map.retain(|_, e| !e.is_empty());
    map
}

impl Store {
    /// How many deliveries are in each state (for metrics, benchmarks and tests).
    pub async fn delivery_counts(&self) -> Result<Vec<(DeliveryStatus, i64)>, StoreError> {
        Ok(read!(self, |c| sqlx::query_as(
            "SELECT status, COUNT(*) FROM deliveries GROUP BY status ORDER BY status"
        )
        .fetch_all(c)
        .await?))
    }

    /// When the next delivery falls due: the earliest next attempt of a `pending` or `failed`
    /// delivery, or the earliest lease of one in flight (a worker that died lets it expire).
    /// `None` when no delivery waits. One read on two partial indexes: a worker that is woken
    /// for nothing spares the database (and SQLite's single writer) an empty claim, and an idle
    /// worker sleeps until exactly then.
    pub async fn next_delivery_due(&self) -> Result<Option<Timestamp>, StoreError> {
        Ok(read!(self, |c| sqlx::query_scalar(
            "SELECT MIN(due) FROM (
                 SELECT MIN(next_attempt_at) AS due FROM deliveries
                 WHERE status IN ('pending', 'failed')
                 UNION ALL
                 SELECT MIN(lease_expires_at) FROM deliveries WHERE status = 'delivering'
             ) AS next"
        )
        .fetch_one(c)
        .await?))
    }

    /// Claims up to `limit` due deliveries for `lease_owner` until `lease_until`: those
    /// `pending` or `failed` whose next attempt is due, after returning to the queue every
    /// delivery whose worker let its lease expire (it crashed mid-attempt; the attempt is not
    /// counted, since nobody knows whether it was made). Deliveries to the subscriptions and
    /// workspaces in `skip` (those the worker already has enough attempts in flight to) stay
    /// where they are. PostgreSQL skips rows another worker is claiming at the same moment;
    /// SQLite has one writer.
    pub async fn claim_deliveries(
        &self,
        now: Timestamp,
        lease_owner: &str,
        lease_until: Timestamp,
        limit: i64,
        skip: &Saturated,
    ) -> Result<Vec<ClaimedDelivery>, StoreError> {
        let (skip_locked, subscriptions, workspaces) = match self.engine() {
            Engine::Postgres => (
                "FOR UPDATE SKIP LOCKED",
                "SELECT jsonb_array_elements_text($5::jsonb)",
                "SELECT jsonb_array_elements_text($6::jsonb)",
            ),
            Engine::Sqlite => (
                "",
                "SELECT value FROM json_each($5)",
                "SELECT value FROM json_each($6)",
            ),
        };
        let claim = format!(
            "UPDATE deliveries SET status = 'delivering', lease_owner = $2, lease_expires_at = $3,
                 updated_at = $1
             WHERE status IN ('pending', 'failed') AND id IN (
                 SELECT id FROM deliveries
                 WHERE status IN ('pending', 'failed') AND next_attempt_at <= $1
                   AND subscription_id NOT IN ({subscriptions})
                   AND workspace_id NOT IN ({workspaces})
                 ORDER BY next_attempt_at LIMIT $4 {skip_locked})"
        );
        let mut tx = self.begin().await?;
        on_tx!(tx, |c| sqlx::query(
            "UPDATE deliveries SET
                 status = CASE WHEN attempts = 0 THEN 'pending' ELSE 'failed' END,
                 lease_owner = NULL, lease_expires_at = NULL, updated_at = $1
             WHERE status = 'delivering' AND lease_expires_at <= $1"
        )
        .bind(now)
        .execute(c)
        .await?
        .rows_affected());
        let claimed = on_tx!(tx, |c| sqlx::query(sqlx::AssertSqlSafe(claim))
            .bind(now)
            .bind(lease_owner)
            .bind(lease_until)
            .bind(limit)
            .bind(JsonText(&skip.subscriptions))
            .bind(JsonText(&skip.workspaces))
            .execute(c)
            .await?
            .rows_affected());
        if claimed == 0 {
            tx.commit().await?;
            return Ok(Vec::new());
        }
        let rows: Vec<ClaimedDelivery> = on_tx!(tx, |c| {
            sqlx::query_as(
            "SELECT d.id, d.subscription_id, d.workspace_id, d.event_id, d.attempts, d.created_at, e.payload,
                    w.url, (w.active AND w.deleted_at IS NULL) AS subscription_active,
                    w.secret, w.previous_secret, w.previous_secret_expires_at
             FROM deliveries d
             JOIN events e ON e.id = d.event_id
             JOIN webhooks w ON w.id = d.subscription_id
             WHERE d.status = 'delivering' AND d.lease_owner = $1
             ORDER BY d.next_attempt_at"
        )
        .bind(lease_owner)
        .fetch_all(c)
        .await?
        });
        tx.commit().await?;
        Ok(rows)
    }

    /// Records the outcomes of a batch of attempts in one transaction: each delivery's new
    /// state (only while the recording worker still holds its lease) and each subscription's
    /// failure streak, last success and deactivation (410, or failing for
    /// [`FAILING_DEACTIVATION`]). Returns how many outcomes were dropped because their lease
    /// had been lost.
    pub async fn record_attempts(
        &self,
        records: &[AttemptRecord],
        now: Timestamp,
    ) -> Result<u64, StoreError> {
        if records.is_empty() {
            return Ok(0);
        }
        let cutoff = now.minus(FAILING_DEACTIVATION);
        let mut tx = self.begin().await?;
        if records
            .iter()
            .any(|r| matches!(r.next, NextStep::RetryAt(_) | NextStep::Deferred(_)))
        {
            // A retry or a deferral makes a delivery due again: its worker learns when.
            tx.wake(crate::Queue::Deliveries);
        }
        for (id, effect) in effects(records) {
            // Every right-hand side sees the row as it was, so the streak start is computed
            // once here and reused by the deactivation test.
            on_tx!(tx, |c| sqlx::query(
                "UPDATE webhooks SET
                     failure_count = CASE WHEN $2 THEN $3 ELSE failure_count + $3 END,
                     failing_since = CASE WHEN $3 = 0 THEN NULL
                                          WHEN $2 THEN $4
                                          ELSE COALESCE(failing_since, $4) END,
                     last_delivery_at = COALESCE($5, last_delivery_at),
                     active = CASE WHEN $6 THEN FALSE
                                   WHEN $3 > 0 AND (CASE WHEN $2 THEN $4
                                                         ELSE COALESCE(failing_since, $4) END) <= $7
                                        THEN FALSE
                                   ELSE active END,
                     updated_at = CASE WHEN active AND ($6 OR ($3 > 0 AND
                                           (CASE WHEN $2 THEN $4
                                                 ELSE COALESCE(failing_since, $4) END) <= $7))
                                       THEN $8 ELSE updated_at END
                 WHERE id = $1"
            )
            .bind(id)
            .bind(effect.last_success.is_some())
            .bind(effect.failures)
            .bind(effect.first_failure)
            .bind(effect.last_success)
            .bind(effect.gone)
            .bind(cutoff)
            .bind(now)
            .execute(c)
            .await?
            .rows_affected());
        }
        let mut ordered: Vec<&AttemptRecord> = records.iter().collect();
        ordered.sort_by_key(|r| r.delivery);
        let mut lost = 0;
        let mut logged: Vec<(&AttemptRecord, &AttemptLog)> = Vec::new();
        for r in ordered {
            if let NextStep::Deferred(until) = r.next {
                let updated = on_tx!(tx, |c| sqlx::query(
                    "UPDATE deliveries SET
                         status = CASE WHEN attempts = 0 THEN 'pending' ELSE 'failed' END,
                         next_attempt_at = $3, lease_owner = NULL, lease_expires_at = NULL,
                         updated_at = $4
                     WHERE id = $1 AND status = 'delivering' AND lease_owner = $2"
                )
                .bind(r.delivery)
                .bind(&r.lease_owner)
                .bind(until)
                .bind(r.at)
                .execute(c)
                .await?
                .rows_affected());
                lost += u64::from(updated == 0);
                continue;
            }
            let attempted = i64::from(r.next != NextStep::Abandoned);
            let next_attempt_at = match r.next {
                NextStep::RetryAt(at) => Some(at),
                _ => None,
            };
            let updated = on_tx!(tx, |c| sqlx::query(
                "UPDATE deliveries SET status = $3, attempts = attempts + $4,
                     last_status_code = COALESCE($5, last_status_code), target_url = $6,
                     next_attempt_at = $7, lease_owner = NULL, lease_expires_at = NULL,
                     updated_at = $8
                 WHERE id = $1 AND status = 'delivering' AND lease_owner = $2"
            )
            .bind(r.delivery)
            .bind(&r.lease_owner)
            .bind(r.status())
            .bind(attempted)
            .bind(r.status_code.map(i64::from))
            .bind(&r.target_url)
            .bind(next_attempt_at)
            .bind(r.at)
            .execute(c)
            .await?
            .rows_affected());
            if updated == 0 {
                lost += 1;
            } else if let Some(log) = &r.log {
                logged.push((r, log));
            }
        }
        for chunk in logged.chunks(ATTEMPT_ROWS_PER_INSERT) {
            insert_attempt_logs(&mut tx, chunk).await?;
        }
        tx.commit().await?;
        Ok(lost)
    }
}

/// Attempt rows per INSERT statement (16 values each: well under either engine's limit of
/// bound parameters).
const ATTEMPT_ROWS_PER_INSERT: usize = 500;
const ATTEMPT_COLUMNS: usize = 16;

/// Writes the attempt log rows of recorded outcomes, in one multi-row INSERT.
async fn insert_attempt_logs(
    tx: &mut crate::Tx,
    rows: &[(&AttemptRecord, &AttemptLog)],
) -> Result<(), StoreError> {
    if rows.is_empty() {
        return Ok(());
    }
    let mut sql = String::from(
        "INSERT INTO delivery_attempts (id, delivery_id, subscription_id, workspace_id, attempt,
             started_at, duration_ms, url, request_headers, response_status, response_headers,
             response_body, response_body_truncated, error_kind, error_message, next_attempt_at)
         VALUES ",
    );
    for i in 0..rows.len() {
        let first = i * ATTEMPT_COLUMNS + 1;
        let placeholders: Vec<String> = (first..first + ATTEMPT_COLUMNS)
            .map(|n| format!("${n}"))
            .collect();
        if i > 0 {
            sql.push_str(", ");
        }
        sql.push('(');
        sql.push_str(&placeholders.join(", "));
        sql.push(')');
    }
    on_tx!(tx, |c| {
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.clone()));
        for (r, log) in rows {
            let next_attempt_at = match r.next {
                NextStep::RetryAt(at) => Some(at),
                _ => None,
            };
            query = query
                .bind(AttemptId::generate())
                .bind(r.delivery)
                .bind(r.subscription)
                .bind(r.workspace)
                .bind(log.number)
                .bind(log.started_at)
                .bind(log.duration_ms)
                .bind(r.target_url.as_str())
                .bind(JsonText(&log.request_headers))
                .bind(log.response_status.map(i64::from))
                .bind(log.response_headers.as_ref().map(JsonText))
                .bind(log.response_body.as_deref())
                .bind(log.response_body_truncated)
                .bind(log.error_kind)
                .bind(log.error_message.as_deref())
                .bind(next_attempt_at);
        }
        query.execute(c).await?.rows_affected()
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(micros: i64) -> Timestamp {
        Timestamp::from_micros(micros).unwrap()
    }

    fn record(sub: WebhookId, t: i64, next: NextStep) -> AttemptRecord {
        AttemptRecord {
            delivery: DeliveryId::generate(),
            subscription: sub,
            workspace: WorkspaceId::generate(),
            lease_owner: "l".into(),
            at: at(t),
            status_code: None,
            target_url: "http://example.com".into(),
            next,
            log: None,
        }
    }

    #[test]
    fn a_success_resets_the_streak_and_later_failures_start_a_new_one() {
        let a = WebhookId::generate();
        let b = WebhookId::generate();
        let map = effects(&[
            record(a, 1, NextStep::RetryAt(at(9))),
            record(a, 2, NextStep::Delivered),
            record(a, 3, NextStep::Dead),
            record(a, 4, NextStep::RetryAt(at(9))),
            record(b, 5, NextStep::Gone),
            record(b, 6, NextStep::Abandoned),
        ]);
        assert_eq!(
            map.get(&a),
            Some(&SubscriptionEffect {
                last_success: Some(at(2)),
                failures: 2,
                first_failure: Some(at(3)),
                gone: false,
            })
        );
        assert_eq!(map.get(&b).map(|e| (e.failures, e.gone)), Some((1, true)));
        let only_abandoned = effects(&[record(a, 1, NextStep::Abandoned)]);
        assert!(only_abandoned.is_empty());
    }
}
