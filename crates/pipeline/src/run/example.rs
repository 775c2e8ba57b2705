//! A release post's example: the shortest snippet that shows a new API the release's
//! highlighted features name, from the repository's own documentation, README or tests at
//! the release's tag.
//!
//! An API is a code span of a new feature's entry (`` `Console.print_json` ``,
//! `` `WithLazy` ``, `` `--dry-run` ``) whose name is specific: an identifier with an
//! underscore or an inner capital, a dotted or `::` path, or a command-line flag, never one
//! plain word. The snippets are the fenced code blocks of Markdown and MDX files, the
//! `code-block` directives and `::` literal blocks of reStructuredText files (README files,
//! and files under a documentation folder), and the test functions of test files (Python
//! `def test_…`, Rust `#[test]`, Go `func Test…`, JavaScript and TypeScript `it(…)`/`test(…)`).
//! The match must be unambiguous: the name appears as a whole word, and in no such file at
//! the previous release's tag (an API already shown there is not what the release brings).
//! Everything is bounded: files read, their size, the bytes read in all, and the snippet's
//! lines and bytes. Nothing found, no example.

use git2::{ObjectType, Oid, Repository, Tree, TreeWalkMode, TreeWalkResult};
use regex::Regex;
use std::sync::LazyLock;

use crate::builtin::regex as builtin;
use crate::render::blog::{Example, Post};
use crate::source::code::comments;
use crate::source::forge::Forge;

/// Files read at one tag at most.
const MAX_FILES: usize = 4_000;
/// A file larger than this is not read.
const MAX_FILE_BYTES: usize = 512 * 1024;
/// Bytes read at one tag at most.
const MAX_TOTAL_BYTES: usize = 48 * 1024 * 1024;
/// A snippet longer than this is not shown.
const MAX_LINES: usize = 25;
const MAX_SNIPPET_BYTES: usize = 1_500;
/// APIs looked up at most.
const MAX_APIS: usize = 8;

static CODE_SPAN: LazyLock<Regex> = LazyLock::new(|| builtin(r"`([^`\n]{1,80})`"));
/// An API name: a path of identifiers (`a.b`, `a::b`, `a#b`), maybe called (`f()`,
/// `f(x)`), or a command-line flag.
static API: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"^(?:--?[a-z][a-z0-9-]{2,}|@?[A-Za-z_$][\w$]*(?:(?:\.|::|#|/)[A-Za-z_$][\w$]*)*)(?:\([^()]*\))?$",
    )
});

/// The specific names the code spans of `entries` give, in order, with the span as
/// written.
pub(crate) fn apis(entries: &[&str]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for entry in entries {
        for c in CODE_SPAN.captures_iter(entry) {
            let span = c[1].trim();
            if !API.is_match(span) {
                continue;
            }
            let bare = span.split('(').next().unwrap_or(span);
            let name = if bare.starts_with('-') {
                bare
            } else {
                bare.rsplit(['.', ':', '#', '/']).next().unwrap_or(bare)
            };
            let specific = name.starts_with("--")
                || (name.len() >= 4
                    && (name.contains('_')
                        || name
                            .char_indices()
                            .skip(1)
                            .any(|(_, ch)| ch.is_ascii_uppercase())
                            && name.chars().any(|ch| ch.is_ascii_lowercase())))
                || (bare != name && name.len() >= 4);
            if specific && !out.iter().any(|(n, _)| n == name) {
                out.push((name.to_string(), span.to_string()));
            }
            if out.len() >= MAX_APIS {
                return out;
            }
        }
    }
    out
}

/// A file worth looking in, and how to read its snippets.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reader {
    Markdown,
    Rst,
    Test(&'static str),
}

fn reader(path: &str) -> Option<Reader> {
    let lower = path.to_ascii_lowercase();
    let parts: Vec<&str> = lower.split('/').collect();
    let name = *parts.last()?;
    if parts.iter().any(|p| {
        matches!(
            *p,
            "node_modules" | "vendor" | "third_party" | ".changeset" | ".github" | "target"
        )
    }) || [
        "changelog",
        "changes",
        "history",
        "news",
        "agents",
        "claude",
        "contributing",
        "release",
    ]
    .iter()
    .any(|n| name.starts_with(n))
    {
        return None;
    }
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    let in_docs = parts[..parts.len() - 1].iter().any(|p| {
        matches!(
            *p,
            "docs" | "doc" | "documentation" | "site" | "website" | "guide"
        )
    });
    let readme = name.starts_with("readme");
    let test_dir = parts[..parts.len() - 1]
        .iter()
        .any(|p| matches!(*p, "test" | "tests" | "testing" | "__tests__" | "spec"));
    match ext {
        "md" | "mdx" | "markdown" if in_docs || readme => Some(Reader::Markdown),
        "rst" if in_docs || readme => Some(Reader::Rst),
        "py" if name.starts_with("test_") || name.ends_with("_test.py") => {
            Some(Reader::Test("python"))
        }
        "go" if name.ends_with("_test.go") => Some(Reader::Test("go")),
        "rs" if test_dir => Some(Reader::Test("rust")),
        "ts" | "tsx" | "js" | "jsx" | "mjs"
            if test_dir || name.contains(".test.") || name.contains(".spec.") =>
        {
            Some(Reader::Test(match ext {
                "ts" => "ts",
                "tsx" => "tsx",
                "jsx" => "jsx",
                _ => "js",
            }))
        }
        _ => None,
    }
}

