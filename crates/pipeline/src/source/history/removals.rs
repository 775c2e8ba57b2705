//! Public API a release removes, which breaks its users' code whatever the version number
//! says: by what a change says ("Remove the deprecated `pkg` package", "Drop support for …",
//! "Rename `tag` to `label`"), and by what the release's code no longer declares. Go's
//! exported functions, methods and types, Rust's `pub` items, Python's public top-level
//! functions and classes, and TypeScript's exports are read from the lines a diff of the two
//! releases' trees deletes; a name the same diff declares again (moved, or given a new
//! signature) is not removed. Tests, examples, Go `internal/` packages, Python modules with a
//! leading underscore and Go `package main` files are not API.

use git2::{DiffOptions, Oid, Repository};
use regex::Regex;
use std::collections::BTreeSet;
use std::sync::LazyLock;

use crate::builtin::regex as builtin;
use crate::source::files::{is_hidden_internal, is_non_api, is_test_file};

/// Removed names reported at most.
const MAX_NAMES: usize = 40;
/// Diff lines read at most (a release that rewrites everything is not read to the end).
const MAX_LINES: usize = 200_000;
/// A changed file larger than this is not read.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// "Remove …", "Drop …", "Delete …", "Rename …", "Unexport …", after an optional scope.
static REMOVAL: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"(?i)^(?:[\w./@-]{1,40}:\s+)?(?:\*\*[^*]*\*\*:?\s+)?(?:remov(?:e|es|ed|ing)|drop(?:s|ped|ping)?|delet(?:e|es|ed|ing)|renam(?:e|es|ed|ing)|unexport(?:s|ed)?|no\s+longer\s+export(?:s)?)\b",
    )
});
/// What a user's code names: a code span, or a word for a piece of API.
static API: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"(?i)`[^`]+`|\b(?:functions?|methods?|types?|class(?:es)?|structs?|traits?|interfaces?|enums?|packages?|modules?|fields?|options?|arguments?|parameters?|flags?|commands?|api|apis|exports?|alias(?:es)?|endpoints?|propert(?:y|ies)|attributes?|constants?|macros?|settings?|support\s+for)\b",
    )
});
/// ... unless it is about something no user's code names.
static NOT_API: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"(?i)\b(?:unused|dead\s+code|redundant|unnecessary|duplicated?|internal|private|debug|tests?|testing|ci|docs?|documentation|comments?|typos?|lint|warnings?|workflows?|dependenc(?:y|ies)|deps|changelog|readme|examples?|metadata)\b",
    )
});

/// Whether an entry says it removes or renames public API: see the module. A fix says so
/// only of something deprecated or a supported platform ("fix: remove `x` from the cache" is
/// no removal of API).
pub(crate) fn says_removal(text: &str, fix: bool) -> bool {
    let text = text.trim_start_matches(['*', '-', ' ']);
    if !REMOVAL.is_match(text) || NOT_API.is_match(text) {
        return false;
    }
    if fix {
        let lower = text.to_ascii_lowercase();
        return (lower.contains("deprecated") && API.is_match(text))
            || lower.contains("support for");
    }
    API.is_match(text)
}

/// Whether a commit of Conventional Commits type `kind` (empty without one) says it removes
/// public API; a revert, documentation, tests, CI or style never does.
pub(crate) fn commit_removes(kind: &str, description: &str) -> bool {
    !matches!(
        kind,
        "revert" | "docs" | "doc" | "test" | "tests" | "ci" | "style"
    ) && says_removal(description, matches!(kind, "fix" | "bugfix" | "hotfix"))
}

/// Declarations of public API, one pattern per language; the name is the first group.
static GO_DECL: LazyLock<Regex> = LazyLock::new(|| {
    // A method counts only on an exported type (`Type.Method`): an unexported type's methods
    // are no API of their own.
    builtin(
        r"^(?:func\s+(?:\(\s*(?:\w+\s+)?\*?\s*([A-Z]\w*)(?:\[[^\]]*\])?\s*\)\s*)?|type\s+|(?:var|const)\s+)([A-Z][A-Za-z0-9_]*)",
    )
});
static RUST_DECL: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"^\s*pub\s+(?:(?:const|async|unsafe|extern\s+\S+)\s+)*(?:fn|struct|enum|trait|type|const|static|mod|union|macro)\s+([A-Za-z_][A-Za-z0-9_]*)",
    )
});
static PY_DECL: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"^(?:async\s+)?(?:def|class)\s+([A-Za-z][A-Za-z0-9_]*)"));
static TS_DECL: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"^export\s+(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\*?|class|interface|type|enum|const|let|var|namespace)\s+([A-Za-z_$][A-Za-z0-9_$]*)",
    )
});

