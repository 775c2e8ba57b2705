//! Configuration: defaults < optional TOML file (`--config`) < `CONTENT_PIPELINE_*`
//! environment variables.

use std::path::{Path, PathBuf};

use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Config {
    /// `sqlite://…` or `postgres://…`.
    pub database_url: String,
    /// Listen address; `:0` picks a free port (the bound address is logged).
    pub bind: String,
    /// Used in links; defaults to `http://<bound address>`.
    pub base_url: Option<String>,
    /// Delay before each delivery attempt.
    pub webhook_retry_schedule: String,
    pub webhook_timeout: String,
    /// CIDR ranges exempt from the private-address block.
    pub webhook_allowed_cidrs: String,
    /// Delivery attempts in flight at once in one process (a quarter of them at most to one
    /// subscription).
    pub webhook_concurrency: usize,
    /// Run the background workers in `serve` (`serve --no-workers` turns this off).
    pub workers: bool,
    #[serde(deserialize_with = "duration_text")]
    pub drift_interval: String,
    /// Redis shared by every API node's rate limiter (contract section 8).
    pub redis_url: Option<String>,
    /// Connections per pool: SQLite's readers (its writer is always one), or PostgreSQL's pool.
    pub db_max_connections: u32,
    /// Requests per 300 s for tokens without their own limit.
    pub default_rate_limit: u32,
    /// The server key (32 bytes, standard base64). When unset it is read from `key_file`,
    /// which is created on first start.
    pub secret_key: Option<String>,
    pub key_file: PathBuf,
    /// Pipeline runs executed at once by this process's run worker; 0 turns it off.
    pub run_concurrency: usize,
    /// An OpenAI-compatible chat-completions URL that polishes generated prose (optional).
    pub polish_url: Option<String>,
    pub polish_model: String,
    /// Sent as a bearer token to the polish endpoint; never logged.
    pub polish_api_key: Option<String>,
    pub polish_timeout: String,
    // The sandbox of runs and drift checks (contract section 4, Isolation).
    /// The executable started as `<program> sandbox` for each run; the server's own by default.
    pub sandbox_program: Option<PathBuf>,
    /// Wall-clock deadline of one run's or drift check's process.
    #[serde(deserialize_with = "duration_text")]
    pub run_deadline: String,
    /// CPU time of one run's process.
    #[serde(deserialize_with = "duration_text")]
    pub run_cpu_limit: String,
    /// Address space of one run's process, in MiB.
    pub run_memory_limit_mb: u64,
    /// Open files of one run's process.
    pub run_open_files: u64,
    /// Stack of the thread that does a run's work, in MiB.
    pub run_stack_mb: u64,
    /// The bounds of a run's work (`[limits]` in TOML, `CONTENT_PIPELINE_LIMITS__<FIELD>`).
    pub limits: pipeline::Limits,
    // Fairness between tenants.
    /// Delivery attempts in flight at once for one workspace in one process, across all its
    /// subscriptions; unset: half of `webhook_concurrency`.
    pub webhook_workspace_concurrency: Option<usize>,
    /// Live log streams (`GET /v1/runs/{id}/log`, text/event-stream) one token may hold open
    /// at once in one process.
    pub log_streams_per_token: usize,
    /// How long a live log stream lasts before the server ends it (the client resumes with
    /// `Last-Event-ID`); a bare number is seconds.
    #[serde(deserialize_with = "duration_text")]
    pub log_stream_lifetime: String,
    // Connections and workspace quotas (issue 8).
    /// A request head (line and headers) must arrive within this time, counted from the
    /// connection's start or from the first byte of the next request.
    #[serde(deserialize_with = "duration_text")]
    pub http_header_timeout: String,
    /// A connection with no request in flight that sends nothing is closed after this time.
    #[serde(deserialize_with = "duration_text")]
    pub http_idle_timeout: String,
    /// Connections open at once; more wait in the listen backlog.
    pub http_max_connections: usize,
    /// Largest request head in bytes (at least 8192); larger ones are refused with 431.
    pub http_max_header_bytes: usize,
    /// Live (unrevoked) tokens per workspace.
    pub workspace_max_tokens: u32,
    /// Webhook subscriptions per workspace (deleted ones do not count).
    pub workspace_max_webhooks: u32,
    /// The highest `rate_limit` (requests per 300 s) a workspace token may have.
    pub workspace_max_rate_limit: u32,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            database_url: "sqlite://content-pipeline.db".into(),
            bind: "127.0.0.1:8080".into(),
            base_url: None,
            webhook_retry_schedule: "0s,5s,5m,30m,2h,5h,10h,14h,20h,24h".into(),
            webhook_timeout: "15s".into(),
            webhook_allowed_cidrs: String::new(),
            webhook_concurrency: 256,
            workers: true,
            drift_interval: "10m".into(),
            redis_url: None,
            db_max_connections: 8,
            default_rate_limit: 600,
            secret_key: None,
            key_file: PathBuf::from("content-pipeline.key"),
            run_concurrency: 2,
            polish_url: None,
            polish_model: "gpt-4o-mini".into(),
            polish_api_key: None,
            polish_timeout: "20s".into(),
            sandbox_program: None,
            run_deadline: "5m".into(),
            run_cpu_limit: "2m".into(),
            run_memory_limit_mb: 2048,
            run_open_files: 256,
            run_stack_mb: 16,
            limits: pipeline::Limits::default(),
            webhook_workspace_concurrency: None,
            log_streams_per_token: 5,
            log_stream_lifetime: "30m".into(),
            http_header_timeout: "10s".into(),
            http_idle_timeout: "60s".into(),
            http_max_connections: 10_000,
            http_max_header_bytes: 64 * 1024,
            workspace_max_tokens: 100,
            workspace_max_webhooks: 50,
            workspace_max_rate_limit: 6_000,
        }
    }
}

