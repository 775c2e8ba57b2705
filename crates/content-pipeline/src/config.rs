//! Configuration: defaults < optional TOML file (`--config`) < `CONTENT_PIPELINE_*`
//! environment variables. Every value is parsed here, once, into the type the service uses
//! (`values`); a value that does not parse stops start-up with a message that names the
//! setting in both its forms (`CONTENT_PIPELINE_WEBHOOK_TIMEOUT / webhook_timeout: …`).
//! `Debug` of the configuration shows no secret.

mod values;

use std::path::{Path, PathBuf};
use std::time::Duration;

use domain::Secret;
use figment::providers::{Env, Format, Toml};
use figment::value::{Dict, Map, Value};
use figment::{Figment, Metadata, Profile, Provider};
use ipnet::IpNet;
use serde::Deserialize;
use webhooks::RetrySchedule;

pub use values::{
    DatabaseUrl, ServiceUrl, parse_duration, parse_positive_duration, parse_retry_schedule,
};

const ENV_PREFIX: &str = "CONTENT_PIPELINE_";

#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct Config {
    /// `sqlite://…` or `postgres://…`.
    #[serde(deserialize_with = "values::database_url")]
    pub database_url: DatabaseUrl,
    /// Listen address; `:0` picks a free port (the bound address is logged).
    #[serde(deserialize_with = "values::text")]
    pub bind: String,
    /// Used in links; defaults to `http://<bound address>`.
    #[serde(deserialize_with = "values::http_url")]
    pub base_url: Option<ServiceUrl>,
    /// Delay before each delivery attempt.
    #[serde(deserialize_with = "values::retry_schedule")]
    pub webhook_retry_schedule: RetrySchedule,
    #[serde(deserialize_with = "values::positive_duration")]
    pub webhook_timeout: Duration,
    /// CIDR ranges exempt from the private-address block.
    #[serde(deserialize_with = "values::cidr_list")]
    pub webhook_allowed_cidrs: Vec<IpNet>,
    /// Delivery attempts in flight at once in one process (a quarter of them at most to one
    /// subscription).
    pub webhook_concurrency: usize,
    /// How long the attempt log of deliveries is kept (`GET /v1/deliveries/{id}/attempts`);
    /// older attempts are purged by the periodic housekeeping.
    #[serde(deserialize_with = "values::positive_duration")]
    pub webhook_attempt_retention: Duration,
    /// Run the background workers in `serve` (`serve --no-workers` turns this off).
    pub workers: bool,
    /// Zero turns the drift checker off.
    #[serde(deserialize_with = "values::duration")]
    pub drift_interval: Duration,
    /// Redis shared by every API node's rate limiter (contract section 8).
    #[serde(deserialize_with = "values::redis_url")]
    pub redis_url: Option<ServiceUrl>,
    /// Connections per pool: SQLite's readers (its writer is always one), or PostgreSQL's pool.
    pub db_max_connections: u32,
    /// How long a node trusts what it read of a token that authenticated a request before it
    /// reads the token again: the longest a change made on another node (a revocation) can go
    /// unseen here when no notice of it arrives. Zero reads the token on every request.
    #[serde(deserialize_with = "values::duration")]
    pub principal_cache_ttl: Duration,
    /// Requests per 300 s for tokens without their own limit.
    pub default_rate_limit: u32,
    /// The server key (32 bytes, standard base64). When unset it is read from `key_file`,
    /// which is created on first start.
    #[serde(deserialize_with = "values::server_key")]
    pub secret_key: Option<Secret<[u8; 32]>>,
    pub key_file: PathBuf,
    /// Pipeline runs executed at once by this process's run worker; 0 turns it off.
    pub run_concurrency: usize,
    /// How long a claimed run (or drift check) stays its worker's without a heartbeat (sent
    /// every third of it); a run whose worker died is claimed again once it expires.
    #[serde(deserialize_with = "values::positive_duration")]
    pub run_lease: Duration,
    /// An OpenAI-compatible chat-completions URL that polishes generated prose (optional).
    #[serde(deserialize_with = "values::http_url")]
    pub polish_url: Option<ServiceUrl>,
    #[serde(deserialize_with = "values::text")]
    pub polish_model: String,
    /// Sent as a bearer token to the polish endpoint; never logged.
    #[serde(deserialize_with = "values::secret")]
    pub polish_api_key: Option<Secret>,
    #[serde(deserialize_with = "values::positive_duration")]
    pub polish_timeout: Duration,
    // The sandbox of runs and drift checks (contract section 4, Isolation).
    /// The executable started as `<program> sandbox` for each run; the server's own by default.
    pub sandbox_program: Option<PathBuf>,
    /// Wall-clock deadline of one run's or drift check's process.
    #[serde(deserialize_with = "values::positive_duration")]
    pub run_deadline: Duration,
    /// CPU time of one run's process.
    #[serde(deserialize_with = "values::positive_duration")]
    pub run_cpu_limit: Duration,
    /// Address space of one run's process, in MiB.
    pub run_memory_limit_mb: u64,
    /// Open files of one run's process.
    pub run_open_files: u64,
    /// Stack of the thread that does a run's work, in MiB.
    pub run_stack_mb: u64,
    /// The bounds of a run's work (`[limits]` in TOML, `CONTENT_PIPELINE_LIMITS__<FIELD>`).
    pub limits: pipeline::Limits,
    // Repositories by URL (contract section 3b).
    /// Where this node keeps its bare mirrors of workspaces' remotes; default: a
    /// `content-pipeline-mirrors` folder beside the SQLite database (in the working directory
    /// for PostgreSQL). Nodes share nothing here: each fetches what it runs.
    pub mirror_dir: Option<PathBuf>,
    /// Wall-clock limit of one fetch (lock wait included); keep it under `run_deadline`.
    #[serde(deserialize_with = "values::positive_duration")]
    pub fetch_timeout: Duration,
    /// Bytes one fetch may receive, in MiB.
    pub fetch_max_mb: u64,
    /// Objects one fetch may receive.
    pub fetch_max_objects: u64,
    /// Size of one workspace's mirror on disk, in MiB.
    pub mirror_max_mb: u64,
    /// The `git` program that fetches (default: `git` on the PATH).
    pub git_program: Option<PathBuf>,
    /// Author and committer of the commits pushed to publish targets.
    pub publish_author_name: String,
    pub publish_author_email: String,
    // Fairness between tenants.
    /// Delivery attempts in flight at once for one workspace in one process, across all its
    /// subscriptions; unset: half of `webhook_concurrency`.
    pub webhook_workspace_concurrency: Option<usize>,
    /// Live log streams (`GET /v1/runs/{id}/log`, text/event-stream) one token may hold open
    /// at once in one process.
    pub log_streams_per_token: usize,
    /// How long a live log stream lasts before the server ends it (the client resumes with
    /// `Last-Event-ID`).
    #[serde(deserialize_with = "values::positive_duration")]
    pub log_stream_lifetime: Duration,
    // Connections and workspace quotas (issue 8).
    /// A request head (line and headers) must arrive within this time, counted from the
    /// connection's start or from the first byte of the next request.
    #[serde(deserialize_with = "values::positive_duration")]
    pub http_header_timeout: Duration,
    /// A connection with no request in flight that sends nothing is closed after this time.
    #[serde(deserialize_with = "values::positive_duration")]
    pub http_idle_timeout: Duration,
    /// Connections open at once; more wait in the listen backlog.
    pub http_max_connections: usize,
    /// How long a stopping process (SIGTERM, ctrl-c) may take: it stops accepting, ends live
    /// log streams, lets requests in flight finish and hands back claimed work, then exits
    /// whatever is still running.
    #[serde(deserialize_with = "values::positive_duration")]
    pub shutdown_grace: Duration,
    /// Largest request head in bytes (at least 8192); larger ones are refused with 431.
    pub http_max_header_bytes: usize,
    /// Live (unrevoked) tokens per workspace.
    pub workspace_max_tokens: u32,
    /// Webhook subscriptions per workspace (deleted ones do not count).
    pub workspace_max_webhooks: u32,
    /// The highest `rate_limit` (requests per 300 s) a workspace token may have.
    pub workspace_max_rate_limit: u32,
    // The portal's accounts (issue 12).
    /// The platform admin created on the first start of an empty database; its sign-in link
    /// is printed beside the first platform token. Trimmed and lowercased.
    #[serde(deserialize_with = "values::email")]
    pub admin_email: String,
    /// A portal session unused this long ends.
    #[serde(deserialize_with = "values::positive_duration")]
    pub session_idle_timeout: Duration,
    /// A portal session ends this long after sign-in, however busy.
    #[serde(deserialize_with = "values::positive_duration")]
    pub session_lifetime: Duration,
    /// Reverse proxies (CIDR ranges) whose `X-Forwarded-For` names the client for sign-in
    /// throttling per address. None by default: the connection's own address counts.
    #[serde(deserialize_with = "values::cidr_list")]
    pub trusted_proxies: Vec<IpNet>,
    // The CI commands (`run`, `drift`, `articles`), which talk to a running service.
    /// The service's base URL (`--server`).
    #[serde(deserialize_with = "values::http_url")]
    pub server: Option<ServiceUrl>,
    /// Their bearer token (`--token`); never logged.
    #[serde(deserialize_with = "values::secret")]
    pub token: Option<Secret>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            database_url: DatabaseUrl::default(),
            bind: "127.0.0.1:8080".into(),
            base_url: None,
            webhook_retry_schedule: RetrySchedule::default(),
            webhook_timeout: Duration::from_secs(15),
            webhook_allowed_cidrs: Vec::new(),
            webhook_concurrency: 256,
            webhook_attempt_retention: Duration::from_secs(30 * 86_400),
            workers: true,
            drift_interval: Duration::from_secs(10 * 60),
            redis_url: None,
            db_max_connections: 8,
            principal_cache_ttl: store::DEFAULT_PRINCIPAL_CACHE_TTL,
            default_rate_limit: 600,
            secret_key: None,
            key_file: PathBuf::from("content-pipeline.key"),
            run_concurrency: 2,
            run_lease: Duration::from_secs(30),
            polish_url: None,
            polish_model: "gpt-4o-mini".into(),
            polish_api_key: None,
            polish_timeout: Duration::from_secs(20),
            sandbox_program: None,
            run_deadline: Duration::from_secs(5 * 60),
            run_cpu_limit: Duration::from_secs(2 * 60),
            run_memory_limit_mb: 2048,
            run_open_files: 256,
            run_stack_mb: 16,
            limits: pipeline::Limits::default(),
            mirror_dir: None,
            fetch_timeout: Duration::from_secs(180),
            fetch_max_mb: 1024,
            fetch_max_objects: 5_000_000,
            mirror_max_mb: 2048,
            git_program: None,
            publish_author_name: mirrors::Author::default().name,
            publish_author_email: mirrors::Author::default().email,
            webhook_workspace_concurrency: None,
            log_streams_per_token: 5,
            log_stream_lifetime: Duration::from_secs(30 * 60),
            http_header_timeout: Duration::from_secs(10),
            http_idle_timeout: Duration::from_secs(60),
            http_max_connections: 10_000,
            shutdown_grace: Duration::from_secs(10),
            http_max_header_bytes: 64 * 1024,
            workspace_max_tokens: 100,
            workspace_max_webhooks: 50,
            workspace_max_rate_limit: 6_000,
            admin_email: "admin@localhost".into(),
            session_idle_timeout: operations::accounts::SessionSettings::default().idle_timeout,
            session_lifetime: operations::accounts::SessionSettings::default().lifetime,
            trusted_proxies: Vec::new(),
            server: None,
            token: None,
        }
    }
}

