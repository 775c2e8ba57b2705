use std::path::PathBuf;

use clap::{Parser, Subcommand};
use content_pipeline::Config;
use content_pipeline::startup::{
    Application, ensure_platform_token, open_store, run_workers_until,
};
use domain::{Clock, Scope, WorkspaceId};

/// mimalloc: the request path allocates many small short-lived buffers, which glibc's
/// allocator serves noticeably slower under two busy threads (see README, Performance).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The Content Pipeline Service: turns a team's repository into versioned MDX documentation,
/// served over a REST API with signed webhooks.
#[derive(Parser)]
#[command(name = "content-pipeline", version, about)]
struct Cli {
    /// A TOML configuration file; CONTENT_PIPELINE_* environment variables override it.
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP API and the background workers in one process.
    Serve {
        /// Run only the API (for multi-node deployments with separate `worker` processes).
        #[arg(long)]
        no_workers: bool,
    },
    /// Run only the background workers.
    Worker,
    /// Manage API tokens offline, against the configured database.
    Tokens {
        #[command(subcommand)]
        command: TokenCommand,
    },
    /// Manage workspaces offline, against the configured database.
    Workspaces {
        #[command(subcommand)]
        command: WorkspaceCommand,
    },
    /// Create or upgrade the database schema, then exit.
    Migrate,
    /// Print the OpenAPI document (JSON) and exit.
    Openapi,
    /// Internal: one run or drift check in a resource-limited child process. The server
    /// starts it with the job on stdin; it is not meant to be run by hand.
    #[command(hide = true)]
    Sandbox,
}

#[derive(Subcommand)]
enum TokenCommand {
    /// Create a token and print it (only it) on stdout.
    Create {
        /// read, write, publish or admin.
        #[arg(long)]
        scope: Scope,
        /// The workspace the token belongs to; without it, a platform token (scope must be admin).
        #[arg(long)]
        workspace: Option<WorkspaceId>,
        /// A label for the token.
        #[arg(long, default_value = "")]
        name: String,
        /// The token's quota in requests per 300 s (default 600); a workspace token's is at
        /// most CONTENT_PIPELINE_WORKSPACE_MAX_RATE_LIMIT.
        #[arg(long)]
        rate_limit: Option<u32>,
    },
}

#[derive(Subcommand)]
enum WorkspaceCommand {
    /// Create a workspace and print it as JSON.
    Create {
        #[arg(long)]
        name: String,
        /// Absolute path of the workspace's git repository.
        #[arg(long)]
        repo_path: Option<String>,
    },
}

fn init_tracing() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_env("CONTENT_PIPELINE_LOG")
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,tower_http=warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
    tracing::info!("shutting down");
}

fn main() -> anyhow::Result<std::process::ExitCode> {
    let cli = Cli::parse();
    if let Command::Sandbox = cli.command {
        // No runtime, no tracing, no configuration: the child only reads its job.
        return Ok(workers::sandbox::child::main());
    }
    init_tracing();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(serve(cli))?;
    Ok(std::process::ExitCode::SUCCESS)
}

async fn serve(cli: Cli) -> anyhow::Result<()> {
    let mut config = Config::load(cli.config.as_deref())?;
    let clock = Clock::system();
    match cli.command {
        Command::Serve { no_workers } => {
            config.workers &= !no_workers;
            if config.workers {
                tracing::info!("workers run inside this process");
            }
            let app = Application::build(config, clock).await?;
            app.run_until(shutdown_signal()).await?;
        }
        Command::Worker => {
            tracing::info!("worker started");
            run_workers_until(&config, clock, shutdown_signal()).await?;
        }
        Command::Tokens {
            command:
                TokenCommand::Create {
                    scope,
                    workspace,
                    name,
                    rate_limit,
                },
        } => {
            if workspace.is_none() && scope != Scope::Admin {
                anyhow::bail!("a platform token (no --workspace) must have --scope admin");
            }
            let store = open_store(&config).await?;
            if let Some(ws) = workspace
                && store.workspace(ws).await?.is_none()
            {
                anyhow::bail!("no such workspace: {ws}");
            }
            let mut tx = store.begin().await?;
            let rate_limit = rate_limit.map(i64::from);
            let (_, secret) = match workspace {
                Some(ws) => {
                    api::routes::tokens::issue_in_workspace(
                        &mut tx,
                        clock.timestamp(),
                        &config.workspace_quotas()?,
                        ws,
                        &name,
                        scope,
                        rate_limit,
                    )
                    .await
                }
                None => {
                    api::routes::tokens::issue_platform(
                        &mut tx,
                        clock.timestamp(),
                        &name,
                        rate_limit,
                    )
                    .await
                }
            }
            .map_err(|e| anyhow::anyhow!(e.message))?;
            tx.commit().await?;
            println!("{secret}");
            store.close().await;
        }
        Command::Workspaces {
            command: WorkspaceCommand::Create { name, repo_path },
        } => {
            let store = open_store(&config).await?;
            ensure_platform_token(&store, &clock).await?;
            let body = api::routes::workspaces::CreateWorkspace { name, repo_path };
            let mut tx = store.begin().await?;
            let ws = api::routes::workspaces::create(&mut tx, clock.timestamp(), &body)
                .await
                .map_err(|e| anyhow::anyhow!("{}", e.message))?;
            tx.commit().await?;
            println!(
                "{}",
                serde_json::to_string_pretty(&api::resources::Workspace::for_operator(ws))?
            );
            store.close().await;
        }
        Command::Migrate => {
            let store = open_store(&config).await?;
            ensure_platform_token(&store, &clock).await?;
            store.close().await;
            eprintln!("database is up to date");
        }
        Command::Openapi => {
            println!(
                "{}",
                serde_json::to_string_pretty(&api::openapi_document()?)?
            );
        }
        Command::Sandbox => anyhow::bail!("the sandbox runs without a runtime"),
    }
    Ok(())
}