impl Config {
    pub fn load(file: Option<&Path>) -> anyhow::Result<Self> {
        let mut figment = Figment::from(Serialized::defaults(Config::default()));
        if let Some(file) = file {
            if !file.exists() {
                anyhow::bail!("config file {} does not exist", file.display());
            }
            figment = figment.merge(Toml::file(file));
        }
        let config: Config = figment
            .merge(Env::prefixed("CONTENT_PIPELINE_").split("__"))
            .extract()?;
        Ok(config)
    }

    /// The delivery worker's settings, checked: a bad schedule, timeout or CIDR list stops
    /// start-up with a message naming the variable.
    pub fn delivery_settings(&self) -> anyhow::Result<workers::DeliverySettings> {
        let schedule = webhooks::RetrySchedule::parse(&self.webhook_retry_schedule)
            .map_err(|e| anyhow::anyhow!("CONTENT_PIPELINE_WEBHOOK_RETRY_SCHEDULE: {e}"))?;
        let timeout = positive_duration(&self.webhook_timeout, "CONTENT_PIPELINE_WEBHOOK_TIMEOUT")?;
        let mut settings =
            workers::DeliverySettings::new(schedule, timeout, self.address_policy()?);
        settings.concurrency = self.webhook_concurrency.max(1);
        // A quarter of the slots at most for one subscription, so a hanging receiver leaves
        // three quarters to the others; half at most for one workspace, so a tenant whose
        // receivers all hang leaves half to the other tenants.
        settings.per_subscription = (settings.concurrency / 4).max(1);
        settings.per_workspace = self
            .webhook_workspace_concurrency
            .unwrap_or(settings.concurrency / 2)
            .max(1);
        Ok(settings)
    }

    /// How runs and drift checks are isolated, checked: a bad duration stops start-up with a
    /// message naming the variable.
    pub fn sandbox(&self) -> anyhow::Result<workers::sandbox::Sandbox> {
        let program = match &self.sandbox_program {
            Some(p) => p.clone(),
            None => std::env::current_exe()
                .map_err(|e| anyhow::anyhow!("the server's own executable is unknown: {e}"))?,
        };
        let deadline = positive_duration(&self.run_deadline, "CONTENT_PIPELINE_RUN_DEADLINE")?;
        let cpu = positive_duration(&self.run_cpu_limit, "CONTENT_PIPELINE_RUN_CPU_LIMIT")?;
        let mib = |n: u64, name: &str| {
            n.checked_mul(1024 * 1024)
                .filter(|b| *b > 0)
                .ok_or_else(|| anyhow::anyhow!("{name}: use a positive number of MiB"))
        };
        let mut sandbox = workers::sandbox::Sandbox::new(program);
        sandbox.deadline = deadline;
        sandbox.resources = workers::sandbox::ResourceLimits {
            cpu_seconds: cpu.as_secs().max(1),
            memory_bytes: mib(
                self.run_memory_limit_mb,
                "CONTENT_PIPELINE_RUN_MEMORY_LIMIT_MB",
            )?,
            open_files: self.run_open_files.max(16),
            stack_bytes: mib(self.run_stack_mb, "CONTENT_PIPELINE_RUN_STACK_MB")? as usize,
        };
        sandbox.limits = self.limits.clone();
        Ok(sandbox)
    }

