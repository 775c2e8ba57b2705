//! The bodies of the API's POST and PATCH requests. The server reads them (unknown fields
//! are a 422); the client writes them, leaving out what is not set.

use domain::{EventType, Scope, Tier, Timestamp};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "Acme docs", "repo_path": "/srv/repositories/acme"}))]
pub struct CreateWorkspace {
    /// 1–200 characters, not only blanks (the pattern spells out Rust's white space, so that
    /// every regex dialect agrees, and is anchored: fuzzers negate it as a whole-string match).
    #[schema(
        min_length = 1,
        max_length = 200,
        pattern = "^[\\s\\S]*[^\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][\\s\\S]*$"
    )]
    pub name: String,
    /// Absolute path to a readable git repository on the server; platform tokens only.
    /// A workspace has a `repo_path` or a `repo_url`, not both.
    #[schema(min_length = 1, max_length = 4096, pattern = "^/")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repo_path: Option<String>,
    /// The repository the service fetches: `https://…`, `ssh://…` or `git@host:path` (ssh
    /// needs a deploy key). No credentials in it (422): set them with
    /// `PUT /v1/workspaces/{id}/repository/credential`. Its host must not resolve to a
    /// private, loopback or reserved address unless the operator allows that range.
    #[schema(min_length = 1, max_length = 2048)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repo_url: Option<String>,
    /// The branch runs and drift checks read when they name no `ref`; default: the remote's
    /// HEAD. Only with `repo_url`.
    #[schema(
        min_length = 1,
        max_length = 255,
        pattern = "^(?!refs/)(?![0-9a-fA-F]{40}$)(?![0-9a-fA-F]{64}$)(?!-)(?!\\.)(?!.*\\.\\.)(?!.*//)(?!.*/\\.)(?!.*\\.lock(/|$))(?!.*[./]$)[A-Za-z0-9._/+-]{1,255}$"
    )]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_branch: Option<String>,
}

/// Changes to a workspace; absent fields stay as they are, `null` clears. Scope: admin
/// (`repo_path`: platform tokens only). Setting `repo_url` clears `repo_path` and the
/// reverse: a workspace has one or the other.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"repo_url": "https://github.com/acme/app.git", "default_branch": "main"}))]
pub struct UpdateWorkspace {
    /// 1–200 characters, not only blanks.
    #[schema(min_length = 1, max_length = 200)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::double_option"
    )]
    #[schema(value_type = Option<String>, min_length = 1, max_length = 4096, pattern = "^/")]
    pub repo_path: Option<Option<String>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::double_option"
    )]
    #[schema(value_type = Option<String>, min_length = 1, max_length = 2048)]
    pub repo_url: Option<Option<String>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::double_option"
    )]
    #[schema(value_type = Option<String>, min_length = 1, max_length = 255, pattern = "^(?!refs/)(?![0-9a-fA-F]{40}$)(?![0-9a-fA-F]{64}$)(?!-)(?!\\.)(?!.*\\.\\.)(?!.*//)(?!.*/\\.)(?!.*\\.lock(/|$))(?!.*[./]$)[A-Za-z0-9._/+-]{1,255}$")]
    pub default_branch: Option<Option<String>>,
}

/// An access token the service fetches the workspace's `repo_url` with (GitHub, GitLab, Gitea,
/// Bitbucket), sent as HTTP basic auth over https. Write-only: no answer shows it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"token": "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"}))]
pub struct SetRepositoryToken {
    /// Printable ASCII without spaces, 1–4096 characters.
    #[schema(min_length = 1, max_length = 4096, pattern = "^[!-~]{1,4096}$")]
    pub token: String,
    /// The user name sent with it: default `x-access-token` (GitHub; GitLab and Gitea take
    /// any), Bitbucket wants `x-token-auth`. Printable ASCII without spaces or `:`.
    #[schema(min_length = 1, max_length = 200, pattern = "^[!-9;-~]{1,200}$")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"feature_id": "billing", "tier": "priority", "notify_on_complete": true}))]
pub struct TriggerRun {
    /// The feature to generate: an id of `.content-pipeline/features.toml`, or a file or folder
    /// of the repository (an implicit feature). 1–200 characters, not only blanks, no control
    /// characters (the pattern spells out Rust's, so that every regex dialect agrees).
    #[schema(
        min_length = 1,
        max_length = 200,
        pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*[^\\x00-\\x20\\x7f-\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f]*$"
    )]
    pub feature_id: String,
    /// `priority` runs are claimed before any `standard` run. Default `standard`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tier: Option<Tier>,
    /// Whether `run.completed` / `run.failed` are emitted for this run. Default true.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notify_on_complete: Option<bool>,
    /// What to run at: a branch, a tag, `refs/pull/N/head`, `refs/merge-requests/N/head` or a
    /// full commit id. Default: the default branch. A run at another ref writes draft
    /// versions (a preview to review and diff); nothing is published by it.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    #[schema(
        min_length = 1,
        max_length = 255,
        pattern = "^(?!-)(?!\\.)(?!.*\\.\\.)(?!.*//)(?!.*/\\.)(?!.*\\.lock(/|$))(?!.*[./]$)[A-Za-z0-9._/+-]{1,255}$"
    )]
    pub git_ref: Option<String>,
}

