//! Stage `collect`: the feature's files at HEAD with their blob ids, and the commits that
//! touched them. The feature's files are counted and weighed here, before any is read, against
//! `max_feature_files` and `max_feature_bytes`.

use git2::{Commit, ObjectType, Oid, Repository, Sort, Tree, TreeWalkMode, TreeWalkResult};
use globset::{GlobSet, GlobSetBuilder};
use std::path::Path;

use crate::error::PipelineError;
use crate::feature::Feature;
use crate::limits::Limits;
use crate::paths::{MODE_LINK, MODE_SUBMODULE, check_link_entry, has_glob_syntax, literal_prefix};

/// At most this many commits go into a changelog (the first run of a feature reads the whole
/// history up to this cap).
pub const MAX_COMMITS: usize = 500;
/// Never walk more history than this looking for commits that touch a feature.
const MAX_WALKED: usize = 100_000;

#[derive(Clone, Debug)]
pub(crate) struct RepoFile {
    pub path: String,
    pub blob: Oid,
    pub bytes: u64,
}

#[derive(Clone, Debug)]
pub(crate) struct CommitInfo {
    pub sha: String,
    pub message: String,
    pub author: String,
    pub time: i64,
}

/// Which repository paths belong to a feature.
pub(crate) struct FeatureMatcher {
    globs: GlobSet,
    /// The folders (or files) the globs can match under; empty when one glob starts with a
    /// wildcard and the whole tree must be searched.
    prefixes: Vec<String>,
}

impl FeatureMatcher {
    pub fn new(feature: &Feature, tree: &Tree) -> Result<Self, PipelineError> {
        let mut builder = GlobSetBuilder::new();
        let mut prefixes = Vec::new();
        let mut whole_tree = false;
        let mut add = |pattern: &str| -> Result<(), PipelineError> {
            let glob = crate::paths::glob(pattern).map_err(|e| {
                PipelineError::InvalidManifest(format!(
                    "feature '{}': invalid glob '{pattern}': {}",
                    feature.id,
                    e.kind()
                ))
            })?;
            builder.add(glob);
            Ok(())
        };
        for pattern in &feature.paths {
            add(pattern)?;
            // A plain folder name means everything under it.
            if !has_glob_syntax(pattern)
                && tree
                    .get_path(Path::new(pattern))
                    .is_ok_and(|e| e.kind() == Some(ObjectType::Tree))
            {
                add(&format!("{pattern}/**"))?;
            }
            let prefix = literal_prefix(pattern);
            if prefix.is_empty() {
                whole_tree = true;
            } else {
                prefixes.push(prefix);
            }
        }
        let globs = builder
            .build()
            .map_err(|e| PipelineError::InvalidManifest(e.to_string()))?;
        if whole_tree {
            prefixes.clear();
        }
        prefixes.sort();
        prefixes.dedup();
        Ok(Self { globs, prefixes })
    }

    pub fn is_match(&self, path: &str) -> bool {
        self.globs.is_match(path)
    }

    /// Whether the folder `dir` (no trailing slash) may contain matching paths.
    fn may_contain(&self, dir: &str) -> bool {
        self.prefixes.is_empty()
            || self.prefixes.iter().any(|p| {
                p == dir || p.starts_with(&format!("{dir}/")) || dir.starts_with(&format!("{p}/"))
            })
    }

    /// The ids of the subtrees (or blobs) at the prefixes: equal ids mean no matching path
    /// changed between two trees.
    fn fingerprint(&self, tree: &Tree) -> Vec<Option<Oid>> {
        self.prefixes
            .iter()
            .map(|p| tree.get_path(Path::new(p)).ok().map(|e| e.id()))
            .collect()
    }
}

