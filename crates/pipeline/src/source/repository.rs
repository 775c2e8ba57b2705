use git2::{Commit, ObjectType, Oid, Repository, Tree};
use std::path::Path;

use super::paths::{MODE_LINK, MODE_SUBMODULE};
use crate::error::PipelineError;

/// True when `path` is an absolute path to a readable git repository (bare or not).
pub fn is_git_repository(path: &Path) -> bool {
    path.is_absolute() && Repository::open(path).is_ok()
}

/// Bounds how much of the repositories' pack files libgit2 keeps mapped. Its defaults (windows
/// of 1 GiB, 8 GiB mapped) would turn an address-space limit into failures on large
/// repositories; a process that limits its memory calls this first.
///
/// # Safety
/// Must be called before any other thread uses libgit2.
pub unsafe fn limit_pack_mappings(mapped_bytes: usize) -> Result<(), PipelineError> {
    // SAFETY: the caller guarantees no other thread uses libgit2 yet.
    unsafe {
        git2::opts::set_mwindow_size(32 * 1024 * 1024)?;
        git2::opts::set_mwindow_mapped_limit(mapped_bytes)?;
    }
    Ok(())
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

/// The commit `id` (a full hex id) of `repo`.
pub(crate) fn commit<'r>(repo: &'r Repository, id: &str) -> Result<Commit<'r>, PipelineError> {
    Oid::from_str(id)
        .ok()
        .and_then(|oid| repo.find_commit(oid).ok())
        .ok_or_else(|| PipelineError::Repository(format!("commit {id} is not in the repository")))
}

/// The blob at `path` of `tree`, if it is a regular file (not a symbolic link, a submodule or
/// a folder).
pub(crate) fn regular_file(tree: &Tree, path: &str) -> Option<Oid> {
    let entry = tree.get_path(Path::new(path)).ok()?;
    let regular = entry.kind() == Some(ObjectType::Blob)
        && entry.filemode() != MODE_LINK
        && entry.filemode() != MODE_SUBMODULE;
    regular.then(|| entry.id())
}
