//! The resources as the API returns them (and the webhooks' `data`, and the CLI's output).
//! The server builds them from its records in `operations::views`; the client reads them.
//! Fields a response may leave out are `Option`s; unknown fields are ignored on reading, so a
//! client keeps working when the API adds fields (only additive changes inside `/v1/`).

use std::collections::BTreeMap;

use domain::{
    ArticleId, ArticleStatus, AttemptError, AttemptId, Change, DeliveryId, DeliveryStatus,
    DriftCheckId, EventId, EventType, LogLevel, LogStage, RunId, RunSource, RunStatus, Scope,
    Surface, Tier, Timestamp, TokenId, UserId, WebhookId, WorkspaceId,
};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A tenant of the platform. Deleting one is a soft delete: `active` becomes false.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "ws_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f", "name": "Acme docs", "created_at": "2026-11-23T10:15:30.123Z", "active": true}))]
pub struct Workspace {
    pub id: WorkspaceId,
    pub name: String,
    /// Absolute path of the workspace's git repository on the server (null when it has none).
    /// Shown to platform tokens only: for a workspace token of any scope this field is absent.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::double_option"
    )]
    #[schema(value_type = Option<String>)]
    pub repo_path: Option<Option<String>>,
    /// The remote repository the service fetches (null when the code is a `repo_path`).
    #[serde(default)]
    pub repo_url: Option<String>,
    /// The branch runs read by default (null: the remote's HEAD).
    #[serde(default)]
    pub default_branch: Option<String>,
    pub created_at: Option<Timestamp>,
    pub active: bool,
}

/// A workspace's remote repository: where it is, how the service authenticates (never the
/// secret itself), and what the last fetch saw.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"workspace_id": "ws_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f", "url": "https://github.com/acme/app.git", "default_branch": "main", "credential": {"kind": "token", "fingerprint": "sha256:9f86d081884c7d65"}, "last_fetch_at": "2026-11-23T10:15:30.123Z", "fetched_head": "4f2a9c1e0b7d3a5f6e8c9b0a1d2e3f4a5b6c7d8e", "last_fetch_error": null}))]
pub struct Repository {
    pub workspace_id: WorkspaceId,
    /// The `repo_url` (null when the workspace reads a `repo_path` or has no repository).
    pub url: Option<String>,
    /// The configured default branch, else the one the last fetch found (the remote's HEAD).
    pub default_branch: Option<String>,
    pub credential: Option<RepositoryCredential>,
    /// When a node last fetched (successfully or not).
    pub last_fetch_at: Option<Timestamp>,
    /// The default branch's commit at the last successful fetch.
    pub fetched_head: Option<String>,
    /// Why the last fetch failed; null when it succeeded.
    pub last_fetch_error: Option<String>,
}

/// What may be shown of a repository credential.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct RepositoryCredential {
    /// `token` or `deploy_key`.
    pub kind: String,
    /// For a token, `sha256:` and the first 16 hex digits of its SHA-256 (enough to tell two
    /// tokens apart, not to recover one); for a deploy key, its fingerprint as `ssh-keygen -l`
    /// prints it.
    pub fingerprint: String,
    /// The deploy key's public half, to add to the forge (deploy keys only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_key: Option<String>,
}

/// An article a run wrote for one feature on one surface.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "art_01933b5f2c3d7c3e9d1f2a4b6c8d0e21", "workspace_id": "ws_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f", "feature_id": "billing", "title": "Billing", "surface": "dev-docs", "status": "published", "version": 3, "run_id": "run_01933b5f0a1b7c3e9d1f2a4b6c8d0e20", "public_url": "https://docs.example.com/published/art_01933b5f2c3d7c3e9d1f2a4b6c8d0e21", "published_version": 3, "created_at": "2026-11-23T10:15:30.123Z", "updated_at": "2026-11-23T10:15:30.123Z", "mdx_body": "---\ntitle: Billing\n---\n\n# Billing\n"}))]
pub struct Article {
    pub id: ArticleId,
    pub workspace_id: WorkspaceId,
    pub feature_id: String,
    pub title: String,
    pub surface: Surface,
    pub status: ArticleStatus,
    /// Bumped by every run that regenerates the article.
    pub version: i64,
    /// The run that produced this version.
    pub run_id: RunId,
    /// Set when the article is published.
    pub public_url: Option<String>,
    /// The version that is published, if any.
    pub published_version: Option<i64>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// The article body in MDX (absent in webhook payloads).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mdx_body: Option<String>,
}