impl Config {
    pub fn load(file: Option<&Path>) -> anyhow::Result<Self> {
        let mut figment = Figment::new();
        if let Some(file) = file {
            if !file.exists() {
                anyhow::bail!("config file {} does not exist", file.display());
            }
            figment = figment.merge(Toml::file(file));
        }
        // Lossy: numbers and booleans are read from the environment's text.
        figment
            .merge(Environment::new())
            .extract_lossy()
            .map_err(named)
    }

    /// The delivery worker's settings.
    pub fn delivery_settings(&self) -> workers::DeliverySettings {
        let mut settings = workers::DeliverySettings::new(
            self.webhook_retry_schedule.clone(),
            self.webhook_timeout,
            self.address_policy(),
        );
        settings.concurrency = self.webhook_concurrency.max(1);
        // A quarter of the slots at most for one subscription, so a hanging receiver leaves
        // three quarters to the others; half at most for one workspace, so a tenant whose
        // receivers all hang leaves half to the other tenants.
        settings.per_subscription = (settings.concurrency / 4).max(1);
        settings.per_workspace = self
            .webhook_workspace_concurrency
            .unwrap_or(settings.concurrency / 2)
            .max(1);
        settings
    }

    /// How runs and drift checks are isolated, checked: a size of zero MiB stops start-up
    /// with a message naming the variable.
    pub fn sandbox(&self) -> anyhow::Result<workers::sandbox::Sandbox> {
        let program = match &self.sandbox_program {
            Some(p) => p.clone(),
            None => std::env::current_exe()
                .map_err(|e| anyhow::anyhow!("the server's own executable is unknown: {e}"))?,
        };
        let mib = |n: u64, name: &str| {
            n.checked_mul(1024 * 1024)
                .filter(|b| *b > 0)
                .ok_or_else(|| anyhow::anyhow!("{name}: use a positive number of MiB"))
        };
        let mut sandbox = workers::sandbox::Sandbox::new(program);
        sandbox.deadline = self.run_deadline;
        sandbox.resources = workers::sandbox::ResourceLimits {
            cpu_seconds: self.run_cpu_limit.as_secs().max(1),
            memory_bytes: mib(
                self.run_memory_limit_mb,
                "CONTENT_PIPELINE_RUN_MEMORY_LIMIT_MB",
            )?,
            open_files: self.run_open_files.max(16),
            stack_bytes: mib(self.run_stack_mb, "CONTENT_PIPELINE_RUN_STACK_MB")? as usize,
        };
        sandbox.limits = self.limits.clone();
        sandbox.mirrors = self.mirror_settings()?;
        Ok(sandbox)
    }

