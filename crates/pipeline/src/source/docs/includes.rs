//! Pages that include another file of the repository, as a docs site's build would: mdBook's
//! `{{#include path}}` (whole, `:start:end` lines or `:anchor`), MyST's ```` ```{include} path ````
//! and reStructuredText's `.. include:: path` (with `:start-after:` / `:end-before:`). A
//! project's README is often its docs' first page this way ("continue below to start with the
//! README" followed by the include); dropping the directive left nothing there.
//!
//! Includes whose content is the code a page shows are read the same way:
//! pymdownx.snippets' `--8<-- "path"`, `--8<-- "path:section"` (between `--8<-- [start:section]`
//! and `--8<-- [end:section]` markers, which never show) and `--8<-- "path:3:9"`, on a line of
//! their own inside a fence or alone (the included lines keep the line's indentation), and the
//! `--8<--` … `--8<--` block of paths; FastAPI's and Typer's `{* docs_src/x.py hl[3] *}`
//! becomes a fenced block of the file's language (`ln[3:9]` chooses lines). Snippet paths are
//! relative to the `base_path` of `pymdownx.snippets` in the nearest `mkdocs.yml` above the
//! page, else to a folder above the page; `{* *}` paths to the repository's root first.
//!
//! One level only (an included file's own includes stay as they are and are dropped later
//! like any directive), paths relative to the including page and never outside the
//! repository, each included text bounded by the reader, at most [`MAX_INCLUDED_BYTES`]
//! and [`MAX_INCLUDES`] includes per page. A directive whose file cannot be read is left in
//! place (the markup reader drops a snippet line left so).

use std::sync::LazyLock;

use regex::Regex;

use super::frameworks::longest_backtick_run;

/// Bytes included into one page at most; past them directives stay as they are.
const MAX_INCLUDED_BYTES: usize = 512 * 1024;
/// Includes expanded in one page at most.
const MAX_INCLUDES: usize = 256;
/// Folders above a page tried as a snippet's base.
const MAX_ANCESTORS: usize = 12;

