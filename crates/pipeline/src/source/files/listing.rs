//! The feature's files at HEAD with their blob ids, counted and
//! weighed before any is read, against `max_feature_files` and `max_feature_bytes`.

use git2::{ObjectType, Oid, Repository, Tree, TreeWalkMode, TreeWalkResult};
use globset::{GlobSet, GlobSetBuilder};
use std::path::Path;

use crate::error::{PipelineError, is_missing_object};
use crate::limits::Limits;
use crate::source::files::roles;
use crate::source::manifest::Feature;
use crate::source::paths::{
    self, MODE_LINK, MODE_SUBMODULE, check_link_entry, has_glob_syntax, literal_prefix,
};

#[derive(Clone, Debug)]
pub(crate) struct RepoFile {
    pub path: String,
    pub blob: Oid,
    pub bytes: u64,
}
/// Which repository paths belong to a feature.
pub(crate) struct FeatureMatcher {
    pub(crate) globs: GlobSet,
    /// The folders (or files) the globs can match under; empty when one glob starts with a
    /// wildcard and the whole tree must be searched.
    pub(crate) prefixes: Vec<String>,
}

impl FeatureMatcher {
    pub fn new(feature: &Feature, tree: &Tree) -> Result<Self, PipelineError> {
        let mut builder = GlobSetBuilder::new();
        let mut prefixes = Vec::new();
        let mut whole_tree = false;
        let mut add = |pattern: &str| -> Result<(), PipelineError> {
            let glob = paths::glob(pattern).map_err(|e| {
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
    pub(crate) fn fingerprint(&self, tree: &Tree) -> Vec<Option<Oid>> {
        self.prefixes
            .iter()
            .map(|p| tree.get_path(Path::new(p)).ok().map(|e| e.id()))
            .collect()
    }
}

/// The feature's files, and the paths whose content the object store does not hold.
pub(crate) struct Listing {
    pub files: Vec<RepoFile>,
    /// Paths under the globs whose blob is missing (a mirror fetched from a server that left
    /// objects out, a damaged checkout): left out, each one named in the run log.
    pub missing: Vec<String>,
    /// Files in test, fixture and snapshot folders left out because the feature has more files
    /// than `max_feature_files` (the run log says how many).
    pub tests_left_out: usize,
}

/// How many files a walk looks at, as a multiple of `max_feature_files`, before it stops: the
/// bound on listing a feature whose test folders hold far more files than it may read.
const WALK_FACTOR: usize = 20;

/// The regular files (and executables) under the feature's globs at `tree`, sorted by path.
/// Symlinks are never followed; one that points out of the repository is an error. When the
/// feature has more than `max_feature_files` files, those in test, fixture and snapshot folders
/// ([`roles::in_test_tree`]) are left out past the cap, in path order, and counted in
/// [`Listing::tests_left_out`]; more than `max_feature_files` other files, more than
/// `WALK_FACTOR` times that in all, or more than `max_feature_bytes` bytes in the files kept
/// fail the run. A file whose blob is missing is left out and listed in [`Listing::missing`].
pub(crate) fn files(
    repo: &Repository,
    tree: &Tree,
    matcher: &FeatureMatcher,
    feature_id: &str,
    limits: &Limits,
) -> Result<Listing, PipelineError> {
    let cap = limits.max_feature_files;
    let walk_cap = cap.saturating_mul(WALK_FACTOR);
    let mut found = Vec::new();
    let mut tests = Vec::new();
    let mut tests_seen = 0usize;
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
                    if roles::in_test_tree(&path) {
                        tests_seen += 1;
                        if tests.len() < cap {
                            tests.push((path, entry.id()));
                        }
                    } else {
                        found.push((path, entry.id()));
                    }
                }
                // Stop as soon as a cap is crossed: a tree of a million files is not listed.
                if found.len() > cap || found.len() + tests_seen > walk_cap {
                    TreeWalkResult::Abort
                } else {
                    TreeWalkResult::Ok
                }
            }
            _ => TreeWalkResult::Ok,
        }
    });
    if found.len() > cap || found.len() + tests_seen > walk_cap {
        let detail = if found.len() > cap {
            format!("feature '{feature_id}' matches more files")
        } else {
            format!(
                "feature '{feature_id}' matches more than {walk_cap} files with its tests, \
                 {WALK_FACTOR} times the limit"
            )
        };
        return Err(PipelineError::LimitExceeded {
            what: "the number of the feature's files".into(),
            limit: "max_feature_files",
            value: cap as u64,
            detail,
        });
    }
    walked?;
    // Test folders fill what the cap leaves, in the walk's (path) order.
    tests.truncate(cap - found.len());
    let tests_left_out = tests_seen - tests.len();
    found.extend(tests);
    let odb = repo.odb()?;
    let mut missing = Vec::new();
    for (path, id) in links {
        if !odb.exists(id) {
            missing.push(path);
            continue;
        }
        check_link_entry(repo, &path, id)?;
    }
    // Sizes come from the object headers: nothing is read or inflated before the cap holds.
    let mut total = 0u64;
    let mut files = Vec::with_capacity(found.len());
    for (path, blob) in found {
        let bytes = match odb.read_header(blob) {
            Ok((bytes, _)) => bytes as u64,
            Err(e) if is_missing_object(&e) => {
                missing.push(path);
                continue;
            }
            Err(e) => return Err(e.into()),
        };
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
    missing.sort();
    Ok(Listing {
        files,
        missing,
        tests_left_out,
    })
}
