//! The crate's layout rules, checked on its own source files (`src/`): no file imports another
//! that imports it back (directly or through others), `source` never imports anything above
//! it, and no file is over 800 lines. The import graph is read from the text: `use` items
//! (`pub use` re-exports are a module's facade, not a dependency of it), `crate::…` and
//! `super::…` paths in code, and paths through a module's own children (`lang::rust::…`);
//! test modules and comments are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 800;

/// What `source/` may import besides itself: the crate's shared foundations.
const BELOW_SOURCE: &[&str] = &["builtin.rs", "error.rs", "limits.rs", "log.rs"];

struct File {
    /// Relative to `src/`, with `/`.
    path: String,
    /// `["source", "code", "lang"]` for `source/code/lang/mod.rs`.
    module: Vec<String>,
    text: String,
}

fn files() -> Vec<File> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read src") {
            let path: PathBuf = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path
                    .strip_prefix(&src)
                    .expect("under src")
                    .to_string_lossy()
                    .replace('\\', "/");
                let mut module: Vec<String> = rel
                    .trim_end_matches(".rs")
                    .split('/')
                    .map(str::to_owned)
                    .collect();
                if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
                    module.pop();
                }
                let text = std::fs::read_to_string(&path).expect("read file");
                found.push(File {
                    path: rel,
                    module,
                    text,
                });
            }
        }
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found
}

/// The file's code without its test modules, comments and string literals.
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]")
            && lines
                .peek()
                .is_some_and(|next| next.trim_start().contains("mod tests"))
        {
            // Test modules close the file (or are a `mod tests;` of their own).
            if lines
                .peek()
                .is_some_and(|next| next.trim_end().ends_with(';'))
            {
                lines.next();
                continue;
            }
            break;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        let mut in_string = false;
        let mut escaped = false;
        for c in line.chars() {
            if in_string {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == '"' {
                    in_string = false;
                }
                continue;
            }
            if c == '"' {
                in_string = true;
                out.push_str("\"\"");
                continue;
            }
            out.push(c);
        }
        out.push('\n');
    }
    out
}

/// `a::{b, c::{d, self}}` → `a::b`, `a::c::d`, `a::c`.
fn expand(tree: &str, prefix: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    match tree.find('{') {
        Some(open) if tree.ends_with('}') => {
            let head = tree[..open].trim_end_matches("::").trim();
            let prefix = join(prefix, head);
            let inner = &tree[open + 1..tree.len() - 1];
            let mut depth = 0;
            let mut start = 0;
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        expand(&inner[start..i], &prefix, out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            expand(&inner[start..], &prefix, out);
        }
        _ => {
            let name = tree.split(" as ").next().unwrap_or(tree).trim();
            if name == "self" {
                out.push(prefix.to_owned());
            } else if !name.is_empty() {
                out.push(join(prefix, name));
            }
        }
    }
}

fn join(prefix: &str, rest: &str) -> String {
    match (prefix.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_owned(),
        (_, true) => prefix.to_owned(),
        _ => format!("{prefix}::{rest}"),
    }
}

/// The paths a file names: its private `use` items, and `crate::`/`super::`/child paths in
/// its code.
fn named_paths(code: &str, children: &BTreeSet<String>) -> Vec<String> {
    let mut paths = Vec::new();
    let mut others = String::new();
    let mut lines = code.lines();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        let reexport = trimmed.starts_with("pub ") || trimmed.starts_with("pub(");
        let item = trimmed.strip_prefix("use ").or_else(|| {
            reexport
                .then(|| trimmed.split_once(" use ").map(|(_, r)| r))
                .flatten()
        });
        let Some(item) = item else {
            others.push_str(line);
            others.push('\n');
            continue;
        };
        let mut item = item.to_owned();
        while !item.contains(';') {
            let Some(next) = lines.next() else { break };
            item.push(' ');
            item.push_str(next.trim());
        }
        if !reexport {
            let item = item.split(';').next().unwrap_or("");
            expand(
                &item.split_whitespace().collect::<Vec<_>>().join(" "),
                "",
                &mut paths,
            );
        }
    }
    // Paths in code.
    let chars: Vec<char> = others.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_alphabetic() || chars[i] == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || matches!(chars[i], '_' | ':')) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let first = word.split("::").next().unwrap_or("");
            if word.contains("::")
                && (first == "crate" || first == "super" || children.contains(first))
            {
                paths.push(word.trim_end_matches(':').to_owned());
            }
        } else {
            i += 1;
        }
    }
    paths
}

