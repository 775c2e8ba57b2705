//! The name and one-line description a repository's package manifest gives itself
//! (`Cargo.toml`, `go.mod`, `package.json`, `pyproject.toml`).

use git2::{ObjectType, Repository, Tree};
use std::path::Path;

use crate::source::paths::MODE_LINK;

/// Package manifests are small; a larger one is not read for its name.
const MAX_PACKAGE_MANIFEST_BYTES: usize = 256 * 1024;

/// The name the repository gives itself, stable from run to run: its package's name at the
/// root (`Cargo.toml` `[package] name`, the last element of `go.mod`'s module path without a
/// `/vN` suffix, `package.json` `name`, `pyproject.toml` `[project] name` or
/// `[tool.poetry] name`), else the repository folder's name. The `origin` remote is not
/// used: a service's local mirror names it after itself.
pub(crate) fn product_name(repo: &Repository, tree: &Tree) -> String {
    package(repo, tree).0
}

/// The name and description the package manifest in folder `dir` (empty: the root)
/// declares.
fn declared(repo: &Repository, tree: &Tree, dir: &str) -> Option<(String, Option<String>)> {
    let read = |name: &str| -> Option<String> {
        let path = if dir.is_empty() {
            name.to_string()
        } else {
            format!("{dir}/{name}")
        };
        let entry = tree.get_path(Path::new(&path)).ok()?;
        if entry.filemode() == MODE_LINK || entry.kind() != Some(ObjectType::Blob) {
            return None;
        }
        let blob = repo.find_blob(entry.id()).ok()?;
        if blob.size() > MAX_PACKAGE_MANIFEST_BYTES {
            return None;
        }
        String::from_utf8(blob.content().to_vec()).ok()
    };
    // The string at the first of `tables` that holds one, then the same key's sibling
    // `description`.
    let toml_package = |text: String, tables: &[&[&str]]| -> Option<(String, Option<String>)> {
        let value: toml::Value = toml::from_str(&text).ok()?;
        tables.iter().find_map(|keys| {
            let mut table = &value;
            for key in *keys {
                table = table.get(key)?;
            }
            let name = table.get("name")?.as_str()?.to_string();
            let description = table
                .get("description")
                .and_then(|d| d.as_str())
                .map(str::to_string);
            Some((name, description))
        })
    };
    read("Cargo.toml")
        .and_then(|t| toml_package(t, &[&["package"]]))
        .or_else(|| {
            let text = read("go.mod")?;
            let module = text
                .lines()
                .find_map(|l| l.trim().strip_prefix("module "))?
                .trim()
                .trim_matches('"');
            let mut parts = module.rsplit('/');
            let last = parts.next()?;
            let major = last.len() > 1
                && last.starts_with('v')
                && last[1..].bytes().all(|b| b.is_ascii_digit());
            Some((if major { parts.next()? } else { last }.to_string(), None))
        })
        .or_else(|| {
            let value: serde_json::Value = serde_json::from_str(&read("package.json")?).ok()?;
            let name = value.get("name")?.as_str()?.to_string();
            let description = value
                .get("description")
                .and_then(|d| d.as_str())
                .map(str::to_string);
            Some((name, description))
        })
        .or_else(|| {
            read("pyproject.toml")
                .and_then(|t| toml_package(t, &[&["project"], &["tool", "poetry"]]))
        })
}

/// The names a feature's package goes by in its release tags: the name its nearest package
/// manifest declares (in a folder of `prefixes` or one above), that folder's path and its
/// last component (`packages/cli/v1.2.3`, `cli-v1.2.3`).
pub(crate) fn package_names(repo: &Repository, tree: &Tree, prefixes: &[String]) -> Vec<String> {
    let mut names = Vec::new();
    for prefix in prefixes {
        let mut dir = prefix.trim_end_matches('/');
        loop {
            if let Some((name, _)) = declared(repo, tree, dir) {
                names.push(name);
                if let Some(last) = dir.rsplit('/').next().filter(|l| !l.is_empty()) {
                    names.push(dir.to_string());
                    names.push(last.to_string());
                }
                break;
            }
            match dir.rsplit_once('/') {
                Some((parent, _)) => dir = parent,
                None if !dir.is_empty() => dir = "",
                None => break,
            }
        }
    }
    names.dedup();
    names
}

/// The package's name ([`product_name`]) and the one-line description its manifest gives
/// (`Cargo.toml` `[package] description`, `package.json` `description`, `pyproject.toml`
/// `[project] description` or `[tool.poetry] description`; empty when it gives none, as
/// `go.mod` never does).
pub(crate) fn package(repo: &Repository, tree: &Tree) -> (String, String) {
    named(repo, declared(repo, tree, ""))
}

/// The name and description of the package whose manifest is in folder `dir` itself (a
/// monorepo's `packages/cli`), when it has one that names it.
pub(crate) fn package_in(repo: &Repository, tree: &Tree, dir: &str) -> Option<(String, String)> {
    let found = declared(repo, tree, dir).filter(|(name, _)| !name.trim().is_empty())?;
    Some(named(repo, Some(found)))
}

/// A declared name and description, cleaned, else the repository folder's name.
fn named(repo: &Repository, declared: Option<(String, Option<String>)>) -> (String, String) {
    let from_folder = || {
        let folder = repo.workdir().unwrap_or_else(|| repo.path());
        let name = folder.file_name()?.to_str()?;
        Some(name.strip_suffix(".git").unwrap_or(name).to_owned())
    };
    // Repository content: bounded, and one line.
    let clean = |text: String, max: usize| {
        let text: String = text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .take(max)
            .collect();
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        (!text.is_empty()).then_some(text)
    };
    let (name, description) = declared.unzip();
    let name = name
        .and_then(|n| clean(n, 100))
        .or_else(|| from_folder().and_then(|n| clean(n, 100)))
        .unwrap_or_else(|| "Repository".to_owned());
    // A sentence in the article: "A lightweight logging facade for Rust" ends with a period.
    let description = description
        .flatten()
        .and_then(|d| clean(d, MAX_PACKAGE_DESCRIPTION_CHARS))
        .map(|d| {
            if d.ends_with(['.', '!', '?', '…']) {
                d
            } else {
                format!("{d}.")
            }
        })
        .unwrap_or_default();
    (name, description)
}

/// A package description longer than this is cut (a README pasted into `description`).
const MAX_PACKAGE_DESCRIPTION_CHARS: usize = 300;

/// `csv_export` → `Csv export`.
pub(crate) fn humanize(name: &str) -> String {
    let spaced: String = name
        .chars()
        .map(|c| if c == '-' || c == '_' { ' ' } else { c })
        .collect();
    let spaced = spaced.trim();
    let mut chars = spaced.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => name.to_string(),
    }
}
