//! rustdoc: the Markdown whole, its sections kept as labels, its intra-doc links made doc
//! links; the code examples are the symbol's, shown apart.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::links;
use super::model::{Builder, DocComment, markdown_text, tidy};
use crate::source::code::comments::is_intra_doc_target;

/// rustdoc: the Markdown whole, its intra-doc links made doc links.
pub(super) fn parse(lines: &[String], fence: &str) -> DocComment {
    let lines = rustdoc_page_links(lines);
    let text = markdown_text(&lines, fence);
    let mut builder = Builder::default();
    let defined = definitions(&lines);
    for line in links::outside_code(&text, |l| intra_doc(l, &defined)) {
        builder.line(line);
    }
    builder.finish()
}

/// Links to pages of rustdoc's own output (`index.html#section`, `struct.Slab.html`) and to
/// Rust paths (`[anyhow!]: crate::anyhow`) made inline links the intra-doc rules read, one
/// line each: a reference definition to such a target is dropped and its uses link inline,
/// and a link label broken over two lines is joined. On our page no such file exists, and
/// the definition would show as text.
fn rustdoc_page_links(lines: &[String]) -> Vec<String> {
    static INLINE: LazyLock<Regex> =
        LazyLock::new(|| crate::builtin::regex(r"\[([^\]\[]+)\]\(([^()\s]+)\)"));
    static FULL: LazyLock<Regex> =
        LazyLock::new(|| crate::builtin::regex(r"\[([^\]\[\n]+)\]\[([^\]\[\n]+)\]"));
    static SHORTCUT: LazyLock<Regex> =
        LazyLock::new(|| crate::builtin::regex(r"\[([^\]\[\n]+)\](\[\])?"));
    let mut pages: HashMap<String, String> = HashMap::new();
    let mut kept: Vec<&str> = Vec::with_capacity(lines.len());
    for line in lines {
        let definition = line
            .trim()
            .strip_prefix('[')
            .and_then(|l| l.split_once("]:"))
            .map(|(label, url)| (label, url.trim()))
            // A path's section (`crate::Context#effect-on-downcasting`) links to the item.
            .map(|(label, url)| match url.split_once('#') {
                Some((path, _)) if !path.is_empty() && !path.contains(".html") => (label, path),
                _ => (label, url),
            })
            .filter(|(_, url)| !url.contains(' ') && is_intra_doc_target(url));
        match definition {
            Some((label, url)) => {
                pages.insert(label.to_ascii_lowercase(), url.to_string());
            }
            None => kept.push(line),
        }
    }
    let text = kept.join("\n");
    if pages.is_empty() && !text.contains(".html") {
        return lines.to_vec();
    }
    let text = INLINE.replace_all(&text, |c: &Captures| {
        if c[1].contains('\n') && is_intra_doc_target(&c[2]) {
            format!(
                "[{}]({})",
                c[1].split_whitespace().collect::<Vec<_>>().join(" "),
                &c[2]
            )
        } else {
            c[0].to_string()
        }
    });
    // A full reference (`[anyhow!($args...)][anyhow!]`) to such a definition.
    let text = FULL.replace_all(&text, |c: &Captures| {
        match pages.get(&c[2].to_ascii_lowercase()) {
            Some(url) => format!("[{}]({url})", &c[1]),
            None => c[0].to_string(),
        }
    });
    let text = SHORTCUT.replace_all(&text, |c: &Captures| {
        let end = c.get(0).map_or(0, |m| m.end());
        let next = text[end..].chars().next();
        match pages.get(&c[1].to_ascii_lowercase()) {
            Some(url) if !matches!(next, Some('(' | '[' | ':')) => format!("[{}]({url})", &c[1]),
            _ => c[0].to_string(),
        }
    });
    text.lines().map(str::to_string).collect()
}

/// The labels of the comment's reference definitions (`[mio]: https://…`), lower-cased.
fn definitions(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|l| {
            let (label, url) = l.trim().strip_prefix('[')?.split_once("]:")?;
            (!url.trim().is_empty()).then(|| label.to_ascii_lowercase())
        })
        .collect()
}

/// rustdoc's intra-doc links as doc links, but a link the comment defines itself
/// (`**[mio]**` with `[mio]: https://…`) is an ordinary Markdown reference and stays one.
fn intra_doc(line: &str, defined: &[String]) -> String {
    crate::source::code::comments::intra_doc_links(line, |label, target| {
        if defined.iter().any(|d| d.eq_ignore_ascii_case(target)) {
            if label.trim_matches('`') == target {
                format!("[{label}]")
            } else {
                format!("[{label}][{target}]")
            }
        } else {
            links::link(label, target)
        }
    })
}

