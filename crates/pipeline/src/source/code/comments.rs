//! What the developer docs take from a doc comment once its markers are gone: the first
//! sentence (TypeDoc, rustdoc's summary line; `source::sentences`), the code examples (Rust doctests, Python
//! doctests, JSDoc `@example`), and a module's overview.

use serde::Serialize;

pub(crate) use crate::source::sentences::first_sentence;

/// A code example of a symbol, shown as a code block under it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Example {
    /// The info string of the code fence.
    pub language: String,
    pub code: String,
    /// Go `ExampleX_suffix` examples carry their suffix; empty otherwise.
    pub label: String,
}

/// Examples a symbol shows, and lines one example keeps: a doc comment of a generated file
/// can hold thousands.
const MAX_EXAMPLES: usize = 8;
const MAX_EXAMPLE_LINES: usize = 80;
/// A Go doc comment's lines up to its first preformatted block: gofmt and pkg.go.dev take
/// an indented line for code, even right after a paragraph line.
pub(crate) fn before_preformatted(lines: &[String]) -> &[String] {
    let end = lines
        .iter()
        .position(|l| l.starts_with([' ', '\t']) && !l.trim().is_empty())
        .unwrap_or(lines.len());
    &lines[..end]
}

/// Rust doc text with its intra-doc links as rustdoc reads them, not as literal brackets:
/// `` [`Value`] `` and `` [`Value`](crate::kv::Value) `` become `` `Value` ``, `[text][Key]`
/// becomes `text`. Links to URLs and relative files stay links.
pub(crate) fn without_intra_doc_links(text: &str) -> String {
    intra_doc_links(text, |label, _| label.to_string())
}

