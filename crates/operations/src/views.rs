//! The resources as every front end shows them: the API's bodies, the webhooks' `data`, the
//! CLI's output. Records from the store are turned into these in one place each, so a field
//! is never rendered two ways.

use domain::{
    ArticleId, ArticleStatus, DeliveryId, DeliveryStatus, EventId, EventType, LogLevel, LogStage,
    RunId, RunSource, RunStatus, Scope, Surface, Tier, Timestamp, TokenId, WebhookId, WorkspaceId,
};
use serde::Serialize;
use store::{
    ArticleRecord, ArticleVersionRecord, DeliveryRecord, RunEventRecord, RunRecord, TokenRecord,
    WebhookRecord, WorkspaceRecord,
};
use utoipa::ToSchema;

use crate::Caller;

/// A tenant of the platform. Deleting one is a soft delete: `active` becomes false.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"id": "ws_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f", "name": "Acme docs", "created_at": "2026-11-23T10:15:30.123Z", "active": true}))]
pub struct Workspace {
    pub id: WorkspaceId,
    pub name: String,
    /// Absolute path of the workspace's git repository on the server (null when it has none).
    /// Shown to platform tokens only: for a workspace token of any scope this field is absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub repo_path: Option<Option<String>>,
    pub created_at: Option<Timestamp>,
    pub active: bool,
}

impl Workspace {
    /// The workspace as `caller` may see it: a server path is the platform's business, not a
    /// tenant's.
    pub fn seen_by(r: WorkspaceRecord, caller: &Caller) -> Self {
        Self::new(r, caller.workspace.is_none())
    }

    /// The whole workspace, for the platform's operator (the CLI).
    pub fn for_operator(r: WorkspaceRecord) -> Self {
        Self::new(r, true)
    }

    fn new(r: WorkspaceRecord, show_repo_path: bool) -> Self {
        Self {
            id: r.id,
            name: r.name,
            repo_path: show_repo_path.then_some(r.repo_path),
            created_at: Some(r.created_at),
            active: r.active,
        }
    }
}

/// An article a run wrote for one feature on one surface.
#[derive(Serialize, ToSchema)]
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

impl Article {
    pub fn with_body(r: ArticleRecord) -> Self {
        let body = r.mdx_body.clone();
        let mut a = Self::without_body(r);
        a.mdx_body = Some(body);
        a
    }

    pub fn without_body(r: ArticleRecord) -> Self {
        Self {
            id: r.id,
            workspace_id: r.workspace_id,
            feature_id: r.feature_id,
            title: r.title,
            surface: r.surface,
            status: r.status,
            version: r.version,
            run_id: r.run_id,
            public_url: r.public_url,
            published_version: r.published_version,
            created_at: r.created_at,
            updated_at: r.updated_at,
            mdx_body: None,
        }
    }
}

/// One stored version of an article.
#[derive(Serialize, ToSchema)]
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

impl From<ArticleVersionRecord> for ArticleVersion {
    fn from(r: ArticleVersionRecord) -> Self {
        let source_commit = r
            .provenance
            .0
            .get("commit")
            .and_then(|c| c.as_str())
            .map(str::to_owned);
        Self {
            article_id: r.article_id,
            version: r.version,
            run_id: r.run_id,
            title: r.title,
            status: r.status,
            mdx_body: r.mdx_body,
            source_commit,
            created_at: r.created_at,
        }
    }
}

/// An article a run produced.
#[derive(Serialize, ToSchema)]
pub struct RunArtifact {
    pub article_id: ArticleId,
    pub surface: Surface,
    /// The version the run wrote, or, when `unchanged`, the current version it left as is.
    pub version: i64,
    /// True when the run generated exactly the article's current version (same sources,
    /// commits and templates): it wrote no new version and emitted no `article.drafted`.
    pub unchanged: bool,
}

