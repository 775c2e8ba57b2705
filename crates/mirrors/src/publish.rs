//! Writing a folder of a remote branch: the files the service owns there replaced by a new
//! set, committed on top of the branch's tip and pushed, under the fetch's bounds.
//!
//! The commit is always made on the tip just fetched, from the tip's own tree with only our
//! files changed: the previous set (the files we wrote last time) removed, the new set
//! written. Anything else in the repository, in the folder too, is the tip's. When the push is
//! rejected because someone pushed meanwhile, the branch is fetched again and the same change
//! made on the new tip (a rebase that can only touch our own files), a few times at most.
//!
//! The scratch repository is bare and never checked out; the git program runs with hooks off
//! (`core.hooksPath=/dev/null`), so nothing from the target repository ever runs.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use webhooks::AddressPolicy;

use crate::credential::Credential;
use crate::fetch::{
    FetchError, FetchLimits, FetchRequest, clear_leftovers, dir_size, ensure_mirror, lock,
    mirror_path, permitted_addresses,
};
use crate::git::{NO_SUCH_BRANCH, PUSH_REJECTED, Session};
use crate::remote::{RepoUrl, Transport};

/// The ref of the scratch repository the fetched tip is kept under.
const FETCHED: &str = "refs/publish/fetched";

/// The most files one push writes.
pub const MAX_PUSH_FILES: usize = 20_000;

/// Who the commits are by.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Author {
    pub name: String,
    pub email: String,
}

impl Default for Author {
    fn default() -> Self {
        Self {
            name: "Content Pipeline".into(),
            email: "content-pipeline@localhost".into(),
        }
    }
}

/// One push of a folder's files.
#[derive(Clone, Debug)]
pub struct PushRequest {
    /// The `git` program.
    pub git: PathBuf,
    /// Where the scratch repository lives (`<work_dir>/<key>.git`).
    pub work_dir: PathBuf,
    pub key: String,
    pub url: String,
    pub credential: Option<Credential>,
    pub branch: String,
    /// The folder inside the repository (relative, `/`-separated; `""` is the root).
    pub folder: String,
    /// The files to have in the folder (paths relative to it) and their contents.
    pub files: Vec<(String, Vec<u8>)>,
    /// The files the previous push wrote (relative to the folder): removed unless in `files`.
    pub previous: Vec<String>,
    pub message: String,
    pub author: Author,
    /// The operator's allowed address ranges, as for fetches.
    pub allowed_cidrs: String,
    pub limits: FetchLimits,
    /// How many times a rejected push is rebased and tried again.
    pub rebases: u32,
}

/// What a push left on the branch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pushed {
    /// The branch's commit now (ours, or the tip when nothing changed).
    pub commit: Option<String>,
    /// False when the branch already held exactly these files (nothing pushed).
    pub changed: bool,
    /// How many rejected pushes were rebased on a newer tip.
    pub rebased: u32,
}

/// Why a push failed, without a secret in it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PushError {
    /// The host refused the credential: trying again cannot help until it changes.
    #[error("{0}")]
    Auth(String),
    /// The branch kept moving (or the host refused the push): worth trying again later.
    #[error("{0}")]
    Rejected(String),
    /// Anything else (network, bounds, the request itself).
    #[error("{0}")]
    Failed(String),
}

impl From<FetchError> for PushError {
    fn from(e: FetchError) -> Self {
        if e.0.starts_with("authentication failed") {
            PushError::Auth(e.0)
        } else {
            PushError::Failed(e.0)
        }
    }
}

/// True when `folder` may name a folder of a repository: relative, `/`-separated, no `.` or
/// `..` component, no empty component, no control characters, not `.git`. `""` is the root.
pub fn is_valid_folder(folder: &str) -> bool {
    folder.is_empty()
        || (folder.chars().count() <= 512
            && !folder.starts_with('/')
            && !folder.contains('\\')
            && folder.split('/').all(|part| {
                !part.is_empty()
                    && part != "."
                    && part != ".."
                    && !part.eq_ignore_ascii_case(".git")
                    && !part.chars().any(char::is_control)
            }))
}