/// One stored version of an article.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"article_id": "art_01933b5f2c3d7c3e9d1f2a4b6c8d0e21", "version": 3, "run_id": "run_01933b5f0a1b7c3e9d1f2a4b6c8d0e20", "title": "Billing", "status": "draft", "mdx_body": "# Billing\n", "source_commit": "4f2a9c1e0b7d3a5f6e8c9b0a1d2e3f4a5b6c7d8e", "created_at": "2026-11-23T10:15:30.123Z"}))]
pub struct ArticleVersion {
    pub article_id: ArticleId,
    pub version: i64,
    pub run_id: RunId,
    pub title: String,
    pub status: ArticleStatus,
    pub mdx_body: String,
    /// The commit the version was generated from.
    pub source_commit: Option<String>,
    pub created_at: Timestamp,
}

/// An article a run produced.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct RunArtifact {
    pub article_id: ArticleId,
    pub surface: Surface,
    /// The version the run wrote, or, when `unchanged`, the current version it left as is.
    pub version: i64,
    /// True when the run generated exactly the article's current version (same sources,
    /// commits and templates): it wrote no new version and emitted no `article.drafted`.
    #[serde(default)]
    pub unchanged: bool,
}

/// A pipeline run: queued → running → succeeded | failed.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "run_01933b5f0a1b7c3e9d1f2a4b6c8d0e20", "workspace_id": "ws_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f", "feature_id": "billing", "status": "succeeded", "attempts": 1, "source": "api", "tier": "standard", "notify_on_complete": true, "surfaces": null, "created_at": "2026-11-23T10:15:30.123Z", "updated_at": "2026-11-23T10:15:30.123Z", "started_at": "2026-11-23T10:15:30.123Z", "finished_at": "2026-11-23T10:15:30.123Z", "commit": "4f2a9c1e0b7d3a5f6e8c9b0a1d2e3f4a5b6c7d8e", "artifacts": [{"article_id": "art_01933b5f2c3d7c3e9d1f2a4b6c8d0e21", "surface": "dev-docs", "version": 3, "unchanged": false}], "runs_url": "https://api.example.com/v1/runs/run_01933b5f0a1b7c3e9d1f2a4b6c8d0e20", "log_url": "https://api.example.com/v1/runs/run_01933b5f0a1b7c3e9d1f2a4b6c8d0e20/log"}))]
pub struct Run {
    pub id: RunId,
    pub workspace_id: WorkspaceId,
    pub feature_id: String,
    /// `queued` also while a run waits to be taken again: its worker stopped (a shutdown
    /// hands it back) or stopped answering (its lease ended).
    pub status: RunStatus,
    /// How many times a worker has taken the run. A run handed back at a worker's shutdown
    /// does not count that attempt; one whose worker died does. A run whose worker died on its
    /// third attempt fails.
    #[serde(default)]
    pub attempts: i64,
    pub source: RunSource,
    pub tier: Tier,
    pub notify_on_complete: bool,
    /// Only these surfaces are regenerated; null means every surface of the feature.
    pub surfaces: Option<Vec<Surface>>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub started_at: Option<Timestamp>,
    pub finished_at: Option<Timestamp>,
    /// The source commit the run read.
    pub commit: Option<String>,
    /// The ref the run was asked to read; null: the default branch.
    #[serde(rename = "ref", default)]
    pub git_ref: Option<String>,
    pub artifacts: Vec<RunArtifact>,
    /// `<base>/v1/runs/{id}`
    pub runs_url: String,
    /// `<base>/v1/runs/{id}/log`
    pub log_url: String,
    /// Why the run failed; present only when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What triggered the run when it was not a plain request: a forge push. Absent for runs
    /// asked for over the API, the portal or the CLI (`source` says which).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<RunTrigger>,
}