/// The files worth looking in at `tree`, with their blob ids (bounded by [`MAX_FILES`]).
fn files(tree: &Tree) -> Vec<(String, Oid, Reader)> {
    let mut out = Vec::new();
    let _ = tree.walk(TreeWalkMode::PreOrder, |root, entry| {
        if out.len() >= MAX_FILES {
            return TreeWalkResult::Abort;
        }
        if entry.kind() != Some(ObjectType::Blob) {
            return TreeWalkResult::Ok;
        }
        let path = format!("{root}{}", entry.name().unwrap_or(""));
        if let Some(r) = reader(&path) {
            out.push((path, entry.id(), r));
        }
        TreeWalkResult::Ok
    });
    out
}

/// The text of each file worth looking in, within the bounds.
fn texts(repo: &Repository, tree: &Tree) -> Vec<(String, String, Reader)> {
    let mut total = 0usize;
    let mut out = Vec::new();
    for (path, id, r) in files(tree) {
        let Ok(odb) = repo.odb() else { break };
        let Ok((size, _)) = odb.read_header(id) else {
            continue;
        };
        if size > MAX_FILE_BYTES || total + size > MAX_TOTAL_BYTES {
            continue;
        }
        let Ok(blob) = repo.find_blob(id) else {
            continue;
        };
        total += size;
        let Ok(text) = std::str::from_utf8(blob.content()) else {
            continue;
        };
        out.push((path, text.to_string(), r));
    }
    out
}

/// One snippet of a file: its first line (1-based), language and code.
struct Snippet {
    line: usize,
    language: String,
    code: String,
}

fn fenced(text: &str) -> Vec<Snippet> {
    let mut out = Vec::new();
    let mut open: Option<(usize, String, String, Vec<&str>)> = None;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match &mut open {
            None => {
                for fence in ["```", "~~~"] {
                    if let Some(info) = trimmed.strip_prefix(fence) {
                        let marker: String = trimmed
                            .chars()
                            .take_while(|c| *c == fence.as_bytes()[0] as char)
                            .collect();
                        let info = info.trim_start_matches(fence.as_bytes()[0] as char);
                        let language = info
                            .trim()
                            .trim_start_matches('{')
                            .split(|c: char| c.is_whitespace() || c == ',' || c == '}')
                            .next()
                            .unwrap_or("")
                            .to_string();
                        open = Some((n + 2, language, marker, Vec::new()));
                        break;
                    }
                }
            }
            Some((start, language, marker, lines)) => {
                if trimmed.starts_with(marker.as_str())
                    && trimmed
                        .trim_matches(|c| c == marker.as_bytes()[0] as char)
                        .is_empty()
                {
                    out.push(Snippet {
                        line: *start,
                        language: std::mem::take(language),
                        code: dedent(lines),
                    });
                    open = None;
                } else if lines.len() <= MAX_LINES {
                    lines.push(line);
                }
            }
        }
    }
    out
}

/// `.. code-block:: python` (or `code`, `sourcecode`) and a paragraph ending in `::`, each
/// followed by an indented block.
fn rst_blocks(text: &str) -> Vec<Snippet> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim();
        let language = [".. code-block::", ".. code::", ".. sourcecode::"]
            .iter()
            .find_map(|d| t.strip_prefix(d))
            .map(|l| l.trim().to_string())
            .or_else(|| (t.ends_with("::") && !t.starts_with("..")).then(String::new));
        let Some(language) = language else {
            i += 1;
            continue;
        };
        let indent = lines[i].len() - lines[i].trim_start().len();
        let mut j = i + 1;
        // Directive options (`:linenos:`) and blank lines before the block.
        while j < lines.len()
            && (lines[j].trim().is_empty() || lines[j].trim_start().starts_with(':'))
        {
            j += 1;
        }
        let start = j;
        while j < lines.len()
            && (lines[j].trim().is_empty() || lines[j].len() - lines[j].trim_start().len() > indent)
        {
            j += 1;
        }
        if j > start && j - start <= MAX_LINES * 2 {
            out.push(Snippet {
                line: start + 1,
                language,
                code: dedent(&lines[start..j]),
            });
        }
        i = j.max(i + 1);
    }
    out
}

