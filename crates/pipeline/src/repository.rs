use git2::{Commit, Repository};
use std::path::Path;

use crate::error::PipelineError;

/// True when `path` is an absolute path to a readable git repository (bare or not).
pub fn is_git_repository(path: &Path) -> bool {
    path.is_absolute() && Repository::open(path).is_ok()
}

pub(crate) fn open(path: &Path) -> Result<Repository, PipelineError> {
    if !path.is_absolute() {
        return Err(PipelineError::Repository(format!(
            "repository path '{}' is not absolute",
            path.display()
        )));
    }
    Repository::open(path).map_err(|e| {
        PipelineError::Repository(format!(
            "cannot open the repository at '{}': {}",
            path.display(),
            e.message()
        ))
    })
}

pub(crate) fn head_commit(repo: &Repository) -> Result<Commit<'_>, PipelineError> {
    let head = repo
        .head()
        .map_err(|_| PipelineError::Repository("the repository has no commits yet".into()))?;
    head.peel_to_commit().map_err(|e| {
        PipelineError::Repository(format!("HEAD does not point to a commit: {}", e.message()))
    })
}
