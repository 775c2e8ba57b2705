//! Which features a push touched: the paths that differ between the commit before the push
//! and the commit after it (read from the repository, never from the forge's payload, whose
//! file lists are truncated), matched against each feature's paths. Features are those the
//! manifest declares at the pushed commit (a feature whose manifest entry the push edited is
//! touched too), and the implicit features (a file or folder) the workspace already documents.

use std::collections::BTreeSet;
use std::path::Path;

use git2::{Diff, Repository, Tree};

use crate::error::PipelineError;
use crate::source::manifest::{ManifestFeature, manifest_features};
use crate::source::paths::{self, normalize_relative};
use crate::source::repository;

/// Past this many changed paths the push is taken to touch every feature (a rewrite).
const MAX_CHANGED_PATHS: usize = 100_000;

/// What a push touched.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Touched {
    /// The features to run again, declared ones in the manifest's order, then implicit ones.
    pub features: Vec<String>,
    /// How many paths the push changed.
    pub changed_paths: usize,
}

/// The features the change from `before` (`None`: the branch is new, or its old commit is
/// gone after a force push; the pushed commit's own change is read) to `after` touched.
/// `known` are the feature ids the workspace has articles for.
pub fn touched_features(
    repo: &Path,
    before: Option<&str>,
    after: &str,
    known: &[String],
) -> Result<Touched, PipelineError> {
    let repository = repository::open(repo)?;
    let after_commit = repository::commit(&repository, after)?;
    let after_tree = after_commit.tree()?;
    let before_tree = match before.and_then(|b| repository::commit(&repository, b).ok()) {
        Some(commit) => Some(commit.tree()?),
        None => match after_commit.parent(0) {
            Ok(parent) => Some(parent.tree()?),
            Err(_) => None,
        },
    };
    let diff = repository.diff_tree_to_tree(before_tree.as_ref(), Some(&after_tree), None)?;
    let changed = changed_paths(&diff);
    let declared = manifest_features(&repository, &after_tree)?;
    let edited = edited_entries(&repository, before_tree.as_ref(), &declared);
    let everything = changed.len() >= MAX_CHANGED_PATHS;
    let mut features = Vec::new();
    for entry in &declared {
        if everything || edited.contains(entry.id.as_str()) || touches(&entry.paths, &changed) {
            features.push(entry.id.clone());
        }
    }
    for id in known {
        if declared.iter().any(|d| &d.id == id) || features.contains(id) {
            continue;
        }
        let Ok(path) = normalize_relative(id) else {
            continue;
        };
        let inside = |p: &String| {
            path.is_empty()
                || p == &path
                || p.strip_prefix(path.as_str())
                    .is_some_and(|r| r.starts_with('/'))
        };
        if everything || changed.iter().any(inside) {
            features.push(id.clone());
        }
    }
    Ok(Touched {
        features,
        changed_paths: changed.len(),
    })
}

/// Old and new paths of every changed file, up to [`MAX_CHANGED_PATHS`].
fn changed_paths(diff: &Diff) -> Vec<String> {
    let mut found = BTreeSet::new();
    for delta in diff.deltas() {
        for file in [delta.old_file(), delta.new_file()] {
            if let Some(p) = file.path().and_then(Path::to_str) {
                found.insert(p.to_owned());
            }
        }
        if found.len() >= MAX_CHANGED_PATHS {
            break;
        }
    }
    found.into_iter().collect()
}

/// Whether one of `changed` matches one of the feature's globs.
fn touches(globs: &[String], changed: &[String]) -> bool {
    let mut set = globset::GlobSetBuilder::new();
    for raw in globs {
        let Ok(pattern) = normalize_relative(raw) else {
            continue;
        };
        if let Ok(glob) = paths::glob(&pattern) {
            set.add(glob);
        }
    }
    match set.build() {
        Ok(set) => changed.iter().any(|p| set.is_match(p)),
        Err(_) => false,
    }
}

/// The ids of `declared` entries that differ from the manifest before the push (all of them
/// when there was none, or it could not be read).
fn edited_entries<'a>(
    repo: &Repository,
    before: Option<&Tree>,
    declared: &'a [ManifestFeature],
) -> BTreeSet<&'a str> {
    let previous = before
        .map(|tree| manifest_features(repo, tree))
        .transpose()
        .ok()
        .flatten()
        .unwrap_or_default();
    declared
        .iter()
        .filter(|entry| !previous.iter().any(|p| p == *entry))
        .map(|entry| entry.id.as_str())
        .collect()
}
