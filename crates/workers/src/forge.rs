//! The forges' side of the workers: a push's delivery is read (the pushed commits fetched
//! and diffed in a sandboxed child) and one run queued per feature it touched; the commit
//! statuses of pull requests' drift checks are posted to the forge, retried on the webhook
//! schedule until the forge takes them.

use std::collections::BTreeMap;
use std::time::Duration;

use forges::{CommitState, ForgeEvent, ForgeKind, Push};
use operations::Operations;
use operations::forge::DeliveryOutcome;
use store::{CommitStatusRecord, ForgeDeliveryRecord, Queue, StatusAttempt};
use webhooks::{RetrySchedule, SecretBox, Sender};

use crate::sandbox::{PushToRead, Sandbox, Work};
use crate::{Shutdown, WorkerContext};

/// The most implicit features a push is matched against.
const KNOWN_FEATURES: i64 = 500;

/// What acting on a delivery reads with.
pub struct PushReader<'a> {
    pub ops: &'a Operations,
    pub sandbox: &'a Sandbox,
    pub secrets: &'a SecretBox,
}

/// Acts on one claimed delivery and records what it did (or why it could not).
pub async fn execute_delivery(
    reader: &PushReader<'_>,
    worker: &str,
    delivery: ForgeDeliveryRecord,
) {
    let started = std::time::Instant::now();
    let mut read = Duration::ZERO;
    let (status, outcome) = match act(reader, &delivery, &mut read).await {
        Ok(outcome) => ("done", outcome),
        Err(message) => ("failed", DeliveryOutcome::said(message)),
    };
    let store = &reader.ops.store;
    let outcome = serde_json::to_value(&outcome).unwrap_or_default();
    let now = reader.ops.clock.timestamp();
    if let Err(e) = store
        .finish_forge_delivery(delivery.id, worker, status, &outcome, now)
        .await
    {
        tracing::warn!(delivery = %delivery.id, error = %e, "could not record a forge delivery's outcome");
    }
    // The sandboxed read (fetch + diff) apart from the rest of the job, which the forge
    // benchmark reports on its own ("accepted → runs queued, excluding the fetch").
    metrics::histogram!("forge_push_read_duration_seconds").record(read.as_secs_f64());
    metrics::histogram!("forge_push_job_duration_seconds")
        .record(started.elapsed().saturating_sub(read).as_secs_f64());
}

/// `read` is set to the time spent in the sandboxed fetch and diff.
async fn act(
    reader: &PushReader<'_>,
    delivery: &ForgeDeliveryRecord,
    read: &mut Duration,
) -> Result<DeliveryOutcome, String> {
    let ops = reader.ops;
    let ws = ops
        .store
        .workspace(delivery.workspace_id)
        .await
        .map_err(|e| e.to_string())?
        .filter(|w| w.active)
        .ok_or("The workspace no longer exists.")?;
    let Some(ForgeEvent::Push(push)) = operations::forge::stored_event(delivery) else {
        return Ok(DeliveryOutcome::said("Nothing to do for this event."));
    };
    let after = push.after.clone().ok_or("The push deleted the branch.")?;
    let source = crate::repository::source_of(
        &ops.store,
        reader.secrets,
        &reader.sandbox.mirrors,
        &ws,
        &after,
    )
    .await?;
    let known = ops
        .store
        .documented_features(ws.id, KNOWN_FEATURES)
        .await
        .map_err(|e| e.to_string())?;
    let work = Work::Push(PushToRead {
        repo: source,
        before: push.before.clone(),
        after: after.clone(),
        known,
    });
    let mut fetched = None;
    let reading = std::time::Instant::now();
    let result = reader.sandbox.read_push(work, &mut fetched).await;
    *read = reading.elapsed();
    let default_branch = match &fetched {
        Some(Ok(f)) => Some(f.default_branch.clone()),
        _ => ws.default_branch.clone(),
    };
    crate::repository::note_fetch(&ops.store, &ops.clock, ws.id, fetched).await;
    let touched = result.map_err(|stopped| stopped.0)??;
    if let Some(branch) = default_branch
        && push.branch() != Some(branch.as_str())
    {
        return Ok(DeliveryOutcome::said(format!(
            "Nothing triggered: {} is not the default branch ({branch}).",
            push.git_ref
        )));
    }
    if touched.features.is_empty() {
        return Ok(DeliveryOutcome::said(format!(
            "Nothing triggered: the push changed {} paths, none of them a feature's.",
            touched.changed_paths
        )));
    }
    queue_runs(ops, ws, delivery, push, touched).await
}