/// A test that expects a failure: a panic, an exception, an error.
static FAILURE: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"(?i)should_panic|pytest\.raises|assertRaises|assert\.Panics|require\.Panics|\.toThrow|\.rejects|is_err\(\)|unwrap_err|expect_err",
    )
});

static TEST_START: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r#"^\s*(?:(?:async\s+)?def\s+test\w*\s*\(|func\s+Test\w*\s*\(|(?:pub\s+)?(?:async\s+)?fn\s+\w+\s*\(|(?:it|test)\s*\(\s*['"`])"#,
    )
});

/// The test functions of a test file: Python by indentation, the others by braces.
fn tests(text: &str, language: &str) -> Vec<Snippet> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !TEST_START.is_match(lines[i]) {
            i += 1;
            continue;
        }
        // A Rust function is a test when an attribute above says so.
        if language == "rust"
            && !lines[i.saturating_sub(3)..i]
                .iter()
                .any(|l| l.trim_start().starts_with("#[") && l.contains("test"))
        {
            i += 1;
            continue;
        }
        // The attributes above a Rust test are part of it (`#[should_panic]`).
        let mut start = i;
        while language == "rust" && start > 0 && lines[start - 1].trim_start().starts_with("#[") {
            start -= 1;
        }
        let indent = lines[i].len() - lines[i].trim_start().len();
        let mut j = i + 1;
        if language == "python" {
            while j < lines.len()
                && (lines[j].trim().is_empty()
                    || lines[j].len() - lines[j].trim_start().len() > indent)
            {
                j += 1;
            }
        } else {
            let mut depth = 0i64;
            let mut opened = false;
            j = i;
            while j < lines.len() && j - i <= MAX_LINES * 2 {
                for c in lines[j].chars() {
                    match c {
                        '{' => {
                            depth += 1;
                            opened = true;
                        }
                        '}' => depth -= 1,
                        _ => {}
                    }
                }
                j += 1;
                if opened && depth <= 0 {
                    break;
                }
            }
            if !(opened && depth <= 0) {
                i += 1;
                continue;
            }
        }
        let mut body = &lines[start..j];
        while body.last().is_some_and(|l| l.trim().is_empty()) {
            body = &body[..body.len() - 1];
        }
        out.push(Snippet {
            line: start + 1,
            language: language.to_string(),
            code: dedent(body),
        });
        i = j.max(i + 1);
    }
    out
}

fn dedent(lines: &[&str]) -> String {
    comments::dedent(lines).trim_matches('\n').to_string()
}

/// `name` as a whole word of `text` (a flag's dashes are its own).
fn mentions(text: &str, name: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        !before.is_some_and(|c| word(c) || (name.starts_with('-') && c == '-'))
            && !after.is_some_and(|c| word(c) || (name.starts_with('-') && c == '-'))
    })
}

fn snippets(text: &str, reader: Reader) -> Vec<Snippet> {
    match reader {
        Reader::Markdown => fenced(text),
        Reader::Rst => rst_blocks(text),
        Reader::Test(language) => tests(text, language),
    }
}

/// The example for a release whose new features name `apis` (see [`apis`]): at the tree of
/// `tag_commit`, the shortest snippet that shows the first API shown anywhere, when no file
/// at `previous` shows or names it. `None` when none qualifies.
pub(crate) fn find(
    repo: &Repository,
    apis: &[(String, String)],
    tag_commit: Oid,
    previous: Option<Oid>,
    forge: Option<&Forge>,
) -> Option<Example> {
    if apis.is_empty() {
        return None;
    }
    let tree = repo.find_commit(tag_commit).ok()?.tree().ok()?;
    let now = texts(repo, &tree);
    let before = previous
        .and_then(|p| repo.find_commit(p).ok()?.tree().ok())
        .map(|t| texts(repo, &t));
    for (name, span) in apis {
        if !now.iter().any(|(_, text, _)| mentions(text, name)) {
            continue;
        }
        // Shown before this release: not what it brings (or another API of that name).
        if before
            .as_ref()
            .is_some_and(|b| b.iter().any(|(_, text, _)| mentions(text, name)))
        {
            continue;
        }
        let mut best: Option<(usize, &str, Snippet)> = None;
        for (path, text, r) in &now {
            if !mentions(text, name) {
                continue;
            }
            for s in snippets(text, *r) {
                let lines = s.code.lines().count();
                if s.code.len() > MAX_SNIPPET_BYTES || lines > MAX_LINES || !mentions(&s.code, name)
                {
                    continue;
                }
                // A test of a failure shows no use of the API.
                if matches!(r, Reader::Test(_)) && FAILURE.is_match(&s.code) {
                    continue;
                }
                // Documentation before tests, then the shortest; a snippet of two lines or
                // more before a one-liner.
                let key = s.code.len()
                    + if lines < 2 { MAX_SNIPPET_BYTES } else { 0 }
                    + if matches!(r, Reader::Test(_)) {
                        4 * MAX_SNIPPET_BYTES
                    } else {
                        0
                    };
                if best.as_ref().is_none_or(|(k, _, _)| key < *k) {
                    best = Some((key, path, s));
                }
            }
        }
        if let Some((_, path, s)) = best {
            let commit = tag_commit.to_string();
            return Some(Example {
                api: span.clone(),
                path: path.to_string(),
                href: forge.and_then(|f| f.file_url(&commit, path, u32::try_from(s.line).ok())),
                language: s.language,
                code: s.code,
            });
        }
    }
    None
}

