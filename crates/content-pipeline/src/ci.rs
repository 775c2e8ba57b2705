//! The commands a CI job runs against a running service, through the typed client: trigger a
//! run and wait for it, gate a pull request on drift, read and publish articles, export the
//! published articles for a docs framework, and check a received webhook delivery. Human output on stdout by default, `--json` for scripts,
//! progress on stderr.
//!
//! Exit codes: 0 success; 1 the gate said no (the run failed, something drifted with
//! `--fail-on-drift`, a delivery's signature does not verify); 2 bad input (usage, or the API
//! refused the request: unknown feature, bad token, …); 3 the service could not be reached or
//! failed.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use client::{
    ArticleFilter, ArticleId, ArticleStatus, Client, DriftCheck, ExportFormat, Run, RunStatus,
    Surface, Tier, TriggerRun, WorkspaceId,
};
use futures_util::StreamExt;
use standardwebhooks::WebhookError;

use crate::Config;

/// Where the service is and who is calling; each falls back to its environment variable,
/// then to the TOML file (`server`, `token`).
#[derive(Args, Clone, Debug)]
pub struct Connection {
    /// The service's base URL, e.g. https://docs-api.example.com [env: CONTENT_PIPELINE_SERVER]
    #[arg(long)]
    server: Option<String>,
    /// A bearer token (cpt_…) [env: CONTENT_PIPELINE_TOKEN]
    #[arg(long)]
    token: Option<String>,
    /// Print JSON on stdout instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    connection: Connection,
    /// The workspace (ws_…).
    #[arg(long)]
    workspace: WorkspaceId,
    /// A feature of .content-pipeline/features.toml, or a file or folder of the repository.
    #[arg(long)]
    feature: String,
    /// standard or priority.
    #[arg(long)]
    tier: Option<Tier>,
    /// The branch, tag, pull request ref or commit to document (e.g. "$GITHUB_SHA");
    /// default: the workspace's default branch. Another ref than that writes drafts only.
    #[arg(long = "ref")]
    git_ref: Option<String>,
    /// Follow the run's log until it finishes; exit 1 when it fails.
    #[arg(long)]
    wait: bool,
    /// Retrying with the same key never queues a second run (e.g. the CI build's id).
    #[arg(long)]
    idempotency_key: Option<String>,
    /// With --wait: give up (exit 3) after this long, e.g. 10m.
    #[arg(long, default_value = "30m", value_parser = parse_duration)]
    timeout: Duration,
}

#[derive(Args, Debug)]
pub struct DriftArgs {
    #[command(flatten)]
    connection: Connection,
    /// The workspace (ws_…).
    #[arg(long)]
    workspace: WorkspaceId,
    /// Exit 1 when an article no longer matches the code (a documentation gate).
    #[arg(long)]
    fail_on_drift: bool,
    /// Check the code at this branch, tag, pull request ref or commit (e.g. "$GITHUB_SHA")
    /// instead of the default branch.
    #[arg(long = "ref")]
    git_ref: Option<String>,
    /// Give up (exit 3) when the check has not finished after this long.
    #[arg(long, default_value = "10m", value_parser = parse_duration)]
    timeout: Duration,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    #[command(flatten)]
    connection: Connection,
    /// The workspace (ws_…).
    #[arg(long)]
    workspace: WorkspaceId,
    /// docusaurus, mintlify, starlight or mkdocs-material.
    #[arg(long)]
    format: ExportFormat,
    /// The folder to unpack into (created if missing; files of the export replace files of
    /// the same name, nothing else is touched).
    #[arg(long)]
    out: PathBuf,
}

#[derive(Subcommand, Debug)]
pub enum ArticleCommand {
    /// Print an article (its MDX with --body).
    Get {
        #[command(flatten)]
        connection: Connection,
        id: ArticleId,
        /// Print only the MDX body.
        #[arg(long)]
        body: bool,
    },
    /// List a workspace's articles.
    List {
        #[command(flatten)]
        connection: Connection,
        /// The workspace (ws_…).
        #[arg(long)]
        workspace: WorkspaceId,
        /// Only this feature's articles.
        #[arg(long)]
        feature: Option<String>,
        #[arg(long)]
        surface: Option<Surface>,
        #[arg(long)]
        status: Option<ArticleStatus>,
    },
    /// Publish an article's current version.
    Publish {
        #[command(flatten)]
        connection: Connection,
        id: ArticleId,
    },
}

