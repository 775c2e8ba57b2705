//! What the server and its sandboxed child say to each other: one [`Job`] as JSON on the
//! child's stdin, then newline-delimited [`Message`]s on its stdout, the last one the result.

use std::path::PathBuf;

use domain::Surface;
use serde::{Deserialize, Serialize};

use operations::drift::DriftReport;

/// The operating-system limits the child puts on itself before it reads any repository.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceLimits {
    /// CPU seconds (RLIMIT_CPU); the kernel stops the child with SIGXCPU past it.
    pub cpu_seconds: u64,
    /// Address space in bytes (RLIMIT_AS); allocations past it fail and the child aborts.
    pub memory_bytes: u64,
    /// Open file descriptors (RLIMIT_NOFILE).
    pub open_files: u64,
    /// Stack of the thread that does the work, in bytes.
    pub stack_bytes: usize,
}

impl Default for ResourceLimits {
    fn default() -> Self {
        Self {
            cpu_seconds: 120,
            memory_bytes: 2 * 1024 * 1024 * 1024,
            open_files: 256,
            stack_bytes: 16 * 1024 * 1024,
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Job {
    pub resources: ResourceLimits,
    pub limits: pipeline::Limits,
    pub work: Work,
}

/// Where the child reads the code.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Source {
    /// A repository on this node's disk (`repo_path`, or a mirror already fetched).
    Path { path: PathBuf },
    /// The workspace's remote: the child fetches it into this node's mirror first.
    Remote { fetch: Box<mirrors::FetchRequest> },
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Work {
    /// One pipeline run.
    Run {
        repo: Source,
        /// The ref to read ('' or absent: the default branch, HEAD of a path).
        #[serde(default)]
        git_ref: Option<String>,
        feature_id: String,
        since_commit: Option<String>,
        /// Where the changelog resumed before `since_commit`: used instead of it when HEAD is
        /// still `since_commit`, so that a re-run at an unchanged HEAD covers the same range.
        #[serde(default)]
        previous_commit: Option<String>,
        surfaces: Option<Vec<Surface>>,
        /// The version number each generated article will carry.
        versions: Vec<(Surface, i64)>,
    },
    /// A drift check of these articles against the code at `git_ref` (default: HEAD).
    Drift {
        repo: Source,
        #[serde(default)]
        git_ref: Option<String>,
        articles: Vec<ArticleToCheck>,
    },
    /// The features a push touched.
    Push(PushToRead),
}

/// What a push changed, for the features it touched. The work of a forge push.
#[derive(Debug, Serialize, Deserialize)]
pub struct PushToRead {
    pub repo: Source,
    /// `None`: the branch is new.
    pub before: Option<String>,
    pub after: String,
    /// The features the workspace has articles for (implicit ones are matched by path).
    pub known: Vec<String>,
}

/// An article's current version, as the drift check needs it.
#[derive(Debug, Serialize, Deserialize)]
pub struct ArticleToCheck {
    pub article_id: String,
    pub feature_id: String,
    pub surface: Surface,
    pub provenance: serde_json::Value,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Message {
    Log {
        level: domain::LogLevel,
        stage: domain::LogStage,
        message: String,
        data: serde_json::Value,
    },
    /// How the fetch of a remote ended (before the work reads it).
    Fetched {
        result: Result<mirrors::Fetched, String>,
    },
    /// The run's result: its articles, or the error a user reads on the failed run.
    RunDone {
        result: Result<RunResult, String>,
    },
    DriftDone {
        result: Result<DriftResult, String>,
    },
    PushRead {
        result: Result<pipeline::Touched, String>,
    },
}

/// What a successful run produced.
#[derive(Debug, Serialize, Deserialize)]
pub struct RunResult {
    pub commit: String,
    pub articles: Vec<RunArticle>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct RunArticle {
    pub surface: Surface,
    pub title: String,
    pub mdx_body: String,
    pub status: domain::ArticleStatus,
    pub provenance: serde_json::Value,
}

/// What a drift check found: HEAD, and the articles whose sources changed since.
#[derive(Debug, Serialize, Deserialize)]
pub struct DriftResult {
    pub head: String,
    pub drifted: Vec<DriftReport>,
}