/// `text` (the page at `path`) with its include directives replaced by what they include;
/// `read` gives a repository file's text by path (`None` when absent, not text or too large).
pub(crate) fn expand(path: &str, text: &str, read: &dyn Fn(&str) -> Option<String>) -> String {
    if !text.contains("include") && !text.contains("--8<--") && !text.contains("{*") {
        return text.to_string();
    }
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let mut budget = MAX_INCLUDED_BYTES;
    let mut count = 0;
    // The bases a snippet's path is tried against, found at the first snippet.
    let mut snippet_bases: Option<Vec<String>> = None;
    let mut include_from = |bases: &[String], target: &str, part: Part<'_>| -> Option<String> {
        if count >= MAX_INCLUDES {
            return None;
        }
        let piece = bases
            .iter()
            .find_map(|base| part.of(&read(&resolve(base, target)?)?))?;
        budget = budget.checked_sub(piece.len())?;
        count += 1;
        // Blank lines around the included text are not the author's.
        let start = piece
            .find(|c: char| c != '\n' && c != '\r')
            .map_or(piece.len(), |at| {
                piece[..at].rfind('\n').map_or(0, |n| n + 1)
            });
        Some(piece[start..].trim_end().to_string())
    };
    let page_dir = [dir.to_string()];
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.contains("--8<--") || line.contains("{*") {
            let snippet = SNIPPET.captures(line);
            let block = line.trim() == "--8<--";
            let code = CODE_INCLUDE.captures(line);
            if snippet.is_some() || block || code.is_some() {
                let bases: &[String] = match &code {
                    // FastAPI's docs build runs at the repository's root.
                    Some(_) => snippet_bases.get_or_insert_with(|| bases_above(dir, None)),
                    None => snippet_bases.get_or_insert_with(|| bases_above(dir, Some(read))),
                };
                let bases = bases.to_vec();
                let indent = &line[..line.len() - line.trim_start().len()];
                if let Some(found) = code {
                    let target = found.get(1).map_or("", |m| m.as_str());
                    let part = found
                        .get(2)
                        .and_then(|m| LINES_OPTION.captures(m.as_str()))
                        .map_or(Part::Whole, |c| {
                            let number = |i| c.get(i).and_then(|m| m.as_str().parse().ok());
                            Part::Lines(number(1), number(2))
                        });
                    let mut root_first = vec![String::new()];
                    root_first.extend(bases);
                    if let Some(included) = include_from(&root_first, target, part) {
                        let language = language_of(target);
                        let included_lines: Vec<&str> = included.lines().collect();
                        let ticks = "`".repeat(longest_backtick_run(&included_lines).max(2) + 1);
                        out.push(format!("{indent}{ticks}{language}"));
                        out.extend(included.lines().map(|l| indented(indent, l)));
                        out.push(format!("{indent}{ticks}"));
                        i += 1;
                        continue;
                    }
                } else if let Some(found) = snippet {
                    let spec = found.get(2).map_or("", |m| m.as_str());
                    if let Some(included) = snippet_of(&mut include_from, &bases, spec) {
                        out.extend(included.lines().map(|l| indented(indent, l)));
                        i += 1;
                        continue;
                    }
                } else {
                    // `--8<--`, one path a line, `--8<--`.
                    let end = lines[i + 1..]
                        .iter()
                        .take(64)
                        .position(|l| l.trim() == "--8<--");
                    if let Some(end) = end {
                        for spec in &lines[i + 1..i + 1 + end] {
                            let spec = spec.trim();
                            if spec.is_empty() || spec.starts_with(';') {
                                continue;
                            }
                            if let Some(included) = snippet_of(&mut include_from, &bases, spec) {
                                out.extend(included.lines().map(|l| indented(indent, l)));
                            }
                        }
                        i += end + 2;
                        continue;
                    }
                }
            }
        }
        if let Some(found) = MDBOOK.captures(line) {
            let part = found
                .get(2)
                .map_or(Part::Whole, |m| Part::mdbook(m.as_str()));
            match include_from(&page_dir, &found[1], part) {
                Some(included) => out.push(included),
                None => out.push(line.to_string()),
            }
            i += 1;
            continue;
        }
        if let Some(found) = MYST.captures(line) {
            // The fence's options, up to its closing line.
            let fence = found[1].to_string();
            let mut options = Vec::new();
            let mut end = i + 1;
            while end < lines.len() && lines[end].trim() != fence {
                options.push(lines[end]);
                end += 1;
            }
            if end < lines.len()
                && let Some(included) = include_from(&page_dir, &found[2], Part::options(&options))
            {
                out.push(included);
                i = end + 1;
                continue;
            }
            out.push(line.to_string());
            i += 1;
            continue;
        }
        if let Some(found) = RST.captures(line) {
            // Indented `:option: value` lines follow the directive.
            let mut options = Vec::new();
            let mut end = i + 1;
            while end < lines.len() && lines[end].starts_with([' ', '\t']) {
                options.push(lines[end]);
                end += 1;
            }
            if let Some(included) = include_from(&page_dir, &found[1], Part::options(&options)) {
                out.push(included);
                i = end;
                continue;
            }
        }
        out.push(line.to_string());
        i += 1;
    }
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    joined
}

/// mdBook's `{{#include path:part}}`.
static MDBOOK: LazyLock<Regex> = LazyLock::new(|| {
    crate::builtin::regex(r"^\s*\{\{#include\s+([^\s}:]{1,300})(?::([^\s}]{1,100}))?\s*\}\}\s*$")
});
/// MyST's ```` ```{include} path ````.
static MYST: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r"^\s*(`{3,}|~{3,})\{include\}\s+(\S{1,300})\s*$"));
/// reStructuredText's `.. include:: path`.
static RST: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r"^\.\. include::\s+(\S{1,300})\s*$"));
/// Reads a repository file's text by path.
type ReadFile<'a> = dyn Fn(&str) -> Option<String> + 'a;
/// Includes a part of a file, its path tried against each base.
type IncludeFrom<'a> = dyn FnMut(&[String], &str, Part<'_>) -> Option<String> + 'a;

