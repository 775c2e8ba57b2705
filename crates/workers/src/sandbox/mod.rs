//! Repository work out of the server's process. Each pipeline run and each drift check runs
//! in a child process of the same binary (`content-pipeline sandbox`) that limits its own CPU
//! time, address space, open files and stack before it reads the repository, and that the
//! server kills at a wall-clock deadline. A child that crashes, overflows its stack, runs out
//! of memory or time ends only itself: the caller gets [`Stopped`] with a message saying why.

pub mod child;
pub mod protocol;

use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;

pub use protocol::{
    ArticleToCheck, DriftResult, PushToRead, ResourceLimits, RunArticle, RunResult, Source, Work,
};
use protocol::{Job, Message};

/// A message line from the child larger than this is not one of ours.
const MAX_LINE_BYTES: u64 = 256 * 1024 * 1024;
/// How much of the child's stderr is kept to explain its end.
const STDERR_TAIL: usize = 8 * 1024;

/// How to start children and what they may use.
#[derive(Clone, Debug)]
pub struct Sandbox {
    /// The `content-pipeline` binary (the server's own executable by default).
    pub program: PathBuf,
    /// Wall-clock deadline of one child.
    pub deadline: Duration,
    pub resources: ResourceLimits,
    pub limits: pipeline::Limits,
    /// How remotes are fetched on this node.
    pub mirrors: MirrorSettings,
}

/// Where and how this node fetches workspaces' remotes (see the `mirrors` crate).
#[derive(Clone, Debug)]
pub struct MirrorSettings {
    /// The node's mirrors, one bare repository per workspace.
    pub cache_dir: PathBuf,
    pub limits: mirrors::FetchLimits,
    /// The `git` program (an absolute path: the child's environment is empty).
    pub git: PathBuf,
    /// The operator's allowed address ranges (comma-separated CIDRs), as for webhooks.
    pub allowed_cidrs: String,
    /// Who the commits pushed to publish targets are by.
    pub publish_author: mirrors::Author,
}

impl MirrorSettings {
    /// Mirrors under `cache_dir`, default limits, `git` found on the server's PATH.
    pub fn new(cache_dir: PathBuf) -> Self {
        Self {
            cache_dir,
            limits: mirrors::FetchLimits::default(),
            git: find_program("git").unwrap_or_else(|| PathBuf::from("/usr/bin/git")),
            allowed_cidrs: String::new(),
            publish_author: mirrors::Author::default(),
        }
    }
}

impl MirrorSettings {
    /// The mirror of the workspace `key` on this node.
    pub fn mirror_of(&self, key: &str) -> PathBuf {
        mirrors::mirror_path(&self.cache_dir, key)
    }
}

/// `name` on the server's PATH.
pub fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// How a child's fetch of a remote ended, when it fetched one.
pub type FetchOutcome = Option<Result<mirrors::Fetched, String>>;

impl Sandbox {
    /// Children of the running executable, with the default limits.
    pub fn current_exe() -> std::io::Result<Self> {
        Ok(Self::new(std::env::current_exe()?))
    }

    pub fn new(program: PathBuf) -> Self {
        Self {
            program,
            deadline: Duration::from_secs(300),
            resources: ResourceLimits::default(),
            limits: pipeline::Limits::default(),
            mirrors: MirrorSettings::new(std::env::temp_dir().join("content-pipeline-mirrors")),
        }
    }
}

/// The child ended without a result: a limit, a crash, the deadline. The message is written
/// for the user who reads the failed run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stopped(pub String);

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// One log line of the child, in the pipeline's vocabulary.
pub struct LogLine {
    pub level: domain::LogLevel,
    pub stage: domain::LogStage,
    pub message: String,
    pub data: serde_json::Value,
}

impl Sandbox {
    /// One pipeline run; its log lines go to `log` as they happen. `Ok(Err(_))` is a run that
    /// failed on its own terms (the message is the pipeline's).
    pub async fn run(
        &self,
        work: Work,
        log: impl FnMut(LogLine),
        fetched: &mut FetchOutcome,
    ) -> Result<Result<RunResult, String>, Stopped> {
        match self.execute(work, log, fetched).await? {
            Message::RunDone { result } => Ok(result),
            _ => Err(Stopped(
                "The run's process answered something else than a run's result.".into(),
            )),
        }
    }

    /// One drift check.
    pub async fn check_drift(
        &self,
        work: Work,
        fetched: &mut FetchOutcome,
    ) -> Result<Result<DriftResult, String>, Stopped> {
        match self.execute(work, |_| {}, fetched).await? {
            Message::DriftDone { result } => Ok(result),
            _ => Err(Stopped(
                "The drift check's process answered something else than a drift result.".into(),
            )),
        }
    }

    /// What a push touched (in a child, after fetching the pushed commit).
    pub async fn read_push(
        &self,
        work: Work,
        fetched: &mut FetchOutcome,
    ) -> Result<Result<pipeline::Touched, String>, Stopped> {
        match self.execute(work, |_| {}, fetched).await? {
            Message::PushRead { result } => Ok(result),
            _ => Err(Stopped(
                "The push's process answered something else than the features it touched.".into(),
            )),
        }
    }

