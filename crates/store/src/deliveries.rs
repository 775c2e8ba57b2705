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
        let claim = Claim {
            now,
            lease_owner: lease_owner.to_owned(),
            lease_until,
            limit,
            subscriptions: JsonText(skip.subscriptions.clone()),
            workspaces: JsonText(skip.workspaces.clone()),
        };
        match &self.pools {
            crate::engine::Pools::Postgres { lent, .. } => claim.on_postgres(lent).await,
            // On the writer thread: the claim holds the single writer from its first statement
            // to its commit, and must not wait in a busy runtime's queue in between.
            crate::engine::Pools::Sqlite { .. } => {
                let store = self.clone();
                self.detached(async move { claim.on_sqlite(&store).await })
                    .await?
            }
        }
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
        match self.pools {
            // On the writer thread: the transaction holds the single writer throughout.
            crate::engine::Pools::Sqlite { .. } => {
                let (store, records) = (self.clone(), records.to_vec());
                self.detached(async move { store.record_attempts_here(&records, now).await })
                    .await?
            }
            crate::engine::Pools::Postgres { .. } => self.record_attempts_here(records, now).await,
        }
    }

    async fn record_attempts_here(
        &self,
        records: &[AttemptRecord],
        now: Timestamp,
    ) -> Result<u64, StoreError> {
        let cutoff = now.minus(FAILING_DEACTIVATION);
        let mut tx = self.begin_with(Some(NO_FLUSH_WAIT_BEGIN)).await?;
        if records
            .iter()
            .any(|r| matches!(r.next, NextStep::RetryAt(_) | NextStep::Deferred(_)))
        {
            // A retry or a deferral makes a delivery due again: its worker learns when.
            tx.wake(crate::Queue::Deliveries);
        }
        update_subscriptions(&mut tx, &effects(records), cutoff, now).await?;
        // Sorted by delivery, the order the rows are locked in where the plan follows it.
        let mut ordered: Vec<&AttemptRecord> = records.iter().collect();
        ordered.sort_by_key(|r| r.delivery);
        let mut lost = 0;
        for chunk in ordered.chunks(OUTCOME_ROWS_PER_STATEMENT) {
            lost += record_outcomes(&mut tx, chunk).await? as u64;
        }
        tx.commit().await?;
        Ok(lost)
    }
}

/// One claim of due deliveries (see [`Store::claim_deliveries`]).
struct Claim {
    now: Timestamp,
    lease_owner: String,
    lease_until: Timestamp,
    limit: i64,
    subscriptions: JsonText<Vec<WebhookId>>,
    workspaces: JsonText<Vec<WorkspaceId>>,
}

/// Returns to the queue the deliveries whose lease expired by `$1` (the attempt cut off is not
/// counted: nobody knows whether it was made).
const RETURN_EXPIRED: &str = "UPDATE deliveries SET
         status = CASE WHEN attempts = 0 THEN 'pending' ELSE 'failed' END,
         lease_owner = NULL, lease_expires_at = NULL, updated_at = $1";
const EXPIRED: &str = "status = 'delivering' AND lease_expires_at <= $1";

/// Leases up to `$4` due deliveries to `$2` until `$3`, oldest due first, leaving out the
/// subscriptions in `$5` and the workspaces in `$6` (`subscriptions`, `workspaces`: each
/// engine's reading of a JSON array; `from`: a relation joined; `skip_locked`: PostgreSQL's
/// row locking).
fn lease_due(subscriptions: &str, workspaces: &str, from: &str, skip_locked: &str) -> String {
    format!(
        "UPDATE deliveries SET status = 'delivering', lease_owner = $2, lease_expires_at = $3,
             updated_at = $1
         {from}
         WHERE status IN ('pending', 'failed') AND id IN (
             SELECT id FROM deliveries
             WHERE status IN ('pending', 'failed') AND next_attempt_at <= $1
               AND subscription_id NOT IN ({subscriptions})
               AND workspace_id NOT IN ({workspaces})
             ORDER BY next_attempt_at LIMIT $4 {skip_locked})"
    )
}

/// Binds [`lease_due`]'s values of `$claim` to `$query`.
macro_rules! bind_lease {
    ($query:expr, $claim:expr) => {
        $query
            .bind($claim.now)
            .bind(&$claim.lease_owner)
            .bind($claim.lease_until)
            .bind($claim.limit)
            .bind(&$claim.subscriptions)
            .bind(&$claim.workspaces)
    };
}

