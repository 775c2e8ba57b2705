//! What a release asks of its users' toolchain: the minimum Go, Rust, Python or Node.js
//! version its package manifest declares (go.mod's `go` line, Cargo.toml's `rust-version`,
//! pyproject.toml's `requires-python`, package.json's `engines.node`), compared between the
//! release's tag and the tag before it. A raised or new minimum is something to act on before
//! upgrading, whatever the changelog says: a user on the old toolchain cannot take the
//! release.
//!
//! The manifest read is the one nearest the feature (its folder, then each folder above it),
//! at the release's tag; the same path is read at the previous tag. Each file is read only
//! when it is a blob of at most [`MAX_MANIFEST_BYTES`].

use git2::{Oid, Repository};
use regex::Regex;
use std::sync::LazyLock;

use super::example::tag_commit;
use crate::builtin::regex as builtin;
use crate::render::blog::Post;

/// A manifest larger than this is not read.
const MAX_MANIFEST_BYTES: usize = 256 * 1024;
/// Folders looked at, from the feature's up to the root.
const MAX_DEPTH: usize = 16;

/// The manifests that declare a minimum toolchain, in the order they are looked for.
const MANIFESTS: &[&str] = &[
    "go.mod",
    "Cargo.toml",
    "pyproject.toml",
    "setup.cfg",
    "package.json",
];

static GO_LINE: LazyLock<Regex> = LazyLock::new(|| builtin(r"(?m)^go\s+(\d+(?:\.\d+){0,2})\s*$"));
/// setup.cfg's `python_requires = >=3.8`.
static PYTHON_REQUIRES: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"(?m)^python_requires\s*=\s*(\S[^\n#]*?)\s*$"));

/// A raised minimum: the toolchain's name, the new and the old requirement (none when the
/// previous release declared none), and the manifest it comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Raised {
    pub toolchain: &'static str,
    pub now: String,
    pub before: Option<String>,
    pub path: String,
}

impl Raised {
    /// "Go 1.25.0 or later, up from 1.24.0", for the lede, in plain words.
    fn requirement(&self) -> String {
        let need = match numbers(&self.now) {
            Some(_) => format!(
                "{} {} or later",
                self.toolchain,
                self.now.trim_start_matches(['>', '=', '^', '~', ' ', 'v'])
            ),
            None => format!("{} {}", self.toolchain, self.now),
        };
        match &self.before {
            Some(before) => format!(
                "{need}, up from {}",
                before.trim_start_matches(['>', '=', '^', '~', ' ', 'v'])
            ),
            None => need,
        }
    }

    /// The upgrade step, in Markdown: "Use Go 1.25.0 or later: `go.mod` now requires it (it
    /// required 1.24.0)."
    pub(crate) fn step(&self) -> String {
        let version = self
            .now
            .trim_start_matches(['>', '=', '^', '~', ' '])
            .to_string();
        let simple = version.chars().all(|c| c.is_ascii_digit() || c == '.') && !version.is_empty();
        let need = if simple {
            format!("Use {} {version} or later", self.toolchain)
        } else {
            format!("Use {} `{}`", self.toolchain, self.now)
        };
        let file = self.path.rsplit('/').next().unwrap_or(&self.path);
        match &self.before {
            Some(before) => format!(
                "{need} before upgrading: `{file}` now requires {} `{}` (it required `{before}`).",
                self.toolchain, self.now
            ),
            None => format!(
                "{need} before upgrading: `{file}` now requires {} `{}`.",
                self.toolchain, self.now
            ),
        }
    }
}

/// The minimum the manifest `name` declares, from its text.
fn minimum(name: &str, text: &str) -> Option<(&'static str, String)> {
    let value = match name {
        "go.mod" => return GO_LINE.captures(text).map(|c| ("Go", c[1].to_string())),
        "Cargo.toml" => {
            let doc: toml::Table = text.parse().ok()?;
            let package = doc.get("package").and_then(|p| p.get("rust-version"));
            let workspace = doc
                .get("workspace")
                .and_then(|w| w.get("package"))
                .and_then(|p| p.get("rust-version"));
            ("Rust", package.or(workspace)?.as_str()?.to_string())
        }
        "pyproject.toml" => {
            let doc: toml::Table = text.parse().ok()?;
            let value = doc.get("project")?.get("requires-python")?.as_str()?;
            ("Python", value.to_string())
        }
        "setup.cfg" => ("Python", PYTHON_REQUIRES.captures(text)?[1].to_string()),
        "package.json" => {
            let doc: serde_json::Value = serde_json::from_str(text).ok()?;
            let value = doc.get("engines")?.get("node")?.as_str()?;
            ("Node.js", value.to_string())
        }
        _ => return None,
    };
    let trimmed = value.1.trim();
    (!trimmed.is_empty() && trimmed.len() <= 80).then(|| (value.0, trimmed.to_string()))
}

