use domain::{
    LogLevel, LogStage, RunId, RunSource, RunStatus, Surface, Tier, Timestamp, WorkspaceId,
};

use crate::direct::{self, numbered};
use crate::engine::{on_tx, read, write_pool};
use crate::records::SHOWN_RUN_STATUS;
use crate::{JsonText, KeysetPage, RunEventRecord, RunRecord, Store, StoreError, Tx};

const RUN_COLUMNS: &str = RunRecord::COLUMNS;

/// A request for a run, before coalescing.
#[derive(Clone, Debug)]
pub struct NewRun {
    pub workspace_id: WorkspaceId,
    pub feature_id: String,
    /// `None` for every surface of the feature.
    pub surfaces: Option<Vec<Surface>>,
    pub source: RunSource,
    pub tier: Tier,
    pub notify_on_complete: bool,
    /// The ref to run at; '' is the default branch. Queued runs coalesce per feature and ref.
    pub git_ref: String,
    /// What triggered it (a forge push), kept on the run; a run joined keeps its own.
    pub trigger: Option<serde_json::Value>,
}

/// A trigger either queues a new run or joins the run already queued for the feature.
#[derive(Clone, Debug)]
pub enum TriggerOutcome {
    Created(RunRecord),
    Coalesced(RunRecord),
}

impl TriggerOutcome {
    /// What an upsert that tried to create run `created` returned: that run, or the one
    /// already queued.
    fn of(created: RunId, run: RunRecord) -> Self {
        if run.id == created {
            TriggerOutcome::Created(run)
        } else {
            TriggerOutcome::Coalesced(run)
        }
    }

    pub fn run(&self) -> &RunRecord {
        match self {
            TriggerOutcome::Created(r) | TriggerOutcome::Coalesced(r) => r,
        }
    }
}

/// Surfaces a coalesced run must cover: `None` (all) absorbs everything.
fn merge_surfaces(a: Option<Vec<Surface>>, b: Option<Vec<Surface>>) -> Option<Vec<Surface>> {
    let (mut a, b) = (a?, b?);
    a.extend(b);
    a.sort();
    a.dedup();
    Some(a)
}

/// Optional filters of the run list.
#[derive(Clone, Debug, Default)]
pub struct RunFilter {
    /// As a reader sees it at the time the list is asked for ([`RunRecord::status_at`]).
    pub status: Option<domain::RunStatus>,
    pub feature_id: Option<String>,
}

impl Store {
    pub async fn run(&self, id: RunId) -> Result<Option<RunRecord>, StoreError> {
        let sql = format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = $1");
        if let Some(hot) = self.hot() {
            return hot.one(&sql, [id], RunRecord::from_sqlite);
        }
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(c)
            .await?))
    }

    pub async fn runs(
        &self,
        workspace: WorkspaceId,
        page: &KeysetPage,
    ) -> Result<Vec<RunRecord>, StoreError> {
        // No status filter: the time is not read.
        let now = Timestamp::from(time::OffsetDateTime::UNIX_EPOCH);
        self.runs_filtered(workspace, &RunFilter::default(), page, now)
            .await
    }

    /// A workspace's runs, newest first, narrowed by `filter` as of `now`.
    pub async fn runs_filtered(
        &self,
        workspace: WorkspaceId,
        filter: &RunFilter,
        page: &KeysetPage,
        now: Timestamp,
    ) -> Result<Vec<RunRecord>, StoreError> {
        let (at, id) = page.bounds();
        let shown = SHOWN_RUN_STATUS.replace("$now", "$7");
        let sql = format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE workspace_id = $1
               AND ($2 IS NULL OR {shown} = $2) AND ($3 IS NULL OR feature_id = $3)
               AND (created_at, id) < ($4, $5)
             ORDER BY created_at DESC, id DESC LIMIT $6"
        );
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(workspace)
            .bind(filter.status)
            .bind(filter.feature_id.as_deref())
            .bind(at)
            .bind(id)
            .bind(page.fetch())
            .bind(now)
            .fetch_all(c)
            .await?))
    }

    /// A run's log, oldest first, strictly after `after_seq`.
    pub async fn run_events(
        &self,
        run: RunId,
        after_seq: i64,
        limit: i64,
    ) -> Result<Vec<RunEventRecord>, StoreError> {
        Ok(read!(self, |c| sqlx::query_as(
            "SELECT run_id, seq, ts, level, stage, message, data FROM run_events
             WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3"
        )
        .bind(run)
        .bind(after_seq)
        .bind(limit)
        .fetch_all(c)
        .await?))
    }
}