/// What an attempt needs of a claimed delivery `d`.
const CLAIMED_COLUMNS: &str = "d.id, d.subscription_id, d.workspace_id, d.event_id, d.attempts,
         d.created_at, e.payload, w.url, (w.active AND w.deleted_at IS NULL) AS subscription_active,
         w.secret, w.previous_secret, w.previous_secret_expires_at";
const CLAIMED_JOINS: &str = "JOIN events e ON e.id = d.event_id
         JOIN webhooks w ON w.id = d.subscription_id";

impl Claim {
    /// Two autocommit statements, neither waiting for the WAL flush (see [`NO_FLUSH_WAIT_BEGIN`]):
    /// expired leases back to the queue, then the claim, which returns what the attempts need
    /// (a data-modifying CTE) in the same round trip. Rows another worker is claiming at the
    /// same moment are skipped.
    async fn on_postgres(
        self,
        lent: &crate::lent::LentPool<sqlx::postgres::PgConnection>,
    ) -> Result<Vec<ClaimedDelivery>, StoreError> {
        let mut lent = lent.lend().await?;
        let conn = lent.conn()?;
        let return_expired = format!("{RETURN_EXPIRED} {NO_FLUSH_WAIT_FROM} WHERE {EXPIRED}");
        sqlx::query(sqlx::AssertSqlSafe(return_expired))
            .bind(self.now)
            .execute(&mut *conn)
            .await?;
        let lease = lease_due(
            "SELECT jsonb_array_elements_text($5::jsonb)",
            "SELECT jsonb_array_elements_text($6::jsonb)",
            NO_FLUSH_WAIT_FROM,
            "FOR UPDATE SKIP LOCKED",
        );
        let claim = format!(
            "WITH d AS ({lease} RETURNING id, subscription_id, workspace_id, event_id, attempts,
                                         created_at, next_attempt_at)
             SELECT {CLAIMED_COLUMNS} FROM d {CLAIMED_JOINS} ORDER BY d.next_attempt_at, d.id"
        );
        let claimed = bind_lease!(sqlx::query_as(sqlx::AssertSqlSafe(claim)), self)
            .fetch_all(conn)
            .await?;
        lent.settled();
        Ok(claimed)
    }

    /// One transaction on the single writer: expired leases back to the queue, the claim, and
    /// what the attempts need.
    async fn on_sqlite(self, store: &Store) -> Result<Vec<ClaimedDelivery>, StoreError> {
        let mut tx = store.begin().await?;
        let return_expired = format!("{RETURN_EXPIRED} WHERE {EXPIRED}");
        on_tx!(tx, |c| sqlx::query(sqlx::AssertSqlSafe(return_expired))
            .bind(self.now)
            .execute(c)
            .await?
            .rows_affected());
        let lease = lease_due(
            "SELECT value FROM json_each($5)",
            "SELECT value FROM json_each($6)",
            "",
            "",
        );
        let claimed = on_tx!(tx, |c| bind_lease!(
            sqlx::query(sqlx::AssertSqlSafe(lease.clone())),
            self
        )
        .execute(c)
        .await?
        .rows_affected());
        if claimed == 0 {
            tx.commit().await?;
            return Ok(Vec::new());
        }
        let select = format!(
            "SELECT {CLAIMED_COLUMNS} FROM deliveries d {CLAIMED_JOINS}
             WHERE d.status = 'delivering' AND d.lease_owner = $1
             ORDER BY d.next_attempt_at, d.id"
        );
        let rows: Vec<ClaimedDelivery> =
            on_tx!(tx, |c| sqlx::query_as(sqlx::AssertSqlSafe(select))
                .bind(&self.lease_owner)
                .fetch_all(c)
                .await?);
        tx.commit().await?;
        Ok(rows)
    }
}

/// On PostgreSQL, the worker's claims and outcomes commit without waiting for their WAL to
/// reach the disk (`synchronous_commit = off`, for their transactions only). Should the
/// database server crash within the next few hundred milliseconds and lose them, the
/// deliveries they concerned are attempted again (a lost claim leaves its delivery due; a lost
/// outcome leaves its lease to expire), which at-least-once delivery allows. It spares the
/// worker a disk flush per claim and per batch of outcomes, the largest wait of a burst on a
/// busy disk. Events themselves are recorded by the API's transactions, which still wait.
///
/// A transaction sets it in the round trip of its `BEGIN`; an autocommit statement joins this
/// one-row relation, so that every row it writes has set it (a statement that writes nothing
/// commits nothing to wait for).
const NO_FLUSH_WAIT_BEGIN: &str = "BEGIN; SET LOCAL synchronous_commit = off";
const NO_FLUSH_WAIT_FROM: &str =
    "FROM (SELECT set_config('synchronous_commit', 'off', true)) AS no_flush_wait";

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

