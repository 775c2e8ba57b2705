//! The delivery queue: workers claim due deliveries under a lease, send them, and record each
//! outcome together with its effect on the subscription (failure streak, last success,
//! deactivation).
//!
//! Lock order, to keep PostgreSQL free of deadlocks with the API: subscription rows first
//! (sorted by id), then delivery rows — the order `DELETE /v1/webhooks/{id}` uses too.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write;
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
    /// The delivery's new status; `None` when deferred: decided in SQL from the attempts
    /// made, pending before the first, failed after.
    fn status(&self) -> Option<DeliveryStatus> {
        match self.next {
            NextStep::Delivered => Some(DeliveryStatus::Delivered),
            NextStep::RetryAt(_) => Some(DeliveryStatus::Failed),
            NextStep::Dead | NextStep::Gone | NextStep::Abandoned => Some(DeliveryStatus::Dead),
            NextStep::Deferred(_) => None,
        }
    }

    /// 1 when an HTTP attempt was made, 0 when abandoned or deferred.
    fn attempted(&self) -> i64 {
        i64::from(!matches!(
            self.next,
            NextStep::Abandoned | NextStep::Deferred(_)
        ))
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
        no_wait_for_flush(&mut tx).await?;
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
        no_wait_for_flush(&mut tx).await?;
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
        // Sorted by delivery, the order the rows are locked in where the plan follows it.
        let mut ordered: Vec<&AttemptRecord> = records.iter().collect();
        ordered.sort_by_key(|r| r.delivery);
        let mut kept: HashSet<DeliveryId> = HashSet::with_capacity(ordered.len());
        for chunk in ordered.chunks(OUTCOME_ROWS_PER_UPDATE) {
            kept.extend(update_deliveries(&mut tx, chunk).await?);
        }
        let lost = records.len().saturating_sub(kept.len()) as u64;
        let logged: Vec<(&AttemptRecord, &AttemptLog)> = ordered
            .iter()
            .filter(|r| kept.contains(&r.delivery))
            .filter_map(|r| r.log.as_ref().map(|log| (*r, log)))
            .collect();
        for chunk in logged.chunks(ATTEMPT_ROWS_PER_INSERT) {
            insert_attempt_logs(&mut tx, chunk).await?;
        }
        tx.commit().await?;
        Ok(lost)
    }
}

/// On PostgreSQL, lets this transaction's commit return before its WAL reaches the disk
/// (`synchronous_commit = off`, for this transaction only). Claims and outcomes may: should
/// the database server crash within the next few hundred milliseconds and lose them, the
/// deliveries they concerned are attempted again (a lost claim leaves its delivery due; a lost
/// outcome leaves its lease to expire), which at-least-once delivery allows. It spares the
/// worker a disk flush per claim and per batch of outcomes, the largest wait of a burst on a
/// busy disk. Events themselves are recorded by the API's transactions, which still wait.
async fn no_wait_for_flush(tx: &mut crate::Tx) -> Result<(), StoreError> {
    if let crate::engine::TxInner::Postgres(t) = &mut tx.inner {
        sqlx::query("SET LOCAL synchronous_commit = off")
            .execute(&mut **t)
            .await?;
    }
    Ok(())
}

pub(crate) fn engine_of(tx: &crate::Tx) -> Engine {
    match tx.inner {
        crate::engine::TxInner::Sqlite(_) => Engine::Sqlite,
        crate::engine::TxInner::Postgres(_) => Engine::Postgres,
    }
}

/// Appends `rows` rows of `width` placeholders each, `(…), (…)`, bound in order: numbered on
/// PostgreSQL (`$first+1`, `$first+2`, …: `first` values are bound before them), anonymous `?`
/// on SQLite. SQLite finds the name of a numbered parameter by a linear scan, and sqlx asks it for every parameter, so binding a statement
/// of thousands of `$n` costs time quadratic in their number (it was the first cost of a
/// burst of deliveries on SQLite).
pub(crate) fn push_placeholder_rows(
    sql: &mut String,
    engine: Engine,
    first: usize,
    rows: usize,
    width: usize,
) {
    for row in 0..rows {
        sql.push_str(if row == 0 { "(" } else { ", (" });
        for column in 0..width {
            if column > 0 {
                sql.push_str(", ");
            }
            match engine {
                Engine::Postgres => {
                    let _ = write!(sql, "${}", first + row * width + column + 1);
                }
                Engine::Sqlite => sql.push('?'),
            }
        }
        sql.push(')');
    }
}

/// Outcomes per UPDATE statement (8 values each).
const OUTCOME_ROWS_PER_UPDATE: usize = 500;

/// Applies the outcomes of `records` to their deliveries in one UPDATE, each only while its
/// worker still holds the lease; returns the deliveries updated (the others' leases were lost).
///
/// A deferred delivery (`status` NULL) goes back to `pending` before its first attempt and
/// `failed` after, keeps its target URL and counts no attempt; every other outcome sets the
/// status, counts its attempt (none when abandoned) and records where it went.
async fn update_deliveries(
    tx: &mut crate::Tx,
    records: &[&AttemptRecord],
) -> Result<Vec<DeliveryId>, StoreError> {
    if records.is_empty() {
        return Ok(Vec::new());
    }
    let mut sql = String::with_capacity(700 + records.len() * 48);
    sql.push_str(
        "WITH v (delivery, lease_owner, status, attempted, status_code, target_url, next_attempt_at,
                 ended_at) AS (VALUES ",
    );
    push_placeholder_rows(&mut sql, engine_of(tx), 0, records.len(), 8);
    sql.push_str(
        ")
         UPDATE deliveries AS d SET
             status = COALESCE(v.status, CASE WHEN d.attempts = 0 THEN 'pending' ELSE 'failed' END),
             attempts = d.attempts + v.attempted,
             last_status_code = COALESCE(v.status_code, d.last_status_code),
             target_url = COALESCE(v.target_url, d.target_url),
             next_attempt_at = v.next_attempt_at,
             lease_owner = NULL, lease_expires_at = NULL, updated_at = v.ended_at
         FROM v
         WHERE d.id = v.delivery AND d.status = 'delivering' AND d.lease_owner = v.lease_owner
         RETURNING id",
    );
    Ok(on_tx!(tx, |c| {
        let mut query = sqlx::query_scalar(sqlx::AssertSqlSafe(sql.clone()));
        for r in records {
            let status = r.status();
            let target_url = status.map(|_| r.target_url.as_str());
            let next_attempt_at = match r.next {
                NextStep::RetryAt(at) | NextStep::Deferred(at) => Some(at),
                _ => None,
            };
            query = query
                .bind(r.delivery)
                .bind(r.lease_owner.as_str())
                .bind(status)
                .bind(r.attempted())
                .bind(r.status_code.map(i64::from))
                .bind(target_url)
                .bind(next_attempt_at)
                .bind(r.at);
        }
        query.fetch_all(c).await?
    }))
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
    push_placeholder_rows(&mut sql, engine_of(tx), 0, rows.len(), ATTEMPT_COLUMNS);
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
