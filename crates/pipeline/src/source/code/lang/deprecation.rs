//! Deprecations that languages write outside the doc comment: Rust's `#[deprecated]`
//! attribute (rustdoc's "Deprecated since 1.2.0: note"), Python's `@deprecated` decorators
//! (PEP 702's `warnings.deprecated`, `typing_extensions.deprecated`, the `deprecation` and
//! `deprecated` packages). JSDoc's `@deprecated` and Go's `Deprecated:` paragraph are doc
//! comment text, read with it.

use tree_sitter::Node;

use super::Language;
use crate::source::code::tree::Source;

/// Attributes or decorators read before giving up: a generated file can stack thousands.
const MAX_ATTRIBUTES: usize = 64;
/// The longest message kept.
const MAX_MESSAGE_CHARS: usize = 2_000;

/// The deprecation message of the declaration at `node` (possibly empty), when it is
/// deprecated by an attribute or decorator.
pub(crate) fn deprecation(language: Language, node: Node, src: &Source) -> Option<String> {
    match language {
        Language::Rust => rust(node, src),
        Language::Python => python(node, src),
        _ => None,
    }
}

/// `#[deprecated]`, `#[deprecated = "note"]`, `#[deprecated(since = "1.2", note = "…")]`
/// among the attributes right before the item.
fn rust(node: Node, src: &Source) -> Option<String> {
    let mut sibling = node.prev_sibling();
    let mut seen = 0;
    while let Some(s) = sibling {
        if seen >= MAX_ATTRIBUTES {
            return None;
        }
        seen += 1;
        match s.kind() {
            "attribute_item" => {
                let text = src.of(s);
                let inner = text
                    .trim()
                    .trim_start_matches("#[")
                    .trim_end_matches(']')
                    .trim();
                if let Some(rest) = inner.strip_prefix("deprecated") {
                    let rest = rest.trim();
                    if rest.is_empty() {
                        return Some(String::new());
                    }
                    if let Some(note) = rest.strip_prefix('=') {
                        return Some(bounded(string_literal(note.trim()).unwrap_or_default()));
                    }
                    if rest.starts_with('(') {
                        let since = named_string(rest, "since");
                        let note = named_string(rest, "note").unwrap_or_default();
                        return Some(bounded(match since {
                            Some(since) if note.is_empty() => format!("Since {since}."),
                            Some(since) => format!("Since {since}: {note}"),
                            None => note,
                        }));
                    }
                }
            }
            "line_comment" | "block_comment" => {}
            _ => return None,
        }
        sibling = s.prev_sibling();
    }
    None
}

/// `@deprecated("Use x")`, `@warnings.deprecated("…")`, `@deprecated(reason="…")`,
/// `@deprecation.deprecated(deprecated_in="1.0", details="Use x")`, plain `@deprecated`.
fn python(node: Node, src: &Source) -> Option<String> {
    let decorated = node
        .parent()
        .filter(|p| p.kind() == "decorated_definition")?;
    let mut cursor = decorated.walk();
    for decorator in decorated
        .children(&mut cursor)
        .filter(|c| c.kind() == "decorator")
        .take(MAX_ATTRIBUTES)
    {
        let text = src.of(decorator).trim_start_matches('@').trim();
        let name = text.split(['(', ' ', '\n']).next().unwrap_or("");
        let last = name.rsplit('.').next().unwrap_or(name);
        if last != "deprecated" {
            continue;
        }
        let Some(args) = text.strip_prefix(name).map(str::trim) else {
            return Some(String::new());
        };
        let message = named_string(args, "details")
            .or_else(|| named_string(args, "reason"))
            .or_else(|| named_string(args, "message"))
            .or_else(|| {
                args.strip_prefix('(')
                    .and_then(|a| string_literal(a.trim_start()))
            })
            .unwrap_or_default();
        let since = named_string(args, "deprecated_in").or_else(|| named_string(args, "version"));
        return Some(bounded(match since {
            Some(since) if message.is_empty() => format!("Since version {since}."),
            Some(since) => format!("Since version {since}: {message}"),
            None => message,
        }));
    }
    None
}

/// The string after `name =` in an argument list.
fn named_string(args: &str, name: &str) -> Option<String> {
    let mut from = 0;
    while let Some(at) = args.get(from..)?.find(name) {
        let start = from + at;
        let before = args[..start].chars().next_back();
        let after = args[start + name.len()..].trim_start();
        if before.is_none_or(|c| !c.is_alphanumeric() && c != '_')
            && let Some(value) = after.strip_prefix('=')
            && let Some(text) = string_literal(value.trim_start())
        {
            return Some(text);
        }
        from = start + name.len();
    }
    None
}

/// The text of the string literal at the start of `text` (`"…"`, `'…'`, Python's `r"…"`),
/// adjacent literals joined; escapes of quotes undone.
fn string_literal(text: &str) -> Option<String> {
    let mut rest = text;
    let mut out = String::new();
    let mut found = false;
    loop {
        let t = rest
            .trim_start()
            .trim_start_matches(['r', 'R', 'f', 'u', 'b']);
        let Some(quote) = t.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            break;
        };
        let body = &t[1..];
        let mut end = None;
        let mut escaped = false;
        for (i, c) in body.char_indices() {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == quote {
                end = Some(i);
                break;
            }
        }
        let end = end?;
        out.push_str(&body[..end].replace(&format!("\\{quote}"), &quote.to_string()));
        found = true;
        rest = &body[end + 1..];
    }
    found.then_some(out)
}

fn bounded(text: String) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() > MAX_MESSAGE_CHARS {
        let cut: String = text.chars().take(MAX_MESSAGE_CHARS - 1).collect();
        format!("{cut}…")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_arguments() {
        assert_eq!(
            named_string(r#"(since = "1.2", note = "use `b`")"#, "note").as_deref(),
            Some("use `b`")
        );
        assert_eq!(
            named_string(r#"(details="x", deprecated_in="2.0")"#, "deprecated_in").as_deref(),
            Some("2.0")
        );
        assert_eq!(string_literal(r#""a" "b")"#).as_deref(), Some("ab"));
        assert_eq!(string_literal(r#"'it\'s'"#).as_deref(), Some("it's"));
        assert_eq!(string_literal("x"), None);
        assert_eq!(string_literal(r#""open"#), None);
    }
}
