//! The child side of the sandbox: `content-pipeline sandbox` reads one [`Job`] from stdin,
//! limits itself (CPU, address space, open files) before it touches the repository, does the
//! work on a thread with a known stack, and writes [`Message`]s to stdout. It holds no
//! database connection and no secret: it starts with an empty environment.

use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;

use domain::{LogLevel, LogStage};
use pipeline::{LogSink, RunRequest};

use super::protocol::{
    ArticleToCheck, DriftResult, Job, Message, ResourceLimits, RunArticle, RunResult, Source, Work,
};
use operations::drift::DriftReport;

/// Jobs are written by the server; anything larger is not one of ours.
const MAX_JOB_BYTES: u64 = 64 * 1024 * 1024;

/// The entry point of `content-pipeline sandbox`.
pub fn main() -> ExitCode {
    let mut text = String::new();
    let read = std::io::stdin()
        .lock()
        .take(MAX_JOB_BYTES)
        .read_to_string(&mut text);
    let job: Job = match read
        .map_err(|e| e.to_string())
        .and_then(|_| serde_json::from_str(&text).map_err(|e| e.to_string()))
    {
        Ok(job) => job,
        Err(e) => {
            eprintln!("sandbox: unreadable job: {e}");
            return ExitCode::from(2);
        }
    };
    drop(text);
    if let Err(e) = limit_self(&job.resources) {
        eprintln!("sandbox: could not set resource limits: {e}");
        return ExitCode::from(2);
    }
    let (tx, rx) = mpsc::channel::<Message>();
    let stack = job.resources.stack_bytes;
    let worker = std::thread::Builder::new()
        .name("sandbox-work".into())
        .stack_size(stack)
        .spawn(move || work(job, tx));
    if let Err(e) = worker {
        eprintln!("sandbox: could not start the work thread: {e}");
        return ExitCode::from(2);
    }
    let mut out = BufWriter::new(std::io::stdout().lock());
    for message in rx {
        let written = serde_json::to_writer(&mut out, &message)
            .map_err(std::io::Error::other)
            .and_then(|_| out.write_all(b"\n"))
            .and_then(|_| out.flush());
        if written.is_err() {
            // The server went away; nobody is waiting for the result.
            return ExitCode::from(3);
        }
    }
    ExitCode::SUCCESS
}

fn limit_self(limits: &ResourceLimits) -> std::io::Result<()> {
    use rlimit::Resource;
    Resource::CPU.set(limits.cpu_seconds, limits.cpu_seconds.saturating_add(1))?;
    Resource::AS.set(limits.memory_bytes, limits.memory_bytes)?;
    Resource::NOFILE.set(limits.open_files, limits.open_files)?;
    // A crash must not write a core file of repository content.
    Resource::CORE.set(0, 0)?;
    // SAFETY: called before the work thread, the only one that uses libgit2, exists.
    unsafe { pipeline::limit_pack_mappings((limits.memory_bytes / 4) as usize) }
        .map_err(std::io::Error::other)?;
    Ok(())
}

/// Streams log lines to the writer thread as they happen.
struct PipeLog(mpsc::Sender<Message>);

impl LogSink for PipeLog {
    fn log(&mut self, level: LogLevel, stage: LogStage, message: &str, data: serde_json::Value) {
        let _ = self.0.send(Message::Log {
            level,
            stage,
            message: message.to_owned(),
            data,
        });
    }
}

/// The repository on disk and the commit the work reads: a path as it is, or the remote
/// fetched into this node's mirror first (the fetch's outcome is told to the server).
fn checkout(
    source: Source,
    git_ref: Option<&str>,
    tx: &mpsc::Sender<Message>,
) -> Result<(PathBuf, String), String> {
    let git_ref = git_ref.filter(|r| !r.is_empty());
    let repo = match source {
        Source::Path { path } => path,
        Source::Remote { fetch } => {
            let mut log = PipeLog(tx.clone());
            log.log(
                LogLevel::Info,
                LogStage::Resolve,
                "fetching the repository",
                serde_json::json!({ "url": fetch.url, "ref": git_ref }),
            );
            let fetched = mirrors::fetch(&fetch).map_err(|e| e.to_string());
            let _ = tx.send(Message::Fetched {
                result: fetched.clone(),
            });
            let fetched =
                fetched.map_err(|e| format!("The repository could not be fetched: {e}"))?;
            log.log(
                LogLevel::Info,
                LogStage::Resolve,
                "fetched the repository",
                serde_json::json!({
                    "default_branch": fetched.default_branch,
                    "head": fetched.head,
                    "received_bytes": fetched.received_bytes,
                    "elapsed_ms": fetched.elapsed_ms,
                }),
            );
            if let Some(moved_to) = &fetched.moved_to {
                log.log(
                    LogLevel::Warn,
                    LogStage::Resolve,
                    "the repository moved: its host redirected the fetch (each hop checked); connect its new URL",
                    serde_json::json!({ "moved_to": moved_to }),
                );
            }
            fetched.mirror
        }
    };
    let resolved = mirrors::resolve_ref(&repo, git_ref)?;
    Ok((repo, resolved.commit))
}