/// The name a line declares: the last group of `pattern`, after its receiver's type for a
/// Go method (`Client.Close`).
fn declared_name(pattern: &Regex, line: &str) -> Option<String> {
    let c = pattern.captures(line)?;
    let name = c.get(c.len() - 1)?.as_str();
    Some(match c.get(1).filter(|_| c.len() == 3) {
        Some(receiver) => format!("{}.{name}", receiver.as_str()),
        None => name.to_string(),
    })
}

/// The declaration pattern for a file of public API under `folder`; `None` for anything
/// else (see the module).
fn pattern(path: &str, folder: &str) -> Option<&'static Regex> {
    let file = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    if is_test_file(path)
        || is_hidden_internal(path, folder)
        || is_non_api(path, folder)
        || file.contains("mock")
    {
        return None;
    }
    let ext = path.rsplit_once('.').map(|(_, e)| e)?;
    Some(match ext {
        "go" => &GO_DECL,
        "rs" => &RUST_DECL,
        "py" | "pyi" => &PY_DECL,
        "ts" | "tsx" | "mts" | "cts" | "js" | "mjs" | "cjs" => {
            if path.ends_with(".d.ts") || path.contains(".config.") {
                return None;
            }
            &TS_DECL
        }
        _ => return None,
    })
}

/// The public names declared at `from` and no longer at `to` in the feature's `folder` ("" for
/// the whole repository), as code spans ("`GetApiInstance`"), in the order the diff meets
/// them; at most [`MAX_NAMES`].
pub(crate) fn removed_names(repo: &Repository, from: Oid, to: Oid, folder: &str) -> Vec<String> {
    let tree = |oid: Oid| repo.find_commit(oid).ok().and_then(|c| c.tree().ok());
    let (Some(old), Some(new)) = (tree(from), tree(to)) else {
        return Vec::new();
    };
    let mut options = DiffOptions::new();
    let folder = folder.trim_matches(['/', '.']);
    if !folder.is_empty() {
        options.pathspec(folder);
    }
    options.context_lines(0);
    let Ok(diff) = repo.diff_tree_to_tree(Some(&old), Some(&new), Some(&mut options)) else {
        return Vec::new();
    };
    let mut removed: Vec<String> = Vec::new();
    let mut declared: BTreeSet<String> = BTreeSet::new();
    let mut lines = 0usize;
    let _ = diff.foreach(
        &mut |delta, _| {
            let size = |f: git2::DiffFile| f.size();
            size(delta.old_file()) <= MAX_FILE_BYTES && size(delta.new_file()) <= MAX_FILE_BYTES
        },
        None,
        None,
        Some(&mut |delta, _, line| {
            lines += 1;
            if lines > MAX_LINES {
                return false;
            }
            let path = delta
                .old_file()
                .path()
                .or_else(|| delta.new_file().path())
                .and_then(|p| p.to_str())
                .unwrap_or("");
            let Some(pattern) = pattern(path, folder) else {
                return true;
            };
            let text = String::from_utf8_lossy(line.content());
            // A Python method (indented) is no top-level name.
            let Some(name) = declared_name(pattern, &text) else {
                return true;
            };
            match line.origin() {
                '-' if !name.starts_with('_') => removed.push(format!("{path}\u{0}{name}")),
                '+' => {
                    declared.insert(name);
                }
                _ => {}
            }
            true
        }),
    );
    let mut seen = BTreeSet::new();
    let mut packages = std::collections::HashMap::new();
    removed
        .into_iter()
        .filter_map(|key| {
            let (path, name) = key.split_once('\u{0}')?;
            let library = *packages
                .entry(path.to_string())
                .or_insert_with(|| library(repo, &old, path));
            (library && !declared.contains(name) && seen.insert(name.to_string()))
                .then(|| format!("`{name}`"))
        })
        .take(MAX_NAMES)
        .collect()
}

/// A manifest read to tell a library from an application at most this large.
const MAX_MANIFEST_BYTES: usize = 256 * 1024;