    async fn execute(
        &self,
        work: Work,
        mut log: impl FnMut(LogLine),
        fetched: &mut FetchOutcome,
    ) -> Result<Message, Stopped> {
        let job = Job {
            resources: self.resources.clone(),
            limits: self.limits.clone(),
            work,
        };
        let job = serde_json::to_vec(&job)
            .map_err(|e| Stopped(format!("The job could not be written: {e}")))?;
        let mut command = Command::new(&self.program);
        let parent = std::process::id();
        // SAFETY: prctl and getppid are async-signal-safe, and nothing else runs between fork
        // and exec. The kernel kills the child when the thread that started it ends: with the
        // worker (a SIGKILL included), whose `kill_on_drop` cannot run then. The thread is one
        // of the runtime's, which live as long as the process. A worker that died before the
        // prctl took effect is seen as a changed parent.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                if libc::getppid() as u32 != parent {
                    return Err(std::io::Error::other("the worker ended"));
                }
                Ok(())
            });
        }
        let mut child = command
            .arg("sandbox")
            .env_clear()
            // mimalloc reserves 1 GiB of address space up front by default, which would count
            // against the child's address-space limit before it does any work.
            .env("MIMALLOC_ARENA_RESERVE", "64MiB")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                tracing::error!(program = %self.program.display(), error = %e, "could not start a sandbox");
                Stopped("The run's process could not be started.".into())
            })?;
        let (Some(mut stdin), Some(stdout), Some(mut stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(Stopped("The run's process has no pipes.".into()));
        };
        let stderr_tail = tokio::spawn(async move {
            let mut tail = Vec::new();
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                tail.extend_from_slice(&buf[..n]);
                if tail.len() > STDERR_TAIL {
                    tail.drain(..tail.len() - STDERR_TAIL);
                }
            }
            String::from_utf8_lossy(&tail).into_owned()
        });

        let conversation = async {
            // A child that dies before reading its job closes the pipe: its exit status says
            // why, below.
            let _ = stdin.write_all(&job).await;
            drop(stdin);
            let mut reader = BufReader::new(stdout);
            let mut line = Vec::new();
            loop {
                line.clear();
                let n = (&mut reader)
                    .take(MAX_LINE_BYTES)
                    .read_until(b'\n', &mut line)
                    .await
                    .unwrap_or(0);
                if n == 0 || line.last() != Some(&b'\n') {
                    return None;
                }
                match serde_json::from_slice::<Message>(&line) {
                    Ok(Message::Log {
                        level,
                        stage,
                        message,
                        data,
                    }) => log(LogLine {
                        level,
                        stage,
                        message,
                        data,
                    }),
                    Ok(Message::Fetched { result }) => *fetched = Some(result),
                    Ok(done) => return Some(done),
                    Err(_) => return None,
                }
            }
        };
        let (answer, timed_out) = match tokio::time::timeout(self.deadline, conversation).await {
            Ok(answer) => (answer, false),
            Err(_) => (None, true),
        };
        if answer.is_none() {
            let _ = child.start_kill();
        }
        let status = child.wait().await;
        let stderr = stderr_tail.await.unwrap_or_default();
        match (answer, status) {
            (Some(done), Ok(status)) if status.success() => Ok(done),
            (_, status) => {
                let why = self.why_stopped(status.ok(), &stderr, timed_out);
                tracing::warn!(reason = %why, stderr = %stderr.trim(), "a sandboxed child ended without a result");
                Err(Stopped(why))
            }
        }
    }

    fn why_stopped(
        &self,
        status: Option<std::process::ExitStatus>,
        stderr: &str,
        timed_out: bool,
    ) -> String {
        let r = &self.resources;
        if timed_out {
            return format!(
                "The run's process was stopped at its deadline of {} s.",
                self.deadline.as_secs_f64()
            );
        }
        if stderr.contains("has overflowed its stack") {
            return format!(
                "The run's process overflowed its stack ({} MiB).",
                r.stack_bytes / (1024 * 1024)
            );
        }
        if stderr.contains("memory allocation of") || stderr.contains("out of memory") {
            return format!(
                "The run's process ran out of memory (limit {} MiB).",
                r.memory_bytes / (1024 * 1024)
            );
        }
        match status.and_then(|s| s.signal()) {
            Some(SIGXCPU) => format!(
                "The run's process exceeded its CPU time limit of {} s.",
                r.cpu_seconds
            ),
            Some(signal) => format!("The run's process crashed (signal {signal})."),
            None => match status.and_then(|s| s.code()) {
                Some(0) | None => "The run's process ended without a result.".into(),
                Some(code) => format!("The run's process failed (exit code {code})."),
            },
        }
    }
}

/// The signal the kernel sends past RLIMIT_CPU (Linux).
const SIGXCPU: i32 = 24;