/// The text of `path` at `commit`, when it is a small blob.
fn read(repo: &Repository, commit: Oid, path: &str) -> Option<String> {
    let tree = repo.find_commit(commit).ok()?.tree().ok()?;
    let entry = tree.get_path(std::path::Path::new(path)).ok()?;
    let blob = repo.find_blob(entry.id()).ok()?;
    if blob.size() > MAX_MANIFEST_BYTES {
        return None;
    }
    String::from_utf8(blob.content().to_vec()).ok()
}

/// The folders from `folder` up to the root, nearest first ("" is the root).
fn folders(folder: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = folder
        .trim_start_matches("./")
        .trim_matches(['/', '.'])
        .to_string();
    for _ in 0..MAX_DEPTH {
        out.push(current.clone());
        if current.is_empty() {
            break;
        }
        current = current
            .rsplit_once('/')
            .map_or(String::new(), |(up, _)| up.to_string());
    }
    out
}

/// The path of `name` in `folder` ("" is the root).
fn in_folder(folder: &str, name: &str) -> String {
    if folder.is_empty() {
        name.to_string()
    } else {
        format!("{folder}/{name}")
    }
}

/// The numbers of a version or a lower bound (">=3.9" → [3, 9]); none for anything else.
fn numbers(value: &str) -> Option<Vec<u64>> {
    value
        .trim_start_matches(['>', '=', '^', '~', ' ', 'v'])
        .split('.')
        .map(|n| n.parse().ok())
        .collect()
}

/// The minimums raised from `previous` to `at`, for the feature in `folder` (its path, or ""
/// for the whole repository): at most one per toolchain, from the nearest manifest declaring
/// it; a minimum lowered or unchanged is nothing to act on.
pub(crate) fn raised(repo: &Repository, folder: &str, at: Oid, previous: Oid) -> Vec<Raised> {
    let mut seen: Vec<&'static str> = Vec::new();
    let mut out: Vec<Raised> = Vec::new();
    for dir in folders(folder) {
        for name in MANIFESTS {
            let path = in_folder(&dir, name);
            let Some((toolchain, now)) = read(repo, at, &path).and_then(|t| minimum(name, &t))
            else {
                continue;
            };
            if seen.contains(&toolchain) {
                continue;
            }
            seen.push(toolchain);
            // The previous release may have declared it in another file of the folder
            // (setup.cfg before pyproject.toml).
            let before = MANIFESTS.iter().find_map(|other| {
                read(repo, previous, &in_folder(&dir, other))
                    .and_then(|t| minimum(other, &t))
                    .filter(|(t, _)| *t == toolchain)
                    .map(|(_, v)| v)
            });
            let lower_or_same = match (&before, numbers(&now)) {
                (Some(b), _) if *b == now => true,
                (Some(b), Some(n)) => numbers(b).is_some_and(|b| n <= b),
                _ => false,
            };
            if !lower_or_same {
                out.push(Raised {
                    toolchain,
                    now,
                    before,
                    path,
                });
            }
        }
    }
    out
}

/// The toolchain steps of `post` (see the module): its release's tag against the tag before
/// it (the run's `commit` for changes not released yet), for the feature in `folder`; the
/// lede says what the release now requires and points to how to upgrade. A first release
/// has none.
pub(crate) fn for_post(repo: &Repository, post: &mut Post, folder: &str, commit: &str) {
    let Some((at, previous)) = release_commits(repo, post, commit) else {
        return;
    };
    let raised = raised(repo, folder, at, previous);
    if raised.is_empty() {
        return;
    }
    // A breaking item that says the same ("Python 3.8 is no longer supported") is told
    // among the changes; the step says what to do.
    let (covered, upgrade): (Vec<_>, Vec<_>) = std::mem::take(&mut post.upgrade)
        .into_iter()
        .partition(|u| raised.iter().any(|r| covers(&u.title, r.toolchain)));
    post.upgrade = upgrade;
    for (i, item) in covered.into_iter().enumerate() {
        post.changes.insert(i, item.title);
    }
    // The lede says the new minimum once, instead of the breaking entry that says the same.
    post.facts
        .breaking
        .retain(|b| !raised.iter().any(|r| covers(b, r.toolchain)));
    post.facts.requires = raised.iter().map(Raised::requirement).collect();
    post.write_lede();
    post.toolchain = raised.iter().map(Raised::step).collect();
}

