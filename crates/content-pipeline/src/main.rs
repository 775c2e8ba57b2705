use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use content_pipeline::startup::{
    Application, ensure_platform_token, open_store, operations, public_base_url, run_workers_until,
    sign_in_link_text,
};
use content_pipeline::{Config, ci};
use domain::{Clock, Scope, WorkspaceId};
use operations::accounts::NewUser;
use operations::repositories::{NewCredential, SetRepositoryToken};
use operations::tokens::CreateToken;
use operations::views;
use operations::workspaces::{CreateWorkspace, UpdateWorkspace};
use operations::{Caller, Operations};

/// mimalloc: the request path allocates many small short-lived buffers, which glibc's
/// allocator serves noticeably slower under two busy threads (measured with `bench/api.sh`).
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
    /// Manage the portal's users offline, against the configured database.
    Users {
        #[command(subcommand)]
        command: UserCommand,
    },
    /// Create or upgrade the database schema, then exit.
    Migrate,
    /// Print the OpenAPI document (JSON) and exit.
    Openapi,
    /// CI: trigger a run of a feature on a running service; with --wait, follow its log and
    /// exit 1 when it fails.
    Run(ci::RunArgs),
    /// CI: check a workspace's articles against its repository's HEAD; with --fail-on-drift,
    /// exit 1 when one no longer matches the code.
    Drift(ci::DriftArgs),
    /// CI: export a workspace's published articles for a docs framework (Docusaurus, Mintlify,
    /// Starlight, MkDocs Material) and unpack them into a folder.
    Export(ci::ExportArgs),
    /// CI: read, list and publish articles on a running service.
    Articles {
        #[command(subcommand)]
        command: ci::ArticleCommand,
    },
    /// Check a received webhook delivery's signature.
    Webhooks {
        #[command(subcommand)]
        command: ci::WebhookCommand,
    },
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
        /// Absolute path of the workspace's git repository on this server.
        #[arg(long, conflicts_with = "repo_url")]
        repo_path: Option<String>,
        /// A remote repository the service fetches (https://, ssh://, git@host:path).
        #[arg(long)]
        repo_url: Option<String>,
        /// The branch runs read by default (default: the remote's HEAD).
        #[arg(long, requires = "repo_url")]
        default_branch: Option<String>,
    },
    /// Connect a workspace to a remote repository and set the credential it is fetched with:
    /// a token read from stdin (`--token-stdin`, never from the command line) or a deploy key
    /// the service generates (`--deploy-key`, whose public half is printed to add to the
    /// forge). Prints the repository as JSON.
    Connect {
        #[arg(long)]
        workspace: WorkspaceId,
        #[arg(long)]
        url: String,
        #[arg(long)]
        default_branch: Option<String>,
        /// Read an access token from stdin (first line).
        #[arg(long, conflicts_with = "deploy_key")]
        token_stdin: bool,
        /// The user name sent with the token (default x-access-token).
        #[arg(long, requires = "token_stdin")]
        token_username: Option<String>,
        /// Generate an ed25519 deploy key.
        #[arg(long)]
        deploy_key: bool,
    },
}

