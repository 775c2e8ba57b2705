//! The conversion itself: a line pass that joins split tags, a block pass (admonitions,
//! `<details>`, headings re-levelled) and an inline pass (HTML tags to JSX, links pointed at
//! the repository), then escaping of what is left.

use std::borrow::Cow;

use percent_encoding::percent_decode_str;

use super::callouts::*;
use super::html::*;
use super::links::{IMAGE_EXTENSIONS, Links, link_end};
use crate::render::mdx::escape::{
    self, escape_line, escape_line_in, find_closing_ticks, jsx_attribute,
};
use crate::render::mdx::validate::{url_is_allowed, validate_mdx};
use crate::source::docs::{Fences, atx_heading, closes_fence, opens_fence};

/// Admonitions inside admonitions deeper than this are left as text.
pub(crate) const MAX_CALLOUT_DEPTH: usize = 4;
pub(crate) const MAX_DETAILS_DEPTH: usize = 8;
pub(crate) struct Doc<'a> {
    pub(crate) path: &'a str,
    pub(crate) links: &'a Links,
}

/// Lines read whole: an HTML tag a README splits over several lines (`<img src="logo.svg"`,
/// then `alt="Logo" width="180">`) joined into one, outside fenced code, when it closes
/// within [`MAX_TAG_LINES`] lines and [`MAX_TAG_CHARS`] characters; else left as it is.
pub(crate) fn join_split_tags(markdown: &str) -> Vec<String> {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut out = Vec::with_capacity(lines.len());
    let mut fence = Fences::default();
    let mut index = 0;
    while let Some(&line) = lines.get(index) {
        index += 1;
        if fence.is_code(line) {
            out.push(line.to_string());
            continue;
        }
        let mut joined = line.to_string();
        if opens_unclosed_tag(line) {
            // In a block quote, the next lines' `>` markers are the quote's, not the tag's.
            let depth = container(line).matches('>').count();
            let rest: Vec<&str> = lines
                .get(index..)
                .unwrap_or_default()
                .iter()
                .take(MAX_TAG_LINES)
                .map(|l| unquote(l, depth))
                .collect();
            let closing = rest.iter().position(|l| l.contains('>'));
            if let Some(last) = closing {
                let tag: Vec<&str> = rest[..=last].iter().map(|l| l.trim()).collect();
                if tag.iter().map(|l| l.len() + 1).sum::<usize>() <= MAX_TAG_CHARS {
                    joined.push(' ');
                    joined.push_str(&tag.join(" "));
                    index += last + 1;
                }
            }
        }
        out.push(joined);
    }
    out
}

/// A line's container markers: its indentation and block quote markers (`  > `).
fn container(line: &str) -> &str {
    let end = line
        .find(|c: char| !matches!(c, ' ' | '\t' | '>'))
        .unwrap_or(line.len());
    &line[..end]
}

/// `line` without its indentation and its first `depth` block quote markers.
fn unquote(line: &str, depth: usize) -> &str {
    let mut rest = line.trim_start();
    for _ in 0..depth {
        match rest.strip_prefix('>') {
            Some(r) => rest = r.trim_start(),
            None => break,
        }
    }
    rest
}

/// Lines a code span continues over joined with a space, as Markdown reads a line ending in
/// a code span: a line whose backtick run has no partner on it, and the next lines of the
/// same paragraph (the same block quote depth, not blank, not a new block) up to the one
/// that closes it, at most [`MAX_TAG_LINES`] lines and [`MAX_TAG_CHARS`] characters; outside
/// fenced code. Escaping, which works line by line, then keeps the span as code.
pub(crate) fn join_split_code_spans(lines: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut fence = Fences::default();
    let mut index = 0;
    while let Some(line) = lines.get(index) {
        index += 1;
        if fence.is_code(line) {
            out.push(line.clone());
            continue;
        }
        let mut joined = line.clone();
        if let Some(run) = unpartnered_run(line) {
            let depth = container(line).matches('>').count();
            let mut parts: Vec<&str> = Vec::new();
            let mut closed = false;
            for next in lines.iter().skip(index).take(MAX_TAG_LINES) {
                let prefix = container(next);
                let text = unquote(next, depth);
                if prefix.matches('>').count() != depth || starts_block(text) {
                    break;
                }
                parts.push(text);
                let chars: Vec<char> = text.chars().collect();
                if find_closing_ticks(&chars, 0, run).is_some() {
                    closed = true;
                    break;
                }
            }
            let length: usize = parts.iter().map(|p| p.len() + 1).sum();
            if closed && length + line.len() <= MAX_TAG_CHARS {
                for part in &parts {
                    joined.push(' ');
                    joined.push_str(part.trim());
                }
                index += parts.len();
            }
        }
        out.push(joined);
    }
    out
}