    /// Where and how remotes are fetched, checked (an absolute cache directory, the git
    /// program found, positive limits).
    fn mirror_settings(&self) -> anyhow::Result<workers::sandbox::MirrorSettings> {
        let dir = match &self.mirror_dir {
            Some(dir) => dir.clone(),
            None => {
                let url = self.database_url.expose();
                let beside = url
                    .strip_prefix("sqlite://")
                    .or_else(|| url.strip_prefix("sqlite:"))
                    .map(|rest| rest.split('?').next().unwrap_or(rest))
                    .filter(|path| !path.is_empty() && !path.contains(":memory:"))
                    .and_then(|path| Path::new(path).parent().map(Path::to_path_buf))
                    .unwrap_or_default();
                beside.join("content-pipeline-mirrors")
            }
        };
        let dir = std::path::absolute(&dir).map_err(|e| {
            anyhow::anyhow!(
                "CONTENT_PIPELINE_MIRROR_DIR / mirror_dir: {}: {e}",
                dir.display()
            )
        })?;
        let mut settings = workers::sandbox::MirrorSettings::new(dir);
        if let Some(git) = &self.git_program {
            settings.git = git.clone();
        }
        let mib = |n: u64, name: &str| {
            n.checked_mul(1024 * 1024)
                .filter(|b| *b > 0)
                .ok_or_else(|| anyhow::anyhow!("{name}: use a positive number of MiB"))
        };
        settings.limits = mirrors::FetchLimits {
            wall_seconds: self.fetch_timeout.as_secs().max(1),
            max_bytes: mib(self.fetch_max_mb, "CONTENT_PIPELINE_FETCH_MAX_MB")?,
            max_objects: self.fetch_max_objects.max(1),
            max_disk_bytes: mib(self.mirror_max_mb, "CONTENT_PIPELINE_MIRROR_MAX_MB")?,
        };
        let plain = |text: &str| {
            !text.trim().is_empty()
                && text.len() <= 200
                && !text.chars().any(|c| c.is_control() || c == '<' || c == '>')
        };
        if !plain(&self.publish_author_name) || !plain(&self.publish_author_email) {
            anyhow::bail!(
                "CONTENT_PIPELINE_PUBLISH_AUTHOR_NAME / _EMAIL: 1–200 characters without '<', '>' or control characters"
            );
        }
        settings.publish_author = mirrors::Author {
            name: self.publish_author_name.clone(),
            email: self.publish_author_email.clone(),
        };
        settings.allowed_cidrs = self
            .webhook_allowed_cidrs
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(",");
        Ok(settings)
    }

