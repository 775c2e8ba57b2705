//! Trigger-time feature checks, remembered by HEAD commit.
//!
//! Every `POST …/runs` must refuse a feature that does not resolve (contract section 4), and
//! resolving opens the repository, reads `features.toml` from HEAD's tree and parses it. The
//! answer only changes when HEAD moves, so it is kept per (repository, feature, HEAD commit):
//! a trigger then costs one read of HEAD through a repository handle kept open. A moved HEAD
//! resolves again; a handle that cannot read HEAD any more is re-opened; a git or I/O failure
//! while resolving is reported and never remembered. Each repository has a lock of its own, so
//! a slow repository delays only its own workspace's triggers.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use git2::{Oid, Repository};

use crate::drift::lock;
use crate::error::PipelineError;
use crate::source::manifest;
use crate::source::repository;

/// Remembered outcomes are dropped wholesale beyond this many (a bound, not an LRU).
const MAX_OUTCOMES: usize = 16_384;
const MAX_REPOSITORIES: usize = 256;

/// (repository, feature id) → (the HEAD it was resolved at, the error message if it failed).
type Outcomes = HashMap<(PathBuf, String), (Oid, Option<String>)>;

/// A repository's kept handle (`None` until opened, or after it went stale).
type Handle = Arc<Mutex<Option<Repository>>>;

#[derive(Default)]
pub struct FeatureCache {
    repositories: Mutex<HashMap<PathBuf, Handle>>,
    outcomes: Mutex<Outcomes>,
}

impl FeatureCache {
    pub fn new() -> Self {
        Self::default()
    }

    /// Ok when `feature_id` resolves in the repository at `repo` as of its current HEAD;
    /// otherwise the message of the resolve error, written for the API user. Blocking.
    pub fn check(&self, repo: &Path, feature_id: &str) -> Result<(), String> {
        let slot = self.slot(repo);
        let mut slot = lock(&slot);
        let head = head(&mut slot, repo).map_err(|e| e.to_string())?;
        let key = (repo.to_path_buf(), feature_id.to_owned());
        if let Some((at, outcome)) = lock(&self.outcomes).get(&key)
            && *at == head
        {
            return outcome.clone().map_or(Ok(()), Err);
        }
        let resolved = match slot.as_ref() {
            Some(handle) => handle
                .find_commit(head)
                .and_then(|c| c.tree())
                .map_err(PipelineError::from)
                .and_then(|tree| manifest::resolve_in_tree(handle, &tree, feature_id)),
            None => return Err("the repository cannot be opened".into()),
        };
        let outcome = match resolved {
            Ok(_) => None,
            // Only the repository's own answer is remembered; a git or I/O failure is not.
            Err(e) if e.is_unresolvable_feature() => Some(e.to_string()),
            Err(e) => return Err(e.to_string()),
        };
        let mut outcomes = lock(&self.outcomes);
        if outcomes.len() >= MAX_OUTCOMES {
            outcomes.clear();
        }
        outcomes.insert(key, (head, outcome.clone()));
        outcome.map_or(Ok(()), Err)
    }

    /// The repository's own lock, created on first use.
    fn slot(&self, repo: &Path) -> Handle {
        let mut repositories = lock(&self.repositories);
        if !repositories.contains_key(repo) && repositories.len() >= MAX_REPOSITORIES {
            repositories.clear();
        }
        repositories.entry(repo.to_path_buf()).or_default().clone()
    }
}

/// HEAD's commit, read through the kept handle; a missing handle, or one that can no longer
/// read HEAD (the repository moved or vanished), is opened afresh.
fn head(slot: &mut Option<Repository>, path: &Path) -> Result<Oid, PipelineError> {
    if let Some(Ok(commit)) = slot.as_ref().map(repository::head_commit) {
        return Ok(commit.id());
    }
    let repo = slot.insert(repository::open(path)?);
    Ok(repository::head_commit(repo)?.id())
}
