//! Go doc comments as pkg.go.dev renders them (the syntax of Go 1.19's `go/doc/comment`):
//! paragraphs; a span of indented lines is a code block, or a list when it starts with a
//! list marker; `# Heading` lines and the implicit headings of older comments; `[Name]` and `[pkg.Name]` doc links; `[text]: URL` link
//! definitions; a paragraph that starts `Deprecated: ` is the deprecation notice.

use super::links::go_inline;
use super::model::{Builder, DocComment, join_text};

pub(super) fn parse(lines: &[String]) -> DocComment {
    let mut b = Builder::default();
    // Link definitions, `[text]: https://…`, keep their brackets.
    let defined: Vec<String> = lines
        .iter()
        .filter_map(|l| {
            let t = l.trim();
            let (label, url) = t.strip_prefix('[')?.split_once("]:")?;
            let url = url.trim();
            (url.starts_with("http://") || url.starts_with("https://")).then(|| label.to_string())
        })
        .collect();
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        let t = line.trim();
        if t.is_empty() {
            b.line("");
            i += 1;
            continue;
        }
        if line.starts_with([' ', '\t']) {
            let start = i;
            while i < lines.len()
                && (lines[i].starts_with([' ', '\t']) || lines[i].trim().is_empty())
            {
                i += 1;
            }
            let mut end = i;
            while end > start && lines[end - 1].trim().is_empty() {
                end -= 1;
            }
            let block: Vec<&str> = lines[start..end].iter().map(String::as_str).collect();
            if is_list(t) {
                list(&mut b, &block, &defined);
            } else {
                let text = crate::source::code::comments::dedent(&block);
                b.line("");
                b.line("```");
                for l in text.lines() {
                    b.line(l.to_string());
                }
                b.line("```");
                b.line("");
            }
            continue;
        }
        if let Some(heading) = t.strip_prefix("# ")
            && lines.get(i + 1).is_none_or(|n| n.trim().is_empty())
            && (i == 0 || lines[i - 1].trim().is_empty())
        {
            b.line(format!("**{}**", heading.trim()));
            b.line("");
            i += 1;
            continue;
        }
        if is_old_heading(lines, i) {
            b.line(format!("**{t}**"));
            b.line("");
            i += 1;
            continue;
        }
        // A paragraph: up to a blank or an indented line.
        let start = i;
        while i < lines.len() && !lines[i].trim().is_empty() && !lines[i].starts_with([' ', '\t']) {
            i += 1;
        }
        let paragraph: Vec<&str> = lines[start..i].iter().map(String::as_str).collect();
        if let Some(rest) = paragraph
            .first()
            .and_then(|first| first.trim().strip_prefix("Deprecated:"))
        {
            let mut text = vec![rest];
            text.extend(paragraph.iter().skip(1));
            b.deprecated = Some(go_inline(&join_text(&text), &defined));
            continue;
        }
        for l in paragraph {
            b.line(go_inline(l, &defined));
        }
    }
    b.finish()
}

/// Go's implicit heading (go/doc/comment's `isOldHeading`, which pkg.go.dev still renders as
/// a heading): a line alone between blank lines, not the first, followed by a paragraph; it
/// starts with an upper-case letter, ends with a letter or digit, holds none of
/// `;:!?+*/=[]{}_^°&§~%#@<">\`, an apostrophe only in `'s`, a period only inside a word.
fn is_old_heading(lines: &[String], at: usize) -> bool {
    let blank = |i: usize| lines.get(i).is_some_and(|l| l.trim().is_empty());
    let follows = lines
        .get(at + 2)
        .is_some_and(|l| !l.trim().is_empty() && !l.starts_with([' ', '\t']));
    if at == 0 || !blank(at - 1) || !blank(at + 1) || !follows {
        return false;
    }
    let line = lines[at].trim();
    let starts = line.chars().next().is_some_and(char::is_uppercase);
    let ends = line.chars().last().is_some_and(char::is_alphanumeric);
    if !starts || !ends || line.contains(|c| ";:!?+*/=[]{}_^°&§~%#@<\">\\".contains(c)) {
        return false;
    }
    let chars: Vec<char> = line.chars().collect();
    chars.iter().enumerate().all(|(i, c)| match c {
        '\'' => {
            chars.get(i + 1) == Some(&'s') && chars.get(i + 2).is_none_or(|n| !n.is_alphanumeric())
        }
        '.' => chars.get(i + 1).is_some_and(|n| *n != ' '),
        _ => true,
    })
}

fn is_list(line: &str) -> bool {
    let t = line.trim_start();
    if t.starts_with("- ") || t.starts_with("* ") || t.starts_with("+ ") || t.starts_with("• ") {
        return true;
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && (t[digits..].starts_with(". ") || t[digits..].starts_with(") "))
}

/// An indented list: items at the marker, continuation lines folded into their item.
fn list(b: &mut Builder, block: &[&str], defined: &[String]) {
    b.line("");
    let mut item: Vec<String> = Vec::new();
    let flush = |b: &mut Builder, item: &mut Vec<String>| {
        if !item.is_empty() {
            let refs: Vec<&str> = item.iter().map(String::as_str).collect();
            b.line(go_inline(&join_text(&refs), defined));
            item.clear();
        }
    };
    for line in block {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if is_list(t) {
            flush(b, &mut item);
            let t = t
                .strip_prefix("• ")
                .map_or(t.to_string(), |r| format!("- {r}"));
            item.push(t);
        } else {
            item.push(t.to_string());
        }
    }
    flush(b, &mut item);
    b.line("");
}