/// `--8<-- "path"` on a line of its own (`;--8<--` is the escaped form, left alone).
static SNIPPET: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r#"^\s*-{2,}8<-{2,}\s+(["'])([^"'\s]{1,300})["']\s*$"#));
/// `{* docs_src/x.py hl[3] ln[1:9] *}`.
static CODE_INCLUDE: LazyLock<Regex> = LazyLock::new(|| {
    crate::builtin::regex(
        r"^\s*\{\*\s+([^\s*{}]{1,300})((?:\s+[a-z]{1,10}\[[^\]\n]{0,100}\]){0,8})\s*\*\}\s*$",
    )
});
static LINES_OPTION: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r"\bln\[(\d{1,6})?:(\d{1,6})?\]"));
/// A snippet's section marker (`# --8<-- [start:name]`), never shown.
static SECTION_MARKER: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r"-{2,}8<-{2,}\s*\[(start|end):([\w.-]{1,100})\]"));

fn indented(indent: &str, line: &str) -> String {
    if line.trim().is_empty() {
        String::new()
    } else {
        format!("{indent}{line}")
    }
}

/// What `path`, `path:section` or `path:3:9` includes, tried against each base.
fn snippet_of(include: &mut IncludeFrom<'_>, bases: &[String], spec: &str) -> Option<String> {
    if spec.contains("://") {
        return None;
    }
    let (file, part) = match spec.split_once(':') {
        None => (spec, Part::Snippet(None)),
        Some((file, rest)) => {
            let number = |s: &str| s.parse::<usize>().ok();
            match rest.split_once(':') {
                Some((start, end)) => (file, Part::Lines(number(start), number(end))),
                None => match number(rest) {
                    Some(start) => (file, Part::Lines(Some(start), None)),
                    None => (file, Part::Snippet(Some(rest))),
                },
            }
        }
    };
    include(bases, file, part)
}

/// Where a snippet's path is read from: with `read`, the `base_path`s of `pymdownx.snippets`
/// in the nearest `mkdocs.yml` above `dir` (its folder when it names none); then every folder
/// from `dir` up to the repository's root.
fn bases_above(dir: &str, read: Option<&ReadFile<'_>>) -> Vec<String> {
    let mut ancestors = Vec::new();
    let mut current = dir.trim_matches('/').to_string();
    while ancestors.len() < MAX_ANCESTORS {
        ancestors.push(current.clone());
        if current.is_empty() {
            break;
        }
        current = current.rsplit_once('/').map_or("", |(d, _)| d).to_string();
    }
    let mut bases = Vec::new();
    if let Some(read) = read {
        let config = ancestors.iter().find_map(|folder| {
            ["mkdocs.yml", "mkdocs.yaml"].iter().find_map(|name| {
                let path = join(folder, name);
                read(&path).map(|text| (folder.clone(), text))
            })
        });
        if let Some((folder, text)) = config {
            let declared = snippet_base_paths(&text);
            if declared.is_empty() {
                bases.push(folder.clone());
            }
            bases.extend(
                declared
                    .iter()
                    .filter_map(|base| resolve_dir(&folder, base)),
            );
        }
    }
    for folder in ancestors {
        if !bases.contains(&folder) {
            bases.push(folder);
        }
    }
    bases
}

fn join(folder: &str, name: &str) -> String {
    if folder.is_empty() {
        name.to_string()
    } else {
        format!("{folder}/{name}")
    }
}

/// `base` relative to `folder`, as a folder of the repository (`""` its root).
fn resolve_dir(folder: &str, base: &str) -> Option<String> {
    let base = base.trim().trim_matches(['"', '\'']);
    if base.is_empty() || base == "." {
        return Some(folder.to_string());
    }
    resolve(folder, base)
}

