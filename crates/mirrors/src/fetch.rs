//! Bringing a workspace's bare mirror up to date with its remote, under bounds.

use std::net::{IpAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use webhooks::AddressPolicy;

use crate::credential::Credential;
use crate::git::{REDIRECTED, Session};
use crate::redirect;
use crate::remote::{RepoUrl, Transport};

/// How much one fetch may take. Crossing a bound stops the fetch; the error names the bound.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchLimits {
    /// Wall-clock seconds for the whole fetch, waiting for the workspace's lock included.
    pub wall_seconds: u64,
    /// Bytes received by one fetch.
    pub max_bytes: u64,
    /// Objects in one fetch's pack.
    pub max_objects: u64,
    /// Size of the workspace's mirror on disk.
    pub max_disk_bytes: u64,
}

impl Default for FetchLimits {
    fn default() -> Self {
        Self {
            wall_seconds: 180,
            max_bytes: 1024 * 1024 * 1024,
            max_objects: 5_000_000,
            max_disk_bytes: 2 * 1024 * 1024 * 1024,
        }
    }
}

/// One fetch: which remote, into which mirror, with what.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FetchRequest {
    /// The `git` program.
    pub git: PathBuf,
    /// The node's cache directory; the mirror is `<cache_dir>/<key>.git`.
    pub cache_dir: PathBuf,
    /// The mirror's name: the workspace id.
    pub key: String,
    pub url: String,
    pub credential: Option<Credential>,
    /// `None`: the remote's HEAD.
    pub default_branch: Option<String>,
    /// The operator's allowed address ranges (comma-separated CIDRs), as for webhooks.
    pub allowed_cidrs: String,
    pub limits: FetchLimits,
    /// A commit id the caller needs: fetched by id when no fetched ref holds it.
    pub want: Option<String>,
}

/// What a fetch left in the mirror.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Fetched {
    pub mirror: PathBuf,
    pub default_branch: String,
    /// The default branch's commit.
    pub head: String,
    pub received_bytes: u64,
    pub elapsed_ms: u64,
    /// Where the host redirected the fetch (each hop checked like the URL itself): the
    /// repository moved, and its new URL should be connected.
    #[serde(default)]
    pub moved_to: Option<String>,
}

/// Why a fetch failed, written for the person who reads the run; never holds a secret.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FetchError(pub String);

/// The refs a mirror keeps: branches, tags, and the pull/merge request heads of GitHub,
/// Gitea/Forgejo (`refs/pull/N/head`) and GitLab (`refs/merge-requests/N/head`). A fetch
/// writes them under [`INCOMING`] first; only a fetch within every bound is promoted to the
/// refs runs read (so an over-large fetch leaves no ref to the objects it then deletes).
const REFSPECS: &[&str] = &[
    "+refs/heads/*:refs/incoming/heads/*",
    "+refs/tags/*:refs/incoming/tags/*",
    "+refs/pull/*/head:refs/incoming/pull/*/head",
    "+refs/merge-requests/*/head:refs/incoming/merge-requests/*/head",
];

/// Where a fetch puts the remote's refs before they are checked.
pub(crate) const INCOMING: &str = "refs/incoming/";

/// The namespaces promoted from [`INCOMING`] (and pruned of what the remote deleted).
const KEPT: &[&str] = &["heads/", "tags/", "pull/", "merge-requests/"];

/// How often a running git is checked against the bounds.
pub(crate) const POLL: Duration = Duration::from_millis(50);
/// How much of git's stderr is kept to explain a failure.
pub(crate) const STDERR_TAIL: usize = 4096;

