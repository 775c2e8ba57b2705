//! Go doc comments as pkg.go.dev renders them (the syntax of Go 1.19's `go/doc/comment`):
//! paragraphs; a span of indented lines is a code block, or a list when it starts with a
//! list marker; `# Heading` lines; `[Name]` and `[pkg.Name]` doc links; `[text]: URL` link
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