/// The forge event that triggered a run.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"kind": "forge_push", "forge": "github", "delivery_id": "72d3162e-cc78-11e3-81ab-4c9367dc0958", "ref": "refs/heads/main", "before": "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c", "after": "4f2a9c1e0b7d3a5f6e8c9b0a1d2e3f4a5b6c7d8e"}))]
pub struct RunTrigger {
    /// `forge_push`.
    pub kind: String,
    /// `github`, `gitlab` or `gitea`.
    pub forge: String,
    /// The forge's delivery id.
    pub delivery_id: String,
    #[serde(rename = "ref")]
    pub git_ref: String,
    /// Null when the push created the branch.
    pub before: Option<String>,
    pub after: String,
}

/// A workspace's forge connection: where its forge sends webhooks, whether a delivery secret
/// is set, and the API its commit statuses are posted with (never a secret, except `secret`
/// in the answer of a rotation).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"workspace_id": "ws_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f", "endpoints": {"github": "https://docs.example.com/v1/workspaces/ws_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f/forge/github", "gitlab": "https://docs.example.com/v1/workspaces/ws_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f/forge/gitlab", "gitea": "https://docs.example.com/v1/workspaces/ws_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f/forge/gitea"}, "secret_set": true, "previous_secret_expires_at": null, "api_url": "https://api.github.com", "api_token": {"kind": "token", "fingerprint": "sha256:9f86d081884c7d65"}}))]
pub struct ForgeConnection {
    pub workspace_id: WorkspaceId,
    /// The payload URL to paste into each forge's webhook form.
    pub endpoints: ForgeEndpoints,
    /// Whether deliveries can be verified (a secret was generated).
    pub secret_set: bool,
    /// The secret, only in the answer of `POST …/repository/forge-secret`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    /// Until then, deliveries signed with the previous secret are accepted too.
    pub previous_secret_expires_at: Option<Timestamp>,
    /// The forge API root commit statuses are posted to; null: the public GitHub or GitLab.
    pub api_url: Option<String>,
    /// The token commit statuses are posted with (write-only).
    pub api_token: Option<RepositoryCredential>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ForgeEndpoints {
    pub github: String,
    pub gitlab: String,
    /// For Gitea and Forgejo.
    pub gitea: String,
}

/// A delivery a forge sent to the workspace, and what it triggered.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ForgeDelivery {
    pub id: String,
    pub forge: String,
    /// The forge's delivery id.
    pub delivery_id: String,
    /// The forge's event name (`push`, `Merge Request Hook`, …).
    pub event: String,
    /// `queued`, `running`, `done`, `ignored` or `failed`.
    pub status: String,
    pub received_at: Timestamp,
    /// What it triggered, in words ("2 runs queued: billing, csv-export").
    pub summary: Option<String>,
    /// The runs it queued or joined.
    pub run_ids: Vec<String>,
    /// The drift check it queued (a pull request).
    pub drift_check_id: Option<String>,
}

/// The commit status of a pull request's drift check.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct PullRequestCheck {
    pub drift_check_id: String,
    pub forge: String,
    /// `owner/name` (or `group/project`).
    pub repository: String,
    pub pull_number: i64,
    pub sha: String,
    /// What the status says: `pending`, `success`, `failure` or `error`.
    pub state: String,
    pub description: String,
    /// What the forge last accepted; null before the first post.
    pub posted_state: Option<String>,
    /// Why the last post failed.
    pub last_error: Option<String>,
    pub created_at: Timestamp,
}

/// One structured event of a run's log.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"seq": 4, "ts": "2026-11-23T10:15:30.123Z", "level": "info", "stage": "extract", "message": "Extracted 12 documented symbols.", "data": {"symbols": 12}}))]
pub struct RunLogEvent {
    pub seq: i64,
    pub ts: Timestamp,
    pub level: LogLevel,
    pub stage: LogStage,
    pub message: String,
    pub data: serde_json::Value,
}