/// Outcomes per statement: 8 values each, and 16 more for an attempt made; under either
/// engine's limit of bound parameters.
const OUTCOME_ROWS_PER_STATEMENT: usize = 500;
const OUTCOME_COLUMNS: usize = 8;
const ATTEMPT_COLUMNS: usize = 16;
const SUBSCRIPTION_COLUMNS: usize = 8;

/// Applies each subscription's [`SubscriptionEffect`] in one UPDATE. Every right-hand side
/// sees the row as it was, so the streak start is computed once and reused by the
/// deactivation test. On PostgreSQL the rows are locked first, sorted by id: the lock order of
/// the module's head.
async fn update_subscriptions(
    tx: &mut crate::Tx,
    effects: &BTreeMap<WebhookId, SubscriptionEffect>,
    cutoff: Timestamp,
    now: Timestamp,
) -> Result<(), StoreError> {
    if effects.is_empty() {
        return Ok(());
    }
    let engine = engine_of(tx);
    let mut sql = String::with_capacity(1_500 + effects.len() * 40);
    sql.push_str(
        "WITH v (id, succeeded, failures, first_failure, last_success, gone, cutoff, at) AS (VALUES ",
    );
    push_placeholder_rows(&mut sql, engine, 0, effects.len(), SUBSCRIPTION_COLUMNS);
    sql.push(')');
    let locked = match engine {
        Engine::Postgres => {
            sql.push_str(
                ", locked AS (SELECT id FROM webhooks WHERE id IN (SELECT id FROM v)
                              ORDER BY id FOR NO KEY UPDATE)",
            );
            "AND w.id IN (SELECT id FROM locked)"
        }
        Engine::Sqlite => "",
    };
    let _ = write!(
        sql,
        " UPDATE webhooks AS w SET
             failure_count = CASE WHEN v.succeeded THEN v.failures
                                  ELSE w.failure_count + v.failures END,
             failing_since = CASE WHEN v.failures = 0 THEN NULL
                                  WHEN v.succeeded THEN v.first_failure
                                  ELSE COALESCE(w.failing_since, v.first_failure) END,
             last_delivery_at = COALESCE(v.last_success, w.last_delivery_at),
             active = CASE WHEN v.gone THEN FALSE
                           WHEN v.failures > 0 AND (CASE WHEN v.succeeded THEN v.first_failure
                                 ELSE COALESCE(w.failing_since, v.first_failure) END) <= v.cutoff
                                THEN FALSE
                           ELSE w.active END,
             updated_at = CASE WHEN w.active AND (v.gone OR (v.failures > 0 AND
                                   (CASE WHEN v.succeeded THEN v.first_failure
                                         ELSE COALESCE(w.failing_since, v.first_failure) END)
                                   <= v.cutoff))
                               THEN v.at ELSE w.updated_at END
         FROM v WHERE w.id = v.id {locked}"
    );
    on_tx!(tx, |c| {
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.clone()));
        for (id, effect) in effects {
            query = query
                .bind(*id)
                .bind(effect.last_success.is_some())
                .bind(effect.failures)
                .bind(effect.first_failure)
                .bind(effect.last_success)
                .bind(effect.gone)
                .bind(cutoff)
                .bind(now);
        }
        query.execute(c).await?.rows_affected()
    });
    Ok(())
}

/// The UPDATE that applies outcomes to their deliveries, each only while its worker still
/// holds the lease, and returns the deliveries updated (the others' leases were lost): the
/// outcomes' rows as the common table `v` (placeholders from `first` on), and the UPDATE
/// that reads it.
///
/// A deferred delivery (`status` NULL) goes back to `pending` before its first attempt and
/// `failed` after, keeps its target URL and counts no attempt; every other outcome sets the
/// status, counts its attempt (none when abandoned) and records where it went.
fn outcomes_update(engine: Engine, first: usize, rows: usize) -> (String, &'static str) {
    let mut values = String::with_capacity(150 + rows * 48);
    values.push_str(
        "v (delivery, lease_owner, status, attempted, status_code, target_url, next_attempt_at,
            ended_at) AS (VALUES ",
    );
    push_placeholder_rows(&mut values, engine, first, rows, OUTCOME_COLUMNS);
    values.push(')');
    (
        values,
        "UPDATE deliveries AS d SET
             status = COALESCE(v.status, CASE WHEN d.attempts = 0 THEN 'pending' ELSE 'failed' END),
             attempts = d.attempts + v.attempted,
             last_status_code = COALESCE(v.status_code, d.last_status_code),
             target_url = COALESCE(v.target_url, d.target_url),
             next_attempt_at = v.next_attempt_at,
             lease_owner = NULL, lease_expires_at = NULL, updated_at = v.ended_at
         FROM v
         WHERE d.id = v.delivery AND d.status = 'delivering' AND d.lease_owner = v.lease_owner
         RETURNING id",
    )
}

