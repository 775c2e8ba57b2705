//! Lines and titles: list items, step numbers, and a step's title and lead read from its
//! first paragraph.

use super::MAX_TITLE_CHARS;

/// An ordered list item at the top level: the width of its marker and its text.
pub(crate) fn list_item(line: &str) -> Option<(usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let after = &rest[digits..];
    let text = after.strip_prefix(['.', ')'])?;
    if !text.starts_with([' ', '\t']) {
        return None;
    }
    let spaces = text.len() - text.trim_start().len();
    Some((indent + digits + 1 + spaces, text.trim()))
}

/// `text` without anything that looks like an HTML tag (`<` then a letter or `/`, up to `>`).
fn strip_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let tag = after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/');
        match after.find('>').filter(|_| tag) {
            Some(close) => rest = &after[close + 1..],
            None => {
                out.push('<');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

pub(crate) fn strip_indent(line: &str, width: usize) -> &str {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    &line[spaces.min(width)..]
}

/// The text of a step heading without its number (`Step 2: Configure` → `Configure`), or
/// `None` when the heading is not numbered as a step.
pub(crate) fn step_number(text: &str) -> Option<&str> {
    let lower = text.to_ascii_lowercase();
    let rest = if lower.starts_with("step") {
        let after = text[4..].trim_start();
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        &after[digits..]
    } else {
        let digits = text.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 || digits > 3 || !text[digits..].starts_with(['.', ')']) {
            return None;
        }
        &text[digits + 1..]
    };
    let rest = rest
        .trim_start_matches([':', '.', ')', '-', '–', '—', ' '])
        .trim();
    Some(if rest.is_empty() { text } else { rest })
}

/// A step title from the first line of a list item or paragraph: its first sentence or the
/// part before a colon, and the rest (which goes into the step's body).
/// A step's title from the first paragraph of its text, and the Markdown of that paragraph its
/// body keeps: the sentences after the title, or all of it when the title lost something
/// (inline code, links, emphasis, words past the length limit) or when `alone` (nothing else
/// would be in the body).
pub(crate) fn title_and_lead(lead: &str, alone: bool) -> (String, String) {
    let (title, first, rest) = split_title(lead);
    let plain = first
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches([':', '.'])
        .trim()
        .to_string();
    if alone || title != plain {
        (title, lead.trim().to_string())
    } else {
        (title, rest.to_string())
    }
}

/// A title (see [`clean_title`]), the text it was made of and the rest.
fn split_title(text: &str) -> (String, &str, &str) {
    let text = text.trim();
    let mut cut = None;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut in_code = false;
    for (n, (i, c)) in chars.iter().enumerate() {
        if *c == '`' {
            in_code = !in_code;
        }
        let next_is_space = chars.get(n + 1).is_none_or(|(_, c)| c.is_whitespace());
        if !in_code && matches!(c, '.' | ':' | '!' | '?') && next_is_space && *i >= 3 {
            cut = Some(*i);
            break;
        }
    }
    match cut {
        Some(i) => (clean_title(&text[..i]), &text[..i], text[i + 1..].trim()),
        None => (clean_title(text), text, ""),
    }
}

/// A title without Markdown syntax (emphasis, code ticks, link targets, HTML tags), at most
/// [`MAX_TITLE_CHARS`] long.
pub(crate) fn clean_title(text: &str) -> String {
    let text = strip_tags(text);
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find("](") {
            Some(close) if !after[..close].contains('[') => {
                out.push_str(&after[..close]);
                let target = &after[close + 2..];
                rest = target.find(')').map_or("", |end| &target[end + 1..]);
            }
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    let cleaned: String = out
        .chars()
        .filter(|c| !matches!(c, '*' | '`'))
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let cleaned = cleaned.trim_end_matches([':', '.']).trim();
    if cleaned.chars().count() <= MAX_TITLE_CHARS {
        return cleaned.to_string();
    }
    let mut short = String::new();
    for word in cleaned.split(' ') {
        if short.chars().count() + word.chars().count() + 1 > MAX_TITLE_CHARS - 1 {
            break;
        }
        if !short.is_empty() {
            short.push(' ');
        }
        short.push_str(word);
    }
    if short.is_empty() {
        short = cleaned.chars().take(MAX_TITLE_CHARS - 1).collect();
    }
    short.push('…');
    short
}