/// A webhook subscription.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "wh_01933b5f4e5f7c3e9d1f2a4b6c8d0e22", "workspace_id": "ws_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f", "url": "https://hooks.example.com/content-pipeline", "events": ["run.completed", "drift.detected"], "active": true, "description": "Docs site rebuild", "created_at": "2026-11-23T10:15:30.123Z", "updated_at": "2026-11-23T10:15:30.123Z", "last_delivery_at": "2026-11-23T10:15:30.123Z", "failure_count": 0}))]
pub struct Webhook {
    pub id: WebhookId,
    pub workspace_id: WorkspaceId,
    /// Delivery target.
    pub url: String,
    pub events: Vec<EventType>,
    pub active: bool,
    pub description: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// The last successful delivery.
    pub last_delivery_at: Option<Timestamp>,
    /// Consecutive failed attempts, reset by any success.
    pub failure_count: i64,
    /// The signing secret (`whsec_…`): only in the responses to create and rotate-secret.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}

/// One delivery series of an event to a subscription.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "dlv_01933b5f6a7b7c3e9d1f2a4b6c8d0e23", "subscription_id": "wh_01933b5f4e5f7c3e9d1f2a4b6c8d0e22", "event_id": "evt_01933b5f8c9d7c3e9d1f2a4b6c8d0e24", "event_type": "run.completed", "status": "delivered", "attempts": 1, "last_status_code": 204, "target_url": "https://hooks.example.com/content-pipeline", "is_replay": false, "created_at": "2026-11-23T10:15:30.123Z", "updated_at": "2026-11-23T10:15:30.123Z", "next_attempt_at": null}))]
pub struct Delivery {
    pub id: DeliveryId,
    pub subscription_id: WebhookId,
    pub event_id: EventId,
    pub event_type: EventType,
    pub status: DeliveryStatus,
    pub attempts: i64,
    /// HTTP status of the last attempt; absent when no attempt got a response.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_status_code: Option<i64>,
    pub target_url: String,
    pub is_replay: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// When the next attempt is due, while one is planned.
    pub next_attempt_at: Option<Timestamp>,
}

/// An API token. Its secret appears only in the responses to create and reissue.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "tok_01933b5faebf7c3e9d1f2a4b6c8d0e25", "workspace_id": "ws_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f", "name": "ci", "scope": "write", "rate_limit": 600, "created_at": "2026-11-23T10:15:30.123Z", "revoked_at": null, "expires_at": "2027-02-21T10:15:30.123Z", "last_used_at": null}))]
pub struct Token {
    pub id: TokenId,
    /// Null for a platform token.
    pub workspace_id: Option<WorkspaceId>,
    pub name: String,
    pub scope: Scope,
    /// Requests per 300 s; null means the server default (600).
    pub rate_limit: Option<i64>,
    pub created_at: Timestamp,
    pub revoked_at: Option<Timestamp>,
    /// When the token stops working (requests with it are then 401); null: never. Set at
    /// creation, kept on reissue.
    pub expires_at: Option<Timestamp>,
    /// About when the token last authenticated a request; null: never used. Written in the
    /// background at most once a minute per token, so it is exact to about a minute and may
    /// appear a moment after the request.
    pub last_used_at: Option<Timestamp>,
    /// The bearer token (`cpt_…`), shown once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

/// An article whose sources changed since its current version (the `data` of `drift.detected`).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"article_id": "art_01933b5f2c3d7c3e9d1f2a4b6c8d0e21", "feature_id": "billing", "surface": "dev-docs", "article_commit": "4f2a9c1e0b7d3a5f6e8c9b0a1d2e3f4a5b6c7d8e", "current_commit": "9b0a1d2e3f4a5b6c7d8e4f2a9c1e0b7d3a5f6e8c", "changes": [{"path": "src/billing/invoice.rs", "kind": "modified", "symbols": ["Invoice::total"]}]}))]
pub struct DriftReport {
    pub article_id: String,
    pub feature_id: String,
    pub surface: String,
    pub article_commit: String,
    pub current_commit: String,
    pub changes: Vec<Change>,
}

/// A drift check of a workspace. Asking for one queues it (or joins the one already queued
/// for the workspace); a worker does it in a sandboxed process. Until it has finished,
/// `status` is `queued` or `running` and the report fields are empty.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct DriftCheck {
    pub id: DriftCheckId,
    pub workspace_id: WorkspaceId,
    /// queued → running → succeeded | failed
    pub status: RunStatus,
    pub created_at: Timestamp,
    pub finished_at: Option<Timestamp>,
    /// `<base>/v1/drift-checks/{id}`
    pub check_url: String,
    /// Why the check failed; present only when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The commit the articles were compared with (the default branch's, or the `ref`'s).
    pub head_commit: Option<String>,
    /// The ref checked; null: the default branch.
    #[serde(rename = "ref", default)]
    pub git_ref: Option<String>,
    pub articles_checked: usize,
    /// Every article that has drifted, whether reported before or not.
    pub drifted: Vec<DriftReport>,
    /// `drift.detected` events recorded by this check (each (article, HEAD) is reported once).
    pub events_recorded: usize,
}

/// A person's membership of a workspace: their role there, as the portal's people have it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"user_id": "usr_01933b5faebf7c3e9d1f2a4b6c8d0e25", "email": "ana@example.com", "role": "write", "created_at": "2026-11-23T10:15:30.123Z", "sign_up_url": "https://docs.example.com/portal/password?token=3q2-7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}))]
pub struct Member {
    pub user_id: UserId,
    /// Lowercased.
    pub email: String,
    pub role: Scope,
    /// When they became a member.
    pub created_at: Timestamp,
    /// Only in the answer to an invitation of someone who has no password yet: a one-time
    /// link (valid 24 hours) with which they set their password and sign in. Hand it to them
    /// yourself; no mail is sent. Null otherwise.
    pub sign_up_url: Option<String>,
}

/// One HTTP attempt of a delivery, as the attempt log keeps it (30 days by default). The
/// request is what was sent: its headers (signatures shown, never a secret) and its body,
/// which is the event's payload, the same for every attempt. The response is what came back,
/// bounded: at most 64 headers, the first 4 KiB of the body. `error_kind` is set when no
/// complete HTTP answer came (`timeout`, `refused_address`, `connection`, `tls`); an answer
/// with a non-2xx status is a failure with `error_kind` null and its `response_status`.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "att_01933b5f6a7b7c3e9d1f2a4b6c8d0e30", "delivery_id": "dlv_01933b5f6a7b7c3e9d1f2a4b6c8d0e23", "subscription_id": "wh_01933b5f4e5f7c3e9d1f2a4b6c8d0e22", "attempt": 1, "started_at": "2026-11-23T10:15:30.123Z", "duration_ms": 42, "url": "https://hooks.example.com/content-pipeline", "request_headers": {"content-type": "application/json", "user-agent": "content-pipeline-webhooks/0.1.0", "webhook-id": "evt_01933b5f8c9d7c3e9d1f2a4b6c8d0e24", "webhook-signature": "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=", "webhook-timestamp": "1795428930"}, "request_body": "{\"id\":\"evt_01933b5f8c9d7c3e9d1f2a4b6c8d0e24\",\"type\":\"run.completed\"}", "response_status": 500, "response_headers": {"content-type": "text/plain"}, "response_body": "upstream unavailable", "response_body_truncated": false, "error_kind": null, "error_message": null, "next_attempt_at": "2026-11-23T10:15:35.123Z"}))]
pub struct DeliveryAttempt {
    pub id: AttemptId,
    pub delivery_id: DeliveryId,
    pub subscription_id: WebhookId,
    /// 1 for the delivery's first attempt.
    pub attempt: i64,
    pub started_at: Timestamp,
    pub duration_ms: i64,
    /// Where the attempt went.
    pub url: String,
    /// The request headers as sent (lowercase names): `content-type`, `user-agent`,
    /// `webhook-id`, `webhook-timestamp`, `webhook-signature`.
    pub request_headers: BTreeMap<String, String>,
    /// The request body: the event's payload, byte for byte.
    pub request_body: String,
    /// The HTTP status of the answer; null when none came.
    pub response_status: Option<i64>,
    /// The answer's headers (lowercase names, repeated ones joined with `, `, at most 64,
    /// each cut at 1024 characters); null when no answer came.
    pub response_headers: Option<BTreeMap<String, String>>,
    /// The first 4 KiB of the answer's body as text (invalid UTF-8 replaced); null when no
    /// answer came.
    pub response_body: Option<String>,
    /// True when the body was longer than what is kept.
    pub response_body_truncated: bool,
    /// Why no complete HTTP answer came; null when one did (whatever its status).
    pub error_kind: Option<AttemptError>,
    /// What went wrong, in words (at most 500 characters); null when an answer came.
    pub error_message: Option<String>,
    /// When the next attempt was planned after this one; null when none was (delivered, dead).
    pub next_attempt_at: Option<Timestamp>,
}

/// An event type of the catalog, with the JSON Schema of the whole webhook body it sends and
/// a complete example of one.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct EventTypeInfo {
    #[serde(rename = "type")]
    pub event_type: EventType,
    pub description: String,
    /// A JSON Schema (draft 2020-12) of the webhook body: the envelope `{id, type, timestamp,
    /// workspace_id, data}` with this type's `data`.
    #[schema(value_type = Object)]
    pub schema: serde_json::Value,
    /// A complete example body.
    #[schema(value_type = Object)]
    pub example: serde_json::Value,
}