/// Fetches the remote of `req` into its mirror (made if missing) and points the mirror's HEAD
/// at the default branch. One fetch per mirror at a time (a lock file held for the fetch);
/// a fetch killed at any point leaves a mirror the next one uses.
pub fn fetch(req: &FetchRequest) -> Result<Fetched, FetchError> {
    let started = Instant::now();
    let deadline = started + Duration::from_secs(req.limits.wall_seconds);
    let policy = AddressPolicy::from_allowed_list(&req.allowed_cidrs)
        .map_err(|e| FetchError(format!("the allowed address ranges are invalid: {e}")))?;
    let url = RepoUrl::parse(&req.url, &policy).map_err(|e| FetchError(e.to_string()))?;
    if url.transport == Transport::Ssh
        && !matches!(req.credential, Some(Credential::DeployKey { .. }))
    {
        return Err(FetchError(
            "an ssh URL needs a deploy key: generate one for the repository and add its public half to the forge".into(),
        ));
    }
    std::fs::create_dir_all(&req.cache_dir)
        .map_err(|e| FetchError(format!("the mirror cache directory could not be made: {e}")))?;
    let _lock = lock(&req.cache_dir.join(format!("{}.lock", req.key)), deadline)?;
    let mirror = mirror_path(&req.cache_dir, &req.key);
    ensure_mirror(&req.git, &mirror)?;
    clear_leftovers(&mirror);
    let before = dir_size(&mirror);
    if before > req.limits.max_disk_bytes {
        return Err(FetchError(format!(
            "the mirror is {} MiB, over the disk limit of {} MiB per workspace",
            before / (1024 * 1024),
            req.limits.max_disk_bytes / (1024 * 1024)
        )));
    }
    let connect = |url: &RepoUrl, credential: Option<&Credential>| {
        let addresses = permitted_addresses(url, &policy)?;
        Session::new(req, url, credential, &addresses, &mirror)
    };
    let mut session = connect(&url, req.credential.as_ref())?;
    let mut remote = url.text.clone();
    let mut moved_to = None;
    let received = match session.bounded(&fetch_args(&remote), deadline, before) {
        Err(e) if e.0 == REDIRECTED && matches!(url.transport, Transport::Http { .. }) => {
            let moved = redirect::follow(&url, req.credential.as_ref(), &policy, deadline)?;
            let credential = req.credential.as_ref().filter(|_| moved.same_origin);
            session = connect(&moved.url, credential)?;
            remote = moved.url.text.clone();
            moved_to = Some(remote.clone());
            session.bounded(&fetch_args(&remote), deadline, before)?
        }
        other => other?,
    };
    let repo = git2::Repository::open_bare(&mirror)
        .map_err(|e| FetchError(format!("the mirror could not be opened: {}", e.message())))?;
    promote(&repo)?;

    // The remote's default branch is asked for once, then kept as the mirror's HEAD while
    // that branch exists (a setting of the workspace overrides it).
    let default_branch = match &req.default_branch {
        Some(branch) => branch.clone(),
        None => match current_branch(&repo) {
            Some(branch) => branch,
            None => {
                let branch = session.remote_head(deadline)?;
                if let Ok(mut config) = repo.config() {
                    let _ = config.set_str(REMOTE_HEAD_KEY, &branch);
                }
                branch
            }
        },
    };
    let branch_ref = format!("refs/heads/{default_branch}");
    let head = repo.refname_to_id(&branch_ref).map_err(|_| {
        FetchError(format!(
            "the default branch '{default_branch}' does not exist on the remote"
        ))
    })?;
    if repo.set_head(&branch_ref).is_err() {
        return Err(FetchError("the mirror's HEAD could not be set".into()));
    }
    let mut received_bytes = received;
    if let Some(want) = req.want.as_deref()
        && crate::refs::is_commit_id(want)
        && repo
            .find_commit(git2::Oid::from_str(want).map_err(|_| bad_id(want))?)
            .is_err()
    {
        let now = dir_size(&mirror);
        received_bytes += session.bounded(
            &[
                "fetch",
                "--no-write-fetch-head",
                "--progress",
                "--end-of-options",
                &remote,
                want,
            ],
            deadline,
            now,
        )?;
    }
    Ok(Fetched {
        mirror,
        default_branch,
        head: head.to_string(),
        received_bytes,
        elapsed_ms: started.elapsed().as_millis() as u64,
        moved_to,
    })
}

/// `git fetch` of every kept ref of `remote` into [`INCOMING`].
fn fetch_args(remote: &str) -> Vec<&str> {
    let mut args: Vec<&str> = vec![
        "fetch",
        "--prune",
        "--progress",
        "--no-write-fetch-head",
        "--no-recurse-submodules",
        "--end-of-options",
        remote,
    ];
    args.extend(REFSPECS);
    args
}

/// Moves the checked refs from [`INCOMING`] to where runs read them, and deletes the refs the
/// remote no longer has (a deleted branch, a closed pull request's head), in this process.
fn promote(repo: &git2::Repository) -> Result<(), FetchError> {
    let failed = |e: git2::Error| {
        FetchError(format!(
            "the mirror's refs could not be updated: {}",
            e.message()
        ))
    };
    let mut incoming = std::collections::HashMap::new();
    for reference in repo
        .references_glob(&format!("{INCOMING}*"))
        .map_err(failed)?
    {
        let reference = reference.map_err(failed)?;
        if let (Ok(name), Some(id)) = (reference.name(), reference.target()) {
            incoming.insert(format!("refs/{}", &name[INCOMING.len()..]), id);
        }
    }
    for kept in KEPT {
        let mut stale = Vec::new();
        for reference in repo
            .references_glob(&format!("refs/{kept}*"))
            .map_err(failed)?
        {
            let reference = reference.map_err(failed)?;
            if let Ok(name) = reference.name()
                && !incoming.contains_key(name)
            {
                stale.push(name.to_owned());
            }
        }
        for name in stale {
            if let Ok(mut reference) = repo.find_reference(&name) {
                reference.delete().map_err(failed)?;
            }
        }
    }
    for (name, id) in &incoming {
        let unchanged = repo.refname_to_id(name).is_ok_and(|current| current == *id);
        if !unchanged {
            repo.reference(name, *id, true, "fetch").map_err(failed)?;
        }
    }
    Ok(())
}