/// Options of a drift check; the body may be absent.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"ref": "refs/pull/42/head"}))]
pub struct DriftCheckOptions {
    /// Compare the articles with the code at this ref (as for runs). Default: the default
    /// branch.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    #[schema(
        min_length = 1,
        max_length = 255,
        pattern = "^(?!-)(?!\\.)(?!.*\\.\\.)(?!.*//)(?!.*/\\.)(?!.*\\.lock(/|$))(?!.*[./]$)[A-Za-z0-9._/+-]{1,255}$"
    )]
    pub git_ref: Option<String>,
}

/// Regenerate options.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"tier": "standard", "notify_on_complete": true}))]
pub struct RegenerateArticle {
    /// Default `standard`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tier: Option<Tier>,
    /// Default true.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notify_on_complete: Option<bool>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"scope": "write", "name": "ci", "rate_limit": 600}))]
pub struct CreateToken {
    /// read, write, publish or admin; never above the caller's own scope.
    pub scope: Scope,
    /// A label, at most 200 characters.
    #[schema(max_length = 200)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Requests per 300 s, at least 1, never above the quota of the workspace token creating
    /// it nor above the ceiling the platform sets for workspace tokens (6000 by default):
    /// 422 with `param: "rate_limit"` otherwise. Default: the server's default quota (600),
    /// or the creating token's own quota when that is lower.
    #[schema(minimum = 1)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<i64>,
    /// When the token stops working (RFC 3339): after now and at most 366 days ahead, else
    /// 422 with `param: "expires_at"`. Absent or null: it never expires. Kept on reissue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<Timestamp>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"url": "https://hooks.example.com/content-pipeline", "events": ["run.completed", "article.published", "drift.detected"], "description": "Docs site rebuild"}))]
pub struct CreateWebhook {
    /// http(s) URL, at most 2048 characters; private, loopback and reserved addresses are refused.
    #[schema(min_length = 1, max_length = 2048, format = "uri")]
    pub url: String,
    /// At least one event type.
    #[schema(min_items = 1)]
    pub events: Vec<EventType>,
    /// At most 1000 characters.
    #[schema(max_length = 1000)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Default true.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"events": ["run.failed"], "active": true}))]
pub struct UpdateWebhook {
    /// As on create.
    #[schema(min_length = 1, max_length = 2048, format = "uri")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[schema(min_items = 1)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<EventType>>,
    /// At most 1000 characters; null clears the description.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::double_option"
    )]
    #[schema(value_type = Option<String>, max_length = 1000)]
    pub description: Option<Option<String>>,
    /// Re-activating resets `failure_count`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"grace_period_seconds": 3600}))]
pub struct RotateSecret {
    /// How long the previous secret keeps signing deliveries beside the new one: 0–604800,
    /// default 86400.
    #[schema(minimum = 0, maximum = 604800)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grace_period_seconds: Option<u64>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"delivery_id": "dlv_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f"}))]
pub struct ReplayDelivery {
    /// A delivery of this subscription whose event is sent again.
    pub delivery_id: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"email": "ana@example.com", "role": "write"}))]
pub struct InviteMember {
    /// The person's email: trimmed and lowercased, one `@` between non-empty parts without
    /// whitespace or control characters, at most 254 characters (422 with `param: "email"`
    /// otherwise).
    #[schema(
        min_length = 3,
        max_length = 254,
        pattern = r"^[^@\s\x00-\x1f\x7f-\x9f]+@[^@\s\x00-\x1f\x7f-\x9f]+$"
    )]
    pub email: String,
    /// read, write, publish or admin; never above the caller's own scope (422 with
    /// `param: "role"`).
    pub role: Scope,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"event_type": "run.completed"}))]