    /// The limits of live log streams, checked.
    pub fn live_log_limits(&self) -> anyhow::Result<api::LiveLogLimits> {
        let lifetime = positive_duration(
            &self.log_stream_lifetime,
            "CONTENT_PIPELINE_LOG_STREAM_LIFETIME",
        )?;
        Ok(api::LiveLogLimits {
            per_token: self.log_streams_per_token.max(1),
            lifetime,
        })
    }

    pub fn address_policy(&self) -> anyhow::Result<webhooks::AddressPolicy> {
        webhooks::AddressPolicy::from_allowed_list(&self.webhook_allowed_cidrs)
            .map_err(|e| anyhow::anyhow!("CONTENT_PIPELINE_WEBHOOK_ALLOWED_CIDRS: {e}"))
    }

    /// The connection bounds, checked: each must be positive.
    pub fn connection_limits(&self) -> anyhow::Result<crate::server::ConnectionLimits> {
        if self.http_max_connections == 0 {
            anyhow::bail!("CONTENT_PIPELINE_HTTP_MAX_CONNECTIONS must be at least 1");
        }
        if self.http_max_header_bytes < crate::server::MIN_HEADER_BYTES {
            anyhow::bail!(
                "CONTENT_PIPELINE_HTTP_MAX_HEADER_BYTES must be at least {}",
                crate::server::MIN_HEADER_BYTES
            );
        }
        Ok(crate::server::ConnectionLimits {
            header_timeout: positive_duration(
                &self.http_header_timeout,
                "CONTENT_PIPELINE_HTTP_HEADER_TIMEOUT",
            )?,
            idle_timeout: positive_duration(
                &self.http_idle_timeout,
                "CONTENT_PIPELINE_HTTP_IDLE_TIMEOUT",
            )?,
            max_connections: self.http_max_connections,
            max_header_bytes: self.http_max_header_bytes,
        })
    }

    /// The workspace quotas, checked: the default quota of a token must fit under the ceiling,
    /// or a token created without `rate_limit` would exceed it.
    pub fn workspace_quotas(&self) -> anyhow::Result<api::WorkspaceQuotas> {
        if self.workspace_max_rate_limit < self.default_rate_limit {
            anyhow::bail!(
                "CONTENT_PIPELINE_WORKSPACE_MAX_RATE_LIMIT ({}) must not be below CONTENT_PIPELINE_DEFAULT_RATE_LIMIT ({})",
                self.workspace_max_rate_limit,
                self.default_rate_limit
            );
        }
        Ok(api::WorkspaceQuotas {
            tokens: self.workspace_max_tokens,
            webhooks: self.workspace_max_webhooks,
            rate_limit: self.workspace_max_rate_limit,
        })
    }

    /// The server key: configured, or read from (and on first start written to) the key file.
    pub fn server_key(&self) -> anyhow::Result<[u8; 32]> {
        use base64::Engine as _;
        let text = match &self.secret_key {
            Some(k) => k.clone(),
            None if self.key_file.exists() => std::fs::read_to_string(&self.key_file)?,
            None => {
                let text = webhooks::SecretBox::generate_key_text();
                write_private(&self.key_file, &text)?;
                tracing::info!(path = %self.key_file.display(), "generated a new server key");
                text
            }
        };
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(text.trim())
            .map_err(|_| anyhow::anyhow!("the server key must be standard base64"))?;
        bytes
            .try_into()
            .map_err(|_| anyhow::anyhow!("the server key must be 32 bytes"))
    }
}