/// Rust doc text with each intra-doc link replaced by `link(label, target)`: the label as
/// written (`` `Value` ``), the target a Rust path (`Value`, `crate::kv::Key`) or a rustdoc
/// page. Links to URLs and relative files stay links.
pub(crate) fn intra_doc_links(text: &str, link: impl Fn(&str, &str) -> String) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find(['[', '`']) {
        out.push_str(&rest[..open]);
        if rest[open..].starts_with('`') {
            // A code span is code: `&[u8]` keeps its brackets.
            let span = &rest[open + 1..];
            let end = span.find('`').map_or(rest.len(), |e| open + 1 + e + 1);
            out.push_str(&rest[open..end]);
            rest = &rest[end..];
            continue;
        }
        let after = &rest[open + 1..];
        // An image's alt text (`![github]`, inside a badge's `[![github]](url)`) is no link.
        if rest[..open].ends_with('!') {
            match after.find(']') {
                Some(close) => {
                    out.push_str(&rest[open..open + 1 + close + 1]);
                    rest = &after[close + 1..];
                }
                None => {
                    out.push_str(&rest[open..]);
                    return out;
                }
            }
            continue;
        }
        let Some(close) = after.find(']') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let label = &after[..close];
        let tail = &after[close + 1..];
        if label.contains('[') || label.trim().is_empty() {
            out.push('[');
            rest = after;
            continue;
        }
        if let Some(target) = tail.strip_prefix('(') {
            match target.find(')') {
                Some(end) if is_intra_doc_target(&target[..end]) => {
                    out.push_str(&link(label, target[..end].trim()));
                    rest = &target[end + 1..];
                }
                _ => {
                    out.push('[');
                    rest = after;
                }
            }
            continue;
        }
        if let Some(reference) = tail.strip_prefix('[') {
            match reference.find(']') {
                Some(end) if is_intra_doc_target(reference[..end].trim_matches('`')) => {
                    out.push_str(&link(label, reference[..end].trim_matches('`').trim()));
                    rest = &reference[end + 1..];
                }
                _ => {
                    out.push('[');
                    rest = after;
                }
            }
            continue;
        }
        if is_intra_doc_target(label.trim_matches('`')) && !tail.starts_with(':') {
            out.push_str(&link(label, label.trim_matches('`').trim()));
            rest = tail;
            continue;
        }
        out.push('[');
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Whether a link target is a Rust path (`Value`, `crate::kv::Value`, `Self::new`,
/// `log!`, `fn@log`) or a page of rustdoc's own output (`struct.Value.html#method.new`,
/// `../log/macro.info.html`) rather than a URL or a file of the repository.
pub(crate) fn is_intra_doc_target(target: &str) -> bool {
    let target = target.trim();
    if !target.contains("://") {
        let page = target.split('#').next().unwrap_or(target);
        let file = page.rsplit('/').next().unwrap_or(page);
        let rustdoc_page = file.strip_suffix(".html").is_some_and(|stem| {
            stem == "index"
                || stem.split_once('.').is_some_and(|(kind, _)| {
                    matches!(
                        kind,
                        "struct"
                            | "enum"
                            | "trait"
                            | "fn"
                            | "macro"
                            | "type"
                            | "constant"
                            | "static"
                            | "union"
                            | "primitive"
                            | "derive"
                            | "attr"
                    )
                })
        });
        if rustdoc_page {
            return true;
        }
    }
    let target = target.split_once('@').map_or(target, |(namespace, path)| {
        if matches!(
            namespace,
            "struct"
                | "enum"
                | "trait"
                | "fn"
                | "mod"
                | "macro"
                | "type"
                | "const"
                | "static"
                | "method"
                | "field"
                | "value"
                | "prim"
                | "union"
                | "derive"
        ) {
            path
        } else {
            target
        }
    });
    let target = target.strip_suffix("()").unwrap_or(target);
    let target = target.strip_suffix('!').unwrap_or(target);
    !target.is_empty()
        && target.split("::").all(|segment| {
            let segment = segment.split('<').next().unwrap_or(segment);
            !segment.is_empty() && segment.chars().all(|c| c.is_alphanumeric() || c == '_')
        })
}

/// The examples a doc comment declares apart from its text: JSDoc `@example` tags, shown
/// as TypeDoc shows them, under the symbol. Code blocks and `>>>` sessions of the text are
/// shown in place (see `doc_comment`). `language` is the fence of the examples.
pub(crate) fn tag_examples(lines: &[String], language: &str) -> Vec<Example> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() && found.len() < MAX_EXAMPLES {
        let line = lines[i].trim();
        let Some(rest) = line.strip_prefix("@example") else {
            i += 1;
            continue;
        };
        let mut code = Vec::new();
        if !rest.trim().is_empty() {
            code.push(rest.trim());
        }
        i += 1;
        while i < lines.len() && !lines[i].trim_start().starts_with('@') {
            let l = lines[i].as_str();
            if !l.trim().starts_with("```") {
                code.push(l);
            }
            i += 1;
        }
        while code.last().is_some_and(|l| l.trim().is_empty()) {
            code.pop();
        }
        push_example(&mut found, language, &code);
    }
    found
}

/// The fence an example is shown with, or `None` for a block that is not code.
pub(crate) fn doctest_language<'a>(info: &'a str, language: &'a str) -> Option<&'a str> {
    let first = info.split([',', ' ']).next().unwrap_or("");
    match first {
        "" => Some(language),
        // rustdoc's attributes on a Rust doctest.
        "no_run" | "ignore" | "should_panic" | "compile_fail" | "edition2018" | "edition2021"
        | "edition2024" => Some(language),
        "text" | "txt" | "console" | "output" | "plain" => None,
        other => Some(other),
    }
}

fn push_example(found: &mut Vec<Example>, language: &str, code: &[&str]) {
    let lines: Vec<&str> = code.iter().take(MAX_EXAMPLE_LINES).copied().collect();
    let mut text = dedent(&lines).trim_matches('\n').to_string();
    if code.len() > MAX_EXAMPLE_LINES {
        text.push_str("\n…");
    }
    if !text.trim().is_empty() {
        found.push(Example {
            language: language.to_string(),
            code: text,
            label: String::new(),
        });
    }
}

/// Lines without the indentation they all share.
pub(crate) fn dedent(lines: &[&str]) -> String {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or(l.trim_start()).trim_end())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn examples_are_jsdoc_example_tags_only() {
        // Code blocks and doctest sessions of the text are shown in place, not apart.
        let rust = lines("Adds.\n\n```\nassert_eq!(add(1, 2), 3);\n```");
        assert_eq!(tag_examples(&rust, "rust"), vec![]);
        let python = lines("Adds.\n\n>>> add(1, 2)\n3\n\nMore.");
        assert_eq!(tag_examples(&python, "python"), vec![]);
        let jsdoc = lines("Adds.\n@example\n  add(1, 2);\n  // => 3\n@returns the sum");
        let found = tag_examples(&jsdoc, "typescript");
        assert_eq!(found[0].code, "add(1, 2);\n// => 3");
        assert_eq!(found[0].language, "typescript");
    }

    #[test]
    fn intra_doc_links_read_as_their_text() {
        let cases = [
            ("defines the [`Value`] type", "defines the `Value` type"),
            ("a [`Key`](crate::kv::Key).", "a `Key`."),
            ("see [the key][`Key`] and [Level]", "see the key and Level"),
            ("a [`Value`](struct.Value.html#method.new)", "a `Value`"),
            ("[`info!`](../log/macro.info.html)", "`info!`"),
            ("[docs](https://docs.rs/log)", "[docs](https://docs.rs/log)"),
            ("[guide](docs/guide.md)", "[guide](docs/guide.md)"),
            ("takes `&[u8]` and [0, 1)", "takes `&[u8]` and [0, 1)"),
            ("[`Self::new`] or [`fn@log`]", "`Self::new` or `fn@log`"),
            // A badge: a link around a reference image keeps its form.
            (
                "[![github]](https://github.com/a/b)&ensp;[![docs-rs]](https://docs.rs/b)",
                "[![github]](https://github.com/a/b)&ensp;[![docs-rs]](https://docs.rs/b)",
            ),
            ("![logo](img.svg) and [`Key`]", "![logo](img.svg) and `Key`"),
        ];
        for (text, expected) in cases {
            assert_eq!(without_intra_doc_links(text), expected, "{text}");
        }
    }

    #[test]
    fn preformatted_go_lines_end_the_paragraph() {
        let doc = lines("Formats:\n  xxxx-xxxx\n\tyyyy\nIt returns.");
        assert_eq!(before_preformatted(&doc), &doc[..1]);
        assert_eq!(first_sentence(before_preformatted(&doc)), "Formats:");
    }
}
