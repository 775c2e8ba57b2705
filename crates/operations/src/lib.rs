//! The use cases of the Content Pipeline Service, with no HTTP in them: create a workspace,
//! mint, reissue and revoke tokens, queue or coalesce a run, publish, regenerate, check drift,
//! manage webhook subscriptions and replay deliveries. The API's handlers, the CLI, the
//! workers and the portal all call these, so each rule lives here once.
//!
//! Each operation takes the [`Caller`] and the inputs already parsed; reads check tenancy
//! and scope through one loader per resource (`load`). An operation that writes is given the
//! transaction it writes in (`&mut Tx`): the front end opens it with `Store::write` and may add
//! its own records to it (the API's idempotent response) so that both commit together.

pub mod accounts;
pub mod articles;
mod caller;
pub mod catalog;
pub mod deliveries;
pub mod drift;
mod error;
pub mod exports;
pub mod forge;
mod lists;
pub mod live_log;
mod load;
pub mod publish_targets;
pub mod repositories;
pub mod runs;
pub mod search;
pub mod token_usage;
pub mod tokens;
pub mod views;
pub mod webhooks;
pub mod workspaces;

use std::ops::Deref;
use std::sync::Arc;

use ::webhooks::{AddressPolicy, SECRETS_KEY_PURPOSE, SecretBox, derive_key};
use domain::{Clock, Secret};
use store::Store;

pub use caller::Caller;
pub use error::{Error, ErrorKind, Result, bounded, required_text};
pub use load::{Resource, ensure_active};

/// The platform operator's bounds on each workspace (CONTRACT section 2, Rate limits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkspaceQuotas {
    /// Live (unrevoked) tokens.
    pub tokens: u32,
    /// Webhook subscriptions that are not deleted, paused ones included.
    pub webhooks: u32,
    /// The ceiling of a workspace token's `rate_limit` (requests per 300 s).
    pub rate_limit: u32,
}

impl Default for WorkspaceQuotas {
    fn default() -> Self {
        Self {
            tokens: 100,
            webhooks: 50,
            rate_limit: 6_000,
        }
    }
}

/// What the operations need from configuration.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Used in links (`runs_url`, `public_url`, …); no trailing slash needed.
    pub base_url: String,
    /// Requests per 300 s for tokens without their own limit.
    pub default_rate_limit: u32,
    /// The server key: webhook secrets are sealed with a key derived from it.
    pub server_key: Secret<[u8; 32]>,
    pub address_policy: AddressPolicy,
    pub quotas: WorkspaceQuotas,
    /// How long portal sessions last.
    pub sessions: accounts::SessionSettings,
}

pub struct Inner {
    pub store: Store,
    pub clock: Clock,
    pub base_url: Arc<str>,
    pub default_rate_limit: u32,
    /// Seals webhook signing secrets at rest.
    pub secrets: SecretBox,
    pub address_policy: AddressPolicy,
    pub quotas: WorkspaceQuotas,
    /// Trigger-time feature checks, remembered by HEAD commit.
    pub features: pipeline::FeatureCache,
    /// Portal sessions, password hashing and CSRF tokens.
    pub(crate) accounts: accounts::Accounts,
    /// Set once this process stops serving: live log streams end (see `live_log`).
    pub(crate) stopping: tokio::sync::watch::Sender<bool>,
}

/// The handle every front end holds; cheap to clone.
#[derive(Clone)]
pub struct Operations(Arc<Inner>);

impl Deref for Operations {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl Operations {
    pub fn new(store: Store, clock: Clock, settings: Settings) -> Self {
        Self(Arc::new(Inner {
            secrets: SecretBox::new(&derive_key(
                settings.server_key.expose(),
                SECRETS_KEY_PURPOSE,
            )),
            base_url: settings.base_url.trim_end_matches('/').into(),
            default_rate_limit: settings.default_rate_limit,
            address_policy: settings.address_policy,
            quotas: settings.quotas,
            features: pipeline::FeatureCache::new(),
            accounts: accounts::Accounts::new(settings.server_key.expose(), settings.sessions),
            store,
            clock,
            stopping: tokio::sync::watch::Sender::new(false),
        }))
    }

    /// `path` under the service's base URL.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }
}