fn positive_duration(text: &str, name: &str) -> anyhow::Result<std::time::Duration> {
    webhooks::parse_duration(text)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| anyhow::anyhow!("{name}: use a positive duration such as 30s or 5m"))
}

/// A duration as text ("30m"); the environment hands a bare number over as an integer, which
/// is read as seconds.
fn duration_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Text {
        Seconds(u64),
        Text(String),
    }
    Ok(match Text::deserialize(d)? {
        Text::Seconds(n) => format!("{n}s"),
        Text::Text(t) => t,
    })
}

fn write_private(path: &Path, text: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)?.write_all(text.as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    // figment::Jail's closure must return figment's own (large) error type.
    #[allow(clippy::result_large_err)]
    fn defaults_then_the_file_then_the_environment() {
        figment::Jail::expect_with(|jail| {
            jail.create_file(
                "service.toml",
                "default_rate_limit = 100\ndb_max_connections = 3\nbind = \"0.0.0.0:9000\"\n",
            )?;
            jail.set_env("CONTENT_PIPELINE_DEFAULT_RATE_LIMIT", "250");
            jail.set_env("CONTENT_PIPELINE_REDIS_URL", "redis://cache:6379");
            let c = Config::load(Some(Path::new("service.toml"))).map_err(|e| e.to_string())?;
            assert_eq!(c.default_rate_limit, 250, "the environment wins");
            assert_eq!(c.db_max_connections, 3, "the file beats the default");
            assert_eq!(c.bind, "0.0.0.0:9000");
            assert_eq!(c.redis_url.as_deref(), Some("redis://cache:6379"));
            assert_eq!(c.run_concurrency, 2, "the default stays");
            assert_eq!(c.log_stream_lifetime, "30m");
            assert!(Config::load(Some(Path::new("missing.toml"))).is_err());
            Ok(())
        });
    }

    #[test]
    #[allow(clippy::result_large_err)]
    fn numbers_for_durations_and_nested_limits_from_the_environment() {
        figment::Jail::expect_with(|jail| {
            jail.create_file(
                "service.toml",
                "run_deadline = \"90s\"\n[limits]\nmax_file_bytes = 5000\n",
            )?;
            jail.set_env("CONTENT_PIPELINE_DRIFT_INTERVAL", "0");
            jail.set_env("CONTENT_PIPELINE_LIMITS__MAX_NESTING_DEPTH", "64");
            jail.set_env("CONTENT_PIPELINE_RUN_MEMORY_LIMIT_MB", "512");
            let c = Config::load(Some(Path::new("service.toml"))).map_err(|e| e.to_string())?;
            assert_eq!(c.drift_interval, "0s");
            assert_eq!(c.limits.max_file_bytes, 5000);
            assert_eq!(c.limits.max_nesting_depth, 64);
            let sandbox = c.sandbox().map_err(|e| e.to_string())?;
            assert_eq!(sandbox.deadline, std::time::Duration::from_secs(90));
            assert_eq!(sandbox.resources.memory_bytes, 512 * 1024 * 1024);
            jail.set_env("CONTENT_PIPELINE_RUN_DEADLINE", "0");
            let c = Config::load(Some(Path::new("service.toml"))).map_err(|e| e.to_string())?;
            let refused = c.sandbox().err().map(|e| e.to_string()).unwrap_or_default();
            assert!(
                refused.contains("CONTENT_PIPELINE_RUN_DEADLINE"),
                "{refused}"
            );
            Ok(())
        });
    }

    #[test]
    #[allow(clippy::result_large_err)]
    fn connection_limits_take_numbers_or_durations_and_refuse_nonsense() {
        figment::Jail::expect_with(|jail| {
            jail.set_env("CONTENT_PIPELINE_HTTP_HEADER_TIMEOUT", "5");
            jail.set_env("CONTENT_PIPELINE_HTTP_IDLE_TIMEOUT", "2m");
            jail.set_env("CONTENT_PIPELINE_HTTP_MAX_CONNECTIONS", "300");
            let c = Config::load(None).map_err(|e| e.to_string())?;
            let limits = c.connection_limits().map_err(|e| e.to_string())?;
            assert_eq!(limits.header_timeout, std::time::Duration::from_secs(5));
            assert_eq!(limits.idle_timeout, std::time::Duration::from_secs(120));
            assert_eq!(limits.max_connections, 300);
            assert_eq!(limits.max_header_bytes, 65536, "the default stays");

            jail.set_env("CONTENT_PIPELINE_HTTP_IDLE_TIMEOUT", "0");
            let c = Config::load(None).map_err(|e| e.to_string())?;
            let e = c.connection_limits().expect_err("zero idle timeout");
            assert!(e.to_string().contains("HTTP_IDLE_TIMEOUT"), "{e}");

            jail.set_env("CONTENT_PIPELINE_HTTP_IDLE_TIMEOUT", "60s");
            jail.set_env("CONTENT_PIPELINE_HTTP_MAX_HEADER_BYTES", "1024");
            let c = Config::load(None).map_err(|e| e.to_string())?;
            let e = c.connection_limits().expect_err("tiny header cap");
            assert!(e.to_string().contains("HTTP_MAX_HEADER_BYTES"), "{e}");
            Ok(())
        });
    }

    #[test]
    #[allow(clippy::result_large_err)]
    fn fairness_limits_from_the_environment() {
        figment::Jail::expect_with(|jail| {
            let c = Config::load(None).map_err(|e| e.to_string())?;
            let limits = c.live_log_limits().map_err(|e| e.to_string())?;
            assert_eq!(limits.per_token, 5);
            assert_eq!(limits.lifetime, std::time::Duration::from_secs(1800));
            let deliveries = c.delivery_settings().map_err(|e| e.to_string())?;
            assert_eq!(deliveries.per_workspace, 128, "half of the 256 slots");

            jail.set_env("CONTENT_PIPELINE_LOG_STREAM_LIFETIME", "90");
            jail.set_env("CONTENT_PIPELINE_LOG_STREAMS_PER_TOKEN", "2");
            jail.set_env("CONTENT_PIPELINE_WEBHOOK_CONCURRENCY", "8");
            jail.set_env("CONTENT_PIPELINE_WEBHOOK_WORKSPACE_CONCURRENCY", "3");
            let c = Config::load(None).map_err(|e| e.to_string())?;
            let limits = c.live_log_limits().map_err(|e| e.to_string())?;
            assert_eq!(
                limits.lifetime,
                std::time::Duration::from_secs(90),
                "seconds"
            );
            assert_eq!(limits.per_token, 2);
            let deliveries = c.delivery_settings().map_err(|e| e.to_string())?;
            assert_eq!(
                (deliveries.per_subscription, deliveries.per_workspace),
                (2, 3)
            );

            jail.set_env("CONTENT_PIPELINE_LOG_STREAM_LIFETIME", "2m");
            let c = Config::load(None).map_err(|e| e.to_string())?;
            let limits = c.live_log_limits().map_err(|e| e.to_string())?;
            assert_eq!(limits.lifetime, std::time::Duration::from_secs(120));

            jail.set_env("CONTENT_PIPELINE_LOG_STREAM_LIFETIME", "0");
            let c = Config::load(None).map_err(|e| e.to_string())?;
            assert!(
                c.live_log_limits().is_err(),
                "a stream must be allowed to live"
            );
            Ok(())
        });
    }

    #[test]
    #[allow(clippy::result_large_err)]
    fn the_rate_limit_ceiling_cannot_be_below_the_default_quota() {
        figment::Jail::expect_with(|jail| {
            let quotas = Config::load(None)
                .map_err(|e| e.to_string())?
                .workspace_quotas()
                .map_err(|e| e.to_string())?;
            assert_eq!(
                (quotas.tokens, quotas.webhooks, quotas.rate_limit),
                (100, 50, 6000)
            );
            jail.set_env("CONTENT_PIPELINE_WORKSPACE_MAX_RATE_LIMIT", "500");
            let c = Config::load(None).map_err(|e| e.to_string())?;
            let e = c
                .workspace_quotas()
                .expect_err("ceiling below the default 600");
            assert!(e.to_string().contains("WORKSPACE_MAX_RATE_LIMIT"), "{e}");
            Ok(())
        });
    }
}