/// `<details>` in a block quote or a list item (a pull request body quoted under a changelog
/// entry), where the block pass, which reads top-level lines, cannot make it an element:
/// its `<details>` and `</details>` lines become blank lines of their container and its
/// `<summary>Label</summary>` a bold label, so that the reader sees what the tags meant and
/// no tag as text. Outside fenced code.
pub(crate) fn unwrap_nested_details(lines: Vec<String>) -> Vec<String> {
    let mut fence = Fences::default();
    lines
        .into_iter()
        .map(|line| {
            let prefix = container(&line);
            if fence.is_code(&line) || prefix.is_empty() {
                return line;
            }
            let depth = prefix.matches('>').count();
            let text = unquote(&line, depth).trim();
            let lower = text.to_ascii_lowercase();
            if matches!(
                lower.as_str(),
                "<details>" | "</details>" | "<details open>"
            ) {
                return prefix.trim_end().to_string();
            }
            match lower
                .strip_prefix("<summary>")
                .and_then(|r| r.strip_suffix("</summary>"))
            {
                Some(inner) if !inner.trim().is_empty() && !inner.contains('<') => {
                    let inner = &text["<summary>".len()..text.len() - "</summary>".len()];
                    format!("{prefix}**{}**", inner.trim())
                }
                _ => line,
            }
        })
        .collect()
}

/// The length of the last backtick run of `line` that no run of the same length closes on
/// it (backslash-escaped backticks open nothing).
fn unpartnered_run(line: &str) -> Option<usize> {
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '\\' {
            i += 2;
            continue;
        }
        if chars[i] != '`' {
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|c| **c == '`').count();
        match find_closing_ticks(&chars, i + run, run) {
            Some(close) => i = close + run,
            None => return (run < 3 || i > 0).then_some(run),
        }
    }
    None
}

/// Whether a line (without its container markers) ends a paragraph: blank, a heading, a
/// fence, a list item, a thematic break or an HTML block.
fn starts_block(text: &str) -> bool {
    let t = text.trim_start();
    t.is_empty()
        || t.starts_with('#')
        || t.starts_with("```")
        || t.starts_with("~~~")
        || t.starts_with('<')
        || t.starts_with("- ")
        || t.starts_with("* ")
        || t.starts_with("+ ")
        || t.split_once(". ").is_some_and(|(n, _)| {
            !n.is_empty() && n.len() <= 9 && n.chars().all(|c| c.is_ascii_digit())
        })
        || t.chars().all(|c| matches!(c, '-' | '*' | '_' | ' '))
}

/// Whether the line's last `<` starts an element tag (`<img`, `<a`, a wrapper) left open: its
/// name followed by a space or the line's end, outside a code span (`` `<I.(J+1).0` `` is
/// code, not an `<i>` tag).
fn opens_unclosed_tag(line: &str) -> bool {
    let Some(at) = line.rfind('<') else {
        return false;
    };
    let rest = &line[at + 1..];
    if rest.contains('>') || in_code_span(line, at) {
        return false;
    }
    let name_end = rest
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(rest.len());
    if !rest[name_end..].is_empty() && !rest[name_end..].starts_with(char::is_whitespace) {
        return false;
    }
    let name = rest[..name_end].to_ascii_lowercase();
    matches!(name.as_str(), "img" | "a" | "br")
        || PHRASING.contains(&name.as_str())
        || WRAPPERS.contains(&name.as_str())
}

/// Whether byte `at` of `line` is inside an inline code span (a run of backticks closed by a
/// run of the same length).
pub(super) fn in_code_span(line: &str, at: usize) -> bool {
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < at {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let run = bytes[i..].iter().take_while(|b| **b == b'`').count();
        let open_end = i + run;
        // The closing run of the same length, if any.
        let mut j = open_end;
        let mut close = None;
        while j < bytes.len() {
            if bytes[j] == b'`' {
                let other = bytes[j..].iter().take_while(|b| **b == b'`').count();
                if other == run {
                    close = Some(j);
                    break;
                }
                j += other;
            } else {
                j += 1;
            }
        }
        match close {
            Some(close) if at < close => return at >= open_end,
            Some(close) => i = close + run,
            None => i = open_end,
        }
    }
    false
}

