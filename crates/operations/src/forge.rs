//! Forges drive the docs: the workspace's forge connection (the secret its webhooks are
//! verified with, the token commit statuses are posted with), receiving a delivery (verified,
//! recorded once, queued), and what a delivery asks for once a worker has read the
//! repository: runs for a push, a drift check with a commit status for a pull request.

pub use api_types::{
    ForgeConnection, ForgeDelivery, ForgeEndpoints, PullRequestCheck, RotateSecret, RunTrigger,
    SetForgeToken,
};
use domain::{RunSource, Scope, Tier, WorkspaceId};
use forges::{CommitState, ForgeEvent, ForgeKind, PullRequest, Push};
use serde::{Deserialize, Serialize};
use store::{
    CommitStatusRecord, ForgeDeliveryRecord, ForgeSettingsRecord, NewCommitStatus,
    NewForgeDelivery, NewRun, Tx, WorkspaceRecord,
};

use crate::drift::DriftSummary;
use crate::error::{Error, Result};
use crate::{Caller, Operations};

/// The most features one push may queue runs for (the rest are named in the outcome).
pub const MAX_RUNS_PER_PUSH: usize = 50;

/// What a delivery's job found and did, kept on the delivery (`outcome`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DeliveryOutcome {
    /// In words, for the portal and the API.
    pub summary: String,
    #[serde(default)]
    pub run_ids: Vec<String>,
    #[serde(default)]
    pub drift_check_id: Option<String>,
}

impl DeliveryOutcome {
    pub fn said(summary: impl Into<String>) -> Self {
        Self {
            summary: summary.into(),
            ..Self::default()
        }
    }
}

/// How a delivery was answered.
#[derive(Debug)]
pub enum Received {
    /// Recorded and queued: the work happens in a worker.
    Queued(ForgeDeliveryRecord),
    /// Recorded, and done or nothing to do: a pull request's check queued, a ping, an event
    /// or action not acted on, a push to another branch.
    Ignored(ForgeDeliveryRecord),
    /// The same delivery id arrived in the last 24 hours: nothing done again.
    Duplicate,
}

/// What a queued delivery's job must do, once recorded.
pub fn stored_event(record: &ForgeDeliveryRecord) -> Option<ForgeEvent> {
    serde_json::from_value(record.request.0.clone()).ok()
}

fn secret_context(workspace: WorkspaceId) -> Vec<u8> {
    format!("forge-secret:{workspace}").into_bytes()
}

fn token_context(workspace: WorkspaceId) -> Vec<u8> {
    format!("forge-token:{workspace}").into_bytes()
}

fn counted(forge: &str, outcome: &'static str) {
    metrics::counter!(
        "content_pipeline_forge_deliveries_total",
        "forge" => forge.to_owned(),
        "outcome" => outcome
    )
    .increment(1);
}

/// The one-line verdict a pull request's commit status shows for a finished check.
pub fn verdict(outcome: std::result::Result<&DriftSummary, &str>) -> (CommitState, String) {
    match outcome {
        Err(error) => (
            CommitState::Error,
            format!("The docs check could not run: {error}"),
        ),
        Ok(summary) if summary.drifted.is_empty() => (
            CommitState::Success,
            format!("No article drifted ({} checked)", summary.articles_checked),
        ),
        Ok(summary) => {
            let names: Vec<String> = summary
                .drifted
                .iter()
                .map(|d| format!("{} {}", d.feature_id, d.surface.as_str()))
                .collect();
            let n = names.len();
            let noun = if n == 1 { "article" } else { "articles" };
            (
                CommitState::Failure,
                format!("{n} {noun} drifted: {}", names.join(", ")),
            )
        }
    }
}

impl Operations {
    /// The payload URL of each forge for `ws`.
    fn endpoints(&self, ws: WorkspaceId) -> ForgeEndpoints {
        let at = |forge: ForgeKind| self.url(&format!("/v1/workspaces/{ws}/forge/{forge}"));
        ForgeEndpoints {
            github: at(ForgeKind::Github),
            gitlab: at(ForgeKind::Gitlab),
            gitea: at(ForgeKind::Gitea),
        }
    }