fn work(job: Job, tx: mpsc::Sender<Message>) {
    let message = match job.work {
        Work::Run {
            repo,
            git_ref,
            feature_id,
            since_commit,
            previous_commit,
            surfaces,
            versions,
        } => {
            let (repo, commit) = match checkout(repo, git_ref.as_deref(), &tx) {
                Ok(found) => found,
                Err(e) => {
                    let mut log = PipeLog(tx.clone());
                    log.log(
                        LogLevel::Error,
                        LogStage::Resolve,
                        &e,
                        serde_json::json!({}),
                    );
                    let _ = tx.send(Message::RunDone { result: Err(e) });
                    return;
                }
            };
            let versions = versions.into_iter().collect();
            let since_commit = match since_commit {
                Some(since) if since == commit => previous_commit,
                since => since,
            };
            let request = RunRequest {
                commit: Some(&commit),
                repo: &repo,
                feature_id: &feature_id,
                since_commit: since_commit.as_deref(),
                surfaces: surfaces.as_deref(),
                versions: &versions,
                limits: &job.limits,
            };
            let mut sink = PipeLog(tx.clone());
            let result = pipeline::run(&request, &mut sink)
                .map_err(|e| e.to_string())
                .and_then(run_result);
            Message::RunDone { result }
        }
        Work::Drift {
            repo,
            git_ref,
            articles,
        } => Message::DriftDone {
            result: checkout(repo, git_ref.as_deref(), &tx)
                .and_then(|(repo, commit)| compare(&repo, &commit, articles, &job.limits)),
        },
        Work::Push(push) => Message::PushRead {
            result: checkout(push.repo, Some(&push.after), &tx).and_then(|(repo, commit)| {
                pipeline::touched_features(&repo, push.before.as_deref(), &commit, &push.known)
                    .map_err(|e| e.to_string())
            }),
        },
    };
    let _ = tx.send(message);
}

fn run_result(output: pipeline::RunOutput) -> Result<RunResult, String> {
    let mut articles = Vec::with_capacity(output.articles.len());
    for a in output.articles {
        articles.push(RunArticle {
            surface: a.surface,
            status: a.status(),
            provenance: serde_json::to_value(&a.provenance)
                .map_err(|e| format!("the provenance could not be recorded: {e}"))?,
            title: a.title,
            mdx_body: a.mdx_body,
        });
    }
    Ok(RunResult {
        commit: output.commit,
        articles,
    })
}

/// Compares each article's provenance with the code at `commit`.
fn compare(
    repo: &Path,
    commit: &str,
    articles: Vec<ArticleToCheck>,
    limits: &pipeline::Limits,
) -> Result<DriftResult, String> {
    let checker =
        pipeline::DriftChecker::open_at(repo, Some(commit), limits).map_err(|e| e.to_string())?;
    let head = checker.head_commit().to_owned();
    let mut drifted = Vec::new();
    for item in articles {
        let Ok(provenance) = serde_json::from_value::<pipeline::Provenance>(item.provenance) else {
            continue;
        };
        if provenance.commit == head {
            continue;
        }
        let changes = checker.check(&provenance).map_err(|e| e.to_string())?;
        if changes.is_empty() {
            continue;
        }
        drifted.push(DriftReport {
            article_id: item.article_id,
            feature_id: item.feature_id,
            surface: item.surface.to_string(),
            article_commit: provenance.commit.clone(),
            current_commit: head.clone(),
            changes,
        });
    }
    Ok(DriftResult { head, drifted })
}