/// A line of the converted document: Markdown still to escape, or JSX written here.
pub(crate) enum Piece {
    Text(String),
    Jsx(String),
}

impl Doc<'_> {
    pub(crate) fn convert(&self, markdown: &str, html: bool, top: usize) -> String {
        let lines = unwrap_nested_details(join_split_code_spans(join_split_tags(markdown)));
        let mut blocks = Blocks {
            doc: self,
            html,
            top: top.clamp(1, 6),
            headings: Vec::new(),
            out: Vec::with_capacity(lines.len()),
        };
        blocks.run(&lines, 0);
        let mut out = String::with_capacity(markdown.len() + 64);
        let mut chunk = String::new();
        let flush = |chunk: &mut String, out: &mut String| {
            if !chunk.trim().is_empty() {
                let tables = escape::may_hold_table(chunk);
                out.push_str(&escape::sanitize_with(chunk, |line, at_start| {
                    self.inline(line, at_start, html, tables)
                }));
                out.push('\n');
            } else if !chunk.is_empty() {
                out.push('\n');
            }
            chunk.clear();
        };
        for piece in blocks.out {
            match piece {
                Piece::Text(text) => {
                    chunk.push_str(&text);
                    chunk.push('\n');
                }
                Piece::Jsx(jsx) => {
                    flush(&mut chunk, &mut out);
                    if !out.is_empty() && !out.ends_with("\n\n") {
                        out.push('\n');
                    }
                    out.push_str(&jsx);
                    out.push('\n');
                }
            }
        }
        flush(&mut chunk, &mut out);
        out.trim().to_string()
    }

    /// One line of text outside code blocks: links resolved, HTML converted, the rest escaped
    /// (`tables`: whether its text may hold a table, [`escape::may_hold_table`]).
    pub(crate) fn inline(&self, line: &str, at_start: bool, html: bool, tables: bool) -> String {
        let line = self.rewrite_links(line, at_start);
        if !html {
            return escape_line_in(&line, at_start, true, tables);
        }
        let chars: Vec<char> = line.chars().collect();
        let tags = scan_tags(&chars);
        // Pair phrasing elements and links opened and closed on this line.
        let mut kept = vec![false; tags.len()];
        let mut open: Vec<usize> = Vec::new();
        for (index, (_, tag)) in tags.iter().enumerate() {
            let paired = PHRASING.contains(&tag.name.as_str()) || tag.name == "a";
            if !paired || tag.self_closing {
                continue;
            }
            if !tag.closing {
                open.push(index);
            } else if let Some(&top) = open.last()
                && tags[top].1.name == tag.name
            {
                open.pop();
                kept[top] = true;
                kept[index] = true;
            }
        }
        let mut out = String::with_capacity(line.len() + 16);
        let mut pending = String::new();
        let mut cursor = 0;
        let mut link: Option<String> = None;
        // Whether `out` holds more than whitespace, i.e. the next text no longer starts the line.
        let mut started = false;
        let mut emit = |out: &mut String, pending: &mut String, jsx: &str| {
            let escaped = escape_line_in(pending, at_start && !started, true, tables);
            started |= !escaped.trim().is_empty() || !jsx.is_empty();
            out.push_str(&escaped);
            pending.clear();
            out.push_str(jsx);
        };
        for (index, (start, tag)) in tags.iter().enumerate() {
            pending.extend(&chars[cursor..*start]);
            cursor = start + tag.len;
            let source: String = chars[*start..cursor].iter().collect();
            let name = tag.name.as_str();
            let jsx = match name {
                "br" if !tag.closing => Some("<br />".to_string()),
                "img" if !tag.closing => Some(self.image(tag)),
                "a" if kept[index] && !tag.closing => {
                    // Links do not nest; an inner one is dropped.
                    match (
                        link.is_none(),
                        tag.attribute("href").and_then(|h| self.href(h)),
                    ) {
                        (true, Some(href)) => {
                            link = Some(href);
                            Some("[".to_string())
                        }
                        _ => {
                            kept[index] = false;
                            Some(String::new())
                        }
                    }
                }
                "a" if tag.closing => Some(
                    link.take()
                        .filter(|_| kept[index])
                        .map_or_else(String::new, |href| format!("]({href})")),
                ),
                "a" => Some(String::new()),
                _ if WRAPPERS.contains(&name) => Some(String::new()),
                _ if kept[index] => Some(if tag.closing {
                    format!("</{name}>")
                } else {
                    format!("<{name}>")
                }),
                _ => None,
            };
            match jsx {
                Some(jsx) => emit(&mut out, &mut pending, &jsx),
                None => pending.push_str(&source),
            }
        }
        pending.extend(&chars[cursor..]);
        emit(&mut out, &mut pending, "");
        // An element that MDX cannot nest where it stands (across an emphasis, say) would
        // make the whole document fall back to escaped HTML: this line alone does.
        if out.contains('<') && validate_mdx(&out).is_err() {
            return escape_line(&line, at_start, true);
        }
        out
    }

    pub(crate) fn image(&self, tag: &Tag) -> String {
        let src = tag
            .attribute("src")
            .and_then(|src| self.resolve(src, true).or_else(|| Some(src.to_string())))
            .filter(|src| url_is_allowed(src) && !src.trim().is_empty());
        match src {
            Some(src) => format!(
                "<img src={} alt={} />",
                jsx_attribute(&src),
                jsx_attribute(tag.attribute("alt").unwrap_or(""))
            ),
            None => String::new(),
        }
    }

    /// The destination of an `<a href>`, resolved, when it is one an article may hold.
    pub(crate) fn href(&self, href: &str) -> Option<String> {
        let url = self
            .resolve(href, false)
            .unwrap_or_else(|| href.to_string());
        let plain = !url.is_empty()
            && url_is_allowed(&url)
            && !url.chars().any(|c| {
                c.is_whitespace() || matches!(c, '(' | ')' | '<' | '>' | '\\' | '&' | '{' | '}')
            });
        plain.then_some(url)
    }

    /// Rewrites the destinations of links, images and link definitions that are repository
    /// paths. Code spans are left alone.
    fn rewrite_links<'l>(&self, line: &'l str, at_start: bool) -> Cow<'l, str> {
        if !(line.contains("](") || at_start && line.trim_start().starts_with('[')) {
            return Cow::Borrowed(line);
        }
        let chars: Vec<char> = line.chars().collect();
        let mut out = String::with_capacity(line.len() + 64);
        let mut brackets: Vec<usize> = Vec::new();
        // Where each open bracket's `[` is in `out`.
        let mut opened: Vec<usize> = Vec::new();
        let mut i = 0;
        if at_start {
            let indent = chars.iter().take_while(|c| c.is_whitespace()).count();
            let text: String = chars[indent..].iter().collect();
            // A footnote's definition (`[^note]: text`) is text, not a destination.
            if text.starts_with("[^") {
                return Cow::Borrowed(line);
            }
            if text.starts_with('[')
                && let Some(end) = text.find("]:")
            {
                let label = text[..end + 2].chars().count();
                let after = indent + label;
                let skip = chars[after..].iter().take_while(|c| **c == ' ').count();
                let dest: String = chars[after + skip..]
                    .iter()
                    .take_while(|c| !c.is_whitespace())
                    .collect();
                if let Some(url) = self.resolve(&dest, false).filter(|u| !u.is_empty()) {
                    out.extend(&chars[..after + skip]);
                    out.push_str(&url);
                    out.extend(&chars[after + skip + dest.chars().count()..]);
                    return Cow::Owned(out);
                }
                return Cow::Borrowed(line);
            }
        }
        while i < chars.len() {
            let c = chars[i];
            match c {
                '`' => {
                    let run = chars[i..].iter().take_while(|c| **c == '`').count();
                    let end = find_closing_ticks(&chars, i + run, run).map_or(i + run, |e| e + run);
                    out.extend(&chars[i..end]);
                    i = end;
                    continue;
                }
                '\\' => {
                    out.extend(chars.get(i..(i + 2).min(chars.len())).unwrap_or_default());
                    i += 2;
                    continue;
                }
                '[' if brackets.len() < MAX_BRACKETS => {
                    brackets.push(i);
                    opened.push(out.len());
                }
                ']' if chars.get(i + 1) == Some(&'(') => {
                    let open = brackets.pop();
                    let at = opened.pop();
                    let image = open.is_some_and(|open| open > 0 && chars[open - 1] == '!');
                    // A link to a page the repository does not have is its text alone.
                    let dest: String = chars[i + 2..]
                        .iter()
                        .take_while(|c| !c.is_whitespace() && **c != ')')
                        .collect();
                    let after = i + 2 + dest.chars().count();
                    if !image
                        && let Some(close) = link_end(&chars, after)
                        && let Some(at) = at.filter(|&at| out[at..].starts_with('['))
                        && self.resolve(&dest, false).is_some_and(|u| u.is_empty())
                    {
                        out.remove(at);
                        i = close + 1;
                        continue;
                    }
                    out.push_str("](");
                    i += 2;
                    let spaces = chars[i..].iter().take_while(|c| **c == ' ').count();
                    out.extend(&chars[i..i + spaces]);
                    i += spaces;
                    let dest: String = chars[i..]
                        .iter()
                        .take_while(|c| !c.is_whitespace() && **c != ')')
                        .collect();
                    let len = dest.chars().count();
                    match self.resolve(&dest, image) {
                        Some(url) => out.push_str(&url),
                        None => out.push_str(&dest),
                    }
                    i += len;
                    continue;
                }
                ']' => {
                    brackets.pop();
                    opened.pop();
                }
                _ => {}
            }
            out.push(c);
            i += 1;
        }
        Cow::Owned(out)
    }

    /// The URL for a destination that is a path in the repository (relative to this file,
    /// or to the repository root when it starts with `/`); `None` for anything else.
    pub(crate) fn resolve(&self, destination: &str, image: bool) -> Option<String> {
        let destination = destination.trim();
        if destination.is_empty()
            || destination.starts_with('#')
            || destination.starts_with("//")
            || destination.starts_with('<')
        {
            return None;
        }
        let scheme_end = destination
            .find(['/', '?', '#'])
            .unwrap_or(destination.len());
        if destination[..scheme_end].contains(':') {
            return None;
        }
        let (rest, fragment) = match destination.split_once('#') {
            Some((rest, fragment)) => (rest, Some(fragment)),
            None => (destination, None),
        };
        let path = rest.split('?').next().unwrap_or(rest);
        let decoded = percent_decode_str(path).decode_utf8().ok()?;
        let mut segments: Vec<&str> = if decoded.starts_with('/') {
            Vec::new()
        } else {
            let mut base: Vec<&str> = self.path.split('/').collect();
            base.pop();
            base
        };
        for segment in decoded.split('/') {
            match segment {
                "" | "." => {}
                ".." => {
                    segments.pop()?;
                }
                segment => segments.push(segment),
            }
        }
        let joined = segments.join("/");
        let lower = joined.to_ascii_lowercase();
        let raw = image || IMAGE_EXTENSIONS.iter().any(|ext| lower.ends_with(ext));
        // The file the docs site means; a page link to no file is no link (the empty URL),
        // an image keeps its path.
        let joined = match self.links.locate(&joined, decoded.starts_with('/')) {
            Some(found) => found,
            None if raw => joined,
            None => return Some(String::new()),
        };
        let mut url = self.links.file(&joined, raw);
        if let Some(fragment) = fragment.filter(|f| {
            !raw && !f.is_empty()
                && f.chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '~' | '%'))
        }) {
            url.push('#');
            url.push_str(fragment);
        }
        Some(url)
    }
}

