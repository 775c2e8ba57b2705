use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use api::{ApiConfig, AppState};
use domain::{Clock, Scope};
use store::Store;
use tokio::net::TcpListener;
use tokio::sync::watch;
use webhooks::AddressPolicy;

use crate::Config;

/// Opens the database and applies this engine's migrations.
pub async fn open_store(config: &Config) -> anyhow::Result<Store> {
    let store = Store::connect(&config.database_url).await?;
    store.migrate().await?;
    Ok(store)
}

/// On an empty database, creates the first platform admin token and prints it once to stderr.
pub async fn ensure_platform_token(store: &Store, clock: &Clock) -> anyhow::Result<Option<String>> {
    if store.has_platform_token().await? {
        return Ok(None);
    }
    let mut tx = store.begin().await?;
    let (_, secret) = api::routes::tokens::issue(
        &mut tx,
        clock.timestamp(),
        None,
        "initial platform token",
        Scope::Admin,
        None,
    )
    .await
    .map_err(|e| anyhow::anyhow!(e.message))?;
    tx.commit().await?;
    eprintln!(
        "\n==> First start: created a platform admin token. It is shown only this once:\n\n    {secret}\n"
    );
    Ok(Some(secret))
}

/// How events render runs and articles: exactly as the API shows them.
pub fn renderers(state: &AppState) -> workers::Renderers {
    let for_runs = state.clone();
    workers::Renderers {
        run: Arc::new(move |r| {
            serde_json::to_value(api::resources::Run::new(&for_runs, r)).unwrap_or_default()
        }),
        article: Arc::new(|a| {
            serde_json::to_value(api::resources::Article::without_body(a)).unwrap_or_default()
        }),
    }
}

/// Starts the background workers; they stop when `shutdown` turns true.
pub fn spawn_workers(
    state: &AppState,
    shutdown: watch::Receiver<bool>,
) -> Vec<tokio::task::JoinHandle<()>> {
    vec![tokio::spawn(workers::runs::run_worker(
        state.store.clone(),
        state.clock.clone(),
        renderers(state),
        workers::runs::RunWorkerConfig::default(),
        shutdown,
    ))]
}

/// A running service: bound first, so callers (and tests) know the port before serving.
pub struct Application {
    listener: TcpListener,
    router: axum::Router,
    pub state: AppState,
    pub address: SocketAddr,
    pub store: Store,
    /// Whether this process also runs the background workers (`serve` without `--no-workers`).
    pub workers: bool,
}

impl Application {
    pub async fn build(config: Config, clock: Clock) -> anyhow::Result<Self> {
        Self::build_with(config, clock, Vec::new()).await
    }

    pub async fn build_with(
        config: Config,
        clock: Clock,
        deprecations: Vec<api::deprecation::Deprecation>,
    ) -> anyhow::Result<Self> {
        let store = open_store(&config).await?;
        ensure_platform_token(&store, &clock).await?;
        let listener = TcpListener::bind(&config.bind).await?;
        let address = listener.local_addr()?;
        let base_url = config
            .base_url
            .clone()
            .unwrap_or_else(|| format!("http://{address}"));
        let address_policy = AddressPolicy::from_allowed_list(&config.webhook_allowed_cidrs)
            .map_err(|e| anyhow::anyhow!("CONTENT_PIPELINE_WEBHOOK_ALLOWED_CIDRS: {e}"))?;
        let state = AppState::new(
            store.clone(),
            clock,
            ApiConfig {
                base_url,
                default_rate_limit: config.default_rate_limit,
                server_key: config.server_key()?,
                address_policy,
                deprecations,
            },
        );
        let router = api::app(state.clone());
        let workers = config.run_workers;
        Ok(Self {
            listener,
            router,
            state,
            address,
            store,
            workers,
        })
    }

    /// Serves until `shutdown` resolves, running the periodic housekeeping beside the API.
    pub async fn run_until(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        tracing::info!(address = %self.address, "listening");
        let housekeeping = tokio::spawn(housekeeping(self.state.clone()));
        let (stop, stopped) = watch::channel(false);
        let workers = if self.workers {
            spawn_workers(&self.state, stopped)
        } else {
            Vec::new()
        };
        axum::serve(self.listener, self.router)
            .with_graceful_shutdown(shutdown)
            .await?;
        housekeeping.abort();
        let _ = stop.send(true);
        for worker in workers {
            let _ = worker.await;
        }
        self.store.close().await;
        Ok(())
    }
}

/// Forgets expired idempotency records and idle rate-limit logs.
async fn housekeeping(state: AppState) {
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
    }
}
