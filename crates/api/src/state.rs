use std::ops::Deref;
use std::sync::Arc;

use domain::{Clock, Secret};
use store::Store;
use webhooks::{AddressPolicy, SECRETS_KEY_PURPOSE, SecretBox, derive_key};

use crate::paging::CursorCodec;
use crate::ratelimit::RateLimiter;

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

/// What the API needs from configuration.
#[derive(Clone, Debug)]
pub struct ApiConfig {
    /// Used in `runs_url`, `log_url`, `Location`, `docs` and `public_url`; no trailing slash.
    pub base_url: String,
    pub default_rate_limit: u32,
    /// The server key: encrypts webhook secrets and stored idempotent responses at rest, and
    /// signs cursors.
    pub server_key: Secret<[u8; 32]>,
    pub address_policy: AddressPolicy,
    pub live_logs: crate::routes::runs::LiveLogLimits,
    pub quotas: WorkspaceQuotas,
}

pub struct Inner {
    pub store: Store,
    pub clock: Clock,
    pub base_url: Arc<str>,
    pub default_rate_limit: u32,
    pub secrets: SecretBox,
    /// Encrypts the responses idempotency records keep for replay.
    pub responses: SecretBox,
    pub cursors: CursorCodec,
    pub limiter: RateLimiter,
    pub address_policy: AddressPolicy,
    pub quotas: WorkspaceQuotas,
    /// Trigger-time feature checks, remembered by HEAD commit.
    pub features: pipeline::FeatureCache,
    /// Live log streams open per token.
    pub live_logs: crate::routes::runs::LiveLogs,
}

/// Shared by every handler; cheap to clone.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

impl Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl AppState {
    pub fn new(store: Store, clock: Clock, limiter: RateLimiter, config: ApiConfig) -> Self {
        let base_url = config.base_url.trim_end_matches('/').to_owned();
        Self(Arc::new(Inner {
            secrets: SecretBox::new(&derive_key(config.server_key.expose(), SECRETS_KEY_PURPOSE)),
            responses: SecretBox::new(&derive_key(
                config.server_key.expose(),
                crate::idempotency::RESPONSES_KEY_PURPOSE,
            )),
            cursors: CursorCodec::new(derive_key(config.server_key.expose(), "cursors-v1")),
            limiter,
            store,
            clock,
            base_url: base_url.into(),
            default_rate_limit: config.default_rate_limit,
            address_policy: config.address_policy,
            quotas: config.quotas,
            features: pipeline::FeatureCache::new(),
            live_logs: crate::routes::runs::LiveLogs::new(config.live_logs),
        }))
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }
}