    /// The limits of live log streams.
    pub fn live_log_limits(&self) -> operations::live_log::LiveLogLimits {
        operations::live_log::LiveLogLimits {
            per_token: self.log_streams_per_token.max(1),
            lifetime: self.log_stream_lifetime,
        }
    }

    pub fn address_policy(&self) -> webhooks::AddressPolicy {
        webhooks::AddressPolicy::allowing(self.webhook_allowed_cidrs.clone())
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
            header_timeout: self.http_header_timeout,
            idle_timeout: self.http_idle_timeout,
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

    /// How long portal sessions last.
    pub fn session_settings(&self) -> operations::accounts::SessionSettings {
        operations::accounts::SessionSettings {
            idle_timeout: self.session_idle_timeout,
            lifetime: self.session_lifetime,
        }
    }

    /// The server key: configured, or read from (and on first start written to) the key file.
    pub fn server_key(&self) -> anyhow::Result<Secret<[u8; 32]>> {
        if let Some(key) = &self.secret_key {
            return Ok(key.clone());
        }
        let text = if self.key_file.exists() {
            std::fs::read_to_string(&self.key_file)?
        } else {
            let text = webhooks::SecretBox::generate_key_text();
            write_private(&self.key_file, &text)?;
            tracing::info!(path = %self.key_file.display(), "generated a new server key");
            text
        };
        values::parse_server_key(&text)
            .map_err(|e| anyhow::anyhow!("{}: {e}", self.key_file.display()))
    }
}

/// `CONTENT_PIPELINE_*`, nested at `__` (`LIMITS__MAX_FILE_BYTES`), every value as its text.
/// figment's own `Env` guesses types instead: `0` arrives as an integer, `[a]` as an array,
/// `007` as 7, so a numeric-looking API key or model name fails to load or changes. Numbers
/// and booleans are read from the text where the setting is one (`extract_lossy`).
struct Environment(Env);

impl Environment {
    fn new() -> Self {
        Self(Env::prefixed(ENV_PREFIX).split("__"))
    }
}

impl Provider for Environment {
    fn metadata(&self) -> Metadata {
        self.0.metadata()
    }

