//! The data layer. One API, two engines: embedded SQLite for a laptop and PostgreSQL for many
//! nodes. SQL text is shared wherever the dialects agree (placeholders `$n`, `RETURNING`,
//! row-value keyset comparisons, partial indexes); each engine has its own migrations.
//!
//! Reads go through [`Store`]; writes that must commit together (a side effect, the events it
//! causes and the idempotency record of the request) go through one [`Tx`].

mod accounts;
mod articles;
mod attempts;
mod deliveries;
mod direct;
mod drift;
mod engine;
mod error;
mod events;
mod forge;
mod hot;
mod idempotency;
mod json;
mod lent;
mod page;
mod principals;
mod publish_targets;
mod records;
mod repositories;
mod runs;
mod search;
mod signals;
mod tokens;
mod wakeups;
mod webhooks;
mod workspaces;
mod writer;

pub use accounts::{Member, MemberWorkspace, SignInAttempts};
pub use articles::{
    ArticleFilter, NewArticleVersion, PublishedArticle, PublishedBody, VersionOrigin,
};
pub use deliveries::{AttemptLog, AttemptRecord, ClaimedDelivery, NextStep, Saturated};
pub use drift::ArticleProvenance;
pub use engine::{ConnectOptions, Engine, Store, Tx, WARM_CORE, WriteFuture};
pub use error::StoreError;
pub use forge::{KEPT_DELIVERIES, NewCommitStatus, NewForgeDelivery, StatusAttempt};
pub use idempotency::{Claim, ClaimOutcome, StoredResponse};
pub use json::JsonText;
pub use page::{KeysetPage, Position};
pub use principals::DEFAULT_PRINCIPAL_CACHE_TTL;
pub use publish_targets::{PublishTargetSetting, SyncOutcome};
pub use records::*;
pub use repositories::{FetchNote, RepositorySetting, StoredCredential};
pub use runs::RunFilter;
pub use runs::{NewRun, RunEnding, TriggerOutcome};
pub use search::{
    Highlighted, HighlightedPart, MARK_END, MARK_START, SearchAudience, SearchHit, SearchTerms,
};
pub use signals::RunChanges;
pub use wakeups::{Queue, Wakeup};
pub use webhooks::{DeliveryFilter, NewWebhook, Recovery, WebhookChanges};