/// A pipeline run: queued → running → succeeded | failed.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"id": "run_01933b5f0a1b7c3e9d1f2a4b6c8d0e20", "workspace_id": "ws_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f", "feature_id": "billing", "status": "succeeded", "source": "api", "tier": "standard", "notify_on_complete": true, "surfaces": null, "created_at": "2026-11-23T10:15:30.123Z", "updated_at": "2026-11-23T10:15:30.123Z", "started_at": "2026-11-23T10:15:30.123Z", "finished_at": "2026-11-23T10:15:30.123Z", "commit": "4f2a9c1e0b7d3a5f6e8c9b0a1d2e3f4a5b6c7d8e", "artifacts": [{"article_id": "art_01933b5f2c3d7c3e9d1f2a4b6c8d0e21", "surface": "dev-docs", "version": 3, "unchanged": false}], "runs_url": "https://api.example.com/v1/runs/run_01933b5f0a1b7c3e9d1f2a4b6c8d0e20", "log_url": "https://api.example.com/v1/runs/run_01933b5f0a1b7c3e9d1f2a4b6c8d0e20/log"}))]
pub struct Run {
    pub id: RunId,
    pub workspace_id: WorkspaceId,
    pub feature_id: String,
    pub status: RunStatus,
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
    pub artifacts: Vec<RunArtifact>,
    /// `<base>/v1/runs/{id}`
    pub runs_url: String,
    /// `<base>/v1/runs/{id}/log`
    pub log_url: String,
    /// Why the run failed; present only when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Run {
    /// Renders a run with links under `base_url` (no trailing slash).
    pub fn new(base_url: &str, r: RunRecord) -> Self {
        Self {
            runs_url: format!("{base_url}/v1/runs/{}", r.id),
            log_url: format!("{base_url}/v1/runs/{}/log", r.id),
            id: r.id,
            workspace_id: r.workspace_id,
            feature_id: r.feature_id,
            status: r.status,
            source: r.source,
            tier: r.tier,
            notify_on_complete: r.notify_on_complete,
            surfaces: r.surfaces.map(|s| s.0),
            created_at: r.created_at,
            updated_at: r.updated_at,
            started_at: r.started_at,
            finished_at: r.finished_at,
            commit: r.source_commit,
            artifacts: r
                .artifacts
                .0
                .into_iter()
                .map(|a| RunArtifact {
                    article_id: a.article_id,
                    surface: a.surface,
                    version: a.version,
                    unchanged: a.unchanged,
                })
                .collect(),
            error: r.error,
        }
    }
}

/// One structured event of a run's log.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"seq": 4, "ts": "2026-11-23T10:15:30.123Z", "level": "info", "stage": "extract", "message": "Extracted 12 documented symbols.", "data": {"symbols": 12}}))]
pub struct RunLogEvent {
    pub seq: i64,
    pub ts: Timestamp,
    pub level: LogLevel,
    pub stage: LogStage,
    pub message: String,
    pub data: serde_json::Value,
}

impl From<RunEventRecord> for RunLogEvent {
    fn from(r: RunEventRecord) -> Self {
        Self {
            seq: r.seq,
            ts: r.ts,
            level: r.level,
            stage: r.stage,
            message: r.message,
            data: r.data.0,
        }
    }
}

/// A webhook subscription.
#[derive(Serialize, ToSchema)]
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

impl Webhook {
    pub fn new(r: WebhookRecord, secret: Option<String>) -> Self {
        Self {
            id: r.id,
            workspace_id: r.workspace_id,
            url: r.url,
            events: r.events.0,
            active: r.active,
            description: r.description,
            created_at: r.created_at,
            updated_at: r.updated_at,
            last_delivery_at: r.last_delivery_at,
            failure_count: r.failure_count,
            secret,
        }
    }
}

/// One delivery series of an event to a subscription.
#[derive(Serialize, ToSchema)]
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

impl From<DeliveryRecord> for Delivery {
    fn from(r: DeliveryRecord) -> Self {
        Self {
            id: r.id,
            subscription_id: r.subscription_id,
            event_id: r.event_id,
            event_type: r.event_type,
            status: r.status,
            attempts: r.attempts,
            last_status_code: r.last_status_code,
            target_url: r.target_url,
            is_replay: r.is_replay,
            created_at: r.created_at,
            updated_at: r.updated_at,
            next_attempt_at: r.next_attempt_at,
        }
    }
}

/// An API token. Its secret appears only in the responses to create and reissue.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"id": "tok_01933b5faebf7c3e9d1f2a4b6c8d0e25", "workspace_id": "ws_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f", "name": "ci", "scope": "write", "rate_limit": 600, "created_at": "2026-11-23T10:15:30.123Z", "revoked_at": null}))]
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
    /// The bearer token (`cpt_…`), shown once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

impl Token {
    pub fn new(r: TokenRecord, token: Option<String>) -> Self {
        Self {
            id: r.id,
            workspace_id: r.workspace_id,
            name: r.name,
            scope: r.scope,
            rate_limit: r.rate_limit,
            created_at: r.created_at,
            revoked_at: r.revoked_at,
            token,
        }
    }
}
