use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;

use domain::UserId;
use operations::Operations;
use operations::live_log::{LiveLogLimits, LiveLogs};

/// What the portal needs from configuration besides what its operations have.
#[derive(Clone, Debug)]
pub struct PortalConfig {
    /// `scheme://host[:port]` of the base URL: the only `Origin` a form may come from.
    pub origin: String,
    /// With an https base URL, cookies are `Secure` and `__Host-` prefixed.
    pub secure_cookies: bool,
    /// Live run logs a person may follow at once (per process), and how long each stream
    /// lasts before the browser resumes it.
    pub live_logs: LiveLogLimits,
    /// Reverse proxies whose `X-Forwarded-For` names the client, for sign-in throttling per
    /// address; empty by default.
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// The service's one paging cursor codec (the API's): a list page's `before` is a cursor
    /// signed for that list.
    pub cursors: http_envelope::CursorCodec,
}

impl PortalConfig {
    /// The settings that follow from the service's base URL.
    pub fn for_base_url(
        base_url: &str,
        live_logs: LiveLogLimits,
        cursors: http_envelope::CursorCodec,
    ) -> Self {
        let secure_cookies = base_url.starts_with("https://");
        let after_scheme = base_url.find("://").map_or(0, |i| i + 3);
        let end = base_url[after_scheme..]
            .find('/')
            .map_or(base_url.len(), |i| after_scheme + i);
        Self {
            origin: base_url[..end].to_owned(),
            secure_cookies,
            live_logs,
            trusted_proxies: Vec::new(),
            cursors,
        }
    }
}

pub struct Inner {
    /// The use cases every page calls.
    pub ops: Operations,
    pub config: PortalConfig,
    /// Live run logs open per person.
    pub live_logs: LiveLogs<UserId>,
}

/// Shared by every page; cheap to clone.
#[derive(Clone)]
pub struct Portal(Arc<Inner>);

impl Deref for Portal {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl Portal {
    pub fn new(ops: Operations, config: PortalConfig) -> Self {
        Self(Arc::new(Inner {
            live_logs: LiveLogs::new(config.live_logs),
            ops,
            config,
        }))
    }
}

impl PortalConfig {
    /// How long a live log stream lasts before the browser resumes it.
    pub fn live_log_lifetime(&self) -> Duration {
        self.live_logs.lifetime
    }
}
