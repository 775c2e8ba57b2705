//! The resources as every front end shows them: the API's bodies, the webhooks' `data`, the
//! CLI's output. Their types are declared once, in `api_types`, for the server and the client;
//! records from the store are turned into them here, in one place each, so a field is never
//! rendered two ways.

pub use api_types::{
    Article, ArticleVersion, Delivery, DeliveryAttempt, EventTypeInfo, Member, Recovered, Run,
    RunArtifact, RunLogEvent, Token, Webhook, Workspace,
};
use domain::Timestamp;
use store::{
    ArticleRecord, ArticleVersionRecord, DeliveryAttemptRecord, DeliveryRecord, RunEventRecord,
    RunRecord, TokenRecord, WebhookRecord, WorkspaceRecord,
};

use crate::Caller;

/// The workspace as `caller` may see it: a server path is the platform's business, not a
/// tenant's.
pub fn workspace(r: WorkspaceRecord, caller: &Caller) -> Workspace {
    workspace_showing_path(r, caller.workspace.is_none())
}

/// The whole workspace, for the platform's operator (the CLI).
pub fn workspace_for_operator(r: WorkspaceRecord) -> Workspace {
    workspace_showing_path(r, true)
}

fn workspace_showing_path(r: WorkspaceRecord, show_repo_path: bool) -> Workspace {
    Workspace {
        id: r.id,
        name: r.name,
        repo_path: show_repo_path.then_some(r.repo_path),
        repo_url: r.repo_url,
        default_branch: r.default_branch,
        created_at: Some(r.created_at),
        active: r.active,
    }
}

/// The article with its body (the API's answers).
pub fn article(r: ArticleRecord) -> Article {
    let body = r.mdx_body.clone();
    let mut a = article_without_body(r);
    a.mdx_body = Some(body);
    a
}

/// The article without its body (webhook payloads).
pub fn article_without_body(r: ArticleRecord) -> Article {
    Article {
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

pub fn article_version(r: ArticleVersionRecord) -> ArticleVersion {
    let source_commit = r
        .provenance
        .0
        .get("commit")
        .and_then(|c| c.as_str())
        .map(str::to_owned);
    ArticleVersion {
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

/// A run with links under `base_url` (no trailing slash), as it stands at `now`.
pub fn run(base_url: &str, r: RunRecord, now: Timestamp) -> Run {
    Run {
        status: r.status_at(now),
        attempts: r.attempts,
        runs_url: format!("{base_url}/v1/runs/{}", r.id),
        log_url: format!("{base_url}/v1/runs/{}/log", r.id),
        id: r.id,
        workspace_id: r.workspace_id,
        feature_id: r.feature_id,
        source: r.source,
        tier: r.tier,
        notify_on_complete: r.notify_on_complete,
        surfaces: r.surfaces.map(|s| s.0),
        created_at: r.created_at,
        updated_at: r.updated_at,
        started_at: r.started_at,
        finished_at: r.finished_at,
        commit: r.source_commit,
        git_ref: Some(r.git_ref).filter(|g| !g.is_empty()),
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
        trigger: r.run_trigger.and_then(|t| serde_json::from_value(t.0).ok()),
    }
}

pub fn run_log_event(r: RunEventRecord) -> RunLogEvent {
    RunLogEvent {
        seq: r.seq,
        ts: r.ts,
        level: r.level,
        stage: r.stage,
        message: r.message,
        data: r.data.0,
    }
}

/// A subscription; `secret` only in the answers to create and rotate-secret.
pub fn webhook(r: WebhookRecord, secret: Option<String>) -> Webhook {
    Webhook {
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

pub fn delivery(r: DeliveryRecord) -> Delivery {
    Delivery {
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

/// One attempt of a delivery; `request_body` is the delivery's event payload.
pub fn delivery_attempt(r: DeliveryAttemptRecord, request_body: &str) -> DeliveryAttempt {
    DeliveryAttempt {
        id: r.id,
        delivery_id: r.delivery_id,
        subscription_id: r.subscription_id,
        attempt: r.attempt,
        started_at: r.started_at,
        duration_ms: r.duration_ms,
        url: r.url,
        request_headers: r.request_headers.0,
        request_body: request_body.to_owned(),
        response_status: r.response_status,
        response_headers: r.response_headers.map(|h| h.0),
        response_body: r.response_body,
        response_body_truncated: r.response_body_truncated,
        error_kind: r.error_kind,
        error_message: r.error_message,
        next_attempt_at: r.next_attempt_at,
    }
}

/// A token; `token` (its secret) only in the answers to create and reissue.
pub fn token(r: TokenRecord, token: Option<String>) -> Token {
    Token {
        id: r.id,
        workspace_id: r.workspace_id,
        name: r.name,
        scope: r.scope,
        rate_limit: r.rate_limit,
        created_at: r.created_at,
        revoked_at: r.revoked_at,
        expires_at: r.expires_at,
        last_used_at: r.last_used_at,
        token,
    }
}

/// A member; `sign_up_url` only in the answer to an invitation of someone without a password.
pub fn member(m: crate::accounts::Member, sign_up_url: Option<String>) -> Member {
    Member {
        user_id: m.user.id,
        email: m.user.email,
        role: m.role,
        created_at: m.since,
        sign_up_url,
    }
}