    fn data(&self) -> Result<Map<Profile, Dict>, figment::Error> {
        let mut dict = Dict::new();
        for (key, value) in self.0.iter() {
            insert(&mut dict, key.as_str(), value);
        }
        Ok(Profile::Default.collect(dict))
    }
}

/// Puts `value` at the dotted `key`; a later key wins over a clashing earlier one.
fn insert(dict: &mut Dict, key: &str, value: String) {
    let Some((head, rest)) = key.split_once('.') else {
        dict.insert(key.to_owned(), Value::from(value));
        return;
    };
    let entry = dict
        .entry(head.to_owned())
        .or_insert_with(|| Value::from(Dict::new()));
    if !matches!(entry, Value::Dict(..)) {
        *entry = Value::from(Dict::new());
    }
    if let Value::Dict(_, inner) = entry {
        insert(inner, rest, value);
    }
}

/// figment's error, with each failing setting named as in docs/configuration.md: its
/// variable and its key in the TOML file.
fn named(error: figment::Error) -> anyhow::Error {
    let lines: Vec<String> = error
        .into_iter()
        .map(|e| {
            if e.path.is_empty() {
                return e.to_string();
            }
            let variable = format!("{ENV_PREFIX}{}", e.path.join("__").to_ascii_uppercase());
            let file = e
                .metadata
                .as_ref()
                .and_then(|m| m.source.as_ref()?.file_path());
            let place = match file {
                Some(path) => format!(" (in {})", path.display()),
                None => String::new(),
            };
            format!("{variable} / {}: {}{place}", e.path.join("."), e.kind)
        })
        .collect();
    anyhow::anyhow!(lines.join("\n"))
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

    /// The configuration `load` gives inside a jail, or its error as text.
    fn load(file: Option<&str>) -> Result<Config, String> {
        Config::load(file.map(Path::new)).map_err(|e| e.to_string())
    }

    fn secs(n: u64) -> Duration {
        Duration::from_secs(n)
    }

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
            let c = load(Some("service.toml"))?;
            assert_eq!(c.default_rate_limit, 250, "the environment wins");
            assert_eq!(c.db_max_connections, 3, "the file beats the default");
            assert_eq!(c.bind, "0.0.0.0:9000");
            assert_eq!(
                c.redis_url.as_ref().map(|u| u.url().as_str()),
                Some("redis://cache:6379")
            );
            assert_eq!(c.run_concurrency, 2, "the default stays");
            assert_eq!(c.webhook_attempt_retention, secs(30 * 86_400));
            assert_eq!(c.log_stream_lifetime, secs(30 * 60));
            assert!(load(Some("missing.toml")).is_err());
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
            let c = load(Some("service.toml"))?;
            assert_eq!(c.drift_interval, Duration::ZERO);
            assert_eq!(c.limits.max_file_bytes, 5000);
            assert_eq!(c.limits.max_nesting_depth, 64);
            let sandbox = c.sandbox().map_err(|e| e.to_string())?;
            assert_eq!(sandbox.deadline, secs(90));
            assert_eq!(sandbox.resources.memory_bytes, 512 * 1024 * 1024);
            jail.set_env("CONTENT_PIPELINE_RUN_DEADLINE", "0");
            let refused = load(Some("service.toml")).expect_err("a zero deadline");
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
            let c = load(None)?;
            let limits = c.connection_limits().map_err(|e| e.to_string())?;
            assert_eq!(limits.header_timeout, secs(5));
            assert_eq!(limits.idle_timeout, secs(120));
            assert_eq!(limits.max_connections, 300);
            assert_eq!(limits.max_header_bytes, 65536, "the default stays");

            jail.set_env("CONTENT_PIPELINE_HTTP_IDLE_TIMEOUT", "0");
            let e = load(None).expect_err("zero idle timeout");
            assert!(e.contains("HTTP_IDLE_TIMEOUT"), "{e}");

            jail.set_env("CONTENT_PIPELINE_HTTP_IDLE_TIMEOUT", "60s");
            jail.set_env("CONTENT_PIPELINE_HTTP_MAX_HEADER_BYTES", "1024");
            let c = load(None)?;
            let e = c.connection_limits().expect_err("tiny header cap");
            assert!(e.to_string().contains("HTTP_MAX_HEADER_BYTES"), "{e}");
            Ok(())
        });
    }

    #[test]
    #[allow(clippy::result_large_err)]
    fn fairness_limits_from_the_environment() {
        figment::Jail::expect_with(|jail| {
            let c = load(None)?;
            let limits = c.live_log_limits();
            assert_eq!(limits.per_token, 5);
            assert_eq!(limits.lifetime, secs(1800));
            assert_eq!(
                c.delivery_settings().per_workspace,
                128,
                "half of the 256 slots"
            );

            jail.set_env("CONTENT_PIPELINE_LOG_STREAM_LIFETIME", "90");
            jail.set_env("CONTENT_PIPELINE_LOG_STREAMS_PER_TOKEN", "2");
            jail.set_env("CONTENT_PIPELINE_WEBHOOK_CONCURRENCY", "8");
            jail.set_env("CONTENT_PIPELINE_WEBHOOK_WORKSPACE_CONCURRENCY", "3");
            let c = load(None)?;
            let limits = c.live_log_limits();
            assert_eq!(limits.lifetime, secs(90), "seconds");
            assert_eq!(limits.per_token, 2);
            let deliveries = c.delivery_settings();
            assert_eq!(
                (deliveries.per_subscription, deliveries.per_workspace),
                (2, 3)
            );

            jail.set_env("CONTENT_PIPELINE_LOG_STREAM_LIFETIME", "2m");
            assert_eq!(load(None)?.live_log_limits().lifetime, secs(120));

            jail.set_env("CONTENT_PIPELINE_LOG_STREAM_LIFETIME", "0");
            assert!(load(None).is_err(), "a stream must be allowed to live");
            Ok(())
        });
    }

    #[test]
    #[allow(clippy::result_large_err)]
    fn the_rate_limit_ceiling_cannot_be_below_the_default_quota() {
        figment::Jail::expect_with(|jail| {
            let quotas = load(None)?.workspace_quotas().map_err(|e| e.to_string())?;
            assert_eq!(
                (quotas.tokens, quotas.webhooks, quotas.rate_limit),
                (100, 50, 6000)
            );
            jail.set_env("CONTENT_PIPELINE_WORKSPACE_MAX_RATE_LIMIT", "500");
            let e = load(None)?
                .workspace_quotas()
                .expect_err("ceiling below the default 600");
            assert!(e.to_string().contains("WORKSPACE_MAX_RATE_LIMIT"), "{e}");
            Ok(())
        });
    }

    #[test]
    fn durations_take_a_unit_or_are_seconds() {
        for (text, expected) in [
            ("15s", secs(15)),
            ("5m", secs(300)),
            ("2h", secs(7200)),
            ("1d", secs(86_400)),
            ("250ms", Duration::from_millis(250)),
            ("90", secs(90)),
            ("0", Duration::ZERO),
            ("0s", Duration::ZERO),
            (" 30s ", secs(30)),
        ] {
            assert_eq!(parse_duration(text), Ok(expected), "{text}");
        }
        for bad in ["", "abc", "5x", "-1", "1.5s", "s", "5 m"] {
            assert!(parse_duration(bad).is_err(), "{bad} must be refused");
        }
        assert_eq!(
            parse_duration("abc"),
            Err("expected a duration such as 15s, 5m, or a number of seconds, got 'abc'".into())
        );
        assert_eq!(parse_positive_duration("1"), Ok(secs(1)));
        assert!(parse_positive_duration("0").is_err());
        assert!(parse_positive_duration("0ms").is_err());
    }

    #[test]
    fn a_retry_schedule_is_a_list_of_durations() {
        let schedule = parse_retry_schedule("0s, 5s,5m").expect("schedule");
        assert_eq!(schedule.max_attempts(), 3);
        assert_eq!(schedule.planned(3), Some(secs(300)));
        let bare = parse_retry_schedule("0,5,300").expect("seconds");
        assert_eq!(bare, schedule);
        assert_eq!(
            parse_retry_schedule("0s,5s,5m,30m,2h,5h,10h,14h,20h,24h"),
            Ok(RetrySchedule::default())
        );
        for bad in ["", " , ", "0s,oops", "5s;10s"] {
            assert!(parse_retry_schedule(bad).is_err(), "{bad} must be refused");
        }
    }

    #[test]
    fn urls_are_checked_by_scheme() {
        assert!(DatabaseUrl::parse("sqlite://content-pipeline.db").is_ok());
        assert!(DatabaseUrl::parse("sqlite::memory:").is_ok());
        assert!(DatabaseUrl::parse("postgres://u:p@db:5432/cp").is_ok());
        assert!(DatabaseUrl::parse("postgresql://db/cp").is_ok());
        let e = DatabaseUrl::parse("mysql://u:hunter2@db/cp").expect_err("mysql");
        assert!(e.contains("mysql://u:[redacted]@db/cp"), "{e}");
        assert!(DatabaseUrl::parse("content-pipeline.db").is_err());

        assert!(ServiceUrl::http("https://docs.example.com/api").is_ok());
        assert!(ServiceUrl::http("ftp://docs.example.com").is_err());
        assert!(ServiceUrl::http("docs.example.com").is_err());
        assert!(ServiceUrl::redis("rediss://:pw@cache:6380/0").is_ok());
        assert!(ServiceUrl::redis("redis+unix:///run/redis.sock").is_ok());
        let e = ServiceUrl::redis("http://u:hunter2@cache").expect_err("http");
        assert!(!e.contains("hunter2"), "{e}");
    }

    #[test]
    fn debug_shows_no_secret() {
        let key = webhooks::SecretBox::generate_key_text();
        let c = Config {
            database_url: DatabaseUrl::parse("postgres://cp:db-pass@db/cp?password=q-pass")
                .expect("url"),
            redis_url: Some(ServiceUrl::redis("redis://:redis-pass@cache:6379").expect("url")),
            base_url: Some(ServiceUrl::http("https://u:base-pass@docs.example.com").expect("url")),
            secret_key: Some(values::parse_server_key(&key).expect("key")),
            polish_api_key: Some(Secret::new("sk-polish".into())),
            ..Config::default()
        };
        let shown = format!("{c:?}");
        for secret in [
            "db-pass",
            "q-pass",
            "redis-pass",
            "base-pass",
            "sk-polish",
            &key,
        ] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        assert!(shown.contains("postgres://cp:[redacted]@db/cp?password=[redacted]"));
        assert!(
            shown.contains("polish_api_key: Some([redacted])"),
            "{shown}"
        );
        assert!(shown.contains("secret_key: Some([redacted])"), "{shown}");
    }

    #[test]
    #[allow(clippy::result_large_err)]
    fn numeric_looking_text_stays_text() {
        figment::Jail::expect_with(|jail| {
            jail.set_env("CONTENT_PIPELINE_POLISH_API_KEY", "0012345");
            jail.set_env("CONTENT_PIPELINE_POLISH_MODEL", "4");
            jail.set_env("CONTENT_PIPELINE_BIND", "127.0.0.1:0");
            jail.set_env("CONTENT_PIPELINE_BASE_URL", "");
            jail.set_env("CONTENT_PIPELINE_WORKERS", "false");
            jail.set_env("CONTENT_PIPELINE_KEY_FILE", "007");
            let c = load(None)?;
            assert_eq!(c.key_file, Path::new("007"));
            assert_eq!(
                c.polish_api_key.as_ref().map(|k| k.expose().as_str()),
                Some("0012345")
            );
            assert_eq!(c.polish_model, "4");
            assert!(c.base_url.is_none(), "empty is unset");
            assert!(!c.workers);

            jail.clear_env();
            jail.create_file(
                "service.toml",
                "polish_model = 4\npolish_api_key = \"12345\"\ndrift_interval = 0\n",
            )?;
            let c = load(Some("service.toml"))?;
            assert_eq!(c.polish_model, "4");
            assert_eq!(c.drift_interval, Duration::ZERO);
            assert_eq!(
                c.polish_api_key.as_ref().map(|k| k.expose().as_str()),
                Some("12345")
            );
            Ok(())
        });
    }

    #[test]
    #[allow(clippy::result_large_err)]
    fn every_form_from_a_file() {
        figment::Jail::expect_with(|jail| {
            jail.create_file(
                "service.toml",
                r#"
                webhook_timeout = 15
                webhook_retry_schedule = "0s,100ms,2"
                webhook_allowed_cidrs = "127.0.0.0/8, ::1"
                drift_interval = "5m"
                polish_url = "http://127.0.0.1:9/v1/chat/completions"
                polish_timeout = "2s"
                run_cpu_limit = 30
                run_lease = "1m"
                webhook_attempt_retention = "7d"
                shutdown_grace = "20s"
                principal_cache_ttl = "100ms"
                "#,
            )?;
            let c = load(Some("service.toml"))?;
            assert_eq!(c.webhook_attempt_retention, secs(7 * 86_400));
            assert_eq!(c.webhook_timeout, secs(15));
            assert_eq!(c.webhook_retry_schedule.planned(3), Some(secs(2)));
            assert_eq!(c.webhook_allowed_cidrs.len(), 2);
            assert!(c.address_policy().permits("127.0.0.1".parse().expect("ip")));
            assert_eq!(c.drift_interval, secs(300));
            assert_eq!(
                c.polish_url.as_ref().map(|u| u.url().path()),
                Some("/v1/chat/completions")
            );
            assert_eq!(c.polish_timeout, secs(2));
            assert_eq!(c.run_cpu_limit, secs(30));
            assert_eq!(c.run_lease, secs(60));
            assert_eq!(c.shutdown_grace, secs(20));
            assert_eq!(c.principal_cache_ttl, Duration::from_millis(100));
            jail.set_env("CONTENT_PIPELINE_PRINCIPAL_CACHE_TTL", "0");
            assert_eq!(load(Some("service.toml"))?.principal_cache_ttl, secs(0));
            jail.set_env("CONTENT_PIPELINE_SHUTDOWN_GRACE", "3");
            assert_eq!(load(Some("service.toml"))?.shutdown_grace, secs(3));
            jail.set_env("CONTENT_PIPELINE_RUN_LEASE", "10");
            assert_eq!(load(Some("service.toml"))?.run_lease, secs(10));
            jail.set_env("CONTENT_PIPELINE_RUN_LEASE", "0");
            let refused = load(Some("service.toml")).expect_err("a zero lease");
            assert!(
                refused.contains("CONTENT_PIPELINE_RUN_LEASE / run_lease"),
                "{refused}"
            );
            Ok(())
        });
    }

    #[test]
    #[allow(clippy::result_large_err)]
    fn errors_name_the_variable_and_the_key() {
        figment::Jail::expect_with(|jail| {
            jail.set_env("CONTENT_PIPELINE_WEBHOOK_TIMEOUT", "abc");
            assert_eq!(
                load(None).expect_err("abc"),
                "CONTENT_PIPELINE_WEBHOOK_TIMEOUT / webhook_timeout: expected a duration such as 15s, 5m, or a number of seconds, got 'abc'"
            );
            jail.set_env("CONTENT_PIPELINE_WEBHOOK_TIMEOUT", "15s");

            jail.create_file("service.toml", "webhook_allowed_cidrs = \"10.0.0.0/33\"\n")?;
            let e = load(Some("service.toml")).expect_err("a bad range");
            assert!(
                e.starts_with(
                    "CONTENT_PIPELINE_WEBHOOK_ALLOWED_CIDRS / webhook_allowed_cidrs: '10.0.0.0/33' is not a CIDR range (in "
                ),
                "{e}"
            );
            assert!(e.ends_with("service.toml)"), "{e}");

            for (variable, value, key) in [
                (
                    "CONTENT_PIPELINE_DB_MAX_CONNECTIONS",
                    "many",
                    "db_max_connections",
                ),
                (
                    "CONTENT_PIPELINE_LIMITS__MAX_FILE_BYTES",
                    "big",
                    "limits.max_file_bytes",
                ),
                (
                    "CONTENT_PIPELINE_DATABASE_URL",
                    "mysql://db",
                    "database_url",
                ),
                ("CONTENT_PIPELINE_SECRET_KEY", "12345", "secret_key"),
                (
                    "CONTENT_PIPELINE_WEBHOOK_RETRY_SCHEDULE",
                    ",",
                    "webhook_retry_schedule",
                ),
                ("CONTENT_PIPELINE_POLISH_URL", "localhost:9", "polish_url"),
                ("CONTENT_PIPELINE_WORKERS", "perhaps", "workers"),
            ] {
                jail.clear_env();
                jail.set_env(variable, value);
                let e = load(None).expect_err(variable);
                assert!(e.starts_with(&format!("{variable} / {key}: ")), "{e}");
            }
            Ok(())
        });
    }
}