    fn connection_view(
        &self,
        ws: WorkspaceId,
        r: Option<ForgeSettingsRecord>,
        secret: Option<String>,
    ) -> ForgeConnection {
        let now = self.clock.timestamp();
        ForgeConnection {
            workspace_id: ws,
            endpoints: self.endpoints(ws),
            secret_set: r.as_ref().is_some_and(|r| r.secret.is_some()),
            secret,
            previous_secret_expires_at: r
                .as_ref()
                .and_then(|r| r.previous_expires_at)
                .filter(|t| *t > now),
            api_url: r.as_ref().and_then(|r| r.api_url.clone()),
            api_token: r.and_then(|r| {
                r.api_token.map(|_| api_types::RepositoryCredential {
                    kind: "token".into(),
                    fingerprint: r.api_token_fingerprint.unwrap_or_default(),
                    public_key: None,
                })
            }),
        }
    }

    /// The workspace's forge connection; admins only.
    pub async fn forge_connection(
        &self,
        caller: &Caller,
        ws: &WorkspaceRecord,
    ) -> Result<ForgeConnection> {
        caller.check(ws.id, Scope::Admin, "workspace", ws.id)?;
        let record = self.store.forge_settings(ws.id).await?;
        Ok(self.connection_view(ws.id, record, None))
    }

    /// Generates the secret the forge signs deliveries with; the previous one stays valid for
    /// the grace period. The answer is the only time the secret is shown.
    pub async fn rotate_forge_secret(
        &self,
        tx: &mut Tx,
        caller: &Caller,
        ws: &WorkspaceRecord,
        req: RotateSecret,
    ) -> Result<ForgeConnection> {
        caller.check(ws.id, Scope::Admin, "workspace", ws.id)?;
        let grace = crate::webhooks::grace_period(&req)?;
        let secret = forges::generate_secret();
        let sealed = self
            .secrets
            .seal_bytes(secret.as_bytes(), &secret_context(ws.id))
            .map_err(Error::internal)?;
        let now = self.clock.timestamp();
        let record = tx
            .rotate_forge_secret(ws.id, &sealed, now.plus(grace), now)
            .await?;
        Ok(self.connection_view(ws.id, Some(record), Some(secret)))
    }

    /// Sets (or, with `None`, removes) the token commit statuses are posted with.
    pub async fn set_forge_token(
        &self,
        tx: &mut Tx,
        caller: &Caller,
        ws: &WorkspaceRecord,
        req: Option<SetForgeToken>,
    ) -> Result<ForgeConnection> {
        caller.check(ws.id, Scope::Admin, "workspace", ws.id)?;
        let now = self.clock.timestamp();
        let record = match req {
            None => tx.set_forge_api(ws.id, None, None, now).await?,
            Some(req) => {
                let printable = |t: &str| t.bytes().all(|b| b.is_ascii_graphic());
                if req.token.is_empty() || req.token.len() > 4096 || !printable(&req.token) {
                    return Err(Error::validation(
                        "token",
                        "token must be 1–4096 printable ASCII characters without spaces.",
                    ));
                }
                if let Some(url) = &req.api_url {
                    crate::bounded("api_url", url, 2048)?;
                    self.address_policy
                        .check_url(url)
                        .map_err(|e| Error::validation("api_url", format!("api_url {e}.")))?;
                }
                let sealed = self
                    .secrets
                    .seal_bytes(req.token.as_bytes(), &token_context(ws.id))
                    .map_err(Error::internal)?;
                let fingerprint = crate::repositories::token_fingerprint(&req.token);
                tx.set_forge_api(
                    ws.id,
                    Some((&sealed, &fingerprint)),
                    req.api_url.as_deref(),
                    now,
                )
                .await?
            }
        };
        Ok(self.connection_view(ws.id, Some(record), None))
    }