/// The attempt log's columns, and its rows' placeholders from `first` on.
fn attempt_log_rows(engine: Engine, first: usize, rows: usize) -> (&'static str, String) {
    let mut values = String::with_capacity(rows * 100);
    push_placeholder_rows(&mut values, engine, first, rows, ATTEMPT_COLUMNS);
    (
        "id, delivery_id, subscription_id, workspace_id, attempt, started_at, duration_ms, url,
         request_headers, response_status, response_headers, response_body,
         response_body_truncated, error_kind, error_message, next_attempt_at",
        values,
    )
}

/// Binds the values of [`outcomes_update`]'s rows to `$query`.
macro_rules! bind_outcomes {
    ($query:expr, $records:expr) => {{
        let mut query = $query;
        for r in $records {
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
        query
    }};
}

/// Binds the values of [`attempt_log_rows`] to `$query`.
macro_rules! bind_attempt_logs {
    ($query:expr, $rows:expr) => {{
        let mut query = $query;
        for (r, log) in $rows {
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
        query
    }};
}

/// Applies a chunk of outcomes (sorted by delivery, the order the rows are locked in where the
/// plan follows it) and writes the attempt log rows of those still leased; returns how many
/// had lost their lease. PostgreSQL does both in one statement, SQLite in two.
async fn record_outcomes(
    tx: &mut crate::Tx,
    records: &[&AttemptRecord],
) -> Result<usize, StoreError> {
    let logs = |kept: &dyn Fn(DeliveryId) -> bool| -> Vec<(&AttemptRecord, &AttemptLog)> {
        records
            .iter()
            .filter(|r| kept(r.delivery))
            .filter_map(|r| r.log.as_ref().map(|log| (*r, log)))
            .collect()
    };
    let engine = engine_of(tx);
    let kept: Vec<DeliveryId> = match &mut tx.inner {
        crate::engine::TxInner::Postgres(c) => {
            // Every attempt is logged if its outcome is kept: the INSERT reads the UPDATE's
            // RETURNING.
            let logged = logs(&|_| true);
            let (outcomes, update) = outcomes_update(engine, 0, records.len());
            let (columns, values) =
                attempt_log_rows(engine, records.len() * OUTCOME_COLUMNS, logged.len());
            let sql = if logged.is_empty() {
                format!("WITH {outcomes} {update}")
            } else {
                format!(
                    "WITH {outcomes}, kept AS ({update}),
                     logged AS (INSERT INTO delivery_attempts ({columns})
                                SELECT * FROM (VALUES {values}) AS a ({columns})
                                WHERE a.delivery_id IN (SELECT id FROM kept))
                     SELECT id FROM kept"
                )
            };
            let query = bind_outcomes!(sqlx::query_scalar(sqlx::AssertSqlSafe(sql)), records);
            bind_attempt_logs!(query, logged)
                .fetch_all(c.conn()?)
                .await?
        }
        crate::engine::TxInner::Sqlite(c) => {
            let (outcomes, update) = outcomes_update(engine, 0, records.len());
            let update = format!("WITH {outcomes} {update}");
            let kept: Vec<DeliveryId> =
                bind_outcomes!(sqlx::query_scalar(sqlx::AssertSqlSafe(update)), records)
                    .fetch_all(c.conn()?)
                    .await?;
            let kept_set: HashSet<DeliveryId> = kept.iter().copied().collect();
            let logged = logs(&|id| kept_set.contains(&id));
            if !logged.is_empty() {
                let (columns, values) = attempt_log_rows(engine, 0, logged.len());
                let insert = format!("INSERT INTO delivery_attempts ({columns}) VALUES {values}");
                bind_attempt_logs!(sqlx::query(sqlx::AssertSqlSafe(insert)), logged)
                    .execute(c.conn()?)
                    .await?;
            }
            kept
        }
    };
    Ok(records.len().saturating_sub(kept.len()))
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