/// The block pass: admonitions, `<details>` and headings, line by line.
pub(crate) struct Blocks<'d, 'a> {
    pub(crate) doc: &'d Doc<'a>,
    pub(crate) html: bool,
    pub(crate) top: usize,
    /// (source level, output level) of the enclosing headings.
    pub(crate) headings: Vec<(usize, usize)>,
    pub(crate) out: Vec<Piece>,
}

impl Blocks<'_, '_> {
    pub(crate) fn text(&mut self, line: impl Into<String>) {
        self.out.push(Piece::Text(line.into()));
    }

    /// A blank line outside code, unless one was just written (Markdown reads one or more
    /// the same).
    pub(crate) fn blank(&mut self) {
        if !matches!(self.out.last(), Some(Piece::Text(t)) if t.trim().is_empty()) {
            self.text("");
        }
    }

    /// A block of JSX, kept apart from the Markdown around it by blank lines.
    pub(crate) fn jsx(&mut self, jsx: String) {
        self.blank();
        self.out.push(Piece::Jsx(jsx));
        self.text("");
    }

    pub(crate) fn run(&mut self, lines: &[String], depth: usize) {
        let mut fence: Option<(char, usize)> = None;
        let mut details = 0usize;
        let mut i = 0;
        while i < lines.len() {
            let line = &lines[i];
            if let Some((ch, len)) = fence {
                if closes_fence(line, ch, len) {
                    fence = None;
                }
                self.text(line.as_str());
                i += 1;
                continue;
            }
            if let Some((ch, len, _)) = opens_fence(line) {
                fence = Some((ch, len));
                self.text(line.as_str());
                i += 1;
                continue;
            }
            if line.trim().is_empty() {
                self.blank();
                i += 1;
                continue;
            }
            if depth < MAX_CALLOUT_DEPTH
                && let Some(callout) = callout(lines, i)
            {
                if callout.component.is_empty() {
                    self.run(&callout.body, depth + 1);
                    i = callout.next;
                    continue;
                }
                self.jsx(format!("<{}>", callout.component));
                if !callout.title.is_empty() {
                    self.text(format!("**{}**", callout.title.trim_matches('*')));
                    self.text("");
                }
                self.run(&callout.body, depth + 1);
                self.jsx(format!("</{}>", callout.component));
                i = callout.next;
                continue;
            }
            // A one-line paragraph underlined with `===` or `---` (a setext heading).
            let setext = lines
                .get(i + 1)
                .and_then(|next| setext_level(next))
                .filter(|_| {
                    i == 0 || lines[i - 1].trim().is_empty() || atx_heading(&lines[i - 1]).is_some()
                })
                .filter(|_| !line.starts_with([' ', '\t', '>', '-', '*', '+', '<', '|']));
            let atx = atx_heading(line);
            if let Some((level, text)) = setext.map(|level| (level, line.trim())).or(atx) {
                if setext.is_some() {
                    i += 1;
                }
                while self
                    .headings
                    .last()
                    .is_some_and(|(source, _)| *source >= level)
                {
                    self.headings.pop();
                }
                let out = self
                    .headings
                    .last()
                    .map_or(self.top, |(_, out)| out + 1)
                    .min(6);
                self.headings.push((level, out));
                self.text(format!("{} {text}", "#".repeat(out)));
                i += 1;
                continue;
            }
            if self.html && starts_with_details(line) {
                self.details_line(line, &mut details);
                i += 1;
                continue;
            }
            self.text(line.as_str());
            i += 1;
        }
        for _ in 0..details {
            self.jsx("</details>".into());
        }
    }