/// A module's `//!` documentation whole: headings and code blocks in place, the lines of a
/// Rust doctest that rustdoc hides (`# `) left out, intra-doc links made doc links.
pub(super) fn module(lines: &[String]) -> String {
    let lines = rustdoc_page_links(&without_badge_rows(lines));
    let mut kept: Vec<String> = Vec::with_capacity(lines.len());
    let mut rust_fence = None::<bool>;
    for line in lines {
        let t = line.trim_start();
        if let Some(info) = t.strip_prefix("```") {
            rust_fence = match rust_fence {
                Some(_) => None,
                None => Some(is_rust_fence(info.trim())),
            };
            // A doctest's fence names rustdoc's attributes, or nothing: it is Rust.
            if rust_fence == Some(true) {
                kept.push("```rust".to_string());
            } else {
                kept.push(line.clone());
            }
            continue;
        }
        if rust_fence == Some(true) && (t == "#" || t.starts_with("# ")) {
            continue;
        }
        kept.push(line.clone());
    }
    let defined = definitions(&kept);
    tidy(&links::outside_code(&kept, |l| intra_doc(l, &defined)))
}

/// Image sources that mark a status badge.
const BADGE_MARKS: [&str; 3] = ["badge", "shields.io", "badgen.net"];

/// `lines` without their rows of status badges (text for someone else): lines of nothing but
/// images, linked or not, inline or by reference (`[![github]](https://github.com/a/b)` with
/// `[github]: https://img.shields.io/…` below), whose every source names a badge service,
/// with the reference definitions only they use and a `<br>` right after them.
fn without_badge_rows(lines: &[String]) -> Vec<String> {
    use std::sync::LazyLock;
    static DEFINITION: LazyLock<regex::Regex> =
        LazyLock::new(|| crate::builtin::regex(r"^\s*\[([^\]\n]+)\]:\s*<?(\S+?)>?(?:\s.*)?$"));
    static IMAGE: LazyLock<regex::Regex> = LazyLock::new(|| {
        crate::builtin::regex(
            r"\[?!\[([^\]\n]*)\](?:\(\s*<?([^)\s>]+)>?[^)]*\)|\[([^\]\n]*)\])?(?:\]\([^)\n]*\)|\]\[[^\]\n]*\])?",
        )
    });
    let definitions: std::collections::HashMap<String, String> = lines
        .iter()
        .filter_map(|l| DEFINITION.captures(l))
        .map(|c| (c[1].to_ascii_lowercase(), c[2].to_ascii_lowercase()))
        .collect();
    let mut used: Vec<String> = Vec::new();
    let mut rows: Vec<usize> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let mut labels = Vec::new();
        let mut images = 0;
        let all_badges = IMAGE.captures_iter(line).all(|c| {
            images += 1;
            let label = c
                .get(3)
                .filter(|m| !m.as_str().is_empty())
                .or_else(|| c.get(1))
                .map_or(String::new(), |m| m.as_str().to_ascii_lowercase());
            let source = match c.get(2) {
                Some(inline) => inline.as_str().to_ascii_lowercase(),
                None => definitions.get(&label).cloned().unwrap_or_default(),
            };
            labels.push(label);
            BADGE_MARKS.iter().any(|m| source.contains(m))
        });
        let rest = IMAGE.replace_all(line, "");
        let rest = rest
            .replace("&ensp;", "")
            .replace("&emsp;", "")
            .replace("&nbsp;", "");
        if images > 0 && all_badges && rest.trim().is_empty() {
            rows.push(i);
            used.extend(labels);
        }
    }
    if rows.is_empty() {
        return lines.to_vec();
    }
    let elsewhere = |label: &str, i: usize| {
        lines.iter().enumerate().any(|(j, l)| {
            !rows.contains(&j)
                && j != i
                && !DEFINITION.is_match(l)
                && l.to_ascii_lowercase().contains(&format!("[{label}]"))
        })
    };
    let mut out = Vec::with_capacity(lines.len());
    let mut after_row = false;
    for (i, line) in lines.iter().enumerate() {
        if rows.contains(&i) {
            after_row = true;
            continue;
        }
        if let Some(c) = DEFINITION.captures(line) {
            let label = c[1].to_ascii_lowercase();
            if used.contains(&label) && !elsewhere(&label, i) {
                continue;
            }
        }
        let t = line.trim().to_ascii_lowercase();
        if after_row && matches!(t.as_str(), "<br>" | "<br/>" | "<br />") {
            after_row = false;
            continue;
        }
        if !t.is_empty() && !DEFINITION.is_match(line) {
            after_row = false;
        }
        out.push(line.clone());
    }
    // The blank lines left where the rows were are one.
    let mut tidy_out: Vec<String> = Vec::with_capacity(out.len());
    for line in out {
        let blank = line.trim().is_empty();
        if blank && tidy_out.last().is_none_or(|l: &String| l.trim().is_empty()) {
            continue;
        }
        tidy_out.push(line);
    }
    tidy_out
}

/// Whether a doctest's info string makes it Rust (rustdoc's default).
fn is_rust_fence(info: &str) -> bool {
    let first = info.split([',', ' ']).next().unwrap_or("");
    matches!(
        first,
        "" | "rust"
            | "no_run"
            | "ignore"
            | "should_panic"
            | "compile_fail"
            | "edition2018"
            | "edition2021"
            | "edition2024"
    )
}