pub struct SendTestEvent {
    /// The event type whose example payload is sent (see `GET /v1/event-types`); it need not
    /// be one the subscription lists.
    pub event_type: EventType,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"role": "publish"}))]
pub struct UpdateMember {
    /// The member's new role: read, write, publish or admin; never above the caller's own
    /// scope (422 with `param: "role"`).
    pub role: Scope,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"since": "2026-11-23T00:00:00Z"}))]
pub struct RecoverDeliveries {
    /// RFC 3339; deliveries created at or after it are recovered. Not in the future.
    pub since: Timestamp,
}

/// The token commit statuses are posted with, and the forge API it is for.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"token": "ghp_16C7e42F292c6912E7710c838347Ae178B4a", "api_url": "https://api.github.com"}))]
pub struct SetForgeToken {
    /// A token allowed to set commit statuses (GitHub: `repo:status`; GitLab: `api`; Gitea:
    /// `write:repository`). Write-only. Printable ASCII without spaces, 1–4096 characters.
    #[schema(min_length = 1, max_length = 4096, pattern = "^[!-~]{1,4096}$")]
    pub token: String,
    /// The forge API root: `https://api.github.com` (default for GitHub), `https://gitlab.com/api/v4`
    /// (default for GitLab), `https://<host>/api/v3` for GitHub Enterprise, `https://<host>/api/v4`
    /// for self-hosted GitLab, `https://<host>/api/v1` for Gitea and Forgejo (required). It
    /// must pass the outbound address policy (422 with `param: "api_url"` otherwise).
    #[schema(max_length = 2048)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_url: Option<String>,
}

/// A workspace's publish target, as its admin sets it (`PUT …/publish-target`).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"url": "https://github.com/acme/docs.git", "branch": "main", "folder": "docs", "format": "docusaurus", "token": "ghp_16C7e42F292c6912E7710c838347Ae178B4a"}))]
pub struct SetPublishTarget {
    /// The docs repository: https (a token) or ssh / `git@host:path` (a deploy key), without
    /// credentials in it; checked against the outbound address policy. At most 2048
    /// characters.
    #[schema(min_length = 1, max_length = 2048)]
    pub url: String,
    /// The branch the articles are committed to (made by the first push when missing): a
    /// branch name as git allows it, not `refs/…` and not a commit id. Default `main`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(
        min_length = 1,
        max_length = 255,
        pattern = "^(?!refs/)(?![0-9a-fA-F]{40}$)(?![0-9a-fA-F]{64}$)(?!-)(?!\\.)(?!.*\\.\\.)(?!.*//)(?!.*/\\.)(?!.*\\.lock(/|$))(?!.*[./]$)[A-Za-z0-9._/+-]{1,255}$"
    )]
    pub branch: Option<String>,
    /// The folder inside the repository the export is written to: a relative path without
    /// `.`, `..` or `.git` components, backslashes or control characters (`docs`,
    /// `site/content`; a trailing `/` is ignored). Default: the repository's root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(
        max_length = 512,
        pattern = "^(?!/)(?!(.*/)?\\.{1,2}(/|$))(?!(.*/)?\\.[gG][iI][tT](/|$))(?!.*//)[^\\\\\\x00-\\x1f\\x7f-\\x9f]{0,512}$"
    )]
    pub folder: Option<String>,
    /// The export layout written there: `docusaurus`, `mintlify`, `starlight` or
    /// `mkdocs-material`.
    #[schema(value_type = domain::ExportFormat)]
    pub format: String,
    /// Write-only: an access token with write access to the repository (sent as HTTP basic
    /// auth, user `x-access-token` unless `username` says otherwise). Printable ASCII without
    /// spaces, 1–4096 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 4096, pattern = "^[!-~]{1,4096}$")]
    pub token: Option<String>,
    /// The user name sent with `token`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 200, pattern = "^[!-9;-~]{1,200}$")]
    pub username: Option<String>,
    /// `true`: generate an ed25519 deploy key for an ssh URL; its public half is in the
    /// answer's `credential.public_key` (give it write access on the forge). Exclusive with
    /// `token`. Neither: the current credential is kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generate_deploy_key: Option<bool>,
}