/// The file a path leads to: the deepest module of the crate it names.
fn resolve(
    path: &str,
    from: &[String],
    children: &BTreeSet<String>,
    modules: &BTreeMap<Vec<String>, String>,
) -> Option<String> {
    let segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let (mut module, rest): (Vec<String>, &[&str]) = match segments.first()? {
        &"crate" => (Vec::new(), &segments[1..]),
        &"self" => (from.to_vec(), &segments[1..]),
        &"super" => {
            let mut module = from.to_vec();
            let mut rest = &segments[..];
            while rest.first() == Some(&"super") {
                module.pop();
                rest = &rest[1..];
            }
            (module, rest)
        }
        first if children.contains(*first) => (from.to_vec(), &segments[..]),
        _ => return None,
    };
    for segment in rest {
        let mut deeper = module.clone();
        deeper.push((*segment).to_owned());
        if modules.contains_key(&deeper) {
            module = deeper;
        } else {
            break;
        }
    }
    modules.get(&module).cloned()
}

fn graph(files: &[File]) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeMap<Vec<String>, String> = files
        .iter()
        .map(|f| (f.module.clone(), f.path.clone()))
        .collect();
    let mut edges = BTreeMap::new();
    for file in files.iter().filter(|f| !f.path.ends_with("tests.rs")) {
        let children: BTreeSet<String> = modules
            .keys()
            .filter(|m| m.len() == file.module.len() + 1 && m.starts_with(&file.module))
            .filter_map(|m| m.last().cloned())
            .collect();
        let code = code(&file.text);
        let targets: BTreeSet<String> = named_paths(&code, &children)
            .iter()
            .filter_map(|p| resolve(p, &file.module, &children, &modules))
            .filter(|target| *target != file.path)
            .collect();
        edges.insert(file.path.clone(), targets);
    }
    edges
}

/// Strongly connected components of more than one file (Tarjan).
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        if let Some(targets) = s.edges.get(v) {
            for w in targets {
                let w = w.as_str();
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let low = s.low[v].min(s.low[w]);
                    s.low.insert(v, low);
                } else if s.on_stack.contains(w) {
                    let low = s.low[v].min(s.index[w]);
                    s.low.insert(v, low);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.to_owned());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !state.index.contains_key(v.as_str()) {
            visit(&mut state, v);
        }
    }
    state.found
}

#[test]
fn no_file_imports_one_that_imports_it_back() {
    let edges = graph(&files());
    let found = circles(&edges);
    let shown: Vec<String> = found
        .iter()
        .map(|circle| {
            let ties: Vec<String> = circle
                .iter()
                .flat_map(|a| {
                    edges[a]
                        .iter()
                        .filter(|b| circle.contains(b))
                        .map(move |b| format!("{a} -> {b}"))
                })
                .collect();
            ties.join(", ")
        })
        .collect();
    assert!(found.is_empty(), "import circles: {shown:#?}");
}

#[test]
fn source_imports_nothing_above_it() {
    let edges = graph(&files());
    let upward: Vec<String> = edges
        .iter()
        .filter(|(from, _)| from.starts_with("source/"))
        .flat_map(|(from, targets)| {
            targets
                .iter()
                .filter(|t| !t.starts_with("source/") && !BELOW_SOURCE.contains(&t.as_str()))
                .map(move |t| format!("{from} -> {t}"))
        })
        .collect();
    assert!(upward.is_empty(), "source imports from above: {upward:#?}");
}

#[test]
fn no_file_is_over_800_lines() {
    let long: Vec<String> = files()
        .iter()
        .map(|f| (f.path.clone(), f.text.lines().count()))
        .filter(|(_, lines)| *lines > MAX_LINES)
        .map(|(path, lines)| format!("{path}: {lines}"))
        .collect();
    assert!(long.is_empty(), "files over {MAX_LINES} lines: {long:#?}");
}

/// The checker itself: a circle through a child module and `super::`, a re-export that is no
/// dependency, and a string that only looks like a path.
#[test]
fn the_checker_sees_circles_and_only_them() {
    let file = |path: &str, module: &[&str], text: &str| File {
        path: path.to_owned(),
        module: module.iter().map(|s| (*s).to_owned()).collect(),
        text: text.to_owned(),
    };
    let tree = [
        file("lib.rs", &[], "mod a;\nmod b;\n"),
        file(
            "a/mod.rs",
            &["a"],
            "mod child;\npub use child::Thing;\nfn f() { child::run(); }\n",
        ),
        file(
            "a/child.rs",
            &["a", "child"],
            "use super::helper;\nconst S: &str = \"crate::b::x\";\n",
        ),
        file(
            "b.rs",
            &["b"],
            "use crate::a::{self, Thing};\n// crate::a::child::y\n",
        ),
    ];
    let edges = graph(&tree);
    assert_eq!(
        circles(&edges),
        [vec!["a/child.rs".to_owned(), "a/mod.rs".to_owned()]]
    );
    assert_eq!(
        edges["b.rs"].iter().collect::<Vec<_>>(),
        ["a/mod.rs"],
        "a re-export, a comment and a string are no dependency"
    );
    assert!(edges["lib.rs"].is_empty());
}