/// The `base_path` of `pymdownx.snippets` in an `mkdocs.yml`: `base_path: x`,
/// `base_path: [x, y]` or a list of `- x` lines.
fn snippet_base_paths(config: &str) -> Vec<String> {
    let mut lines = config
        .lines()
        .skip_while(|l| !l.contains("pymdownx.snippets"));
    let Some(first) = lines.next() else {
        return Vec::new();
    };
    let depth = first.len() - first.trim_start().len();
    let mut out = Vec::new();
    let mut in_list = false;
    for line in lines.take(64) {
        let indent = line.len() - line.trim_start().len();
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if indent <= depth {
            break;
        }
        if let Some(value) = trimmed.strip_prefix("base_path:") {
            let value = value.trim();
            in_list = value.is_empty();
            let value = value.trim_start_matches('[').trim_end_matches(']');
            out.extend(
                value
                    .split(',')
                    .map(|v| v.trim().trim_matches(['"', '\'']).to_string())
                    .filter(|v| !v.is_empty()),
            );
        } else if in_list && let Some(item) = trimmed.strip_prefix("- ") {
            out.push(item.trim().trim_matches(['"', '\'']).to_string());
        } else {
            in_list = false;
        }
        if out.len() >= 8 {
            break;
        }
    }
    out
}

/// The fence language for an included file, by its extension.
fn language_of(path: &str) -> &'static str {
    let extension = path.rsplit_once('.').map_or("", |(_, e)| e);
    match extension.to_ascii_lowercase().as_str() {
        "py" => "python",
        "rs" => "rust",
        "go" => "go",
        "ts" | "mts" | "cts" => "ts",
        "tsx" => "tsx",
        "js" | "mjs" | "cjs" => "js",
        "jsx" => "jsx",
        "toml" => "toml",
        "yaml" | "yml" => "yaml",
        "json" => "json",
        "sh" | "bash" => "bash",
        "md" => "markdown",
        "html" => "html",
        "css" => "css",
        "sql" => "sql",
        "java" => "java",
        "rb" => "ruby",
        _ => "",
    }
}

