//! Rows as the store returns them. Enums, ids and timestamps decode straight into domain types;
//! a value that does not parse is reported as a database error, never silently defaulted.

use std::collections::BTreeMap;

use domain::{
    ArticleId, ArticleStatus, AttemptError, AttemptId, DeliveryId, DeliveryStatus, DriftCheckId,
    EventId, EventType, ForgeDeliveryId, LogLevel, LogStage, RunId, RunSource, RunStatus, Scope,
    Surface, Tier, Timestamp, TokenId, UserId, WebhookId, WorkspaceId,
};
use serde::{Deserialize, Serialize};

use crate::JsonText;

/// Declares a record and its columns at once: the struct (decoded by sqlx by column name),
/// `COLUMNS` (its fields in order, what every query of the record selects or returns), and
/// `from_sqlite` (the same columns in the same order, for the in-thread reads of `hot`). A column is
/// thus named in one place, its field.
macro_rules! record {
    ($(#[$meta:meta])* pub struct $name:ident {
        $(#[$first_meta:meta])* pub $first:ident : $first_ty:ty,
        $($(#[$field_meta:meta])* pub $field:ident : $ty:ty,)*
    }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, sqlx::FromRow)]
        pub struct $name {
            $(#[$first_meta])* pub $first: $first_ty,
            $($(#[$field_meta])* pub $field: $ty,)*
        }

        impl $name {
            /// Its columns, in the order of its fields.
            pub const COLUMNS: &'static str =
                concat!(stringify!($first) $(, ", ", stringify!($field))*);

            /// Decodes a row that selected `COLUMNS`, by position: a lookup by name would cost
            /// a scan of the column names per field on the request path. Fields initialise in
            /// the order written, which is the order of `COLUMNS`.
            // Generated for every record; `hot` reads only some of them.
            #[allow(dead_code)]
            pub(crate) fn from_sqlite(row: &rusqlite::Row<'_>) -> rusqlite::Result<Self> {
                let mut next = 0;
                let mut column = || {
                    next += 1;
                    next - 1
                };
                Ok(Self {
                    $first: row.get(column())?,
                    $($field: row.get(column())?,)*
                })
            }
        }
    };
}

record! {
    pub struct WorkspaceRecord {
        pub id: WorkspaceId,
        pub name: String,
        pub repo_path: Option<String>,
        pub active: bool,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
        /// The remote the service fetches (instead of `repo_path`).
        pub repo_url: Option<String>,
        /// `None`: the remote's HEAD.
        pub default_branch: Option<String>,
    }
}

record! {
    /// A workspace's remote repository: its credential (encrypted) and what the last fetch saw.
    pub struct RepositoryRecord {
        pub workspace_id: WorkspaceId,
        /// `token` or `deploy_key`.
        pub credential_kind: Option<String>,
        /// Encrypted with the server key.
        pub credential: Option<Vec<u8>>,
        pub credential_fingerprint: Option<String>,
        /// A deploy key's public half (OpenSSH).
        pub public_key: Option<String>,
        pub fetched_at: Option<Timestamp>,
        pub fetched_head: Option<String>,
        pub fetched_branch: Option<String>,
        pub fetch_error: Option<String>,
        pub updated_at: Timestamp,
    }
}

record! {
    pub struct TokenRecord {
        pub id: TokenId,
        pub workspace_id: Option<WorkspaceId>,
        pub name: String,
        pub scope: Scope,
        pub secret_hash: Vec<u8>,
        pub rate_limit: Option<i64>,
        pub created_at: Timestamp,
        pub revoked_at: Option<Timestamp>,
        /// When it stops working; `None`: never.
        pub expires_at: Option<Timestamp>,
        /// About when it last authenticated a request (written at most once a minute).
        pub last_used_at: Option<Timestamp>,
    }
}

record! {
    /// A drift check asked for over the API; `status` follows a run's (queued → running →
    /// succeeded | failed) and `result` holds the report when it succeeded.
    pub struct DriftCheckRecord {
        pub id: DriftCheckId,
        pub workspace_id: WorkspaceId,
        pub status: RunStatus,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
        pub started_at: Option<Timestamp>,
        pub finished_at: Option<Timestamp>,
        pub result: Option<JsonText<serde_json::Value>>,
        pub error: Option<String>,
        pub attempts: i64,
        /// The ref checked; '' is the default branch.
        pub git_ref: String,
    }
}

/// One article a run produced: `[{article_id, surface, version, unchanged}]` on the Run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Artifact {
    pub article_id: ArticleId,
    pub surface: Surface,
    pub version: i64,
    /// The run generated the same article as `version`, already current: it wrote nothing.
    #[serde(default)]
    pub unchanged: bool,
}

record! {
    pub struct RunRecord {
        pub id: RunId,
        pub workspace_id: WorkspaceId,
        pub feature_id: String,
        /// `None`: every surface of the feature; `Some`: only these (a regenerate).
        pub surfaces: Option<JsonText<Vec<Surface>>>,
        pub status: RunStatus,
        pub source: RunSource,
        pub tier: Tier,
        pub notify_on_complete: bool,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
        pub started_at: Option<Timestamp>,
        pub finished_at: Option<Timestamp>,
        pub source_commit: Option<String>,
        pub artifacts: JsonText<Vec<Artifact>>,
        pub error: Option<String>,
        pub attempts: i64,
        /// The ref asked for; '' is the default branch.
        pub git_ref: String,
        /// What triggered it, when not a plain request (a forge push): JSON.
        pub run_trigger: Option<JsonText<serde_json::Value>>,
        /// Until when its worker holds it (running runs only).
        pub lease_expires_at: Option<Timestamp>,
    }
}

impl RunRecord {
    /// The status a reader sees at `now`: a running run whose lease has ended (its worker
    /// handed it back at shutdown, or died) waits in the queue for any worker to take it
    /// again, so it shows `queued`. The one rule, also written in SQL as [`SHOWN_RUN_STATUS`].
    pub fn status_at(&self, now: Timestamp) -> RunStatus {
        match self.lease_expires_at {
            Some(until) if self.status == RunStatus::Running && until <= now => RunStatus::Queued,
            _ => self.status,
        }
    }
}

/// [`RunRecord::status_at`] in SQL, with the time bound as `$now`.
pub(crate) const SHOWN_RUN_STATUS: &str =
    "CASE WHEN status = 'running' AND lease_expires_at <= $now THEN 'queued' ELSE status END";

record! {
    pub struct RunEventRecord {
        pub run_id: RunId,
        pub seq: i64,
        pub ts: Timestamp,
        pub level: LogLevel,
        pub stage: LogStage,
        pub message: String,
        pub data: JsonText<serde_json::Value>,
    }
}

record! {
    pub struct ArticleRecord {
        pub id: ArticleId,
        pub workspace_id: WorkspaceId,
        pub feature_id: String,
        pub surface: Surface,
        pub title: String,
        pub status: ArticleStatus,
        pub version: i64,
        pub run_id: RunId,
        pub mdx_body: String,
        pub public_url: Option<String>,
        pub published_version: Option<i64>,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
        /// When the published version was published (absent for articles published before
        /// the service recorded it).
        pub published_at: Option<Timestamp>,
    }
}

record! {
    pub struct ArticleVersionRecord {
        pub article_id: ArticleId,
        pub version: i64,
        pub run_id: RunId,
        pub title: String,
        pub status: ArticleStatus,
        pub mdx_body: String,
        pub provenance: JsonText<serde_json::Value>,
        pub created_at: Timestamp,
    }
}

record! {
    pub struct WebhookRecord {
        pub id: WebhookId,
        pub workspace_id: WorkspaceId,
        pub url: String,
        pub events: JsonText<Vec<EventType>>,
        pub active: bool,
        pub description: Option<String>,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
        pub last_delivery_at: Option<Timestamp>,
        pub failure_count: i64,
        pub failing_since: Option<Timestamp>,
        /// Encrypted signing secret; only the webhooks part can open it.
        pub secret: Vec<u8>,
        pub previous_secret: Option<Vec<u8>>,
        pub previous_secret_expires_at: Option<Timestamp>,
        pub deleted_at: Option<Timestamp>,
    }
}

record! {
    pub struct EventRecord {
        pub id: EventId,
        pub workspace_id: WorkspaceId,
        pub event_type: EventType,
        /// The exact JSON body deliveries send.
        pub payload: String,
        pub created_at: Timestamp,
    }
}

record! {
    pub struct DeliveryRecord {
        pub id: DeliveryId,
        pub subscription_id: WebhookId,
        pub workspace_id: WorkspaceId,
        pub event_id: EventId,
        pub event_type: EventType,
        pub status: DeliveryStatus,
        pub attempts: i64,
        pub last_status_code: Option<i64>,
        pub target_url: String,
        pub is_replay: bool,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
        pub next_attempt_at: Option<Timestamp>,
    }
}

record! {
    /// One HTTP attempt of a delivery, as the attempt log keeps it (bounded by the sender:
    /// 64 response headers, 4 KiB of response body, 500 characters of error message).
    pub struct DeliveryAttemptRecord {
        pub id: AttemptId,
        pub delivery_id: DeliveryId,
        pub subscription_id: WebhookId,
        pub workspace_id: WorkspaceId,
        /// 1 for the delivery's first attempt.
        pub attempt: i64,
        pub started_at: Timestamp,
        pub duration_ms: i64,
        /// Where the attempt went.
        pub url: String,
        /// As sent, signatures included; never a secret.
        pub request_headers: JsonText<BTreeMap<String, String>>,
        /// `None` when no answer came (see `error_kind`).
        pub response_status: Option<i64>,
        pub response_headers: Option<JsonText<BTreeMap<String, String>>>,
        /// The first 4 KiB of the answer, as text.
        pub response_body: Option<String>,
        pub response_body_truncated: bool,
        /// Why no HTTP answer came; `None` when one did.
        pub error_kind: Option<AttemptError>,
        pub error_message: Option<String>,
        /// When the next attempt was planned, if one was.
        pub next_attempt_at: Option<Timestamp>,
    }
}

record! {
    /// A person of the portal.
    pub struct UserRecord {
        pub id: UserId,
        /// Trimmed and lowercased.
        pub email: String,
        /// An argon2id PHC string; `None` until a password is set through a sign-in link.
        pub password_hash: Option<String>,
        pub platform_admin: bool,
        pub created_at: Timestamp,
        pub password_changed_at: Option<Timestamp>,
    }
}

record! {
    /// A user's role in one workspace.
    pub struct MembershipRecord {
        pub user_id: UserId,
        pub workspace_id: WorkspaceId,
        pub role: Scope,
        pub created_at: Timestamp,
    }
}

record! {
    /// A signed-in session, found by the SHA-256 of its id (the cookie holds the id).
    pub struct SessionRecord {
        pub id_hash: Vec<u8>,
        pub user_id: UserId,
        pub created_at: Timestamp,
        pub last_seen_at: Timestamp,
        /// Absolute expiry; the idle expiry is counted from `last_seen_at`.
        pub expires_at: Timestamp,
    }
}

record! {
    /// A one-time link that sets a user's password, found by the SHA-256 of its token.
    pub struct SignInLinkRecord {
        pub token_hash: Vec<u8>,
        pub user_id: UserId,
        pub created_at: Timestamp,
        pub expires_at: Timestamp,
        pub used_at: Option<Timestamp>,
    }
}

record! {
    /// A workspace's forge connection (secrets encrypted with the server key).
    pub struct ForgeSettingsRecord {
        pub workspace_id: WorkspaceId,
        pub secret: Option<Vec<u8>>,
        pub previous_secret: Option<Vec<u8>>,
        pub previous_expires_at: Option<Timestamp>,
        pub api_token: Option<Vec<u8>>,
        pub api_token_fingerprint: Option<String>,
        pub api_url: Option<String>,
        pub updated_at: Timestamp,
    }
}

record! {
    /// A verified forge delivery and the job that acts on it.
    pub struct ForgeDeliveryRecord {
        pub id: ForgeDeliveryId,
        pub workspace_id: WorkspaceId,
        /// `github`, `gitlab`, `gitea`.
        pub forge: String,
        /// The forge's delivery id.
        pub delivery: String,
        pub event: String,
        /// `queued`, `running`, `done`, `ignored` or `failed`.
        pub status: String,
        /// The event as read from the payload (JSON).
        pub request: JsonText<serde_json::Value>,
        /// What it triggered, or why nothing (JSON).
        pub outcome: Option<JsonText<serde_json::Value>>,
        pub received_at: Timestamp,
        pub updated_at: Timestamp,
        pub attempts: i64,
    }
}

record! {
    /// The commit status of a pull request's drift check.
    pub struct CommitStatusRecord {
        pub drift_check_id: DriftCheckId,
        pub workspace_id: WorkspaceId,
        pub forge: String,
        /// The repository as the forge's API names it (JSON: path, id).
        pub repository: JsonText<serde_json::Value>,
        pub sha: String,
        pub pull_number: i64,
        /// What should be on the forge: `pending`, `success`, `failure`, `error`.
        pub state: String,
        pub description: String,
        /// What was last posted.
        pub posted_state: Option<String>,
        pub attempts: i64,
        pub next_attempt_at: Option<Timestamp>,
        pub last_error: Option<String>,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
    }
}

record! {
    /// A workspace's publish target and the state of its sync.
    pub struct PublishTargetRecord {
        pub workspace_id: WorkspaceId,
        pub url: String,
        pub branch: String,
        /// Relative path inside the repository (`""`: its root).
        pub folder: String,
        /// The export layout (`domain::ExportFormat`'s name).
        pub format: String,
        pub credential_kind: Option<String>,
        pub credential: Option<Vec<u8>>,
        pub credential_fingerprint: Option<String>,
        pub public_key: Option<String>,
        /// Changes asked for so far; a sync is due while it is above `synced_generation`.
        pub sync_generation: i64,
        pub synced_generation: i64,
        /// The generation the sync in flight pushes.
        pub claimed_generation: Option<i64>,
        /// `pending`, `syncing`, `synced`, `retrying` or `auth_failed`.
        pub state: String,
        pub attempts: i64,
        pub next_attempt_at: Option<Timestamp>,
        pub last_attempt_at: Option<Timestamp>,
        pub last_sync_at: Option<Timestamp>,
        pub last_commit: Option<String>,
        pub last_error: Option<String>,
        /// What the last sync wrote (JSON, see `operations::publish_targets`).
        pub synced_state: JsonText<serde_json::Value>,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
    }
}