/// Claim order: `priority` before `standard`; then round-robin across workspaces: the
/// workspace with the fewest runs under a live lease first, then the one whose last run started
/// longest ago (never first), so one tenant's backlog cannot hold every slot while another
/// tenant's run waits; then oldest first. A `running` run whose lease expired belonged to a
/// worker that died; it is claimed again while it has attempts left. A feature runs one run at
/// a time: while one holds a live lease, the next queued run of the same feature waits, so each
/// run reads the versions and changelog start its predecessor left.
const CLAIM_CANDIDATES: &str = "SELECT c.id FROM runs c
     WHERE (c.status = 'queued' OR (c.status = 'running' AND c.lease_expires_at < $3))
       AND c.attempts < $4
       AND NOT EXISTS (SELECT 1 FROM runs busy
           WHERE busy.workspace_id = c.workspace_id AND busy.feature_id = c.feature_id
             AND busy.status = 'running' AND busy.lease_expires_at >= $3 AND busy.id <> c.id)
     ORDER BY CASE c.tier WHEN 'priority' THEN 0 ELSE 1 END,
         (SELECT COUNT(*) FROM runs live
          WHERE live.workspace_id = c.workspace_id AND live.status = 'running'
            AND live.lease_expires_at >= $3),
         (SELECT last.started_at FROM runs last
          WHERE last.workspace_id = c.workspace_id AND last.started_at IS NOT NULL
          ORDER BY last.started_at DESC LIMIT 1) NULLS FIRST,
         c.created_at, c.id
     LIMIT 1";