/// Which part of the included file.
enum Part<'a> {
    /// A snippet: the whole file, or its section, without section markers.
    Snippet(Option<&'a str>),
    Whole,
    /// 1-based lines, `start..=end` (either open).
    Lines(Option<usize>, Option<usize>),
    /// Between mdBook's `ANCHOR: name` and `ANCHOR_END: name` lines.
    Anchor(&'a str),
    /// After the first line holding `after`, before the next holding `before`.
    Between(Option<&'a str>, Option<&'a str>),
}

impl<'a> Part<'a> {
    /// mdBook's `:10` (line 10 on), `:10:20`, `:10:`, `::20` or `:anchor`.
    fn mdbook(spec: &'a str) -> Self {
        let number = |s: &str| s.parse::<usize>().ok();
        match spec.split_once(':') {
            Some((start, end)) => Part::Lines(number(start), number(end)),
            None => match number(spec) {
                Some(start) => Part::Lines(Some(start), None),
                None => Part::Anchor(spec),
            },
        }
    }

    /// MyST's or reStructuredText's `:start-after:` and `:end-before:` options. MyST reads
    /// them as YAML, so a quoted marker (`'code-begin -->'`) is the text between the quotes.
    fn options(lines: &[&'a str]) -> Self {
        let value = |name: &str| {
            lines.iter().find_map(|line| {
                let rest = line.trim().strip_prefix(name)?;
                let value = rest.trim();
                let unquoted = ['\'', '"'].iter().find_map(|q| {
                    value
                        .strip_prefix(*q)
                        .and_then(|v| v.strip_suffix(*q))
                        .filter(|v| !v.is_empty())
                });
                let value = unquoted.unwrap_or(value);
                (!value.is_empty()).then_some(value)
            })
        };
        match (value(":start-after:"), value(":end-before:")) {
            (None, None) => Part::Whole,
            (after, before) => Part::Between(after, before),
        }
    }

    fn of(&self, text: &str) -> Option<String> {
        Some(match self {
            Part::Whole => text.to_string(),
            Part::Snippet(section) => {
                let mut inside = section.is_none();
                let mut found = section.is_none();
                let mut kept = Vec::new();
                for line in text.lines() {
                    if let Some(marker) = SECTION_MARKER.captures(line) {
                        if Some(&marker[2]) == *section {
                            inside = &marker[1] == "start";
                            found = true;
                        }
                        continue;
                    }
                    if inside {
                        kept.push(line);
                    }
                }
                if !found {
                    return None;
                }
                kept.join("\n")
            }
            Part::Lines(start, end) => {
                let from = start.unwrap_or(1).max(1) - 1;
                let lines = text.lines().skip(from);
                match end {
                    Some(end) => lines
                        .take((end + 1).saturating_sub(from + 1))
                        .collect::<Vec<_>>(),
                    None => lines.collect(),
                }
                .join("\n")
            }
            Part::Anchor(name) => {
                let start = format!("ANCHOR: {name}");
                let end = format!("ANCHOR_END: {name}");
                text.lines()
                    .skip_while(|l| !l.contains(&start))
                    .skip(1)
                    .take_while(|l| !l.contains(&end))
                    .filter(|l| !l.contains("ANCHOR"))
                    .collect::<Vec<_>>()
                    .join("\n")
            }
            Part::Between(after, before) => {
                let from = match after {
                    Some(after) => text.find(after)? + after.len(),
                    None => 0,
                };
                let rest = &text[from..];
                let to = before.and_then(|b| rest.find(b)).unwrap_or(rest.len());
                // From the start of the line after the marker.
                let rest = &rest[..to];
                rest.split_once('\n').map_or("", |(_, r)| r).to_string()
            }
        })
    }
}

/// `target` relative to `dir`, normalised; `None` when it leaves the repository or is absolute.
fn resolve(dir: &str, target: &str) -> Option<String> {
    if target.starts_with('/') || target.contains('\\') {
        return None;
    }
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo(path: &str) -> Option<String> {
        match path {
            "README.md" => Some(
                "# PyO3\n\n<!-- start -->\nRust bindings for Python.\n\n## Usage\n\nuse pyo3;\n<!-- end -->\nFooter\n"
                    .into(),
            ),
            "examples/x.rs" => Some(
                "fn a() {}\n// ANCHOR: main\nfn main() {}\n// ANCHOR_END: main\nfn b() {}\n"
                    .into(),
            ),
            "docs/mkdocs.yml" => Some(
                "markdown_extensions:\n  - pymdownx.snippets:\n      base_path: [ex]\n  - toc\n".into(),
            ),
            "docs/ex/start/main.go" => Some(
                "package main\n\n// --8<-- [start:main]\nfunc main() {\n\t// --8<-- [start:inner]\n\tfx.New()\n\t// --8<-- [end:inner]\n}\n// --8<-- [end:main]\n".into(),
            ),
            "docs_src/first/tutorial001.py" => Some("import typer\n\n\ndef main():\n    print(\"Hello\")\n".into()),
            _ => None,
        }
    }

    #[test]
    fn snippets_include_their_file_or_section_with_the_lines_indentation() {
        let page = "1. Write it.\n\n   ```go\n   --8<-- \"start/main.go:main\"\n   ```\n\n--8<-- \"start/main.go:inner\"\n";
        let out = expand("docs/src/get-started/minimal.md", page, &repo);
        assert_eq!(
            out,
            "1. Write it.\n\n   ```go\n   func main() {\n   \tfx.New()\n   }\n   ```\n\n\tfx.New()\n"
        );
        // The whole file, without its markers; the block form of several paths.
        let page = "--8<--\nstart/main.go\n;skipped.go\n--8<--\nAfter.";
        let out = expand("docs/src/a.md", page, &repo);
        assert_eq!(out, "package main\n\nfunc main() {\n\tfx.New()\n}\nAfter.");
        // Lines of the file, by number.
        let out = expand("docs/ex/b.md", "--8<-- \"start/main.go:4:4\"", &repo);
        assert_eq!(out, "func main() {");
        // Missing files and sections, URLs and paths out of the repository stay as written.
        for page in [
            "--8<-- \"start/missing.go\"",
            "--8<-- \"start/main.go:nowhere\"",
            "--8<-- \"https://example.com/x.go\"",
            "--8<-- \"../../../../etc/passwd\"",
            ";--8<-- \"start/main.go\"",
        ] {
            assert_eq!(expand("docs/src/a.md", page, &repo), page);
        }
    }

    #[test]
    fn code_includes_become_fenced_blocks_of_their_language() {
        let page =
            "Copy that to `main.py`:\n\n{* docs_src/first/tutorial001.py hl[4,5] *}\n\nRun it.\n";
        let out = expand("docs/tutorial/first-steps.md", page, &repo);
        assert_eq!(
            out,
            "Copy that to `main.py`:\n\n```python\nimport typer\n\n\ndef main():\n    print(\"Hello\")\n```\n\nRun it.\n"
        );
        let out = expand(
            "docs/a.md",
            "{* docs_src/first/tutorial001.py ln[4:5] *}",
            &repo,
        );
        assert_eq!(out, "```python\ndef main():\n    print(\"Hello\")\n```");
        let page = "{* docs_src/missing.py *}";
        assert_eq!(expand("docs/a.md", page, &repo), page);
    }

    #[test]
    fn includes_per_page_are_bounded_in_count() {
        let page = "{* docs_src/first/tutorial001.py *}\n".repeat(MAX_INCLUDES + 5);
        let out = expand("docs/a.md", &page, &repo);
        assert_eq!(out.matches("```python").count(), MAX_INCLUDES);
        assert_eq!(out.matches("{*").count(), 5);
    }

    #[test]
    fn includes_are_replaced_by_what_they_include() {
        let page = "Continue below.\n\n{{#include ../../README.md}}\n";
        let out = expand("guide/src/index.md", page, &repo);
        assert!(out.starts_with("Continue below.\n\n# PyO3\n"), "{out}");
        assert!(out.contains("## Usage"), "{out}");

        let page = "```rust\n{{#include ../examples/x.rs:main}}\n```\n\n{{#include ../examples/x.rs:2:3}}\n";
        let out = expand("docs/page.md", page, &repo);
        assert!(out.starts_with("```rust\nfn main() {}\n```"), "{out}");
        assert!(out.ends_with("// ANCHOR: main\nfn main() {}\n"), "{out}");

        let page = "# Docs\n\n```{include} ../README.md\n:start-after: <!-- start -->\n:end-before: <!-- end -->\n```\n\nAfter.\n";
        let out = expand("docs/index.md", page, &repo);
        assert_eq!(
            out,
            "# Docs\n\nRust bindings for Python.\n\n## Usage\n\nuse pyo3;\n\nAfter.\n"
        );

        // MyST reads its options as YAML: a quoted marker is the text between the quotes.
        let quoted = "```{include} ../README.md\n:start-after: '<!-- start -->'\n:end-before: \"<!-- end -->\"\n```\n";
        assert_eq!(
            expand("docs/index.md", quoted, &repo),
            "Rust bindings for Python.\n\n## Usage\n\nuse pyo3;\n"
        );

        let page = "Intro\n\n.. include:: ../README.md\n   :start-after: <!-- start -->\n\nAfter\n";
        let out = expand("docs/index.rst", page, &repo);
        assert!(out.contains("Intro\n\nRust bindings for Python."), "{out}");
        assert!(out.contains("Footer\n\nAfter"), "{out}");
    }

    #[test]
    fn what_cannot_be_included_stays_as_written() {
        for page in [
            "{{#include ../../../../etc/passwd}}\n",
            "{{#include /etc/passwd}}\n",
            "{{#include missing.md}}\n",
            "```{include} missing.md\n```\n",
            "```{include} ../README.md\n",
        ] {
            assert_eq!(expand("docs/a.md", page, &repo), page);
        }
    }
}