async fn queue_runs(
    ops: &Operations,
    ws: store::WorkspaceRecord,
    delivery: &ForgeDeliveryRecord,
    push: Push,
    touched: pipeline::Touched,
) -> Result<DeliveryOutcome, String> {
    let (op, record, features) = (ops.clone(), delivery.clone(), touched.features.clone());
    let run_ids = ops
        .store
        .write(move |tx| {
            Box::pin(async move { op.queue_push_runs(tx, &ws, &record, &push, &features).await })
        })
        .await
        .map_err(|e| e.to_string())?;
    let shown: Vec<&str> = touched
        .features
        .iter()
        .take(run_ids.len())
        .map(String::as_str)
        .collect();
    let noun = if run_ids.len() == 1 { "run" } else { "runs" };
    let mut summary = format!("{} {noun} queued: {}", run_ids.len(), shown.join(", "));
    if touched.features.len() > run_ids.len() {
        summary.push_str(&format!(
            " ({} more features touched; trigger them by hand)",
            touched.features.len() - run_ids.len()
        ));
    }
    Ok(DeliveryOutcome {
        summary: format!("{summary}."),
        run_ids,
        drift_check_id: None,
    })
}

/// Posts commit statuses as they fall due, until `shutdown`.
pub async fn status_worker(ctx: WorkerContext, mut shutdown: Shutdown) {
    let sender = match Sender::new(
        ctx.deliveries.address_policy.clone(),
        ctx.deliveries.timeout,
    ) {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(error = %e, "commit statuses are off: their HTTP client could not be built");
            return;
        }
    };
    let worker = format!("statuses-{}", domain::RunId::generate());
    let mut wakeup = ctx.store.wakeup(Queue::Runs);
    loop {
        if shutdown.is_triggered() {
            return;
        }
        wakeup.arm();
        let now = ctx.clock.timestamp();
        match ctx
            .store
            .claim_commit_status(&worker, now.plus(Duration::from_secs(60)), now)
            .await
        {
            Ok(Some(status)) => {
                post(&ctx, &sender, &worker, status).await;
                continue;
            }
            Ok(None) => {}
            Err(e) => tracing::warn!(error = %e, "could not claim a commit status"),
        }
        let wait = crate::wait_until_due(
            ctx.store.next_commit_status_due().await,
            &ctx.clock,
            crate::safety_poll(&ctx.store, ctx.deliveries.safety_poll),
        );
        tokio::select! {
            () = wakeup.woken() => {}
            () = shutdown.sleep(wait) => {}
        }
    }
}

/// One attempt at putting `status.state` on the forge.
async fn post(ctx: &WorkerContext, sender: &Sender, worker: &str, status: CommitStatusRecord) {
    let attempt = match attempt(ctx, sender, &status).await {
        Ok(()) => StatusAttempt::Posted {
            state: status.state.clone(),
        },
        Err((error, retryable)) => {
            let schedule: &RetrySchedule = &ctx.deliveries.schedule;
            let made = usize::try_from(status.attempts).unwrap_or(usize::MAX);
            let retry_at = retryable
                .then(|| schedule.next_delay(made, webhooks::FailureKind::Failed, None))
                .flatten()
                .map(|d| ctx.clock.timestamp().plus(d));
            tracing::info!(check = %status.drift_check_id, %error, "a commit status was not posted");
            StatusAttempt::Failed { error, retry_at }
        }
    };
    let now = ctx.clock.timestamp();
    if let Err(e) = ctx
        .store
        .commit_status_attempted(status.drift_check_id, worker, &attempt, now)
        .await
    {
        tracing::warn!(error = %e, "could not record a commit status attempt");
    }
}

/// Posts the status; an error says why and whether trying again may help.
async fn attempt(
    ctx: &WorkerContext,
    sender: &Sender,
    status: &CommitStatusRecord,
) -> Result<(), (String, bool)> {
    let ops = &ctx.ops;
    let forge: ForgeKind = status
        .forge
        .parse()
        .map_err(|()| ("unknown forge".to_owned(), false))?;
    let settings = ops
        .store
        .forge_settings(status.workspace_id)
        .await
        .map_err(|e| (e.to_string(), true))?
        .ok_or((
            "no forge token is set: the status is kept here only".to_owned(),
            false,
        ))?;
    let (root, token) = ops
        .status_api(&settings, forge)
        .map_err(|e| (e, false))?
        .ok_or((
            "no forge token is set: the status is kept here only".to_owned(),
            false,
        ))?;
    let repository = operations::forge::stored_repository(&status.repository.0);
    let state: CommitState = status
        .state
        .parse()
        .map_err(|()| ("unknown state".to_owned(), false))?;
    let target = ops.url(&format!(
        "/portal/w/{}/drift-checks/{}",
        status.workspace_id, status.drift_check_id
    ));
    let update = forges::StatusUpdate {
        sha: &status.sha,
        state,
        description: &status.description,
        target_url: &target,
    };
    let request = forges::status_request(forge, &root, &token, &repository, &update)
        .map_err(|e| (e, false))?;
    let headers: BTreeMap<String, String> = request.headers.into_iter().collect();
    let exchange = sender.post(&request.url, headers, &request.body).await;
    match &exchange.outcome {
        webhooks::AttemptOutcome::Delivered { .. } => Ok(()),
        other => {
            let why = exchange
                .error_message()
                .or_else(|| {
                    other
                        .status_code()
                        .map(|s| format!("the forge answered {s}"))
                })
                .unwrap_or_else(|| "the forge refused the status".into());
            Err((why, true))
        }
    }
}