/// The commit the tag `name` points to.
pub(crate) fn tag_commit(repo: &Repository, name: &str) -> Option<Oid> {
    repo.revparse_single(&format!("refs/tags/{name}"))
        .ok()?
        .peel_to_commit()
        .ok()
        .map(|c| c.id())
}

/// The example of `post` (see the module): at its release's tag (the run's `commit` for
/// changes not released yet), against the tag before it. A first release has none.
pub(crate) fn for_post(
    repo: &Repository,
    post: &Post,
    commit: &str,
    forge: Option<&Forge>,
) -> Option<Example> {
    let release = post.release?;
    if post.introducing {
        return None;
    }
    let entries: Vec<&str> = post.features.iter().map(String::as_str).collect();
    let apis = apis(&entries);
    let at = match &release.tag {
        Some(tag) => tag_commit(repo, tag)?,
        None => Oid::from_str(commit).ok()?,
    };
    let previous = release
        .previous_tag
        .as_deref()
        .and_then(|t| tag_commit(repo, t));
    find(repo, &apis, at, previous, forge)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_specific_names_are_apis() {
        let found = apis(&[
            "Add `Console.print_json()` and `expand`",
            "`WithLazy` option, `--dry-run` flag, `None`, `a::b::Gadget`",
        ]);
        let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["print_json", "WithLazy", "--dry-run", "Gadget"]);
    }

    #[test]
    fn snippets_of_docs_and_tests() {
        let md = "# Use\n\n```python title=\"x\"\nfrom x import y\ny.print_json(1)\n```\n\n~~~\nother\n~~~\n";
        let found = fenced(md);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].language, "python");
        assert_eq!(found[0].line, 4);
        assert_eq!(found[0].code, "from x import y\ny.print_json(1)");
        let rst = "Usage::\n\n    x = 1\n    y = 2\n\nText.\n\n.. code-block:: python\n   :linenos:\n\n   print_json(x)\n";
        let found = rst_blocks(rst);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].code, "x = 1\ny = 2");
        assert_eq!(found[1].language, "python");
        assert_eq!(found[1].code, "print_json(x)");
        let py = "import x\n\ndef test_json():\n    x.print_json(1)\n\n    assert 1\n\ndef helper():\n    pass\n";
        let found = tests(py, "python");
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].code,
            "def test_json():\n    x.print_json(1)\n\n    assert 1"
        );
        let go = "package x\n\nfunc TestLazy(t *testing.T) {\n\tl := WithLazy()\n\tif l == nil {\n\t\tt.Fatal()\n\t}\n}\n";
        let found = tests(go, "go");
        assert_eq!(found.len(), 1);
        assert!(found[0].code.ends_with("}\n}") || found[0].code.ends_with('}'));
        let rs = "fn helper() {}\n\n#[test]\nfn gadget() {\n    Gadget::new();\n}\n";
        let found = tests(rs, "rust");
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].code,
            "#[test]\nfn gadget() {\n    Gadget::new();\n}"
        );
    }

    #[test]
    fn names_match_as_whole_words() {
        assert!(mentions("x.print_json(1)", "print_json"));
        assert!(!mentions("x.print_json_lines(1)", "print_json"));
        assert!(mentions("run --dry-run now", "--dry-run"));
        assert!(!mentions("run --dry-run-all", "--dry-run"));
        assert!(reader("docs/guide.md").is_some() && reader("CHANGELOG.md").is_none());
        assert!(reader("tests/test_json.py").is_some() && reader("src/json.py").is_none());
        assert!(
            reader("pkg/a_test.go").is_some() && reader("pkg/node_modules/a.test.js").is_none()
        );
    }
}
