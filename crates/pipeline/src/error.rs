use domain::Surface;
use serde::Serialize;

/// Where and why markdown-rs refused a generated body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MdxError {
    pub message: String,
    /// 1-based; 0 when the parser gave no position.
    pub line: usize,
    /// 1-based; 0 when the parser gave no position.
    pub column: usize,
}

impl std::fmt::Display for MdxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}: {}", self.line, self.column, self.message)
        } else {
            f.write_str(&self.message)
        }
    }
}

impl std::error::Error for MdxError {}

/// Everything a run can fail with. The messages are written for the API user who reads a
/// failed run's `error`: they say what is wrong in the repository, never how the code works.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(
        "unknown feature '{feature_id}': it is neither declared in .content-pipeline/features.toml nor a file or folder of the repository"
    )]
    UnknownFeature { feature_id: String },

    #[error("path '{path}' is not allowed: {reason}")]
    PathEscapesRepository { path: String, reason: String },

    #[error("repository error: {0}")]
    Repository(String),

    #[error("invalid .content-pipeline/features.toml: {0}")]
    InvalidManifest(String),

    #[error("invalid template: {0}")]
    InvalidTemplate(String),

    /// A bound of [`Limits`](crate::Limits) was crossed; `limit` names the setting.
    #[error("{what} exceeds the limit {limit} = {value} ({detail})")]
    LimitExceeded {
        /// What grew too large, e.g. "the feature's files".
        what: String,
        /// The name of the [`Limits`](crate::Limits) field.
        limit: &'static str,
        value: u64,
        /// Where: a path, a surface, a commit.
        detail: String,
    },

    #[error("the generated {surface} article is not valid MDX at {error}")]
    InvalidMdx { surface: Surface, error: MdxError },

    /// The article parses but holds something that would run where it is compiled (ESM, an
    /// expression, JSX outside the allow-list, a `javascript:` URL, …).
    #[error("the generated {surface} article is refused at {error}")]
    UnsafeMdx { surface: Surface, error: MdxError },
}

impl PipelineError {
    /// True when the feature itself cannot be resolved: the caller's request is at fault
    /// (the API answers 422 with `param: "feature_id"`), not the service.
    pub fn is_unresolvable_feature(&self) -> bool {
        matches!(
            self,
            PipelineError::UnknownFeature { .. }
                | PipelineError::PathEscapesRepository { .. }
                | PipelineError::InvalidManifest(_)
        )
    }

    pub(crate) fn escapes(path: &str, reason: impl Into<String>) -> Self {
        PipelineError::PathEscapesRepository {
            path: path.chars().take(300).collect(),
            reason: reason.into(),
        }
    }
}

/// Whether a git error says the object asked for is not in the store (a mirror fetched from a
/// server that left it out, a damaged checkout).
pub(crate) fn is_missing_object(e: &git2::Error) -> bool {
    e.code() == git2::ErrorCode::NotFound
}

impl PipelineError {
    /// A failed read of the blob at `path`: a missing object is named by its path.
    pub(crate) fn reading(path: &str, e: git2::Error) -> Self {
        if is_missing_object(&e) {
            PipelineError::Repository(format!(
                "the content of '{path}' is missing from the repository's object store"
            ))
        } else {
            e.into()
        }
    }
}

impl From<git2::Error> for PipelineError {
    fn from(e: git2::Error) -> Self {
        PipelineError::Repository(e.message().to_string())
    }
}
