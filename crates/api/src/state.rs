use std::ops::Deref;
use std::sync::Arc;

use domain::{Clock, Secret};
use operations::Operations;
use operations::token_usage::TokenUsage;
use store::Store;
use webhooks::{SecretBox, derive_key};

use crate::paging::CursorCodec;
use crate::ratelimit::RateLimiter;

/// What the API needs from configuration besides what its operations have.
#[derive(Clone, Debug)]
pub struct ApiConfig {
    /// The server key: encrypts stored idempotent responses at rest, and signs cursors.
    pub server_key: Secret<[u8; 32]>,
    pub live_logs: operations::live_log::LiveLogLimits,
}

pub struct Inner {
    /// The use cases the handlers call.
    pub ops: Operations,
    pub store: Store,
    pub clock: Clock,
    pub base_url: Arc<str>,
    /// Encrypts the responses idempotency records keep for replay.
    pub responses: SecretBox,
    pub cursors: CursorCodec,
    pub limiter: RateLimiter,
    /// Live log streams open per token.
    pub live_logs: operations::live_log::LiveLogs,
    /// Notes when tokens are used, for this node's background writer.
    pub token_usage: TokenUsage,
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
    /// `token_usage` notes when tokens are used; its writer runs beside the server.
    pub fn new(
        ops: Operations,
        limiter: RateLimiter,
        token_usage: TokenUsage,
        config: ApiConfig,
    ) -> Self {
        Self(Arc::new(Inner {
            store: ops.store.clone(),
            clock: ops.clock.clone(),
            base_url: ops.base_url.clone(),
            ops,
            responses: SecretBox::new(&derive_key(
                config.server_key.expose(),
                RESPONSES_KEY_PURPOSE,
            )),
            cursors: CursorCodec::new(derive_key(config.server_key.expose(), "cursors-v1")),
            limiter,
            live_logs: operations::live_log::LiveLogs::new(config.live_logs),
            token_usage,
        }))
    }

    /// `path` under the service's base URL.
    pub fn url(&self, path: &str) -> String {
        self.ops.url(path)
    }
}

/// The purpose of the key derived from the server key that encrypts stored responses.
pub const RESPONSES_KEY_PURPOSE: &str = "idempotent-responses-v1";
