//! PyMdown Blocks (`/// tip | Title` … `///`, `//// tab | Label` … `////`, `/// details`,
//! `/// admonition`), read as the rest of the markup reader knows them: admonitions and
//! details become `:::kind Title` … `:::` callouts (as `!!! tip` do), a tab its content
//! under its label in bold (as `tabs` makes), and the blocks that only style their content
//! (`/// html | div`, `/// caption`, `/// define`) their content alone.
//!
//! A block opens on a line of three or more slashes, a known block name and an optional
//! `| title`; the indented `key: value` lines right under it are its options (`type:`
//! chooses an admonition's kind). It closes on a line of exactly as many slashes. An opening
//! line without a closing line after it is not a block (a `/// note` doc comment in prose
//! stays text). Fenced code is left alone; blocks nest at most [`MAX_DEPTH`] deep. One pass,
//! linear in the lines.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::fences::Fences;
use super::tabs;

/// Blocks inside blocks deeper than this are left as written.
const MAX_DEPTH: usize = 8;

/// What an open block becomes when it closes.
enum Open {
    /// Its closing line is `:::`.
    Callout,
    /// Its closing line is dropped.
    Plain,
}

static OPENING: LazyLock<Regex> = LazyLock::new(|| {
    crate::builtin::regex(
        r"^ {0,3}(/{3,})[ \t]*([A-Za-z][\w-]{0,40})[ \t]*(?:\|[ \t]*(.*?))?[ \t]*$",
    )
});
static OPTION: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r"^(?: {2,}|\t)([A-Za-z][\w-]{0,40}):(?:\s+(.*))?$"));

/// The admonition kind `markup` reads for a block's name, `None` for a block that is no
/// admonition.
fn callout_kind(name: &str) -> Option<&'static str> {
    Some(match name.to_ascii_lowercase().as_str() {
        "note" | "info" | "important" | "seealso" | "abstract" | "summary" | "tldr"
        | "question" | "example" | "quote" | "details" | "admonition" | "todo" => "note",
        "tip" | "hint" | "success" | "check" | "done" => "tip",
        "warning" | "caution" | "danger" | "attention" | "error" | "failure" | "bug"
        | "deprecated" => "warning",
        _ => return None,
    })
}

/// Blocks kept as their content alone.
const PLAIN: &[&str] = &[
    "html",
    "caption",
    "figure-caption",
    "table-caption",
    "define",
    "tab",
];

/// The lines with their PyMdown Blocks read.
pub(super) fn read(lines: Vec<String>) -> Vec<String> {
    if !lines.iter().any(|l| l.trim_start().starts_with("///")) {
        return lines;
    }
    // The last closing line of each slash count, outside code.
    let mut last_closing: HashMap<usize, usize> = HashMap::new();
    let mut fences = Fences::default();
    for (i, line) in lines.iter().enumerate() {
        if fences.is_code(line) {
            continue;
        }
        if let Some(n) = slashes_only(line) {
            last_closing.insert(n, i);
        }
    }
    let mut out = Vec::with_capacity(lines.len());
    let mut open: Vec<(usize, Open)> = Vec::new();
    let mut fences = Fences::default();
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        i += 1;
        if fences.is_code(line) {
            out.push(line.clone());
            continue;
        }
        if let Some(n) = slashes_only(line)
            && open.last().is_some_and(|(count, _)| *count == n)
        {
            if let Some((_, Open::Callout)) = open.pop() {
                out.push(String::new());
                out.push(":::".into());
                out.push(String::new());
            }
            continue;
        }
        let Some(found) = OPENING.captures(line) else {
            out.push(line.clone());
            continue;
        };
        let n = found.get(1).map_or(0, |m| m.as_str().len());
        let name = found.get(2).map_or("", |m| m.as_str()).to_ascii_lowercase();
        let title = found.get(3).map_or("", |m| m.as_str().trim());
        let known = callout_kind(&name).is_some() || PLAIN.contains(&name.as_str());
        let closed = last_closing.get(&n).is_some_and(|at| *at >= i);
        if !known || !closed || open.len() >= MAX_DEPTH {
            out.push(line.clone());
            continue;
        }
        // Its options: the indented `key: value` lines right under it.
        let mut kind = callout_kind(&name);
        while i < lines.len()
            && let Some(option) = OPTION.captures(&lines[i])
        {
            if option.get(1).is_some_and(|m| m.as_str() == "type") {
                let value = option.get(2).map_or("", |m| m.as_str().trim());
                kind = callout_kind(value.trim_matches(['"', '\''])).or(kind);
            }
            i += 1;
        }
        if name == "tab" {
            let label = tabs::tab_label(title);
            if !label.trim().is_empty() {
                out.push(String::new());
                out.push(format!("**{}**", label.trim()));
                out.push(String::new());
            }
            open.push((n, Open::Plain));
            continue;
        }
        match kind.filter(|_| !PLAIN.contains(&name.as_str())) {
            Some(kind) => {
                let title = match (title.is_empty(), name.as_str()) {
                    (false, _) => title.to_string(),
                    (true, "details") => "Details".to_string(),
                    (true, _) => String::new(),
                };
                out.push(String::new());
                out.push(format!(":::{kind} {title}").trim_end().to_string());
                open.push((n, Open::Callout));
            }
            None => open.push((n, Open::Plain)),
        }
    }
    out
}

/// The number of slashes of a line that is only slashes (three or more).
fn slashes_only(line: &str) -> Option<usize> {
    let trimmed = line.trim();
    (trimmed.len() >= 3
        && line.len() - line.trim_start().len() <= 3
        && trimmed.bytes().all(|b| b == b'/'))
    .then_some(trimmed.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(text: &str) -> String {
        read(text.lines().map(String::from).collect()).join("\n")
    }

    #[test]
    fn admonitions_and_details_become_callouts() {
        assert_eq!(
            blocks("/// tip | Faster\n\nUse `--jobs`.\n\n///\nAfter."),
            "\n:::tip Faster\n\nUse `--jobs`.\n\n\n:::\n\nAfter."
        );
        assert_eq!(
            blocks(
                "/// details | Using `pip` instead\n    type: warning\n    open: True\nRun pip.\n///"
            ),
            "\n:::warning Using `pip` instead\nRun pip.\n\n:::\n"
        );
        assert_eq!(
            blocks("/// admonition | Mind\nText\n///"),
            "\n:::note Mind\nText\n\n:::\n"
        );
    }

    #[test]
    fn tabs_become_labelled_blocks_and_nest() {
        let out = blocks(
            "//// tab | Linux, macOS\n\n```bash\n$ source .venv/bin/activate\n```\n\n////\n\n//// tab | Windows\n\n/// note\nIn PowerShell.\n///\n\n////",
        );
        assert_eq!(
            out,
            "\n**Linux, macOS**\n\n\n```bash\n$ source .venv/bin/activate\n```\n\n\n\n**Windows**\n\n\n\n:::note\nIn PowerShell.\n\n:::\n\n"
        );
        assert!(!out.contains("//"), "{out}");
    }

    #[test]
    fn slashes_in_code_or_without_a_closing_line_stay() {
        for text in [
            "```rust\n/// note\nfn a() {}\n///\n```",
            "/// note that this is a doc comment",
            "/// note\nNever closed.",
            "/// unknown\nText\n///",
        ] {
            assert_eq!(blocks(text), text);
        }
        // Deeply nested blocks stay bounded.
        let deep = "/// note\n".repeat(20) + &"///\n".repeat(20);
        let out = blocks(&deep);
        assert!(out.lines().count() < 200, "{out}");
    }
}