    /// The secrets a delivery may be signed with now: the current one, and the previous one
    /// during its grace period.
    fn live_secrets(&self, r: &ForgeSettingsRecord) -> Vec<String> {
        let now = self.clock.timestamp();
        let context = secret_context(r.workspace_id);
        let previous = r
            .previous_secret
            .as_ref()
            .filter(|_| r.previous_expires_at.is_some_and(|t| t > now));
        [r.secret.as_ref(), previous]
            .into_iter()
            .flatten()
            .filter_map(|sealed| self.secrets.open_bytes(sealed, &context).ok())
            .filter_map(|plain| String::from_utf8(plain).ok())
            .collect()
    }

    /// The token and API root commit statuses of `forge` are posted with; `None` when no token
    /// is set (statuses are then kept here only).
    pub fn status_api(
        &self,
        r: &ForgeSettingsRecord,
        forge: ForgeKind,
    ) -> std::result::Result<Option<(String, String)>, String> {
        let Some(sealed) = &r.api_token else {
            return Ok(None);
        };
        let token = self
            .secrets
            .open_bytes(sealed, &token_context(r.workspace_id))
            .ok()
            .and_then(|t| String::from_utf8(t).ok())
            .ok_or("the forge token could not be decrypted with the server key")?;
        let root = r
            .api_url
            .clone()
            .or_else(|| forge.public_api().map(str::to_owned))
            .ok_or("set the forge API URL (api_url) for a self-hosted forge")?;
        Ok(Some((root, token)))
    }

