//! Files renamed into the feature, followed to their earlier paths while walking back, and
//! what a commit changes of the feature.

use git2::{Commit, Repository, Tree};
use std::path::Path;

use super::chores::is_chore_path;
use crate::error::PipelineError;
use crate::source::files::{FeatureMatcher, is_housekeeping_path};

/// At most this many earlier paths of renamed files are followed.
const MAX_RENAMED_PATHS: usize = 1_000;
/// Rename detection compares at most this many added and deleted files of one commit.
const RENAME_CANDIDATES: usize = 1_000;

/// Earlier paths of the feature's files, found by rename detection while walking back.
#[derive(Default)]
pub(crate) struct Renamed {
    pub(crate) paths: std::collections::BTreeSet<String>,
}

impl Renamed {
    pub(crate) fn contains(&self, path: &str) -> bool {
        self.paths.contains(path)
    }
}

/// What a commit that touches the feature changes.
pub(crate) struct Changed {
    /// Every path it changes is housekeeping ([`is_housekeeping_path`]).
    pub(crate) housekeeping: bool,
    /// Every path it changes is a chore ([`is_chore_path`]): no news whatever its type.
    pub(crate) chores: bool,
}

/// `Some` when `commit` changes a path of the feature.
pub(crate) fn touches(
    repo: &Repository,
    commit: &Commit,
    matcher: &FeatureMatcher,
    renamed: &mut Renamed,
) -> Result<Option<Changed>, PipelineError> {
    let tree = commit.tree()?;
    let parent = match commit.parent(0) {
        Ok(parent) => Some(parent.tree()?),
        Err(_) => None,
    };
    differs(repo, parent.as_ref(), &tree, matcher, renamed)
}

fn differs(
    repo: &Repository,
    old: Option<&Tree>,
    new: &Tree,
    matcher: &FeatureMatcher,
    renamed: &mut Renamed,
) -> Result<Option<Changed>, PipelineError> {
    if !matcher.prefixes.is_empty() {
        let print = |tree: &Tree| {
            let mut ids = matcher.fingerprint(tree);
            ids.extend(
                renamed
                    .paths
                    .iter()
                    .map(|p| tree.get_path(Path::new(p)).ok().map(|e| e.id())),
            );
            ids
        };
        let before = old.map(print);
        let after = print(new);
        match before {
            Some(before) if before == after => return Ok(None),
            None if after.iter().all(Option::is_none) => return Ok(None),
            _ => {}
        }
    }
    let mut diff = repo.diff_tree_to_tree(old, Some(new), None)?;
    let ours = |path: Option<&Path>| {
        path.and_then(|p| p.to_str())
            .is_some_and(|p| matcher.is_match(p) || renamed.contains(p))
    };
    let mut touched = false;
    let mut added = false;
    let mut housekeeping = true;
    let mut chores = true;
    for delta in diff.deltas() {
        let new_ours = ours(delta.new_file().path());
        touched |= new_ours || ours(delta.old_file().path());
        added |= new_ours && delta.status() == git2::Delta::Added;
        housekeeping &= [delta.new_file().path(), delta.old_file().path()]
            .into_iter()
            .flatten()
            .all(|p| p.to_str().is_some_and(is_housekeeping_path));
        chores &= [delta.new_file().path(), delta.old_file().path()]
            .into_iter()
            .flatten()
            .all(|p| p.to_str().is_some_and(is_chore_path));
    }
    if !touched {
        return Ok(None);
    }
    // A file that appears in the feature may have been moved there: its earlier path's
    // commits are the feature's history too.
    if added && renamed.paths.len() < MAX_RENAMED_PATHS {
        let mut options = git2::DiffFindOptions::new();
        options.renames(true).rename_limit(RENAME_CANDIDATES);
        diff.find_similar(Some(&mut options))?;
        let earlier: Vec<String> = diff
            .deltas()
            .filter(|d| d.status() == git2::Delta::Renamed && ours(d.new_file().path()))
            .filter_map(|d| d.old_file().path()?.to_str().map(str::to_string))
            .filter(|from| !matcher.is_match(from))
            .collect();
        for from in earlier {
            if renamed.paths.len() >= MAX_RENAMED_PATHS {
                break;
            }
            renamed.paths.insert(from);
        }
    }
    Ok(Some(Changed {
        housekeeping,
        chores,
    }))
}