impl Store {
    /// Claims the next run for `worker` until `lease_until`, moving it to `running`.
    pub async fn claim_run(
        &self,
        worker: &str,
        lease_until: Timestamp,
        now: Timestamp,
        max_attempts: i64,
    ) -> Result<Option<RunRecord>, StoreError> {
        let lock = match self.engine() {
            crate::Engine::Sqlite => "",
            crate::Engine::Postgres => " FOR UPDATE SKIP LOCKED",
        };
        let sql = format!(
            "UPDATE runs SET status = 'running', attempts = attempts + 1, lease_owner = $1,
                 lease_expires_at = $2, started_at = COALESCE(started_at, $3), updated_at = $3
             WHERE id = ({CLAIM_CANDIDATES}{lock}) RETURNING {RUN_COLUMNS}"
        );
        // One statement: its own transaction on either engine.
        let claimed: Option<RunRecord> =
            write_pool!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(worker)
                .bind(lease_until)
                .bind(now)
                .bind(max_attempts)
                .fetch_optional(c)
                .await?);
        if let Some(run) = &claimed {
            self.run_changed(run.id);
        }
        Ok(claimed)
    }

    /// The earliest lease after `now` of a run or drift check in hand: when one more may be
    /// claimed again if its worker has died. `None` when nothing is in hand. New work wakes
    /// run workers (see `wakeups`); this tells an idle one when to look without being woken.
    pub async fn next_lease_expiry(&self, now: Timestamp) -> Result<Option<Timestamp>, StoreError> {
        Ok(read!(self, |c| sqlx::query_scalar(
            "SELECT MIN(due) FROM (
                 SELECT MIN(lease_expires_at) AS due FROM runs
                 WHERE status = 'running' AND lease_expires_at > $1
                 UNION ALL
                 SELECT MIN(lease_expires_at) FROM drift_checks
                 WHERE status = 'running' AND lease_expires_at > $1
             ) AS next"
        )
        .bind(now)
        .fetch_one(c)
        .await?))
    }

    /// Runs whose worker died on their last allowed attempt; the caller fails them.
    pub async fn abandoned_runs(
        &self,
        now: Timestamp,
        max_attempts: i64,
    ) -> Result<Vec<RunRecord>, StoreError> {
        let sql = format!(
            "SELECT {RUN_COLUMNS} FROM runs
             WHERE status = 'running' AND lease_expires_at < $1 AND attempts >= $2"
        );
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(now)
            .bind(max_attempts)
            .fetch_all(c)
            .await?))
    }

    /// Extends a lease; false when the run is no longer this worker's.
    pub async fn heartbeat_run(
        &self,
        run: RunId,
        worker: &str,
        lease_until: Timestamp,
    ) -> Result<bool, StoreError> {
        let n = write_pool!(self, |c| sqlx::query(
            "UPDATE runs SET lease_expires_at = $3
             WHERE id = $1 AND lease_owner = $2 AND status = 'running'"
        )
        .bind(run)
        .bind(worker)
        .bind(lease_until)
        .execute(c)
        .await?
        .rows_affected());
        Ok(n == 1)
    }

    /// Gives a run `worker` holds back because the worker is stopping: its lease ends now, so
    /// any worker claims it at once, and the attempt does not count towards the run's limit.
    /// False when the run is no longer this worker's (it finished meanwhile).
    pub async fn hand_back_run(
        &self,
        run: RunId,
        worker: &str,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let n = write_pool!(self, |c| sqlx::query(
            "UPDATE runs SET lease_owner = NULL, lease_expires_at = $3, updated_at = $3,
                 attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END
             WHERE id = $1 AND lease_owner = $2 AND status = 'running'"
        )
        .bind(run)
        .bind(worker)
        .bind(now)
        .execute(c)
        .await?
        .rows_affected());
        if n == 1 {
            self.run_changed(run);
            self.wake(crate::Queue::Runs);
        }
        Ok(n == 1)
    }

    /// The source commits of the feature's two latest successful runs at the default branch
    /// (runs at other refs are previews, never a baseline) at different commits, newest first: where its changelog resumes, and where it resumed before (a run at the
    /// same HEAD as the latest covers that latest run's range again).
    pub async fn last_successful_commits(
        &self,
        workspace: WorkspaceId,
        feature_id: &str,
    ) -> Result<Vec<String>, StoreError> {
        Ok(read!(self, |c| sqlx::query_scalar(
            "SELECT source_commit FROM runs
             WHERE workspace_id = $1 AND feature_id = $2 AND status = 'succeeded'
               AND source_commit IS NOT NULL AND git_ref = ''
             GROUP BY source_commit ORDER BY MAX(finished_at) DESC LIMIT 2"
        )
        .bind(workspace)
        .bind(feature_id)
        .fetch_all(c)
        .await?))
    }

    /// Appends one log event to a run in its own short transaction.
    pub async fn log_run_event(
        &self,
        run: RunId,
        level: LogLevel,
        stage: LogStage,
        message: &str,
        data: &serde_json::Value,
        now: Timestamp,
    ) -> Result<i64, StoreError> {
        let mut tx = self.begin().await?;
        let seq = tx
            .append_run_event(run, level, stage, message, data, now)
            .await?;
        tx.commit().await?;
        Ok(seq)
    }
}

/// How a claimed run ends.
#[derive(Clone, Debug)]
pub struct RunEnding {
    pub status: RunStatus,
    pub source_commit: Option<String>,
    pub artifacts: Vec<crate::Artifact>,
    pub error: Option<String>,
}