    /// Receives a delivery of `forge` for workspace `ws` (both as the path gave them). It is
    /// verified against the workspace's forge secret before anything is read or recorded;
    /// then recorded once per delivery id, and queued when there is work.
    pub async fn receive_forge_delivery<'h>(
        &self,
        ws: &str,
        forge: &str,
        header: impl Fn(&str) -> Option<&'h str>,
        body: &[u8],
    ) -> Result<Received> {
        let kind: ForgeKind = forge
            .parse()
            .map_err(|()| Error::not_found("forge", forge))?;
        let not_found = || Error::not_found("workspace", ws);
        let ws_id: WorkspaceId = ws.parse().map_err(|_| not_found())?;
        let workspace = self
            .store
            .workspace(ws_id)
            .await?
            .filter(|w| w.active)
            .ok_or_else(not_found)?;
        let settings = self.store.forge_settings(ws_id).await?;
        let secrets = settings
            .as_ref()
            .map(|s| self.live_secrets(s))
            .unwrap_or_default();
        let secret_refs: Vec<&str> = secrets.iter().map(String::as_str).collect();
        if let Err(refusal) = forges::verify(kind, &header, body, &secret_refs) {
            counted(kind.as_str(), "unverified");
            return Err(Error::unauthenticated(refusal.to_string()));
        }
        let delivery = forges::delivery_of(kind, &header)
            .map_err(|e| Error::validation("payload", e.to_string()))?;
        let event = forges::parse_event(kind, &delivery.event, body).map_err(|e| {
            Error::validation(
                "payload",
                format!("The {kind} {} event: {e}.", delivery.event),
            )
        })?;
        let (status, outcome) = match &event {
            ForgeEvent::Ping => (
                "ignored",
                Some(DeliveryOutcome::said(
                    "Ping: the forge reached the service.",
                )),
            ),
            ForgeEvent::Ignored { what } => (
                "ignored",
                Some(DeliveryOutcome::said(format!(
                    "Ignored: {what} is not acted on."
                ))),
            ),
            ForgeEvent::Push(push) => match self.known_default_branch(&workspace).await? {
                Some(branch) if push.branch() != Some(branch.as_str()) => (
                    "ignored",
                    Some(DeliveryOutcome::said(format!(
                        "Nothing triggered: {} is not the default branch ({branch}).",
                        push.git_ref
                    ))),
                ),
                _ if push.after.is_none() => (
                    "ignored",
                    Some(DeliveryOutcome::said(
                        "Nothing triggered: the push deleted the branch.",
                    )),
                ),
                _ => ("queued", None),
            },
            ForgeEvent::PullRequest(_) => ("running", None),
        };
        counted(
            kind.as_str(),
            if status == "queued" {
                "queued"
            } else {
                "ignored"
            },
        );
        let new = NewForgeDelivery {
            workspace_id: ws_id,
            forge: kind.as_str().to_owned(),
            delivery: delivery.id,
            event: delivery.event,
            status: status.to_owned(),
            request: serde_json::to_value(&event).map_err(Error::internal)?,
            outcome: outcome
                .map(|o| serde_json::to_value(o).map_err(Error::internal))
                .transpose()?,
        };
        let now = self.clock.timestamp();
        let (ops, pull) = (
            self.clone(),
            match event {
                ForgeEvent::PullRequest(pull) => Some(pull),
                _ => None,
            },
        );
        let recorded = self
            .store
            .write(move |tx| {
                Box::pin(async move {
                    let Some(record) = tx.record_forge_delivery(&new, now).await? else {
                        return Ok::<_, Error>(None);
                    };
                    match pull {
                        // A pull request needs no fetch to be queued: its check is the job.
                        Some(pull) => {
                            let check = ops
                                .queue_pull_request_check(tx, &workspace, &record, &pull)
                                .await?;
                            let outcome = DeliveryOutcome {
                                summary: format!(
                                    "Drift check queued at {} for pull request #{}.",
                                    &pull.head_sha[..12.min(pull.head_sha.len())],
                                    pull.number
                                ),
                                run_ids: Vec::new(),
                                drift_check_id: Some(check),
                            };
                            let outcome = serde_json::to_value(outcome).map_err(Error::internal)?;
                            Ok(Some(
                                tx.settle_forge_delivery(record.id, "done", &outcome, now)
                                    .await?,
                            ))
                        }
                        None => Ok(Some(record)),
                    }
                })
            })
            .await?;
        Ok(match recorded {
            None => {
                counted(kind.as_str(), "duplicate");
                Received::Duplicate
            }
            Some(r) if r.status == "queued" => Received::Queued(r),
            Some(r) => Received::Ignored(r),
        })
    }

    /// The default branch as far as this node knows without fetching: the workspace's
    /// setting, else what the last fetch found.
    async fn known_default_branch(&self, ws: &WorkspaceRecord) -> Result<Option<String>> {
        if let Some(branch) = &ws.default_branch {
            return Ok(Some(branch.clone()));
        }
        Ok(self
            .store
            .repository(ws.id)
            .await?
            .and_then(|r| r.fetched_branch))
    }

    /// Queues (or joins) one run per feature a push to the default branch touched, each
    /// recording the push that triggered it.
    pub async fn queue_push_runs(
        &self,
        tx: &mut Tx,
        ws: &WorkspaceRecord,
        delivery: &ForgeDeliveryRecord,
        push: &Push,
        features: &[String],
    ) -> Result<Vec<String>> {
        let trigger = RunTrigger {
            kind: "forge_push".into(),
            forge: delivery.forge.clone(),
            delivery_id: delivery.delivery.clone(),
            git_ref: push.git_ref.clone(),
            before: push.before.clone(),
            after: push.after.clone().unwrap_or_default(),
        };
        let trigger = serde_json::to_value(trigger).map_err(Error::internal)?;
        let mut ids = Vec::with_capacity(features.len());
        for feature in features.iter().take(MAX_RUNS_PER_PUSH) {
            let new = NewRun {
                workspace_id: ws.id,
                feature_id: feature.clone(),
                surfaces: None,
                source: RunSource::Api,
                tier: Tier::default(),
                notify_on_complete: true,
                git_ref: String::new(),
                trigger: Some(trigger.clone()),
            };
            let outcome = self.queue_run(tx, new).await?;
            ids.push(outcome.run().id.to_string());
        }
        Ok(ids)
    }

    /// Queues the drift check of a pull request's head, and the `pending` commit status that
    /// stands on it until the check ends.
    pub async fn queue_pull_request_check(
        &self,
        tx: &mut Tx,
        ws: &WorkspaceRecord,
        delivery: &ForgeDeliveryRecord,
        pull: &PullRequest,
    ) -> Result<String> {
        let check = self.queue_drift_check(tx, ws, Some(&pull.head_sha)).await?;
        let repository = serde_json::json!({
            "path": pull.repository.path,
            "id": pull.repository.id,
        });
        let new = NewCommitStatus {
            drift_check_id: check.id,
            workspace_id: ws.id,
            forge: delivery.forge.clone(),
            repository,
            sha: pull.head_sha.clone(),
            pull_number: i64::try_from(pull.number).unwrap_or(i64::MAX),
            description: "Checking whether the docs still match the code…".into(),
        };
        tx.queue_commit_status(&new, self.clock.timestamp()).await?;
        Ok(check.id.to_string())
    }

    /// Sets the commit status of a pull request's check that ended (no status: not a pull
    /// request's check).
    pub async fn finish_commit_status(
        &self,
        check: domain::DriftCheckId,
        outcome: std::result::Result<&DriftSummary, &str>,
    ) -> Result<()> {
        let (state, description) = verdict(outcome);
        self.store
            .set_commit_state(check, state.as_str(), &description, self.clock.timestamp())
            .await?;
        Ok(())
    }

    /// The last deliveries the workspace's forge sent, newest first; admins only.
    pub async fn forge_deliveries(
        &self,
        caller: &Caller,
        ws: &WorkspaceRecord,
    ) -> Result<Vec<ForgeDelivery>> {
        caller.check(ws.id, Scope::Admin, "workspace", ws.id)?;
        let records = self
            .store
            .forge_deliveries(ws.id, store::KEPT_DELIVERIES)
            .await?;
        Ok(records.into_iter().map(delivery_view).collect())
    }

    /// The pull requests' checks of the workspace, newest first; admins only.
    pub async fn pull_request_checks(
        &self,
        caller: &Caller,
        ws: &WorkspaceRecord,
    ) -> Result<Vec<PullRequestCheck>> {
        caller.check(ws.id, Scope::Admin, "workspace", ws.id)?;
        let records = self
            .store
            .commit_statuses(ws.id, store::KEPT_DELIVERIES)
            .await?;
        Ok(records.into_iter().map(check_view).collect())
    }
}

