//! Pages that include another file of the repository, as a docs site's build would: mdBook's
//! `{{#include path}}` (whole, `:start:end` lines or `:anchor`), MyST's ```` ```{include} path ````
//! and reStructuredText's `.. include:: path` (with `:start-after:` / `:end-before:`). A
//! project's README is often its docs' first page this way ("continue below to start with the
//! README" followed by the include); dropping the directive left nothing there.
//!
//! One level only (an included file's own includes stay as they are and are dropped later
//! like any directive), paths relative to the including page and never outside the
//! repository, each included text bounded by the reader, and at most [`MAX_INCLUDED_BYTES`]
//! included per page. A directive whose file cannot be read is left in place.

use std::sync::LazyLock;

use regex::Regex;

/// Bytes included into one page at most; past them directives stay as they are.
const MAX_INCLUDED_BYTES: usize = 512 * 1024;

/// `text` (the page at `path`) with its include directives replaced by what they include;
/// `read` gives a repository file's text by path (`None` when absent, not text or too large).
pub(crate) fn expand(path: &str, text: &str, read: &dyn Fn(&str) -> Option<String>) -> String {
    static MDBOOK: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(
            r"^\s*\{\{#include\s+([^\s}:]{1,300})(?::([^\s}]{1,100}))?\s*\}\}\s*$",
        )
    });
    static MYST: LazyLock<Regex> =
        LazyLock::new(|| crate::builtin::regex(r"^\s*(`{3,}|~{3,})\{include\}\s+(\S{1,300})\s*$"));
    static RST: LazyLock<Regex> =
        LazyLock::new(|| crate::builtin::regex(r"^\.\. include::\s+(\S{1,300})\s*$"));
    if !text.contains("include") {
        return text.to_string();
    }
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let mut budget = MAX_INCLUDED_BYTES;
    let mut include = |target: &str, part: Part<'_>| -> Option<String> {
        let resolved = resolve(dir, target)?;
        let whole = read(&resolved)?;
        let piece = part.of(&whole)?;
        budget = budget.checked_sub(piece.len())?;
        Some(piece.trim_end().to_string())
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(found) = MDBOOK.captures(line) {
            let part = found
                .get(2)
                .map_or(Part::Whole, |m| Part::mdbook(m.as_str()));
            match include(&found[1], part) {
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
                && let Some(included) = include(&found[2], Part::options(&options))
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
            if let Some(included) = include(&found[1], Part::options(&options)) {
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

/// Which part of the included file.
enum Part<'a> {
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

    /// MyST's or reStructuredText's `:start-after:` and `:end-before:` options.
    fn options(lines: &[&'a str]) -> Self {
        let value = |name: &str| {
            lines.iter().find_map(|line| {
                let rest = line.trim().strip_prefix(name)?;
                let value = rest.trim();
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
            _ => None,
        }
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