/// Whether the file at `path` belongs to a library others import, by the nearest package
/// manifest in `tree`: a Rust crate with a library target (not `src/main.rs` or `src/bin/`),
/// an npm package not marked `"private": true`; other languages' files always are.
fn library(repo: &Repository, tree: &git2::Tree, path: &str) -> bool {
    let read = |p: &str| -> Option<String> {
        let entry = tree.get_path(std::path::Path::new(p)).ok()?;
        let blob = repo.find_blob(entry.id()).ok()?;
        (blob.size() <= MAX_MANIFEST_BYTES)
            .then(|| String::from_utf8_lossy(blob.content()).into_owned())
    };
    let exists = |p: &str| tree.get_path(std::path::Path::new(p)).is_ok();
    if path.ends_with(".go") {
        // A `main` package is a program, never imported.
        return !read(path).is_some_and(|t| t.lines().any(|l| l.trim() == "package main"));
    }
    let rust = path.ends_with(".rs");
    let script = pattern_is_script(path);
    if !rust && !script {
        return true;
    }
    let mut dir = path;
    while let Some((up, _)) = dir.rsplit_once('/').or(if dir.is_empty() {
        None
    } else {
        Some(("", dir))
    }) {
        let at = |name: &str| {
            if up.is_empty() {
                name.to_string()
            } else {
                format!("{up}/{name}")
            }
        };
        if rust && let Some(manifest) = read(&at("Cargo.toml")) {
            let inner = path.strip_prefix(&at("")).unwrap_or(path);
            let binary = inner == "src/main.rs" || inner.starts_with("src/bin/");
            return !binary && (exists(&at("src/lib.rs")) || manifest.contains("[lib]"));
        }
        if script && let Some(manifest) = read(&at("package.json")) {
            let private = serde_json::from_str::<serde_json::Value>(&manifest)
                .ok()
                .and_then(|v| v.get("private").and_then(serde_json::Value::as_bool))
                .unwrap_or(false);
            return !private;
        }
        if up.is_empty() {
            break;
        }
        dir = up;
    }
    true
}

fn pattern_is_script(path: &str) -> bool {
    [".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs"]
        .iter()
        .any(|e| path.ends_with(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_an_entry_says_it_removes() {
        assert!(says_removal("Delete deprecated pkg package (#509)", false));
        assert!(says_removal("Remove `Widget::a`", false));
        assert!(says_removal("api: Rename the `tag` command", false));
        assert!(says_removal("Drop support for Python 3.8", false));
        assert!(!says_removal("Remove unused helper `x`", false));
        assert!(!says_removal("Remove the flaky test of `x`", false));
        assert!(!says_removal("Drop Node 14 from the CI matrix", false));
        assert!(!says_removal("Remove double escaping of `x`", true));
        assert!(says_removal("Remove deprecated `Config.old`", true));
        assert!(!says_removal("Add `Widget::b`", false));
        assert!(!says_removal(
            "Remove deprecated Cargo authors metadata (#2611)",
            false
        ));
        assert!(!says_removal("Removed a crash on empty input", false));
    }

    #[test]
    fn declarations_by_language() {
        let name = |re: &Regex, line: &str| declared_name(re, line);
        assert_eq!(
            name(
                &GO_DECL,
                "func (api *evaluationAPI) GetApiInstance() IEvaluation {"
            ),
            None
        );
        assert_eq!(
            name(&GO_DECL, "func (c *Client) Close() error {"),
            Some("Client.Close".into())
        );
        assert_eq!(
            name(&GO_DECL, "func GetApiInstance() IEvaluation {"),
            Some("GetApiInstance".into())
        );
        assert_eq!(name(&GO_DECL, "func helper() {"), None);
        assert_eq!(
            name(&GO_DECL, "type Logger interface {"),
            Some("Logger".into())
        );
        assert_eq!(
            name(&RUST_DECL, "    pub fn area(&self) -> u32 {"),
            Some("area".into())
        );
        assert_eq!(name(&RUST_DECL, "pub(crate) fn area() {"), None);
        assert_eq!(name(&PY_DECL, "def load(path):"), Some("load".into()));
        assert_eq!(name(&PY_DECL, "    def method(self):"), None);
        assert_eq!(
            name(&TS_DECL, "export function createStore() {"),
            Some("createStore".into())
        );
    }
}