#[derive(Subcommand, Debug)]
pub enum WebhookCommand {
    /// Check a received delivery (its body on stdin) with the Standard Webhooks reference
    /// verifier: exit 0 when the signature is valid and fresh (±5 minutes), 1 when not.
    Verify {
        /// The subscription's signing secret (whsec_…) [env: CONTENT_PIPELINE_WEBHOOK_SECRET]
        #[arg(long, env = "CONTENT_PIPELINE_WEBHOOK_SECRET", hide_env_values = true)]
        secret: String,
        /// A file of the delivery's headers, one `name: value` per line (as `curl -D` writes).
        #[arg(long)]
        headers: Option<PathBuf>,
        /// One header, `name: value`; may be repeated.
        #[arg(long = "header")]
        header: Vec<String>,
    },
}

fn parse_duration(text: &str) -> Result<Duration, String> {
    crate::config::parse_positive_duration(text)
}

/// How a command ended.
enum Failure {
    /// The gate said no (exit 1).
    Gate(String),
    /// Bad input (exit 2).
    Input(String),
    /// The service could not be reached or failed (exit 3).
    Service(String),
}

impl From<client::Error> for Failure {
    fn from(e: client::Error) -> Self {
        match e.status() {
            Some(status) if (400..500).contains(&status) && status != 429 => {
                Failure::Input(e.to_string())
            }
            _ => Failure::Service(e.to_string()),
        }
    }
}

