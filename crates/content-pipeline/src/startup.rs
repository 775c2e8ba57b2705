use std::net::SocketAddr;
use std::time::Duration;

use api::ratelimit::RateLimiter;
use api::{ApiConfig, AppState};
use domain::{Clock, Secret};
use operations::accounts::{NewUser, SignInLink};
use operations::token_usage::{UsageWriter, token_usage};
use operations::{Caller, Operations, Settings};
use store::Store;
use tokio::net::TcpListener;
use workers::{Shutdown, WorkerContext, Workers};

use crate::Config;
use crate::server::ConnectionLimits;

/// Opens the database and applies this engine's migrations.
pub async fn open_store(config: &Config) -> anyhow::Result<Store> {
    let options = store::ConnectOptions {
        max_connections: config.db_max_connections,
        principal_cache_ttl: config.principal_cache_ttl,
    };
    let store = Store::connect_with(config.database_url.expose(), options).await?;
    // A database with no connection to spare (every slot taken by other nodes) is waited
    // for, a while: what frees one is another node's pool shrinking or a burst ending.
    let deadline = std::time::Instant::now() + MIGRATE_WAIT;
    loop {
        match store.migrate().await {
            Ok(()) => return Ok(store),
            Err(e) if e.is_unavailable() && std::time::Instant::now() < deadline => {
                tracing::warn!(error = %e, "waiting for a database connection to migrate");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// How long a starting process waits for a connection to apply its migrations.
const MIGRATE_WAIT: Duration = Duration::from_secs(60);

/// The use cases, configured: what the API, the CLI and the portal call.
pub fn operations(
    config: &Config,
    store: &Store,
    clock: &Clock,
    base_url: &str,
    server_key: &Secret<[u8; 32]>,
) -> anyhow::Result<Operations> {
    Ok(Operations::new(
        store.clone(),
        clock.clone(),
        Settings {
            base_url: base_url.to_owned(),
            default_rate_limit: config.default_rate_limit,
            server_key: server_key.clone(),
            address_policy: config.address_policy(),
            quotas: config.workspace_quotas()?,
            sessions: config.session_settings(),
        },
    ))
}

/// On an empty database, creates the first platform admin token and a platform admin user
/// (`admin_email`), and prints them once to stderr: the token itself, and the user's
/// one-time sign-in link that sets its password. Returns the token. (The configuration has
/// checked `admin_email` when it loaded.)
pub async fn ensure_platform_token(
    ops: &Operations,
    admin_email: &str,
) -> anyhow::Result<Option<String>> {
    if ops.store.has_platform_token().await? {
        return Ok(None);
    }
    let writer = ops.clone();
    let minted = ops
        .store
        .clone()
        .write(move |tx| {
            Box::pin(async move {
                writer
                    .create_platform_token(tx, &Caller::operator(), "initial platform token", None)
                    .await
            })
        })
        .await
        .map_err(|e| anyhow::anyhow!(e.message))?;
    let secret = minted.secret;
    eprintln!(
        "\n==> First start: created a platform admin token. It is shown only this once:\n\n    {secret}\n"
    );
    let link = ops
        .create_user(NewUser {
            email: admin_email.to_owned(),
            platform_admin: true,
            membership: None,
        })
        .await
        .map_err(|e| anyhow::anyhow!(e.message))?;
    eprintln!(
        "{}",
        sign_in_link_text("First start: created the platform admin", &link)
    );
    Ok(Some(secret))
}

/// How a sign-in link is shown to the operator (first start, `users create`,
/// `users reset-password`): who it is for, the link, and until when it works.
pub fn sign_in_link_text(what: &str, link: &SignInLink) -> String {
    format!(
        "==> {what} {}. This one-time link sets the password; it works until {}:\n\n    {}\n",
        link.user.email, link.expires_at, link.url
    )
}

/// A running service: bound first, so callers (and tests) know the port before serving.
pub struct Application {
    listener: TcpListener,
    router: axum::Router,
    limits: ConnectionLimits,
    /// How long stopping may take (see [`Application::run_until`]).
    shutdown_grace: Duration,
    pub state: AppState,
    pub portal: portal::Portal,
    pub address: SocketAddr,
    pub store: Store,
    /// The background workers to run beside the API; `None` with `--no-workers`.
    workers: Option<WorkerContext>,
    /// Writes when tokens were last used, beside the API.
    token_usage: UsageWriter,
    /// How long delivery attempts are kept.
    attempt_retention: Duration,
}

impl Application {
    pub async fn build(config: Config, clock: Clock) -> anyhow::Result<Self> {
        let limits = config.connection_limits()?;
        match crate::server::raise_open_files_limit() {
            Ok(n) => tracing::info!(
                open_files = n,
                max_connections = limits.max_connections,
                "raised the open-file limit to its hard limit"
            ),
            Err(e) => tracing::warn!(error = %e, "could not raise the open-file limit"),
        }
        let store = open_store(&config).await?;
        let listener = TcpListener::bind(&config.bind).await?;
        let address = listener.local_addr()?;
        let base_url = public_base_url(&config, &address.to_string());
        let server_key = config.server_key()?;
        let ops = operations(&config, &store, &clock, &base_url, &server_key)?;
        ensure_platform_token(&ops, &config.admin_email).await?;
        let workers = match config.workers {
            true => Some(worker_context(
                &config,
                &store,
                &clock,
                &server_key,
                &base_url,
            )?),
            false => None,
        };
        let limiter = match &config.redis_url {
            Some(url) => {
                let limiter = RateLimiter::shared(clock.clone(), url.url().as_str())
                    .await
                    .map_err(|e| anyhow::anyhow!("CONTENT_PIPELINE_REDIS_URL: {e}"))?;
                tracing::info!("rate limits are shared through Redis");
                limiter
            }
            None => RateLimiter::new(clock.clone()),
        };
        let (token_usage, usage_writer) = token_usage(store.clone(), clock.clone());
        let state = AppState::new(
            ops,
            limiter,
            token_usage,
            ApiConfig {
                server_key,
                live_logs: config.live_log_limits(),
            },
        );
        let portal = portal::Portal::new(
            state.ops.clone(),
            portal::PortalConfig {
                trusted_proxies: config.trusted_proxies.clone(),
                ..portal::PortalConfig::for_base_url(
                    &base_url,
                    config.live_log_limits(),
                    state.cursors.shared(),
                )
            },
        );
        let router = api::app(state.clone())?.merge(portal::router(portal.clone()));
        Ok(Self {
            attempt_retention: config.webhook_attempt_retention,
            portal,
            listener,
            router,
            limits,
            shutdown_grace: config.shutdown_grace,
            state,
            address,
            store,
            workers,
            token_usage: usage_writer,
        })
    }

    /// Announces `deprecations` in place of `api::deprecation::DEPRECATIONS`: the hook of the
    /// test that shows the mechanism, as long as the static list is empty.
    pub fn announcing(
        mut self,
        deprecations: &'static [api::deprecation::Deprecation],
    ) -> anyhow::Result<Self> {
        self.router = api::app_announcing(self.state.clone(), deprecations)?
            .merge(portal::router(self.portal.clone()));
        Ok(self)
    }

    /// Serves until `shutdown` resolves, running the periodic housekeeping beside the API.
    /// Then it stops within the shutdown grace period: it stops accepting, ends the live log
    /// streams (their clients resume on another node with `Last-Event-ID`), lets the requests
    /// in flight finish, and stops the workers, which finish or hand back what they claimed.
    /// Whatever is still running when the period ends is abandoned: the process exits anyway,
    /// and leases hand the work over.
    pub async fn run_until(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        ready_for_work(&self.store).await;
        tracing::info!(address = %self.address, "listening");
        let housekeeping = tokio::spawn(housekeeping(self.state.clone(), self.attempt_retention));
        let (stop_usage, usage_stopped) = tokio::sync::oneshot::channel::<()>();
        let usage = tokio::spawn(self.token_usage.run(async move {
            let _ = usage_stopped.await;
        }));
        let (stop_workers, worker_shutdown) = workers::shutdown_channel();
        let workers = self
            .workers
            .map(|ctx| workers::spawn_all(ctx, worker_shutdown))
            .transpose()?;
        let (stop_serving, serving_stops) = tokio::sync::watch::channel(false);
        let mut server = tokio::spawn(crate::server::serve(
            self.listener,
            self.router,
            self.limits,
            async move {
                let mut serving_stops = serving_stops;
                let _ = serving_stops.wait_for(|stop| *stop).await;
            },
        ));
        tokio::select! {
            () = shutdown => {}
            _ = &mut server => tracing::error!("the server stopped by itself"),
        }
        let grace = self.shutdown_grace;
        tracing::info!(
            ?grace,
            "stopping: no new connections, live logs end, work in hand finishes or goes back"
        );
        stop_serving.send_replace(true);
        self.state.ops.end_live_logs();
        stop_workers.trigger();
        let stopped = tokio::time::timeout(grace, async {
            let _ = (&mut server).await;
            if let Some(w) = workers {
                w.join().await;
            }
        })
        .await;
        // The notes of the last requests are written before the database closes (briefly: the
        // grace period is spent).
        let _ = stop_usage.send(());
        match tokio::time::timeout(Duration::from_secs(1), usage).await {
            Ok(Err(e)) => tracing::warn!(error = %e, "the token usage writer failed"),
            Err(_) => tracing::warn!("the token usage writer did not finish in time"),
            Ok(Ok(())) => {}
        }
        housekeeping.abort();
        if stopped.is_err() {
            tracing::warn!(
                ?grace,
                "the shutdown grace period ended with work still running; exiting anyway"
            );
            server.abort();
            return Ok(());
        }
        self.store.close().await;
        tracing::info!("stopped");
        Ok(())
    }
}

/// A long-running process (`serve`, `worker`) hears what other nodes commit before it works
/// (`LISTEN` on PostgreSQL, see `store::wakeups`), and has its database connections open;
/// one-shot commands do neither. If either is not ready in time the process goes on: workers
/// have their safety poll, cached tokens their age limit, and pools open connections on use.
async fn ready_for_work(store: &Store) {
    if !store.listening(Duration::from_secs(10)).await {
        tracing::warn!("not hearing other nodes yet (LISTEN); going on with the safety polls");
    }
    if let Err(e) = store.warm_up().await {
        tracing::warn!(error = %e, "could not open the database connections ahead of use");
    }
}

/// What the background workers need, from configuration.
pub fn worker_context(
    config: &Config,
    store: &Store,
    clock: &Clock,
    server_key: &Secret<[u8; 32]>,
    base_url: &str,
) -> anyhow::Result<WorkerContext> {
    Ok(WorkerContext {
        ops: operations(config, store, clock, base_url, server_key)?,
        store: store.clone(),
        clock: clock.clone(),
        server_key: *server_key.expose(),
        deliveries: config.delivery_settings(),
        runs: workers::runs::RunWorkerConfig {
            concurrency: config.run_concurrency,
            lease: config.run_lease,
            // Half the grace period: time remains to hand back what did not finish.
            hand_back_after: config.shutdown_grace / 2,
            ..workers::runs::RunWorkerConfig::default()
        },
        base_url: base_url.trim_end_matches('/').into(),
        sandbox: config.sandbox()?,
        polish: config
            .polish_url
            .as_ref()
            .map(|url| workers::polish::PolishConfig {
                url: url.url().clone(),
                model: config.polish_model.clone(),
                api_key: config.polish_api_key.clone(),
                timeout: config.polish_timeout,
            }),
        drift_interval: config.drift_interval,
    })
}

/// The configured base URL, or `http://<address>`.
pub fn public_base_url(config: &Config, address: &str) -> String {
    match &config.base_url {
        Some(url) => url.url().as_str().to_owned(),
        None => format!("http://{address}"),
    }
}

/// `content-pipeline worker`: only the background workers, until `shutdown` resolves.
pub async fn run_workers_until(
    config: &Config,
    clock: Clock,
    shutdown: impl std::future::Future<Output = ()>,
) -> anyhow::Result<()> {
    let store = open_store(config).await?;
    ready_for_work(&store).await;
    // Links in event payloads need the public address of the API nodes.
    let base_url = public_base_url(config, &config.bind);
    let ctx = worker_context(config, &store, &clock, &config.server_key()?, &base_url)?;
    let (stop, signal): (_, Shutdown) = workers::shutdown_channel();
    let running: Workers = workers::spawn_all(ctx, signal)?;
    shutdown.await;
    stop.trigger();
    let grace = config.shutdown_grace;
    if tokio::time::timeout(grace, running.join()).await.is_err() {
        tracing::warn!(
            ?grace,
            "the shutdown grace period ended with work still running; exiting anyway"
        );
        return Ok(());
    }
    store.close().await;
    Ok(())
}

/// Forgets expired idempotency records, idle rate-limit logs, expired portal sessions,
/// sign-in links and sign-in attempt windows, and delivery attempts older than
/// `attempt_retention`.
async fn housekeeping(state: AppState, attempt_retention: Duration) {
    let mut tick = tokio::time::interval(Duration::from_secs(60));
    loop {
        tick.tick().await;
        state.limiter.retain_recent();
        let cutoff = state
            .clock
            .timestamp()
            .minus(Duration::from_secs(24 * 3600));
        if let Err(e) = state.store.purge_idempotency(cutoff).await {
            tracing::warn!(error = %e, "could not purge idempotency records");
        }
        if let Err(e) = state.ops.purge_accounts().await {
            tracing::warn!(error = %e, "could not purge expired sessions and sign-in links");
        }
        let attempts_cutoff = state.clock.timestamp().minus(attempt_retention);
        if let Err(e) = state.store.purge_delivery_attempts(attempts_cutoff).await {
            tracing::warn!(error = %e, "could not purge old delivery attempts");
        }
    }
}
