//! A `#[macro_export]` macro defined inside another macro's invocation, as anyhow defines
//! `ensure!` (`__ensure![ #[macro_export] macro_rules! ensure { … } ]`, the wrapper adding
//! the doc comment to the item it is given): rustdoc documents the expanded macro, so it is
//! read from the invocation's text, with the doc comments inside the invocation or, failing
//! those, the ones the wrapper's `macro_rules!` puts before the item.

use tree_sitter::Node;

use crate::source::code::lang::common::bounded;
use crate::source::code::symbol::SymbolKind;
use crate::source::code::tree::{Declaration, Place, Source};

/// The longest invocation read, and the most rules shown.
const MAX_INVOCATION_BYTES: usize = 200_000;
const MAX_RULES: usize = 64;

pub(crate) fn rust_nested_macro<'t>(
    def: Node<'t>,
    place: &Place<'_, 't>,
    src: &Source,
) -> Option<Declaration<'t>> {
    if !matches!(place.kind_up(0), "source_file" | "declaration_list") {
        return None;
    }
    // rustdoc builds with `cfg(doc)`: the variant compiled without it is not what it shows.
    let hidden_from_docs = place.leading.iter().any(|a| {
        let text: String = src.of(*a).split_whitespace().collect();
        text.contains("cfg(not(doc))")
    });
    let text = src.of(def);
    if hidden_from_docs || text.len() > MAX_INVOCATION_BYTES {
        return None;
    }
    let export = text.find("#[macro_export]")?;
    let after = &text[export..];
    let rest = after[after.find("macro_rules!")? + "macro_rules!".len()..].trim_start();
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if name.is_empty() || name.starts_with("__") {
        return None;
    }
    let body = &rest[name.len()..];
    let rules = rule_patterns(body.trim_start().strip_prefix('{')?);
    let signature = if rules.is_empty() {
        format!("macro_rules! {name}")
    } else {
        let rules: Vec<String> = rules
            .iter()
            .map(|p| format!("    {p} => {{ ... }};"))
            .collect();
        bounded(&format!("macro_rules! {name} {{\n{}\n}}", rules.join("\n")))
    };
    let mut doc = doc_lines(&text[..export]);
    if doc.is_empty() {
        let wrapper = def.child_by_field_name("macro").map(|m| src.of(m))?;
        doc = wrapper_doc(src.text, wrapper);
    }
    Some(Declaration {
        requires: None,
        kind: SymbolKind::Macro,
        name: format!("{name}!"),
        signature,
        doc,
        node: def,
        hash_end: def.end_byte(),
        parent: None,
        stub: false,
    })
}

/// The `///` lines of `text`, without their markers.
fn doc_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("///"))
        .filter(|l| !l.starts_with('/'))
        .map(|l| l.strip_prefix(' ').unwrap_or(l).trim_end().to_string())
        .collect()
}

/// The doc comment a wrapper `macro_rules! wrapper { ($item:item) => { /// … $item }; }` of
/// the same file puts before the item it is given.
fn wrapper_doc(file: &str, wrapper: &str) -> Vec<String> {
    let Some(at) = file.find(&format!("macro_rules! {wrapper} ")) else {
        return Vec::new();
    };
    let rest = &file[at..];
    let Some(open) = rest.find('{') else {
        return Vec::new();
    };
    let body = &rest[open..open + group_len(&rest[open..])];
    doc_lines(body)
}

/// The length of the bracketed group `text` starts with, its closing bracket included (all
/// of `text` when it is not closed).
fn group_len(text: &str) -> usize {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    text.len()
}

/// The pattern of each rule of a `macro_rules!` body (after its opening brace): `(…) => {…};`
/// gives `(…)`, its whitespace collapsed.
fn rule_patterns(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = body.trim_start();
    while out.len() < MAX_RULES && rest.starts_with(['(', '[', '{']) {
        let pattern_len = group_len(rest);
        let pattern = rest[..pattern_len].split_whitespace().collect::<Vec<_>>();
        out.push(pattern.join(" "));
        rest = rest[pattern_len..].trim_start();
        let Some(after_arrow) = rest.strip_prefix("=>") else {
            break;
        };
        rest = after_arrow.trim_start();
        rest = rest[group_len(rest)..].trim_start();
        rest = rest.strip_prefix(';').unwrap_or(rest).trim_start();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_and_wrapper_docs_are_read_from_text() {
        assert_eq!(
            rule_patterns(
                "($cond:expr $(,)?) => { if !$cond {} };\n ($cond:expr, $msg:literal) => {{}}; }"
            ),
            ["($cond:expr $(,)?)", "($cond:expr, $msg:literal)"]
        );
        assert!(rule_patterns("}").is_empty());
        let file = "macro_rules! wrap {\n    ($item:item) => {\n        /// Return early.\n        ///\n        /// More.\n        $item\n    };\n}\n";
        assert_eq!(wrapper_doc(file, "wrap"), ["Return early.", "", "More."]);
        assert!(wrapper_doc("macro_rules! wrap {", "wrap").is_empty());
    }
}
