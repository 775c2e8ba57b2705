//! JSDoc and TSDoc as TypeDoc renders them: the description (and `@remarks`), then
//! `@typeParam`/`@template`, `@param` (with `{type}`, `[name=default]` and `name - text`),
//! `@returns`, `@throws`, `@see`; `@deprecated` and `@default` apart; `@hidden`, `@ignore`
//! and `@private` leave the symbol out. `@example` is the symbol's example, shown apart.
//! Other block tags (`@since`, `@category`, `@internal`, …) are not text.

use super::links::{self, code, jsdoc_inline, link};
use super::model::{Builder, DocComment, DocItem, join_text, markdown_text};

pub(super) fn parse(lines: &[String], fence: &str) -> DocComment {
    let mut b = Builder::default();
    let mut description: Vec<String> = Vec::new();
    let mut tags: Vec<(String, Vec<String>)> = Vec::new();
    let mut in_fence = false;
    for line in lines {
        let t = line.trim();
        if t.starts_with("```") {
            in_fence = !in_fence;
        }
        if !in_fence
            && let Some(tag) = t.strip_prefix('@')
            && tag.starts_with(|c: char| c.is_ascii_alphabetic())
        {
            let (name, rest) = tag.split_once(char::is_whitespace).unwrap_or((tag, ""));
            tags.push((name.to_string(), vec![rest.trim().to_string()]));
            continue;
        }
        match tags.last_mut() {
            Some((_, body)) => body.push(line.clone()),
            None => description.push(line.clone()),
        }
    }
    for (name, body) in &tags {
        if matches!(name.as_str(), "remarks" | "description" | "desc") {
            description.push(String::new());
            description.extend(body.iter().cloned());
        }
        // `@default false` then a blank line and more prose: the value is the first
        // paragraph; the prose after it describes the property.
        if matches!(name.as_str(), "default" | "defaultValue") {
            let (_, more) = first_paragraph(body);
            if more.iter().any(|l| !l.trim().is_empty()) {
                description.push(String::new());
                description.extend(more.iter().cloned());
            }
        }
    }
    for line in links::outside_code(&markdown_text(&description, fence), jsdoc_inline) {
        b.line(line);
    }
    for (name, body) in tags {
        let refs: Vec<&str> = body.iter().map(String::as_str).collect();
        let text = jsdoc_inline(&join_text(&refs));
        match name.as_str() {
            "param" | "arg" | "argument" => {
                let (ty, rest) = braced_type(&text);
                let (name, default, rest) = param_name(rest);
                let mut text = rest.trim_start_matches(['-', ' ']).to_string();
                if let Some(default) = default {
                    text = join_text(&[&text, &format!("Defaults to {}.", code(&default))]);
                }
                // `options.timeout` documents a member of the `options` parameter.
                b.item("Parameters", DocItem { name, ty, text });
            }
            "typeParam" | "template" => {
                let (_, rest) = braced_type(&text);
                let (name, _, rest) = param_name(rest);
                let text = rest.trim_start_matches(['-', ' ']).to_string();
                b.item(
                    "Type parameters",
                    DocItem {
                        name,
                        ty: String::new(),
                        text,
                    },
                );
            }
            "returns" | "return" => {
                let (ty, rest) = braced_type(&text);
                b.item(
                    "Returns",
                    DocItem {
                        name: String::new(),
                        ty,
                        text: rest.trim_start_matches(['-', ' ']).to_string(),
                    },
                );
            }
            "throws" | "throw" | "exception" => {
                let (ty, rest) = braced_type(&text);
                b.item(
                    "Throws",
                    DocItem {
                        name: String::new(),
                        ty,
                        text: rest.trim_start_matches(['-', ' ']).to_string(),
                    },
                );
            }
            "see" => {
                let name = if text.starts_with('[') || text.contains("](") {
                    text.clone()
                } else {
                    let (target, rest) = text.split_once(' ').unwrap_or((text.as_str(), ""));
                    join_text(&[&link(&code(target), target), rest])
                };
                b.item(
                    "See also",
                    DocItem {
                        name,
                        ty: String::new(),
                        text: String::new(),
                    },
                );
            }
            "deprecated" => b.deprecated = Some(text),
            "default" | "defaultValue" => {
                let value = first_paragraph(&body)
                    .0
                    .iter()
                    .map(|l| l.trim())
                    .filter(|l| !l.is_empty() && !l.starts_with("```"))
                    .collect::<Vec<_>>()
                    .join(" ");
                let value = value.trim_matches('`').trim().to_string();
                if !value.is_empty() {
                    b.default = Some(value);
                }
            }
            "hidden" | "ignore" | "private" => b.hidden = true,
            _ => {}
        }
    }
    b.finish()
}

/// `{Type} rest` → (`Type`, rest); no braces → ("", text).
fn braced_type(text: &str) -> (String, &str) {
    let t = text.trim_start();
    if !t.starts_with('{') {
        return (String::new(), t);
    }
    // Types nest braces: `{{a: string}}`.
    let mut depth = 0usize;
    for (i, c) in t.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return (t[1..i].trim().to_string(), t[i + 1..].trim_start());
                }
            }
            _ => {}
        }
    }
    (String::new(), t)
}

/// A tag's lines up to its first blank line outside a code fence, and the rest.
fn first_paragraph(body: &[String]) -> (&[String], &[String]) {
    let mut in_fence = false;
    let mut seen_text = false;
    for (i, line) in body.iter().enumerate() {
        let t = line.trim();
        if t.starts_with("```") {
            in_fence = !in_fence;
        }
        if t.is_empty() && !in_fence && seen_text {
            return body.split_at(i);
        }
        seen_text |= !t.is_empty();
    }
    (body, &[])
}

/// `name rest`, `[name] rest`, `[name=default] rest`.
fn param_name(text: &str) -> (String, Option<String>, &str) {
    let t = text.trim_start();
    if let Some(inner) = t.strip_prefix('[')
        && let Some(end) = inner.find(']')
    {
        let (name, default) = match inner[..end].split_once('=') {
            Some((n, d)) => (n.trim().to_string(), Some(d.trim().to_string())),
            None => (inner[..end].trim().to_string(), None),
        };
        return (name, default, &inner[end + 1..]);
    }
    match t.split_once(char::is_whitespace) {
        Some((name, rest)) => (name.to_string(), None, rest),
        None => (t.to_string(), None, ""),
    }
}