/// The event catalog: every event type a subscription can ask for.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct EventTypeList {
    pub data: Vec<EventTypeInfo>,
}

/// What a recovery queued.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"queued": 3, "has_more": false}))]
pub struct Recovered {
    /// New deliveries queued, one per failed or dead delivery recovered.
    pub queued: u64,
    /// True when the per-call cap (10,000) was reached: call again to recover the rest.
    pub has_more: bool,
}

/// A workspace's publish target: the docs repository that publishing keeps in sync, and how
/// its last sync went. The credential shows only its kind and fingerprint.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"workspace_id": "ws_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f", "url": "https://github.com/acme/docs.git", "branch": "main", "folder": "docs", "format": "docusaurus", "credential": {"kind": "token", "fingerprint": "sha256:9f86d081884c7d65"}, "sync": {"state": "synced", "pending": false, "attempts": 0, "next_attempt_at": null, "last_attempt_at": "2026-11-23T10:15:31.004Z", "last_sync_at": "2026-11-23T10:15:31.004Z", "last_commit": "4f2a9c1e0b7d3a5f6e8c9b0a1d2e3f4a5b6c7d8e", "last_error": null}, "created_at": "2026-11-23T10:15:30.123Z", "updated_at": "2026-11-23T10:15:31.004Z"}))]
pub struct PublishTarget {
    pub workspace_id: WorkspaceId,
    pub url: String,
    pub branch: String,
    /// The folder inside the repository (`""`: its root).
    pub folder: String,
    /// The export layout written there.
    pub format: String,
    pub credential: Option<RepositoryCredential>,
    pub sync: PublishSync,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// How the target's syncs go.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct PublishSync {
    /// `pending` (a sync is due), `syncing` (a worker pushes now), `synced` (the branch holds
    /// what is published), `retrying` (the last attempt failed; `next_attempt_at` tries again)
    /// or `auth_failed` (the host refused the credential: nothing is tried until it changes).
    pub state: String,
    /// True while published changes wait to be pushed (none is ever dropped).
    pub pending: bool,
    /// Failed attempts since the last success.
    pub attempts: i64,
    pub next_attempt_at: Option<Timestamp>,
    pub last_attempt_at: Option<Timestamp>,
    /// When a sync last succeeded.
    pub last_sync_at: Option<Timestamp>,
    /// The branch's commit after the last successful sync.
    pub last_commit: Option<String>,
    /// Why the last attempt failed (never a secret); null after a success.
    pub last_error: Option<String>,
}