/// The config key of the mirror where the remote's default branch, once asked, is kept.
const REMOTE_HEAD_KEY: &str = "contentpipeline.remotehead";

/// The remote's default branch as last asked, when that branch still exists.
fn current_branch(repo: &git2::Repository) -> Option<String> {
    let branch = repo.config().ok()?.get_string(REMOTE_HEAD_KEY).ok()?;
    repo.refname_to_id(&format!("refs/heads/{branch}"))
        .ok()
        .map(|_| branch)
}

/// Where the mirror named `key` lives in `cache_dir`.
pub fn mirror_path(cache_dir: &Path, key: &str) -> PathBuf {
    cache_dir.join(format!("{key}.git"))
}

fn bad_id(id: &str) -> FetchError {
    FetchError(format!("'{id}' is not a commit id"))
}

/// An exclusive lock on `path` (a file beside the mirror), waited for until `deadline`.
/// Released when the file closes, also when the process is killed.
pub(crate) fn lock(path: &Path, deadline: Instant) -> Result<std::fs::File, FetchError> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| FetchError(format!("the mirror's lock could not be opened: {e}")))?;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(std::fs::TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(FetchError(
                    "another fetch of this repository held the mirror until the fetch's time limit"
                        .into(),
                ));
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(FetchError(format!("the mirror could not be locked: {e}")));
            }
        }
    }
}

/// Makes the bare mirror when it is missing or unreadable (made aside, then moved in place).
pub(crate) fn ensure_mirror(git: &Path, mirror: &Path) -> Result<(), FetchError> {
    if git2::Repository::open_bare(mirror).is_ok() {
        return Ok(());
    }
    let _ = std::fs::remove_dir_all(mirror);
    let aside = mirror.with_extension(format!("new-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&aside);
    let status = Command::new(git)
        .env_clear()
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .args(["init", "--bare", "--quiet"])
        .arg(&aside)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| FetchError(format!("the git program could not be started: {e}")))?;
    if !status.success() {
        return Err(FetchError("the mirror could not be made (git init)".into()));
    }
    std::fs::rename(&aside, mirror)
        .map_err(|e| FetchError(format!("the mirror could not be moved in place: {e}")))
}

/// Removes what a fetch killed midway leaves: lock files and temporary packs. Only called
/// with the mirror's lock held, so no other git works on it.
pub(crate) fn clear_leftovers(mirror: &Path) {
    fn walk(dir: &Path, depth: usize) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let leftover = name.ends_with(".lock")
                || name.starts_with("tmp_pack_")
                || name.starts_with("tmp_idx_")
                || name.starts_with("tmp_obj_")
                || name.starts_with("incoming-");
            if leftover {
                let _ = if kind.is_dir() {
                    std::fs::remove_dir_all(&path)
                } else {
                    std::fs::remove_file(&path)
                };
            } else if kind.is_dir() && depth < 64 {
                walk(&path, depth + 1);
            }
        }
    }
    walk(mirror, 0);
}

/// Bytes under `dir` (not following links).
pub(crate) fn dir_size(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            match entry.metadata() {
                Ok(m) if m.is_dir() => stack.push(entry.path()),
                Ok(m) => total += m.len(),
                Err(_) => {}
            }
        }
    }
    total
}

/// The addresses the host resolves to that the policy permits; an error naming the refused
/// address when none is.
pub(crate) fn permitted_addresses(
    url: &RepoUrl,
    policy: &AddressPolicy,
) -> Result<Vec<IpAddr>, FetchError> {
    let resolved: Vec<IpAddr> = (url.host.as_str(), url.port)
        .to_socket_addrs()
        .map_err(|_| FetchError(format!("the host '{}' could not be resolved", url.host)))?
        .map(|a| a.ip())
        .collect();
    let plain = url.transport == (Transport::Http { tls: false });
    let permitted: Vec<IpAddr> = resolved
        .iter()
        .copied()
        .filter(|ip| policy.permits(*ip) && (!plain || policy.allows_explicitly(*ip)))
        .collect();
    match (permitted.is_empty(), resolved.first()) {
        (false, _) => Ok(permitted),
        (true, Some(ip)) if plain && policy.permits(*ip) => Err(FetchError(format!(
            "plain http is only allowed to the operator's allowed address ranges ('{}' resolves to {ip})",
            url.host
        ))),
        (true, Some(ip)) => Err(FetchError(format!(
            "the host '{}' resolves to a private, loopback or reserved address ({ip}), which is refused",
            url.host
        ))),
        (true, None) => Err(FetchError(format!(
            "the host '{}' could not be resolved",
            url.host
        ))),
    }
}