impl Tx {
    /// Finishes a run this worker holds (or, with `worker` = None, any running run). `None`
    /// when the run was no longer this worker's: its result must then not be stored.
    pub async fn finish_run(
        &mut self,
        run: RunId,
        worker: Option<&str>,
        ending: &RunEnding,
        now: Timestamp,
    ) -> Result<Option<RunRecord>, StoreError> {
        let sql = format!(
            "UPDATE runs SET status = $3, source_commit = COALESCE($4, source_commit),
                 artifacts = $5, error = $6, finished_at = $7, updated_at = $7,
                 lease_owner = NULL, lease_expires_at = NULL
             WHERE id = $1 AND status = 'running' AND ($2 IS NULL OR lease_owner = $2)
             RETURNING {RUN_COLUMNS}"
        );
        let finished: Option<RunRecord> =
            on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(run)
                .bind(worker)
                .bind(ending.status)
                .bind(ending.source_commit.as_deref())
                .bind(JsonText(&ending.artifacts))
                .bind(ending.error.as_deref())
                .bind(now)
                .fetch_optional(c)
                .await?);
        if finished.is_some() {
            self.run_changed(run);
            // The feature's next queued run may start now.
            self.wake(crate::Queue::Runs);
        }
        Ok(finished)
    }

    /// Queues a run, or joins the run already queued for the same feature: its tier is raised
    /// to the higher of the two, `notify_on_complete` is OR-ed, and its surfaces widened.
    /// A run of every surface is one upsert (a concurrent trigger waits and joins it). A run
    /// limited to some surfaces (a regenerate) inserts behind a savepoint: when a concurrent
    /// trigger of the same feature commits first, the insert meets the "one queued run per
    /// feature" index, rolls back to the savepoint and joins that run instead.
    ///
    /// Only a run created wakes the workers: joining one already queued adds no work (on
    /// PostgreSQL, `runs_queued` notifies for inserted rows only, migration `0011`).
    pub async fn trigger_run(
        &mut self,
        new: NewRun,
        now: Timestamp,
    ) -> Result<TriggerOutcome, StoreError> {
        let outcome = self.create_or_join(new, now).await?;
        if let TriggerOutcome::Created(_) = outcome {
            self.wake(crate::Queue::Runs);
        }
        Ok(outcome)
    }

    async fn create_or_join(
        &mut self,
        new: NewRun,
        now: Timestamp,
    ) -> Result<TriggerOutcome, StoreError> {
        if new.surfaces.is_none() {
            return self.trigger_all_surfaces(new, now).await;
        }
        if let Some(existing) = self.queued_run(&new).await? {
            return Ok(TriggerOutcome::Coalesced(
                self.join_queued(existing, new, now).await?,
            ));
        }
        self.savepoint("SAVEPOINT trigger_run").await?;
        let insert = format!(
            "INSERT INTO runs (id, workspace_id, feature_id, surfaces, status, source, tier,
                 notify_on_complete, created_at, updated_at, git_ref, run_trigger)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11) RETURNING {RUN_COLUMNS}"
        );
        let inserted = on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(insert))
            .bind(RunId::generate())
            .bind(new.workspace_id)
            .bind(&new.feature_id)
            .bind(new.surfaces.clone().map(JsonText))
            .bind(RunStatus::Queued)
            .bind(new.source)
            .bind(new.tier)
            .bind(new.notify_on_complete)
            .bind(now)
            .bind(&new.git_ref)
            .bind(new.trigger.clone().map(JsonText))
            .fetch_one(c)
            .await
            .map_err(StoreError::from_write));
        match inserted {
            Ok(run) => {
                self.savepoint("RELEASE SAVEPOINT trigger_run").await?;
                Ok(TriggerOutcome::Created(run))
            }
            Err(StoreError::Conflict) => {
                self.savepoint("ROLLBACK TO SAVEPOINT trigger_run").await?;
                let existing = self.queued_run(&new).await?.ok_or(StoreError::Conflict)?;
                Ok(TriggerOutcome::Coalesced(
                    self.join_queued(existing, new, now).await?,
                ))
            }
            Err(e) => Err(e),
        }
    }

    /// Runs one savepoint statement (`SAVEPOINT …`, `RELEASE …`, `ROLLBACK TO …`).
    async fn savepoint(&mut self, statement: &'static str) -> Result<(), StoreError> {
        on_tx!(self, |c| sqlx::query(statement)
            .execute(c)
            .await?
            .rows_affected());
        Ok(())
    }

    async fn queued_run(&mut self, new: &NewRun) -> Result<Option<RunRecord>, StoreError> {
        let select = format!(
            "SELECT {RUN_COLUMNS} FROM runs
             WHERE workspace_id = $1 AND feature_id = $2 AND git_ref = $3 AND status = 'queued'"
        );
        Ok(on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            select
        ))
        .bind(new.workspace_id)
        .bind(&new.feature_id)
        .bind(&new.git_ref)
        .fetch_optional(c)
        .await?))
    }

    async fn join_queued(
        &mut self,
        existing: RunRecord,
        new: NewRun,
        now: Timestamp,
    ) -> Result<RunRecord, StoreError> {
        let surfaces = merge_surfaces(existing.surfaces.map(|s| s.0), new.surfaces);
        let update = format!(
            "UPDATE runs SET tier = $2, notify_on_complete = $3, surfaces = $4, updated_at = $5
             WHERE id = $1 RETURNING {RUN_COLUMNS}"
        );
        Ok(on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            update
        ))
        .bind(existing.id)
        .bind(existing.tier.max(new.tier))
        .bind(existing.notify_on_complete || new.notify_on_complete)
        .bind(surfaces.map(JsonText))
        .bind(now)
        .fetch_one(c)
        .await?))
    }

    /// A run of every surface: one upsert on the "one queued run per feature" index. Joining
    /// a queued run keeps its surfaces at "every surface" (nothing is narrower), raises its
    /// tier and ORs `notify_on_complete`; the returned id tells whether a run was created.
    async fn trigger_all_surfaces(
        &mut self,
        new: NewRun,
        now: Timestamp,
    ) -> Result<TriggerOutcome, StoreError> {
        let upsert = format!(
            "INSERT INTO runs (id, workspace_id, feature_id, surfaces, status, source, tier,
                 notify_on_complete, created_at, updated_at, git_ref, run_trigger)
             VALUES ($1, $2, $3, NULL, 'queued', $4, $5, $6, $7, $7, $8, $9)
             ON CONFLICT (workspace_id, feature_id, git_ref) WHERE status = 'queued' DO UPDATE SET
                 surfaces = NULL,
                 tier = CASE WHEN excluded.tier = 'priority' THEN 'priority' ELSE runs.tier END,
                 notify_on_complete = (runs.notify_on_complete OR excluded.notify_on_complete),
                 updated_at = excluded.updated_at
             RETURNING {RUN_COLUMNS}"
        );
        let id = RunId::generate();
        let trigger = new.trigger.map(JsonText);
        if let Some(c) = self.direct().await? {
            let trigger_text = trigger.as_ref().map(|t| t.0.to_string());
            let run = c
                .prepare_cached(&upsert)
                .and_then(|mut statement| {
                    statement.query_row(
                        &*numbered(&[
                            &id,
                            &new.workspace_id,
                            &new.feature_id,
                            &new.source,
                            &new.tier,
                            &new.notify_on_complete,
                            &now,
                            &new.git_ref,
                            &trigger_text,
                        ]),
                        RunRecord::from_sqlite,
                    )
                })
                .map_err(direct::from_write)?;
            return Ok(TriggerOutcome::of(id, run));
        }
        let run: RunRecord = on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(upsert))
            .bind(id)
            .bind(new.workspace_id)
            .bind(&new.feature_id)
            .bind(new.source)
            .bind(new.tier)
            .bind(new.notify_on_complete)
            .bind(now)
            .bind(&new.git_ref)
            .bind(trigger)
            .fetch_one(c)
            .await
            .map_err(StoreError::from_write)?);
        Ok(TriggerOutcome::of(id, run))
    }

    /// Appends one structured log event to a run, numbering it after the last one.
    pub async fn append_run_event(
        &mut self,
        run: RunId,
        level: LogLevel,
        stage: LogStage,
        message: &str,
        data: &serde_json::Value,
        now: Timestamp,
    ) -> Result<i64, StoreError> {
        let seq = on_tx!(self, |c| sqlx::query_scalar(
            "INSERT INTO run_events (run_id, seq, ts, level, stage, message, data)
             VALUES ($1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM run_events WHERE run_id = $1),
                     $2, $3, $4, $5, $6)
             RETURNING seq"
        )
        .bind(run)
        .bind(now)
        .bind(level)
        .bind(stage)
        .bind(message)
        .bind(JsonText(data))
        .fetch_one(c)
        .await?);
        self.run_changed(run);
        Ok(seq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_surfaces_absorb_a_subset() {
        assert_eq!(merge_surfaces(None, Some(vec![Surface::Blog])), None);
        assert_eq!(
            merge_surfaces(
                Some(vec![Surface::Blog]),
                Some(vec![Surface::DevDocs, Surface::Blog])
            ),
            Some(vec![Surface::DevDocs, Surface::Blog])
        );
    }
}