/// The regular files (and executables) under the feature's globs at `tree`, sorted by path.
/// Symlinks are never followed; one that points out of the repository is an error. More than
/// `max_feature_files` files, or more than `max_feature_bytes` bytes in all, fail the run.
pub(crate) fn files(
    repo: &Repository,
    tree: &Tree,
    matcher: &FeatureMatcher,
    feature_id: &str,
    limits: &Limits,
) -> Result<Vec<RepoFile>, PipelineError> {
    let mut found = Vec::new();
    let mut links = Vec::new();
    let walked = tree.walk(TreeWalkMode::PreOrder, |root, entry| {
        let Ok(name) = entry.name() else {
            return TreeWalkResult::Skip;
        };
        let path = format!("{root}{name}");
        match entry.kind() {
            Some(ObjectType::Tree) => {
                if matcher.may_contain(&path) {
                    TreeWalkResult::Ok
                } else {
                    TreeWalkResult::Skip
                }
            }
            Some(ObjectType::Blob) if matcher.is_match(&path) => {
                if entry.filemode() == MODE_LINK {
                    links.push((path, entry.id()));
                } else if entry.filemode() != MODE_SUBMODULE {
                    found.push((path, entry.id()));
                }
                // Stop as soon as the cap is crossed: a tree of a million files is not listed.
                if found.len() > limits.max_feature_files {
                    TreeWalkResult::Abort
                } else {
                    TreeWalkResult::Ok
                }
            }
            _ => TreeWalkResult::Ok,
        }
    });
    if found.len() > limits.max_feature_files {
        return Err(PipelineError::LimitExceeded {
            what: "the number of the feature's files".into(),
            limit: "max_feature_files",
            value: limits.max_feature_files as u64,
            detail: format!("feature '{feature_id}' matches more files"),
        });
    }
    walked?;
    for (path, id) in links {
        check_link_entry(repo, &path, id)?;
    }
    // Sizes come from the object headers: nothing is read or inflated before the cap holds.
    let odb = repo.odb()?;
    let mut total = 0u64;
    let mut files = Vec::with_capacity(found.len());
    for (path, blob) in found {
        let (bytes, _) = odb.read_header(blob)?;
        let bytes = bytes as u64;
        total = total.saturating_add(bytes);
        files.push(RepoFile { path, blob, bytes });
    }
    if total > limits.max_feature_bytes {
        return Err(PipelineError::LimitExceeded {
            what: "the size of the feature's files".into(),
            limit: "max_feature_bytes",
            value: limits.max_feature_bytes,
            detail: format!(
                "feature '{feature_id}': {total} bytes in {} files",
                files.len()
            ),
        });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

pub(crate) struct History {
    /// Newest first.
    pub commits: Vec<CommitInfo>,
    /// False when `since` was given but is not a commit of this repository.
    pub since_found: bool,
    pub truncated: bool,
    pub walked: usize,
    /// Commits whose message or author was cut to `max_commit_message_bytes`.
    pub cut: usize,
}

/// The commits reachable from `head` and not from `since` that change a path of the feature,
/// newest first, at most [`MAX_COMMITS`]. Merge commits are left out: the commits they merge
/// are listed. Messages and author names are cut to `max_message_bytes`, so that a commit
/// subject of megabytes never reaches an article.
pub(crate) fn history(
    repo: &Repository,
    head: &Commit,
    since: Option<&str>,
    matcher: &FeatureMatcher,
    max_message_bytes: usize,
) -> Result<History, PipelineError> {
    let mut walk = repo.revwalk()?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME)?;
    walk.push(head.id())?;
    let mut since_found = true;
    if let Some(since) = since {
        match Oid::from_str(since)
            .ok()
            .and_then(|oid| repo.find_commit(oid).ok())
        {
            Some(commit) => walk.hide(commit.id())?,
            None => since_found = false,
        }
    }
    let mut commits = Vec::new();
    let mut truncated = false;
    let mut walked = 0;
    let mut cut = 0;
    for oid in walk {
        let oid = oid?;
        walked += 1;
        if commits.len() >= MAX_COMMITS || walked > MAX_WALKED {
            truncated = true;
            break;
        }
        let commit = repo.find_commit(oid)?;
        // A merge brings in commits that are listed themselves; its own message is noise.
        if commit.parent_count() > 1 {
            continue;
        }
        if touches(repo, &commit, matcher)? {
            let (message, message_cut) = cut_text(commit.message_bytes(), max_message_bytes);
            let (author, author_cut) = cut_text(commit.author().name_bytes(), max_message_bytes);
            cut += usize::from(message_cut || author_cut);
            commits.push(CommitInfo {
                sha: oid.to_string(),
                message,
                author,
                time: commit.time().seconds(),
            });
        }
    }
    Ok(History {
        commits,
        since_found,
        truncated,
        walked,
        cut,
    })
}

/// The text of `bytes`, cut to at most `max` bytes at a character boundary; true when cut.
fn cut_text(bytes: &[u8], max: usize) -> (String, bool) {
    if bytes.len() <= max {
        return (String::from_utf8_lossy(bytes).into_owned(), false);
    }
    let mut end = max;
    // Back off the continuation bytes of a UTF-8 character the cut would split.
    while end > 0 && bytes[end] & 0b1100_0000 == 0b1000_0000 {
        end -= 1;
    }
    (String::from_utf8_lossy(&bytes[..end]).into_owned(), true)
}

fn touches(
    repo: &Repository,
    commit: &Commit,
    matcher: &FeatureMatcher,
) -> Result<bool, PipelineError> {
    let tree = commit.tree()?;
    let parent = match commit.parent(0) {
        Ok(parent) => Some(parent.tree()?),
        Err(_) => None,
    };
    differs(repo, parent.as_ref(), &tree, matcher)
}

fn differs(
    repo: &Repository,
    old: Option<&Tree>,
    new: &Tree,
    matcher: &FeatureMatcher,
) -> Result<bool, PipelineError> {
    if !matcher.prefixes.is_empty() {
        let before = old.map(|t| matcher.fingerprint(t));
        let after = matcher.fingerprint(new);
        match before {
            Some(before) if before == after => return Ok(false),
            None if after.iter().all(Option::is_none) => return Ok(false),
            _ => {}
        }
    }
    let diff = repo.diff_tree_to_tree(old, Some(new), None)?;
    Ok(diff.deltas().any(|d| {
        [d.old_file().path(), d.new_file().path()]
            .into_iter()
            .flatten()
            .filter_map(|p| p.to_str())
            .any(|p| matcher.is_match(p))
    }))
}