fn finish(result: Result<(), Failure>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Gate(message)) => {
            eprintln!("{message}");
            ExitCode::from(1)
        }
        Err(Failure::Input(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
        Err(Failure::Service(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(3)
        }
    }
}

fn connect(connection: &Connection, config: &Config) -> Result<Client, Failure> {
    let server = connection
        .server
        .clone()
        .or_else(|| config.server.as_ref().map(|s| s.url().to_string()))
        .ok_or_else(|| {
            Failure::Input("no server: give --server or CONTENT_PIPELINE_SERVER".into())
        })?;
    let token = connection
        .token
        .clone()
        .or_else(|| config.token.as_ref().map(|t| t.expose().clone()))
        .ok_or_else(|| Failure::Input("no token: give --token or CONTENT_PIPELINE_TOKEN".into()))?;
    Client::new(&server, &token).map_err(|e| Failure::Input(e.to_string()))
}

fn print_json(value: &impl serde::Serialize) -> Result<(), Failure> {
    let text = serde_json::to_string_pretty(value).map_err(|e| Failure::Service(e.to_string()))?;
    println!("{text}");
    Ok(())
}

pub async fn run(args: RunArgs, config: &Config) -> ExitCode {
    finish(trigger_and_wait(args, config).await)
}

async fn trigger_and_wait(args: RunArgs, config: &Config) -> Result<(), Failure> {
    let api = connect(&args.connection, config)?;
    let body = TriggerRun {
        feature_id: args.feature.clone(),
        tier: args.tier,
        notify_on_complete: None,
        git_ref: args.git_ref.clone(),
    };
    let mut call = api.trigger_run(&args.workspace, &body);
    if let Some(key) = &args.idempotency_key {
        call = call.idempotency_key(key.clone());
    }
    let run = call.await?;
    eprintln!(
        "{} {} for feature {} ({} tier)",
        run.id, run.status, run.feature_id, run.tier
    );
    if !args.wait {
        return report_run(&run, args.connection.json);
    }
    let deadline = Instant::now() + args.timeout;
    let mut log = Box::pin(api.follow_log(&run.id, None));
    loop {
        let next = tokio::time::timeout_at(deadline.into(), log.next()).await;
        match next {
            Err(_) => {
                return Err(Failure::Service(format!(
                    "{} has not finished after {:?}",
                    run.id, args.timeout
                )));
            }
            Ok(None) => break,
            Ok(Some(event)) => {
                let event = event?;
                eprintln!(
                    "  {:<8} {:<5} {}",
                    event.stage.as_str(),
                    event.level.as_str(),
                    event.message
                );
            }
        }
    }
    let run = api.get_run(&run.id).await?;
    report_run(&run, args.connection.json)?;
    match run.status {
        RunStatus::Failed => Err(Failure::Gate(format!(
            "{} failed: {}",
            run.id,
            run.error.as_deref().unwrap_or("no reason given")
        ))),
        _ => Ok(()),
    }
}

/// A commit as people read it; the server's text is never sliced at a byte that could split a
/// character.
fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

fn report_run(run: &Run, json: bool) -> Result<(), Failure> {
    if json {
        return print_json(run);
    }
    let mut line = format!("{} {}", run.id, run.status);
    if let Some(commit) = &run.commit {
        line.push_str(&format!(" at {}", short(commit)));
    }
    println!("{line}");
    for artifact in &run.artifacts {
        println!(
            "  {} {} version {}",
            artifact.surface, artifact.article_id, artifact.version
        );
    }
    Ok(())
}

pub async fn drift(args: DriftArgs, config: &Config) -> ExitCode {
    finish(check_drift(args, config).await)
}

async fn check_drift(args: DriftArgs, config: &Config) -> Result<(), Failure> {
    let api = connect(&args.connection, config)?;
    let deadline = Instant::now() + args.timeout;
    let mut check = match &args.git_ref {
        None => api.drift_check(&args.workspace).await?,
        Some(git_ref) => {
            let options = client::DriftCheckOptions {
                git_ref: Some(git_ref.clone()),
            };
            api.drift_check_at(&args.workspace, &options).await?
        }
    };
    while !check.status.is_finished() {
        if Instant::now() >= deadline {
            return Err(Failure::Service(format!(
                "drift check {} has not finished after {:?}",
                check.id, args.timeout
            )));
        }
        eprintln!("{} {}…", check.id, check.status);
        tokio::time::sleep(Duration::from_secs(1)).await;
        check = api.get_drift_check(&check.id).await?;
    }
    report_drift(&check, args.connection.json)?;
    if check.status == RunStatus::Failed {
        return Err(Failure::Service(format!(
            "drift check {} failed: {}",
            check.id,
            check.error.as_deref().unwrap_or("no reason given")
        )));
    }
    if args.fail_on_drift && !check.drifted.is_empty() {
        return Err(Failure::Gate(format!(
            "{} article(s) no longer match the code",
            check.drifted.len()
        )));
    }
    Ok(())
}

fn report_drift(check: &DriftCheck, json: bool) -> Result<(), Failure> {
    if json {
        return print_json(check);
    }
    let head = check.head_commit.as_deref().unwrap_or("?");
    println!(
        "{} articles checked at {}: {} drifted",
        check.articles_checked,
        short(head),
        check.drifted.len()
    );
    for report in &check.drifted {
        println!(
            "  {} {} ({})",
            report.surface, report.feature_id, report.article_id
        );
        for change in &report.changes {
            let symbols = if change.symbols.is_empty() {
                String::new()
            } else {
                format!(": {}", change.symbols.join(", "))
            };
            println!("    {} {}{symbols}", change.kind.as_str(), change.path);
        }
    }
    Ok(())
}

pub async fn export(args: ExportArgs, config: &Config) -> ExitCode {
    finish(export_into(args, config).await)
}

/// Downloads the export and unpacks it into `--out` (regular files only, none outside it).
async fn export_into(args: ExportArgs, config: &Config) -> Result<(), Failure> {
    let api = connect(&args.connection, config)?;
    let archive = api.export_workspace(&args.workspace, args.format).await?;
    let out = args.out.clone();
    let written = tokio::task::spawn_blocking(move || exports::unpack(archive.as_slice(), &out))
        .await
        .map_err(|e| Failure::Service(e.to_string()))?
        .map_err(|e| Failure::Service(format!("unpacking the export: {e}")))?;
    if args.connection.json {
        return print_json(&serde_json::json!({
            "format": args.format,
            "out": args.out,
            "files": written,
        }));
    }
    println!(
        "{} files of the {} export written to {}",
        written.len(),
        args.format,
        args.out.display()
    );
    Ok(())
}

pub async fn articles(command: ArticleCommand, config: &Config) -> ExitCode {
    finish(article_command(command, config).await)
}

async fn article_command(command: ArticleCommand, config: &Config) -> Result<(), Failure> {
    match command {
        ArticleCommand::Get {
            connection,
            id,
            body,
        } => {
            let api = connect(&connection, config)?;
            let article = api.get_article(&id).await?;
            if body {
                print!("{}", article.mdx_body.as_deref().unwrap_or_default());
                return Ok(());
            }
            if connection.json {
                return print_json(&article);
            }
            println!(
                "{} {} {} version {} ({})",
                article.id, article.surface, article.feature_id, article.version, article.status
            );
            if let Some(url) = &article.public_url {
                println!("  published at {url}");
            }
            Ok(())
        }
        ArticleCommand::List {
            connection,
            workspace,
            feature,
            surface,
            status,
        } => {
            let api = connect(&connection, config)?;
            let filter = ArticleFilter {
                feature_id: feature,
                surface,
                status,
            };
            let mut all = Vec::new();
            let mut articles = Box::pin(api.all_articles(&workspace, filter));
            while let Some(article) = articles.next().await {
                all.push(article?);
            }
            if connection.json {
                return print_json(&all);
            }
            for a in &all {
                println!(
                    "{} {:<11} {:<16} v{} {}",
                    a.id, a.surface, a.status, a.version, a.feature_id
                );
            }
            Ok(())
        }
        ArticleCommand::Publish { connection, id } => {
            let api = connect(&connection, config)?;
            let article = api.publish_article(&id).await?;
            if connection.json {
                return print_json(&article);
            }
            println!(
                "{} version {} published at {}",
                article.id,
                article.published_version.unwrap_or(article.version),
                article.public_url.as_deref().unwrap_or("?")
            );
            Ok(())
        }
    }
}

/// Upper bound of a delivery body read from stdin (the API's own body limit).
const MAX_DELIVERY_BYTES: u64 = 1024 * 1024;

pub fn webhooks(command: WebhookCommand) -> ExitCode {
    finish(verify(command))
}

fn verify(command: WebhookCommand) -> Result<(), Failure> {
    let WebhookCommand::Verify {
        secret,
        headers,
        header,
    } = command;
    let mut lines = header;
    if let Some(path) = headers {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| Failure::Input(format!("{}: {e}", path.display())))?;
        lines.extend(text.lines().map(str::to_string));
    }
    let mut map = http::HeaderMap::new();
    for line in &lines {
        // `curl -D` also writes the status line and a blank line: not headers.
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let (Ok(name), Ok(value)) = (
            http::HeaderName::from_bytes(name.trim().as_bytes()),
            http::HeaderValue::from_str(value.trim()),
        ) else {
            return Err(Failure::Input(format!("not a header: {line}")));
        };
        map.append(name, value);
    }
    let mut body = Vec::new();
    std::io::stdin()
        .take(MAX_DELIVERY_BYTES + 1)
        .read_to_end(&mut body)
        .map_err(|e| Failure::Input(format!("cannot read the body on stdin: {e}")))?;
    if body.len() as u64 > MAX_DELIVERY_BYTES {
        return Err(Failure::Input("the body on stdin is over 1 MiB".into()));
    }
    let webhook = standardwebhooks::Webhook::new(&secret)
        .map_err(|e| Failure::Input(format!("not a signing secret (whsec_…): {e}")))?;
    webhook.verify(&body, &map).map_err(|e| match e {
        WebhookError::MissingHeader(_) | WebhookError::InvalidHeader(_) => {
            Failure::Input(format!("not a delivery's headers: {e}"))
        }
        _ => Failure::Gate(format!("invalid delivery: {e}")),
    })?;
    println!("valid");
    Ok(())
}