    /// A line starting with `<details>`, `</details>` or `<summary>`: each on its own line.
    fn details_line(&mut self, line: &str, details: &mut usize) {
        let chars: Vec<char> = line.chars().collect();
        let tags = scan_tags(&chars);
        let mut text = String::new();
        let mut cursor = 0;
        let mut summary: Option<usize> = None;
        for (start, tag) in &tags {
            let before: String = chars[cursor..*start].iter().collect();
            cursor = start + tag.len;
            match (tag.name.as_str(), tag.closing) {
                ("summary", false) if *details > 0 && summary.is_none() => {
                    text.push_str(&before);
                    self.flush(&mut text);
                    summary = Some(cursor);
                }
                ("summary", true) if summary.is_some() => {
                    text.push_str(&before);
                    let inner = self.doc.inline(text.trim(), false, true, true);
                    text.clear();
                    self.jsx(format!("<summary>{inner}</summary>"));
                    summary = None;
                }
                ("details", false) if summary.is_none() => {
                    text.push_str(&before);
                    self.flush(&mut text);
                    if *details < MAX_DETAILS_DEPTH {
                        *details += 1;
                        self.jsx("<details>".into());
                    }
                }
                ("details", true) if summary.is_none() => {
                    text.push_str(&before);
                    self.flush(&mut text);
                    if *details > 0 {
                        *details -= 1;
                        self.jsx("</details>".into());
                    }
                }
                ("summary", _) | ("details", _) => text.push_str(&before),
                _ => {
                    text.push_str(&before);
                    text.extend(&chars[*start..cursor]);
                }
            }
        }
        let rest: String = chars[cursor..].iter().collect();
        if summary.is_some() {
            let inner = self
                .doc
                .inline(format!("{text}{rest}").trim(), false, true, true);
            self.jsx(format!("<summary>{inner}</summary>"));
        } else {
            text.push_str(&rest);
            self.flush(&mut text);
        }
    }

    pub(crate) fn flush(&mut self, text: &mut String) {
        if !text.trim().is_empty() {
            self.text(text.trim().to_string());
        }
        text.clear();
    }
}