/// Writes `req.files` into the folder of the branch and pushes; see the module's comment.
pub fn push_files(req: &PushRequest) -> Result<Pushed, PushError> {
    let deadline = Instant::now() + Duration::from_secs(req.limits.wall_seconds);
    if !is_valid_folder(&req.folder) {
        return Err(PushError::Failed(
            "the folder is not a relative path".into(),
        ));
    }
    if req.files.len() > MAX_PUSH_FILES {
        return Err(PushError::Failed(format!(
            "{} files to write, over the limit of {MAX_PUSH_FILES}",
            req.files.len()
        )));
    }
    let policy = AddressPolicy::from_allowed_list(&req.allowed_cidrs)
        .map_err(|e| PushError::Failed(format!("the allowed address ranges are invalid: {e}")))?;
    let url = RepoUrl::parse(&req.url, &policy).map_err(|e| PushError::Failed(e.to_string()))?;
    if url.transport == Transport::Ssh
        && !matches!(req.credential, Some(Credential::DeployKey { .. }))
    {
        return Err(PushError::Auth(
            "an ssh URL needs a deploy key: generate one for the target and add its public half to the forge with write access".into(),
        ));
    }
    std::fs::create_dir_all(&req.work_dir)
        .map_err(|e| PushError::Failed(format!("the work directory could not be made: {e}")))?;
    let _lock = lock(&req.work_dir.join(format!("{}.lock", req.key)), deadline)?;
    let scratch = mirror_path(&req.work_dir, &req.key);
    // The scratch repository is only a cache of tips: past half the disk bound it starts
    // again (shallow fetches and our commits pile up otherwise, and git never collects here).
    if dir_size(&scratch) > req.limits.max_disk_bytes / 2 {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    ensure_mirror(&req.git, &scratch)?;
    clear_leftovers(&scratch);
    let session_request = FetchRequest {
        git: req.git.clone(),
        cache_dir: req.work_dir.clone(),
        key: req.key.clone(),
        url: req.url.clone(),
        credential: req.credential.clone(),
        default_branch: Some(req.branch.clone()),
        allowed_cidrs: req.allowed_cidrs.clone(),
        limits: req.limits.clone(),
        want: None,
    };
    let addresses = permitted_addresses(&url, &policy)?;
    let session = Session::new(
        &session_request,
        &url,
        req.credential.as_ref(),
        &addresses,
        &scratch,
    )?;
    let repo = git2::Repository::open_bare(&scratch)
        .map_err(|e| PushError::Failed(format!("the scratch repository: {}", e.message())))?;

    let mut rebased = 0;
    loop {
        let tip = fetch_tip(&session, &repo, &scratch, &url.text, &req.branch, deadline)?;
        let Some(commit) = commit_on(&repo, req, tip)? else {
            return Ok(Pushed {
                commit: tip.map(|t| t.to_string()),
                changed: false,
                rebased,
            });
        };
        let refspec = format!("{commit}:refs/heads/{}", req.branch);
        let before = dir_size(&scratch);
        let pushed = session.bounded(
            &[
                "push",
                "--no-verify",
                "--no-recurse-submodules",
                "--progress",
                "--end-of-options",
                &url.text,
                &refspec,
            ],
            deadline,
            before,
        );
        match pushed {
            Ok(_) => {
                return Ok(Pushed {
                    commit: Some(commit.to_string()),
                    changed: true,
                    rebased,
                });
            }
            Err(e) if e.0 == PUSH_REJECTED && rebased < req.rebases => rebased += 1,
            Err(e) if e.0 == PUSH_REJECTED || e.0.starts_with("the host refused the push") => {
                return Err(PushError::Rejected(e.0));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Fetches the branch's tip (shallow: only the tip is needed) into [`FETCHED`]; `None` when
/// the remote has no such branch yet (the first push makes it).
fn fetch_tip(
    session: &Session,
    repo: &git2::Repository,
    scratch: &std::path::Path,
    remote: &str,
    branch: &str,
    deadline: Instant,
) -> Result<Option<git2::Oid>, PushError> {
    let refspec = format!("+refs/heads/{branch}:{FETCHED}");
    let before = dir_size(scratch);
    match session.bounded(
        &[
            "fetch",
            "--depth=1",
            "--no-tags",
            "--progress",
            "--no-write-fetch-head",
            "--no-recurse-submodules",
            "--end-of-options",
            remote,
            &refspec,
        ],
        deadline,
        before,
    ) {
        Ok(_) => repo
            .refname_to_id(FETCHED)
            .map(Some)
            .map_err(|e| PushError::Failed(format!("the fetched branch: {}", e.message()))),
        Err(e) if e.0 == NO_SUCH_BRANCH => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The commit of `req`'s files on `tip`; `None` when the tip already holds them.
fn commit_on(
    repo: &git2::Repository,
    req: &PushRequest,
    tip: Option<git2::Oid>,
) -> Result<Option<git2::Oid>, PushError> {
    let failed = |e: git2::Error| PushError::Failed(format!("the commit: {}", e.message()));
    let base_tree = match tip {
        Some(tip) => repo
            .find_commit(tip)
            .and_then(|c| c.tree())
            .map_err(failed)?,
        None => {
            let empty = repo
                .treebuilder(None)
                .and_then(|b| b.write())
                .map_err(failed)?;
            repo.find_tree(empty).map_err(failed)?
        }
    };
    let full = |path: &str| {
        if req.folder.is_empty() {
            path.to_owned()
        } else {
            format!("{}/{path}", req.folder)
        }
    };
    let mut update = git2::build::TreeUpdateBuilder::new();
    let written: BTreeSet<&str> = req.files.iter().map(|(p, _)| p.as_str()).collect();
    for old in &req.previous {
        let path = full(old);
        if !written.contains(old.as_str()) && base_tree.get_path(path.as_ref()).is_ok() {
            update.remove(path);
        }
    }
    for (path, bytes) in &req.files {
        if !is_valid_folder(path) || path.is_empty() {
            return Err(PushError::Failed(format!(
                "'{path}' is not a relative file path"
            )));
        }
        let blob = repo.blob(bytes).map_err(failed)?;
        update.upsert(full(path), blob, git2::FileMode::Blob);
    }
    let tree_id = update.create_updated(repo, &base_tree).map_err(failed)?;
    if tip.is_some() && tree_id == base_tree.id() {
        return Ok(None);
    }
    let tree = repo.find_tree(tree_id).map_err(failed)?;
    let signature = git2::Signature::now(&req.author.name, &req.author.email).map_err(failed)?;
    let parent = match tip {
        Some(tip) => Some(repo.find_commit(tip).map_err(failed)?),
        None => None,
    };
    let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
    // No ref is moved: the commit only needs to exist for the push.
    repo.commit(None, &signature, &signature, &req.message, &tree, &parents)
        .map(Some)
        .map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_stay_inside_the_repository() {
        for fine in ["", "docs", "site/docs", "a.b/c_d"] {
            assert!(is_valid_folder(fine), "{fine}");
        }
        for bad in [
            "/docs", "../docs", "docs/..", "docs//x", "./docs", "docs/", ".git", "a/.GIT/b",
            "a\\b", "a\nb",
        ] {
            assert!(!is_valid_folder(bad), "{bad}");
        }
    }
}