pub fn delivery_view(r: ForgeDeliveryRecord) -> ForgeDelivery {
    let outcome: Option<DeliveryOutcome> = r.outcome.and_then(|o| serde_json::from_value(o.0).ok());
    ForgeDelivery {
        id: r.id.to_string(),
        forge: r.forge,
        delivery_id: r.delivery,
        event: r.event,
        status: r.status,
        received_at: r.received_at,
        summary: outcome.as_ref().map(|o| o.summary.clone()),
        run_ids: outcome
            .as_ref()
            .map(|o| o.run_ids.clone())
            .unwrap_or_default(),
        drift_check_id: outcome.and_then(|o| o.drift_check_id),
    }
}

/// The repository a commit status is for, as stored on it (`{"path", "id"}`).
pub fn stored_repository(stored: &serde_json::Value) -> forges::RepositoryRef {
    forges::RepositoryRef {
        path: stored
            .get("path")
            .and_then(|p| p.as_str())
            .unwrap_or_default()
            .to_owned(),
        id: stored.get("id").and_then(serde_json::Value::as_u64),
    }
}

pub fn check_view(r: CommitStatusRecord) -> PullRequestCheck {
    PullRequestCheck {
        drift_check_id: r.drift_check_id.to_string(),
        forge: r.forge,
        repository: stored_repository(&r.repository.0).path,
        pull_number: r.pull_number,
        sha: r.sha,
        state: r.state,
        description: r.description,
        posted_state: r.posted_state,
        last_error: r.last_error,
        created_at: r.created_at,
    }
}
