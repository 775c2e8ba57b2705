//! The publish worker: keeps each workspace's publish target in sync with what it has
//! published. A target whose sync is due is claimed with a lease (one sync per target at a
//! time, whichever node), its workspace's export laid out (`operations`), written into the
//! target's folder and pushed (`mirrors::push_files`, which fetches and redoes the commit on
//! the new tip when the push is rejected). Failures are recorded with their reason and retried
//! on the webhook schedule (then hourly: a published change is never dropped), except a
//! refused credential, which waits until the credential changes.

use std::time::Duration;

use operations::publish_targets::SyncPlan;
use store::{PublishTargetRecord, Queue, SyncOutcome};

use crate::{Shutdown, WorkerContext};

/// How often a push is redone on a newer tip within one attempt.
const REBASES: u32 = 3;
/// The wait between attempts once the retry schedule is used up.
const LAST_RETRY: Duration = Duration::from_secs(3600);

/// Syncs publish targets as they fall due, until `shutdown`.
pub async fn publish_worker(ctx: WorkerContext, mut shutdown: Shutdown) {
    let worker = format!("publish-{}", domain::RunId::generate());
    let mut wakeup = ctx.store.wakeup(Queue::Runs);
    loop {
        if shutdown.is_triggered() {
            return;
        }
        wakeup.arm();
        let now = ctx.clock.timestamp();
        // The lease outlasts the push's own time bound, so no other node takes the target
        // while this one may still push.
        let lease = Duration::from_secs(ctx.sandbox.mirrors.limits.wall_seconds + 120);
        match ctx
            .store
            .claim_publish_sync(&worker, now.plus(lease), now)
            .await
        {
            Ok(Some(target)) => {
                sync(&ctx, &worker, target).await;
                continue;
            }
            Ok(None) => {}
            Err(e) => tracing::warn!(error = %e, "could not claim a publish target"),
        }
        let wait = crate::wait_until_due(
            ctx.store.next_publish_sync_due().await,
            &ctx.clock,
            crate::safety_poll(&ctx.store, ctx.deliveries.safety_poll),
        );
        tokio::select! {
            () = wakeup.woken() => {}
            () = shutdown.sleep(wait) => {}
        }
    }
}

/// One attempt at bringing `target` up to date, recorded whatever its end.
async fn sync(ctx: &WorkerContext, worker: &str, target: PublishTargetRecord) {
    let workspace = target.workspace_id;
    let outcome = match attempt(ctx, &target).await {
        Ok((commit, state)) => SyncOutcome::Synced { commit, state },
        Err(mirrors::PushError::Auth(error)) => SyncOutcome::Failed {
            error,
            retry_at: None,
        },
        Err(e) => {
            let made = usize::try_from(target.attempts).unwrap_or(usize::MAX);
            let delay = ctx
                .deliveries
                .schedule
                .next_delay(made, webhooks::FailureKind::Failed, None)
                .unwrap_or(LAST_RETRY);
            SyncOutcome::Failed {
                error: e.to_string(),
                retry_at: Some(ctx.clock.timestamp().plus(delay)),
            }
        }
    };
    match &outcome {
        SyncOutcome::Synced { commit, .. } => {
            tracing::info!(%workspace, commit = commit.as_deref().unwrap_or(""), "publish target synced");
        }
        SyncOutcome::Failed { error, .. } => {
            tracing::info!(%workspace, %error, "a publish target's sync failed");
        }
    }
    let now = ctx.clock.timestamp();
    if let Err(e) = ctx
        .store
        .publish_sync_ended(workspace, worker, &outcome, now)
        .await
    {
        tracing::warn!(%workspace, error = %e, "could not record a publish target's sync");
    }
}

async fn attempt(
    ctx: &WorkerContext,
    target: &PublishTargetRecord,
) -> Result<(Option<String>, serde_json::Value), mirrors::PushError> {
    let plan: SyncPlan = ctx
        .ops
        .plan_publish_sync(target)
        .await
        .map_err(mirrors::PushError::Failed)?;
    let settings = &ctx.sandbox.mirrors;
    let request = mirrors::PushRequest {
        git: settings.git.clone(),
        work_dir: settings.cache_dir.join("publish"),
        key: target.workspace_id.to_string(),
        url: target.url.clone(),
        credential: plan.credential,
        branch: target.branch.clone(),
        folder: target.folder.clone(),
        files: plan.files,
        previous: plan.previous,
        message: plan.message,
        author: settings.publish_author.clone(),
        allowed_cidrs: settings.allowed_cidrs.clone(),
        limits: settings.limits.clone(),
        rebases: REBASES,
    };
    let pushed = tokio::task::spawn_blocking(move || mirrors::push_files(&request))
        .await
        .map_err(|e| mirrors::PushError::Failed(format!("the push stopped: {e}")))??;
    let state =
        serde_json::to_value(&plan.state).map_err(|e| mirrors::PushError::Failed(e.to_string()))?;
    Ok((pushed.commit, state))
}
