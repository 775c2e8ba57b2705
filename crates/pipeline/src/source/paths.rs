//! Keeping every path a feature names inside the repository. Paths are checked as text
//! (no absolute paths, no `..`) and against the commit's tree (no symlink whose target
//! leaves the repository), because the pipeline reads files from git objects, never from
//! the working directory.

use git2::{ObjectType, Repository, Tree};
use std::path::Path;

use crate::error::PipelineError;

pub(crate) const MODE_LINK: i32 = 0o120000;
pub(crate) const MODE_SUBMODULE: i32 = 0o160000;

const GLOB_META: &[char] = &['*', '?', '[', ']', '{', '}', '\\'];

/// A relative path with `/` separators, without `.`, empty or `..` components.
pub(crate) fn normalize_relative(path: &str) -> Result<String, PipelineError> {
    if is_absolute(path) {
        return Err(PipelineError::escapes(
            path,
            "absolute paths are not allowed; paths are relative to the repository root",
        ));
    }
    let mut parts = Vec::new();
    for part in path.split('/') {
        if part.split('\\').any(|p| p == "..") {
            return Err(PipelineError::escapes(
                path,
                "'..' would leave the repository",
            ));
        }
        if !part.is_empty() && part != "." {
            parts.push(part);
        }
    }
    Ok(parts.join("/"))
}

fn is_absolute(path: &str) -> bool {
    let bytes = path.as_bytes();
    path.starts_with('/')
        || path.starts_with('\\')
        || path.starts_with('~')
        || (bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':')
}

/// The leading components of a glob that contain no glob syntax: the part of the tree that
/// can hold matches. Empty when the pattern starts with a wildcard.
/// A feature path pattern as the pipeline matches it everywhere: `*` stays within one folder.
pub(crate) fn glob(pattern: &str) -> Result<globset::Glob, globset::Error> {
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
}

pub(crate) fn literal_prefix(pattern: &str) -> String {
    pattern
        .split('/')
        .take_while(|part| !part.contains(GLOB_META))
        .collect::<Vec<_>>()
        .join("/")
}

pub(crate) fn has_glob_syntax(pattern: &str) -> bool {
    pattern.contains(GLOB_META)
}

/// Makes a literal file name usable inside a glob.
pub(crate) fn glob_escape(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if GLOB_META.contains(&c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Whether a symlink stored at `link_path` with target `target` stays inside the repository.
fn link_stays_inside(link_path: &str, target: &str) -> bool {
    if is_absolute(target) {
        return false;
    }
    let mut stack: Vec<&str> = link_path.split('/').collect();
    stack.pop();
    for part in target.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                if stack.pop().is_none() {
                    return false;
                }
            }
            other => stack.push(other),
        }
    }
    true
}

/// Refuses `path` if the entry at it, or at any folder on the way to it, is a symlink that
/// points out of the repository. Missing paths are fine here (a glob may match nothing).
pub(crate) fn check_no_escaping_link(
    repo: &Repository,
    tree: &Tree,
    path: &str,
) -> Result<(), PipelineError> {
    let mut prefix = String::new();
    for part in path.split('/').filter(|p| !p.is_empty()) {
        if !prefix.is_empty() {
            prefix.push('/');
        }
        prefix.push_str(part);
        let Ok(entry) = tree.get_path(Path::new(&prefix)) else {
            return Ok(());
        };
        if entry.filemode() == MODE_LINK {
            check_link_entry(repo, &prefix, entry.id())?;
        }
        if entry.kind() != Some(ObjectType::Tree) {
            return Ok(());
        }
    }
    Ok(())
}

/// Refuses the symlink stored at `link_path` (blob `id`) when it points outside.
pub(crate) fn check_link_entry(
    repo: &Repository,
    link_path: &str,
    id: git2::Oid,
) -> Result<(), PipelineError> {
    let blob = repo.find_blob(id)?;
    let target = String::from_utf8_lossy(blob.content());
    if link_stays_inside(link_path, &target) {
        Ok(())
    } else {
        Err(PipelineError::escapes(
            link_path,
            format!("it is a symlink to '{target}', outside the repository"),
        ))
    }
}

/// A file's name without folder and extension, lower case, `-`/`_` read as spaces.
pub(crate) fn stem(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    stem.to_lowercase().replace(['-', '_'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_and_refuses_escapes() {
        assert_eq!(normalize_relative("./src//a/").unwrap(), "src/a");
        assert!(normalize_relative("../x").is_err());
        assert!(normalize_relative("src/../../x").is_err());
        assert!(normalize_relative("/etc/passwd").is_err());
        assert!(normalize_relative("C:/x").is_err());
        assert!(normalize_relative("a\\..\\b").is_err());
    }

    #[test]
    fn literal_prefixes() {
        assert_eq!(literal_prefix("src/export/**"), "src/export");
        assert_eq!(literal_prefix("docs/export.md"), "docs/export.md");
        assert_eq!(literal_prefix("**/*.rs"), "");
        assert_eq!(literal_prefix("src/*.rs"), "src");
    }

    #[test]
    fn symlink_targets() {
        assert!(link_stays_inside("a/b/link", "../c"));
        assert!(link_stays_inside("a/link", "../c"));
        assert!(!link_stays_inside("link", "../c"));
        assert!(!link_stays_inside("a/link", "/etc"));
        assert!(!link_stays_inside("a/link", "../../../etc"));
    }
}
