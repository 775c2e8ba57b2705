//! The project's own changelog file, where it keeps one: `CHANGELOG.md` (Keep a Changelog
//! and its kin), `CHANGES.md`, `HISTORY.md`, `NEWS.md`, or their reStructuredText forms.
//! The file nearest the feature wins (a package's own in a monorepo, else the root's).

use git2::{ObjectType, Repository, Tree};
use std::path::Path;

use crate::source::paths::MODE_LINK;

/// A changelog file larger than this is not read.
pub const MAX_CHANGELOG_FILE_BYTES: usize = 1024 * 1024;

/// File names tried in each folder, in this order.
const NAMES: &[&str] = &[
    "CHANGELOG.md",
    "Changelog.md",
    "changelog.md",
    "CHANGES.md",
    "HISTORY.md",
    "History.md",
    "NEWS.md",
    "CHANGELOG.rst",
    "CHANGES.rst",
    "HISTORY.rst",
    "NEWS.rst",
];

/// A changelog file as the repository holds it.
pub(crate) struct ChangelogFile {
    pub path: String,
    pub text: String,
}

/// The changelog file nearest the feature: in one of `folders` (the feature's path
/// prefixes) or a folder above, up to the root. A file that is a link, not UTF-8 or larger
/// than [`MAX_CHANGELOG_FILE_BYTES`] is not read.
pub(crate) fn changelog_file(
    repo: &Repository,
    tree: &Tree,
    folders: &[String],
) -> Option<ChangelogFile> {
    nearest(folders, |dir| {
        NAMES.iter().find_map(|name| {
            let path = within(dir, name);
            let text = read(repo, tree, &path, MAX_CHANGELOG_FILE_BYTES)?;
            Some(ChangelogFile { path, text })
        })
    })
}

/// The first thing `found` finds in one of `folders` (the feature's path prefixes; the
/// root when there are none) or a folder above it, each folder's own first, up to the root
/// (`""`).
pub(super) fn nearest<T>(
    folders: &[String],
    mut found: impl FnMut(&str) -> Option<T>,
) -> Option<T> {
    let root = [String::new()];
    let folders = if folders.is_empty() {
        &root[..]
    } else {
        folders
    };
    for folder in folders {
        let mut dir = folder.trim_end_matches('/');
        loop {
            if let Some(it) = found(dir) {
                return Some(it);
            }
            match dir.rsplit_once('/') {
                Some((parent, _)) => dir = parent,
                None if !dir.is_empty() => dir = "",
                None => break,
            }
        }
    }
    None
}

/// `name` in the folder `dir` (`""`: the root).
pub(super) fn within(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// The text of the file at `path`: `None` for a link, a folder, a file that is not UTF-8 or
/// one larger than `max` bytes (its size is read before its content).
pub(super) fn read(repo: &Repository, tree: &Tree, path: &str, max: usize) -> Option<String> {
    let entry = tree.get_path(Path::new(path)).ok()?;
    if entry.filemode() == MODE_LINK || entry.kind() != Some(ObjectType::Blob) {
        return None;
    }
    let (size, _) = repo.odb().ok()?.read_header(entry.id()).ok()?;
    if size > max {
        return None;
    }
    let blob = repo.find_blob(entry.id()).ok()?;
    String::from_utf8(blob.content().to_vec()).ok()
}
