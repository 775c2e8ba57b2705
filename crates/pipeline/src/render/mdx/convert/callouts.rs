//! Blocks recognised by their first line: admonitions (Docusaurus, MkDocs, GitHub),
//! `<details>`, setext underlines.

use crate::source::docs::{closes_fence, opens_fence};

pub(crate) fn starts_with_details(line: &str) -> bool {
    let trimmed = line.trim_start().to_ascii_lowercase();
    ["<details", "</details", "<summary"]
        .iter()
        .any(|tag| trimmed.starts_with(tag))
}

/// The level of a setext underline (`===` → 1, `---` → 2).
pub(crate) fn setext_level(line: &str) -> Option<usize> {
    let trimmed = line.trim();
    let indent = line.len() - line.trim_start().len();
    if indent > 3 || trimmed.is_empty() {
        return None;
    }
    if trimmed.chars().all(|c| c == '=') {
        Some(1)
    } else if trimmed.chars().all(|c| c == '-') {
        Some(2)
    } else {
        None
    }
}

pub(crate) struct Callout {
    pub(crate) component: &'static str,
    pub(crate) title: String,
    pub(crate) body: Vec<String>,
    /// The line after the admonition.
    pub(crate) next: usize,
}

/// The component an admonition kind becomes.
pub(crate) fn component(kind: &str) -> Option<&'static str> {
    Some(match kind.to_ascii_lowercase().as_str() {
        "note" | "info" | "important" | "abstract" | "summary" | "tldr" | "question"
        | "example" | "quote" | "seealso" | "todo" => "Note",
        "tip" | "hint" | "success" | "check" | "done" => "Tip",
        "warning" | "caution" | "danger" | "attention" | "error" | "failure" | "fail" | "bug"
        | "missing" => "Warning",
        _ => return None,
    })
}

/// An admonition starting at line `i`, in any of the three syntaxes.
pub(crate) fn callout(lines: &[String], i: usize) -> Option<Callout> {
    let line = lines[i].as_str();
    let trimmed = line.trim_start();
    if trimmed.starts_with(":::") {
        return docusaurus(lines, i, trimmed);
    }
    if line.len() - trimmed.len() <= 3 && (trimmed.starts_with("!!!") || trimmed.starts_with("???"))
    {
        return mkdocs(lines, i, trimmed);
    }
    if trimmed.starts_with('>') {
        return github(lines, i, trimmed);
    }
    None
}

fn docusaurus(lines: &[String], i: usize, trimmed: &str) -> Option<Callout> {
    let colons = trimmed.chars().take_while(|c| *c == ':').count();
    // VitePress writes a space after the colons (`::: info`).
    let rest = trimmed[colons..].trim_start();
    let kind: String = rest.chars().take_while(char::is_ascii_alphabetic).collect();
    // Any other named container (VitePress's `::: code-group`, `::: details`) only groups
    // what it holds: that is shown without it.
    let component = match component(&kind) {
        Some(component) => component,
        None if colons >= 3 && !kind.is_empty() => "",
        None => return None,
    };
    let title = rest[kind.len()..]
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim();
    // `{title="…"}` and similar directive attributes are not a title.
    let title = if title.starts_with('{') { "" } else { title };
    let mut body = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    let mut j = i + 1;
    while j < lines.len() {
        let line = &lines[j];
        j += 1;
        if let Some((ch, len)) = fence {
            if closes_fence(line, ch, len) {
                fence = None;
            }
        } else if let Some((ch, len, _)) = opens_fence(line) {
            fence = Some((ch, len));
        } else {
            let t = line.trim();
            if t.len() == colons && t.chars().all(|c| c == ':') {
                break;
            }
        }
        body.push(line.clone());
    }
    Some(Callout {
        component,
        title: title.to_string(),
        body,
        next: j,
    })
}

fn mkdocs(lines: &[String], i: usize, trimmed: &str) -> Option<Callout> {
    let rest = trimmed[3..].trim_start_matches('+').trim_start();
    let kind: String = rest.chars().take_while(char::is_ascii_alphabetic).collect();
    if kind.is_empty() {
        return None;
    }
    let component = component(&kind)?;
    let after = rest[kind.len()..].trim();
    let title = after
        .strip_prefix('"')
        .and_then(|t| t.split('"').next())
        .unwrap_or("");
    let mut body = Vec::new();
    let mut last_text = i;
    let mut j = i + 1;
    while j < lines.len() {
        let line = &lines[j];
        if line.trim().is_empty() {
            body.push(String::new());
        } else if let Some(inner) = line
            .strip_prefix("    ")
            .or_else(|| line.strip_prefix('\t'))
        {
            body.push(inner.to_string());
            last_text = j;
        } else {
            break;
        }
        j += 1;
    }
    body.truncate(last_text - i);
    Some(Callout {
        component,
        title: title.to_string(),
        body,
        next: last_text + 1,
    })
}

pub(crate) fn github(lines: &[String], i: usize, trimmed: &str) -> Option<Callout> {
    let marker = trimmed[1..].trim();
    let kind = marker.strip_prefix("[!")?.strip_suffix(']')?;
    if !kind.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let component = match kind.to_ascii_uppercase().as_str() {
        "NOTE" | "IMPORTANT" => "Note",
        "TIP" => "Tip",
        "WARNING" | "CAUTION" => "Warning",
        _ => return None,
    };
    let mut body = Vec::new();
    let mut j = i + 1;
    while j < lines.len() {
        let Some(inner) = lines[j].trim_start().strip_prefix('>') else {
            break;
        };
        body.push(inner.strip_prefix(' ').unwrap_or(inner).to_string());
        j += 1;
    }
    Some(Callout {
        component,
        title: String::new(),
        body,
        next: j,
    })
}