#[derive(Subcommand)]
enum UserCommand {
    /// Create a portal user (or give an existing one the role) and print a one-time sign-in
    /// link, valid 24 h, with which they set their password.
    Create {
        #[arg(long)]
        email: String,
        /// An active workspace to give the user a role in (with --role).
        #[arg(long, requires = "role")]
        workspace: Option<WorkspaceId>,
        /// read, write, publish or admin: the user's role in --workspace.
        #[arg(long, requires = "workspace")]
        role: Option<Scope>,
        /// Make the user a platform admin: every workspace, as admin.
        #[arg(long)]
        platform_admin: bool,
    },
    /// Print a new one-time sign-in link for a user who cannot sign in (valid 24 h); their
    /// earlier links stop working.
    ResetPassword {
        #[arg(long)]
        email: String,
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

fn main() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    if let Command::Sandbox = cli.command {
        // No runtime, no tracing, no configuration: the child only reads its job.
        return Ok(workers::sandbox::child::main());
    }
    if let Command::Webhooks { command } = cli.command {
        // Offline: a body, headers and a secret.
        return Ok(ci::webhooks(command));
    }
    init_tracing();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let outcome = runtime.block_on(serve(cli));
    // Whatever the shutdown grace period left running (a blocking task, a request that never
    // ends) does not keep the process alive: it is stopped after `run_until` gave up on it.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    outcome
}

async fn serve(cli: Cli) -> anyhow::Result<ExitCode> {
    let mut config = Config::load(cli.config.as_deref())?;
    let clock = Clock::system();
    match cli.command {
        Command::Run(args) => return Ok(ci::run(args, &config).await),
        Command::Drift(args) => return Ok(ci::drift(args, &config).await),
        Command::Articles { command } => return Ok(ci::articles(command, &config).await),
        Command::Export(args) => return Ok(ci::export(args, &config).await),
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
            let ops = open_operations(&config, &clock).await?;
            let ws = match workspace {
                Some(id) => Some(
                    ops.store
                        .workspace(id)
                        .await?
                        .ok_or_else(|| anyhow::anyhow!("no such workspace: {id}"))?,
                ),
                None => None,
            };
            let rate_limit = rate_limit.map(i64::from);
            let writer = ops.clone();
            let minted = ops
                .store
                .write(move |tx| {
                    Box::pin(async move {
                        let operator = Caller::operator();
                        match ws {
                            Some(ws) => {
                                let req = CreateToken {
                                    scope,
                                    name: Some(name),
                                    rate_limit,
                                    expires_at: None,
                                };
                                writer.create_token(tx, &operator, &ws, req).await
                            }
                            None => {
                                writer
                                    .create_platform_token(tx, &operator, &name, rate_limit)
                                    .await
                            }
                        }
                    })
                })
                .await
                .map_err(|e| anyhow::anyhow!(e.message))?;
            println!("{}", minted.secret);
            ops.store.close().await;
        }
        Command::Workspaces {
            command:
                WorkspaceCommand::Connect {
                    workspace,
                    url,
                    default_branch,
                    token_stdin,
                    token_username,
                    deploy_key,
                },
        } => {
            let credential = if token_stdin {
                let mut line = String::new();
                std::io::stdin().read_line(&mut line)?;
                Some(NewCredential::Token(SetRepositoryToken {
                    token: line.trim().to_owned(),
                    username: token_username,
                }))
            } else if deploy_key {
                Some(NewCredential::DeployKey)
            } else {
                None
            };
            let ops = open_operations(&config, &clock).await?;
            ensure_platform_token(&ops, &config.admin_email).await?;
            let ws = ops
                .store
                .workspace(workspace)
                .await?
                .ok_or_else(|| anyhow::anyhow!("no such workspace: {workspace}"))?;
            let req = UpdateWorkspace {
                repo_url: Some(Some(url)),
                default_branch: Some(default_branch),
                ..UpdateWorkspace::default()
            };
            let writer = ops.clone();
            let repository = ops
                .store
                .write(move |tx| {
                    Box::pin(async move {
                        let caller = Caller::operator();
                        let ws = writer.update_workspace(tx, &caller, &ws, &req).await?;
                        match &credential {
                            Some(c) => {
                                writer
                                    .set_repository_credential(tx, &caller, &ws, Some(c))
                                    .await
                            }
                            None => Ok(operations::repositories::repository_view(&ws, None)),
                        }
                    })
                })
                .await
                .map_err(|e| anyhow::anyhow!("{}", e.message))?;
            println!("{}", serde_json::to_string_pretty(&repository)?);
            ops.store.close().await;
        }
        Command::Workspaces {
            command:
                WorkspaceCommand::Create {
                    name,
                    repo_path,
                    repo_url,
                    default_branch,
                },
        } => {
            let ops = open_operations(&config, &clock).await?;
            ensure_platform_token(&ops, &config.admin_email).await?;
            let req = CreateWorkspace {
                name,
                repo_path,
                repo_url,
                default_branch,
            };
            let writer = ops.clone();
            let ws = ops
                .store
                .write(move |tx| {
                    Box::pin(
                        async move { writer.create_workspace(tx, &Caller::operator(), &req).await },
                    )
                })
                .await
                .map_err(|e| anyhow::anyhow!("{}", e.message))?;
            println!(
                "{}",
                serde_json::to_string_pretty(&views::workspace_for_operator(ws))?
            );
            ops.store.close().await;
        }
        Command::Users { command } => {
            let ops = open_operations(&config, &clock).await?;
            ensure_platform_token(&ops, &config.admin_email).await?;
            let (what, link) = match command {
                UserCommand::Create {
                    email,
                    workspace,
                    role,
                    platform_admin,
                } => {
                    let new = NewUser {
                        email,
                        platform_admin,
                        membership: workspace.zip(role),
                    };
                    ("Created or updated the user", ops.create_user(new).await)
                }
                UserCommand::ResetPassword { email } => (
                    "A new sign-in link for",
                    ops.reset_password_link(&email).await,
                ),
            };
            ops.store.close().await;
            let link = link.map_err(|e| anyhow::anyhow!("{}", e.message))?;
            println!("{}", sign_in_link_text(what, &link));
        }
        Command::Migrate => {
            let ops = open_operations(&config, &clock).await?;
            ensure_platform_token(&ops, &config.admin_email).await?;
            ops.store.close().await;
            eprintln!("database is up to date");
        }
        Command::Openapi => {
            println!(
                "{}",
                serde_json::to_string_pretty(&api::openapi_document()?)?
            );
        }
        Command::Sandbox | Command::Webhooks { .. } => {
            anyhow::bail!("this command runs without a runtime")
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The use cases as the operator runs them from the command line, on the configured
/// database.
async fn open_operations(config: &Config, clock: &Clock) -> anyhow::Result<Operations> {
    let store = open_store(config).await?;
    let base_url = public_base_url(config, &config.bind);
    operations(config, &store, clock, &base_url, &config.server_key()?)
}