/// The commits of `post`'s release and of the release before it: its tag (the run's
/// `commit` for changes not released yet) and the previous tag. None for a first release.
pub(crate) fn release_commits(repo: &Repository, post: &Post, commit: &str) -> Option<(Oid, Oid)> {
    let release = post.release.filter(|_| !post.introducing)?;
    let at = match &release.tag {
        Some(tag) => tag_commit(repo, tag),
        None => Oid::from_str(commit).ok(),
    }?;
    let previous = tag_commit(repo, release.previous_tag.as_deref()?)?;
    Some((at, previous))
}

/// Whether an item is about the minimum version of `toolchain` ("Python 3.8 is no longer
/// supported", "Bump MSRV to 1.74", "Require Go 1.25").
fn covers(item: &str, toolchain: &str) -> bool {
    static VERSION: LazyLock<Regex> = LazyLock::new(|| builtin(r"\d+\.\d+"));
    let lower = item.to_ascii_lowercase();
    let names: &[&str] = match toolchain {
        "Go" => &["go "],
        "Rust" => &["rust", "msrv"],
        "Python" => &["python"],
        _ => &["node"],
    };
    names.iter().any(|n| lower.contains(n)) && VERSION.is_match(item)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimums_from_each_manifest() {
        assert_eq!(
            minimum("go.mod", "module x\n\ngo 1.25.0\n\ntoolchain go1.25.1\n"),
            Some(("Go", "1.25.0".to_string()))
        );
        assert_eq!(
            minimum(
                "Cargo.toml",
                "[package]\nname = \"x\"\nrust-version = \"1.74\"\n"
            ),
            Some(("Rust", "1.74".to_string()))
        );
        assert_eq!(
            minimum(
                "Cargo.toml",
                "[workspace.package]\nrust-version = \"1.86.0\"\n"
            ),
            Some(("Rust", "1.86.0".to_string()))
        );
        assert_eq!(
            minimum("pyproject.toml", "[project]\nrequires-python = \">=3.9\"\n"),
            Some(("Python", ">=3.9".to_string()))
        );
        assert_eq!(
            minimum("package.json", "{\"engines\": {\"node\": \">=18\"}}"),
            Some(("Node.js", ">=18".to_string()))
        );
        assert_eq!(
            minimum("setup.cfg", "[options]\npython_requires = >=3.8\n"),
            Some(("Python", ">=3.8".to_string()))
        );
        assert_eq!(minimum("package.json", "{not json"), None);
        assert_eq!(minimum("Cargo.toml", "[package]\nname = \"x\"\n"), None);
    }

    #[test]
    fn a_step_says_what_to_use() {
        let go = Raised {
            toolchain: "Go",
            now: "1.25.0".to_string(),
            before: Some("1.24.0".to_string()),
            path: "go.mod".to_string(),
        };
        assert_eq!(
            go.step(),
            "Use Go 1.25.0 or later before upgrading: `go.mod` now requires Go `1.25.0` (it required `1.24.0`)."
        );
        let python = Raised {
            toolchain: "Python",
            now: ">=3.9".to_string(),
            before: Some(">=3.8".to_string()),
            path: "pyproject.toml".to_string(),
        };
        assert_eq!(
            python.step(),
            "Use Python 3.9 or later before upgrading: `pyproject.toml` now requires Python `>=3.9` (it required `>=3.8`)."
        );
        let node = Raised {
            toolchain: "Node.js",
            now: "^18 || >=20".to_string(),
            before: None,
            path: "packages/x/package.json".to_string(),
        };
        assert_eq!(
            node.step(),
            "Use Node.js `^18 || >=20` before upgrading: `package.json` now requires Node.js `^18 || >=20`."
        );
    }

    #[test]
    fn numbers_compare_versions_and_lower_bounds() {
        assert!(numbers(">=3.9").unwrap() > numbers(">=3.8").unwrap());
        assert!(numbers("1.25.0").unwrap() > numbers("1.24").unwrap());
        assert_eq!(numbers(">=3.9,<4"), None);
    }

    #[test]
    fn folders_nearest_first() {
        assert_eq!(folders("a/b"), ["a/b", "a", ""]);
        assert_eq!(folders(""), [""]);
    }
}
