//! Repository Markdown (a README, a docs page, a step's body) converted into MDX that shows
//! what its author meant rather than its source text:
//!
//! - admonitions of Docusaurus (`:::note Title` … `:::`), MkDocs (`!!! warning "Title"` with an
//!   indented body, `???` collapsible ones) and GitHub (`> [!NOTE]`) become `<Note>`,
//!   `<Tip>` or `<Warning>`;
//! - well-formed HTML that MDX can hold becomes JSX: `<details>`/`<summary>` (each on its own
//!   line, so that MDX reads them as blocks), `<br />`, `<img src alt />`, and the phrasing
//!   elements of [`PHRASING`] when opened and closed on one line; `<a href>` becomes a
//!   Markdown link; layout wrappers (`<p align="center">`, `<div>`, `<picture>`) are dropped
//!   with their content kept. Attributes other than `src`/`alt`/`href` are dropped, so no event
//!   handler or style survives; any other tag stays escaped text.
//! - headings are re-levelled under the article's: the first becomes `top`, and none is more
//!   than one level below the heading it follows;
//! - relative links and images point at the repository's web host at the run's commit
//!   ([`Links::file`]).
//!
//! The result is checked as MDX; should an unusual combination of HTML and Markdown not parse
//! (an inline tag that crosses an emphasis, say), the text is converted again without HTML
//! and, failing that, only escaped ([`mdx::sanitize_markdown`]), so a run never fails on
//! Markdown it was given. Every pass is linear in the text: tags are read at most
//! [`MAX_TAG_CHARS`] ahead, admonitions nest at most [`MAX_CALLOUT_DEPTH`] deep and
//! `<details>` at most [`MAX_DETAILS_DEPTH`].

use std::borrow::Cow;

use percent_encoding::percent_decode_str;

use crate::extract::atx_heading;
use crate::forge::{self, Forge};
use crate::mdx::{self, closes_fence, escape_line, find_closing_ticks, jsx_attribute, opens_fence};
use crate::validate::{url_is_allowed, validate_mdx};

/// Longest HTML tag read; `<` followed by more than this is text.
const MAX_TAG_CHARS: usize = 1024;
/// Lines one HTML tag may span ([`join_split_tags`]).
const MAX_TAG_LINES: usize = 8;
/// Admonitions inside admonitions deeper than this are left as text.
const MAX_CALLOUT_DEPTH: usize = 4;
const MAX_DETAILS_DEPTH: usize = 8;
/// Brackets tracked on one line to tell an image from a link.
const MAX_BRACKETS: usize = 64;

/// Elements kept as JSX when opened and closed on the same line, without attributes.
pub(crate) const PHRASING: &[&str] = &[
    "b", "strong", "i", "em", "kbd", "sup", "sub", "s", "del", "ins", "mark", "small", "u", "code",
];
/// Layout elements a README wraps around its content (a centred logo, a picture with dark
/// and light sources): dropped, their content kept.
const WRAPPERS: &[&str] = &[
    "p",
    "div",
    "center",
    "picture",
    "source",
    "span",
    "figure",
    "figcaption",
    "section",
    "article",
    "tt",
    "font",
];
const IMAGE_EXTENSIONS: &[&str] = &[".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".avif"];

/// Where an article points for a file of the repository.
#[derive(Clone, Debug, Default)]
pub(crate) struct Links {
    /// The run's source commit.
    pub commit: String,
    pub forge: Option<Forge>,
}

impl Links {
    /// The URL an article uses for the repository file `path` at the run's commit: on a known
    /// forge its page (`raw`: its bytes, for images), else [`served_url`]. Every link, image
    /// and step capture goes through here.
    pub fn file(&self, path: &str, raw: bool) -> String {
        let forge = self.forge.as_ref().and_then(|forge| {
            if raw {
                forge.raw_url(&self.commit, path)
            } else {
                forge.file_url(&self.commit, path, None)
            }
        });
        forge.unwrap_or_else(|| served_url(path, &self.commit))
    }
}

/// The URL at which the service serves the repository file `path` as of `commit`, for
/// repositories without a known forge. Today: the site path `/` + `path`, as step captures
/// have always been published (the site copies them next to the articles). The service's own
/// endpoint (a later issue) will serve files at an article's commit; point this function at
/// it then, and every link and image follows.
pub(crate) fn served_url(path: &str, commit: &str) -> String {
    let _ = commit;
    format!("/{}", forge::encode_path(path))
}

/// Repository Markdown from the file `path` as MDX, headings starting at level `top`.
pub(crate) fn markdown_to_mdx(markdown: &str, path: &str, links: &Links, top: usize) -> String {
    let doc = Doc { path, links };
    for html in [true, false] {
        let converted = doc.convert(markdown, html, top);
        if validate_mdx(&converted).is_ok() {
            return converted;
        }
    }
    mdx::sanitize_markdown(markdown)
}

struct Doc<'a> {
    path: &'a str,
    links: &'a Links,
}

/// Lines read whole: an HTML tag a README splits over several lines (`<img src="logo.svg"`,
/// then `alt="Logo" width="180">`) joined into one, outside fenced code, when it closes
/// within [`MAX_TAG_LINES`] lines and [`MAX_TAG_CHARS`] characters; else left as it is.
fn join_split_tags(markdown: &str) -> Vec<String> {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut out = Vec::with_capacity(lines.len());
    let mut fence = None;
    let mut index = 0;
    while let Some(&line) = lines.get(index) {
        index += 1;
        if let Some((ch, len)) = fence {
            if closes_fence(line, ch, len) {
                fence = None;
            }
            out.push(line.to_string());
            continue;
        }
        if let Some((ch, len, _)) = opens_fence(line) {
            fence = Some((ch, len));
            out.push(line.to_string());
            continue;
        }
        let mut joined = line.to_string();
        if opens_unclosed_tag(line) {
            let rest = lines.get(index..).unwrap_or_default();
            let closing = rest
                .iter()
                .take(MAX_TAG_LINES)
                .position(|l| l.contains('>'));
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

/// Whether the line's last `<` starts an element tag (`<img`, `<a`, a wrapper) left open.
fn opens_unclosed_tag(line: &str) -> bool {
    let Some(at) = line.rfind('<') else {
        return false;
    };
    let rest = &line[at + 1..];
    if rest.contains('>') {
        return false;
    }
    let name = rest
        .split(|c: char| !c.is_ascii_alphanumeric())
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    matches!(name.as_str(), "img" | "a" | "br")
        || PHRASING.contains(&name.as_str())
        || WRAPPERS.contains(&name.as_str())
}

/// A line of the converted document: Markdown still to escape, or JSX written here.
enum Piece {
    Text(String),
    Jsx(String),
}

impl Doc<'_> {
    fn convert(&self, markdown: &str, html: bool, top: usize) -> String {
        let lines = join_split_tags(markdown);
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
                out.push_str(&mdx::sanitize_with(chunk, |line, at_start| {
                    self.inline(line, at_start, html)
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

    /// One line of text outside code blocks: links resolved, HTML converted, the rest escaped.
    fn inline(&self, line: &str, at_start: bool, html: bool) -> String {
        let line = self.rewrite_links(line, at_start);
        if !html {
            return escape_line(&line, at_start, true);
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
            let escaped = escape_line(pending, at_start && !started, true);
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

    fn image(&self, tag: &Tag) -> String {
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
    fn href(&self, href: &str) -> Option<String> {
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
        let mut i = 0;
        if at_start {
            let indent = chars.iter().take_while(|c| c.is_whitespace()).count();
            let text: String = chars[indent..].iter().collect();
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
                if let Some(url) = self.resolve(&dest, false) {
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
                '[' if brackets.len() < MAX_BRACKETS => brackets.push(i),
                ']' if chars.get(i + 1) == Some(&'(') => {
                    let image = brackets
                        .pop()
                        .is_some_and(|open| open > 0 && chars[open - 1] == '!');
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
    fn resolve(&self, destination: &str, image: bool) -> Option<String> {
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
struct Blocks<'d, 'a> {
    doc: &'d Doc<'a>,
    html: bool,
    top: usize,
    /// (source level, output level) of the enclosing headings.
    headings: Vec<(usize, usize)>,
    out: Vec<Piece>,
}

impl Blocks<'_, '_> {
    fn text(&mut self, line: impl Into<String>) {
        self.out.push(Piece::Text(line.into()));
    }

    /// A blank line outside code, unless one was just written (Markdown reads one or more
    /// the same).
    fn blank(&mut self) {
        if !matches!(self.out.last(), Some(Piece::Text(t)) if t.trim().is_empty()) {
            self.text("");
        }
    }

    /// A block of JSX, kept apart from the Markdown around it by blank lines.
    fn jsx(&mut self, jsx: String) {
        self.blank();
        self.out.push(Piece::Jsx(jsx));
        self.text("");
    }

    fn run(&mut self, lines: &[String], depth: usize) {
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
                    let inner = self.doc.inline(text.trim(), false, true);
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
            let inner = self.doc.inline(format!("{text}{rest}").trim(), false, true);
            self.jsx(format!("<summary>{inner}</summary>"));
        } else {
            text.push_str(&rest);
            self.flush(&mut text);
        }
    }

    fn flush(&mut self, text: &mut String) {
        if !text.trim().is_empty() {
            self.text(text.trim().to_string());
        }
        text.clear();
    }
}

fn starts_with_details(line: &str) -> bool {
    let trimmed = line.trim_start().to_ascii_lowercase();
    ["<details", "</details", "<summary"]
        .iter()
        .any(|tag| trimmed.starts_with(tag))
}

/// The level of a setext underline (`===` → 1, `---` → 2).
fn setext_level(line: &str) -> Option<usize> {
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

struct Callout {
    component: &'static str,
    title: String,
    body: Vec<String>,
    /// The line after the admonition.
    next: usize,
}

/// The component an admonition kind becomes.
fn component(kind: &str) -> Option<&'static str> {
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
fn callout(lines: &[String], i: usize) -> Option<Callout> {
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
    let rest = &trimmed[colons..];
    let kind: String = rest.chars().take_while(char::is_ascii_alphabetic).collect();
    let component = component(&kind)?;
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

fn github(lines: &[String], i: usize, trimmed: &str) -> Option<Callout> {
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

/// An HTML tag as written.
struct Tag {
    /// Lower case.
    name: String,
    closing: bool,
    self_closing: bool,
    attributes: Vec<(String, String)>,
    /// In chars.
    len: usize,
}

impl Tag {
    fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The HTML tags of a line outside code spans, with their start.
fn scan_tags(chars: &[char]) -> Vec<(usize, Tag)> {
    let mut tags = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '`' => {
                let run = chars[i..].iter().take_while(|c| **c == '`').count();
                i = find_closing_ticks(chars, i + run, run).map_or(i + run, |e| e + run);
            }
            '\\' => i += 2,
            '<' => match parse_tag(&chars[i..]) {
                Some(tag) => {
                    let len = tag.len;
                    tags.push((i, tag));
                    i += len;
                }
                None => i += 1,
            },
            _ => i += 1,
        }
    }
    tags
}

/// `<name attr="v" …>`, `</name>` or `<name … />` at the start of `chars`.
fn parse_tag(chars: &[char]) -> Option<Tag> {
    let chars = &chars[..chars.len().min(MAX_TAG_CHARS)];
    let mut i = 1;
    let closing = chars.get(i) == Some(&'/');
    if closing {
        i += 1;
    }
    let name_start = i;
    if !chars.get(i)?.is_ascii_alphabetic() {
        return None;
    }
    while chars
        .get(i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '-')
    {
        i += 1;
    }
    let name: String = chars[name_start..i]
        .iter()
        .collect::<String>()
        .to_ascii_lowercase();
    let mut attributes = Vec::new();
    // Browsers read `a="x"b="y"` as two attributes; so does this.
    let mut quoted = false;
    loop {
        let spaces = chars[i..].iter().take_while(|c| c.is_whitespace()).count();
        i += spaces;
        match chars.get(i)? {
            '>' => {
                return Some(Tag {
                    name,
                    closing,
                    self_closing: false,
                    attributes,
                    len: i + 1,
                });
            }
            '/' if chars.get(i + 1) == Some(&'>') && !closing => {
                return Some(Tag {
                    name,
                    closing,
                    self_closing: true,
                    attributes,
                    len: i + 2,
                });
            }
            c if !closing
                && (spaces > 0 || quoted)
                && (c.is_ascii_alphabetic() || matches!(c, '_' | ':' | '@')) =>
            {
                let start = i;
                while chars.get(i).is_some_and(|c| {
                    c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '.' | '-' | '@')
                }) {
                    i += 1;
                }
                let key: String = chars[start..i]
                    .iter()
                    .collect::<String>()
                    .to_ascii_lowercase();
                quoted = false;
                let spaces = chars[i..].iter().take_while(|c| c.is_whitespace()).count();
                let mut value = String::new();
                if chars.get(i + spaces) == Some(&'=') {
                    i += spaces + 1;
                    i += chars[i..].iter().take_while(|c| c.is_whitespace()).count();
                    match chars.get(i)? {
                        quote @ ('"' | '\'') => {
                            let end = chars[i + 1..].iter().position(|c| c == quote)?;
                            value = chars[i + 1..i + 1 + end].iter().collect();
                            i += end + 2;
                            quoted = true;
                        }
                        _ => {
                            let len = chars[i..]
                                .iter()
                                .take_while(|c| {
                                    !c.is_whitespace()
                                        && !matches!(c, '"' | '\'' | '=' | '<' | '>' | '`')
                                })
                                .count();
                            if len == 0 {
                                return None;
                            }
                            value = chars[i..i + len].iter().collect();
                            i += len;
                            quoted = false;
                        }
                    }
                    if !quoted
                        && !chars
                            .get(i)
                            .is_some_and(|c| c.is_whitespace() || matches!(c, '>' | '/'))
                    {
                        return None;
                    }
                }
                attributes.push((key, value));
            }
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::ALLOWED_COMPONENTS;

    const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

    fn github() -> Links {
        Links {
            commit: COMMIT.into(),
            forge: Forge::from_remote("https://github.com/acme/widgets.git"),
        }
    }

    fn convert(markdown: &str) -> String {
        let out = markdown_to_mdx(markdown, "docs/guide/export.md", &github(), 3);
        if let Err(e) = validate_mdx(&out) {
            panic!("invalid MDX ({e}):\n{out}");
        }
        out
    }

    #[test]
    fn admonitions_of_three_dialects_become_callouts() {
        let out = convert(
            ":::note Before you start\nYou need `git`.\n:::\n\n:::danger\nData {loss}.\n:::",
        );
        assert_eq!(
            out,
            "<Note>\n\n**Before you start**\n\nYou need `git`.\n\n</Note>\n\n<Warning>\n\nData \\{loss\\}.\n\n</Warning>"
        );
        let out = convert("!!! tip \"Faster\"\n    Use `--jobs 4`.\n\n    More.\n\nAfter.");
        assert_eq!(
            out,
            "<Tip>\n\n**Faster**\n\nUse `--jobs 4`.\n\nMore.\n\n</Tip>\n\nAfter."
        );
        let out = convert(
            "> [!WARNING]\n> Breaks <b>old</b> files.\n> ```sh\n> rm -rf x\n> ```\n\nAfter.",
        );
        assert_eq!(
            out,
            "<Warning>\n\nBreaks <b>old</b> files.\n```sh\nrm -rf x\n```\n\n</Warning>\n\nAfter."
        );
        for (kind, component) in [
            ("NOTE", "Note"),
            ("TIP", "Tip"),
            ("IMPORTANT", "Note"),
            ("CAUTION", "Warning"),
        ] {
            assert!(convert(&format!("> [!{kind}]\n> x")).starts_with(&format!("<{component}>")));
        }
        // Plain block quotes and unknown kinds stay what they are.
        assert_eq!(convert("> quoted"), "> quoted");
        assert_eq!(convert(":::unknown\nx\n:::"), ":::unknown\nx\n:::");
        // Nested: four colons outside, three inside; a fence hides its `:::`.
        let out = convert("::::note\nA\n:::tip\nB\n:::\n```\n::::\n```\n::::");
        assert!(
            out.starts_with("<Note>\n\nA\n\n<Tip>\n\nB\n\n</Tip>\n\n```\n::::\n```\n\n</Note>"),
            "{out}"
        );
    }

    #[test]
    fn admonitions_nest_only_so_deep() {
        let deep: String = (0..50)
            .map(|d| format!("{}> [!NOTE]\n", "> ".repeat(d)))
            .collect();
        let deep = deep + &"> ".repeat(50) + "x";
        let out = convert(&deep);
        assert_eq!(out.matches("<Note>").count(), MAX_CALLOUT_DEPTH);
    }

    #[test]
    fn well_formed_html_becomes_jsx() {
        let out = convert(
            "<details><summary>More <kbd>Ctrl</kbd></summary>\n\nHidden *text*.\n\n</details>",
        );
        assert_eq!(
            out,
            "<details>\n\n<summary>More <kbd>Ctrl</kbd></summary>\n\nHidden *text*.\n\n</details>"
        );
        assert_eq!(
            convert("Press <kbd>Ctrl</kbd>+<kbd>C</kbd><br>x<sup>2</sup> H<sub>2</sub>O"),
            "Press <kbd>Ctrl</kbd>+<kbd>C</kbd><br />x<sup>2</sup> H<sub>2</sub>O"
        );
        assert_eq!(
            convert("<p align=\"center\">\n  <img src=\"logo.png\" width=200 alt='Logo'>\n</p>"),
            format!("\n  <img src=\"https://github.com/acme/widgets/raw/{COMMIT}/docs/guide/logo.png\" alt=\"Logo\" />").trim()
        );
        assert_eq!(
            convert("See <a href=\"../api.md#usage\">the API</a>."),
            format!(
                "See [the API](https://github.com/acme/widgets/blob/{COMMIT}/docs/api.md#usage)."
            )
        );
        assert_eq!(
            convert("<img src=\"https://x.y/a.svg\" width=\"260\"alt=\"A\">"),
            "<img src=\"https://x.y/a.svg\" alt=\"A\" />"
        );
        // A tag over several lines is read whole; one that never closes stays text.
        assert_eq!(
            convert(
                "<img src=\"https://x.y/logo.svg\" align=\"right\"\n     alt=\"Logo by A\" width=\"180\" height=\"94\">\n\nA tiny library."
            ),
            "<img src=\"https://x.y/logo.svg\" alt=\"Logo by A\" />\n\nA tiny library."
        );
        let unclosed = convert("<img src=\"a.png\"\n\nNo end.");
        assert!(unclosed.contains("No end."), "{unclosed}");
        assert!(
            unclosed.starts_with("\\<img"),
            "escaped as text: {unclosed}"
        );
        assert_eq!(
            convert("```html\n<img src=\"a.png\"\n  alt=\"A\">\n```"),
            "```html\n<img src=\"a.png\"\n  alt=\"A\">\n```"
        );
        // Unpaired, unknown or unclosed details: escaped or closed, never broken.
        assert_eq!(convert("a <b>bold"), "a \\<b\\>bold");
        assert_eq!(
            convert("<custom-el>x</custom-el>"),
            "\\<custom-el\\>x\\</custom-el\\>"
        );
        let out = convert("<details>\n<summary>S</summary>\n\nbody");
        assert!(out.ends_with("</details>"), "{out}");
        assert_eq!(convert("`<kbd>` stays code"), "`<kbd>` stays code");
    }

    #[test]
    fn html_attacks_stay_inert() {
        for attack in [
            "<script>alert(1)</script>",
            "<img src=x onerror=\"alert(1)\">",
            "<img src=\"javascript:alert(1)\" alt=x>",
            "<a href=\"javascript:alert(1)\">click</a>",
            "<a href=\"java&#115;cript:alert(1)\">click</a>",
            "<details ontoggle=\"alert(1)\"><summary>s</summary>x</details>",
            "<b onclick=\"alert(1)\">x</b>",
            "<kbd style=\"x\">{globalThis.X=1}</kbd>",
            "<iframe src=\"https://evil.example\"></iframe>",
            "[x](javascript:alert(1)) ![y](javascript:alert(1))",
            "<svg><script>alert(1)</script></svg>",
        ] {
            // `convert` checks that validate accepts it: no JSX but the allowed elements,
            // without event handlers; and no tag other than those is left unescaped.
            let out = convert(attack);
            for live in [
                "<script",
                "<iframe",
                "<svg",
                "](javascript",
                "src=\"javascript",
            ] {
                let unescaped = out
                    .match_indices(live)
                    .any(|(i, _)| !out[..i].ends_with('\\'));
                assert!(!unescaped, "{attack} → {out}");
            }
            for handler in ["onerror", "onclick", "ontoggle", "style"] {
                assert!(
                    !out.contains(handler) || out.contains("\\<"),
                    "{attack} → {out}"
                );
            }
        }
    }

    #[test]
    fn headings_nest_under_the_article_without_jumps() {
        assert_eq!(
            convert("# A\n\n### B\n\n###### C\n\n## D\n\n#### E\n\n```\n# not a heading\n```"),
            "### A\n\n#### B\n\n##### C\n\n#### D\n\n##### E\n\n```\n# not a heading\n```"
        );
        assert_eq!(convert("#### Only\n\ntext"), "### Only\n\ntext");
        assert_eq!(
            convert("ignore\n======\nText.\n\nUsage\n-----\n\nMore\ntext\n---\n\n---"),
            "### ignore\nText.\n\n#### Usage\n\nMore\ntext\n---\n\n---"
        );
        assert_eq!(
            markdown_to_mdx("# A\n## B", "", &github(), 2),
            "## A\n### B"
        );
        let deep: String = (1..=6)
            .map(|l| format!("{} h{l}\n", "#".repeat(l)))
            .collect();
        assert!(convert(&deep).ends_with("###### h4\n###### h5\n###### h6"));
    }

    #[test]
    fn relative_links_and_images_point_at_the_forge_at_the_commit() {
        let blob = format!("https://github.com/acme/widgets/blob/{COMMIT}");
        let raw = format!("https://github.com/acme/widgets/raw/{COMMIT}");
        assert_eq!(
            convert(
                "See [setup](../setup.md#install), [root](/README.md), [here](#top), [web](https://x.y/a.md) and ![shot](img/a%20b.png \"t\")."
            ),
            format!(
                "See [setup]({blob}/docs/setup.md#install), [root]({blob}/README.md), [here](#top), [web](https://x.y/a.md) and ![shot]({raw}/docs/guide/img/a%20b.png \"t\")."
            )
        );
        assert_eq!(
            convert("[![badge](badge.svg)](../LICENSE)"),
            format!("[![badge]({raw}/docs/guide/badge.svg)]({blob}/docs/LICENSE)")
        );
        assert_eq!(
            convert("[ref]: ./other.md\n\nUse [ref]."),
            format!("[ref]: {blob}/docs/guide/other.md\n\nUse [ref].")
        );
        // A path leaving the repository is not rewritten; code is not either.
        assert_eq!(
            convert("[x](../../../a.md) `[y](b.md)`"),
            "[x](../../../a.md) `[y](b.md)`"
        );
    }

    #[test]
    fn without_a_forge_files_are_served_by_the_service() {
        let links = Links {
            commit: COMMIT.into(),
            forge: None,
        };
        assert_eq!(
            markdown_to_mdx(
                "![a](shots/one%201.png) [b](../b.md)",
                "docs/x.md",
                &links,
                3
            ),
            "![a](/docs/shots/one%201.png) [b](/b.md)"
        );
        assert_eq!(
            links.file("docs/a b.png", true),
            served_url("docs/a b.png", COMMIT)
        );
    }

    #[test]
    fn what_does_not_parse_as_mdx_is_escaped_instead() {
        // An inline element across emphasis does not nest in MDX: that line's HTML is
        // escaped, the rest of the document keeps its own.
        let out = convert("*a <b>c* d</b>\n\nx<br>y");
        assert_eq!(out, "*a \\<b\\>c* d\\</b\\>\n\nx<br />y");
    }

    #[test]
    fn every_element_kept_is_allowed_by_validate() {
        for name in PHRASING.iter().chain(&["details", "summary", "br", "img"]) {
            assert!(ALLOWED_COMPONENTS.iter().any(|(n, _)| n == name), "{name}");
        }
    }

    #[test]
    fn long_hostile_lines_stay_linear() {
        let line = "<a ".repeat(50_000) + &"<kbd>".repeat(20_000) + &"[".repeat(20_000);
        let started = std::time::Instant::now();
        let _ = mdx::sanitize_markdown(&line);
        let escaping = started.elapsed();
        let started = std::time::Instant::now();
        let _ = markdown_to_mdx(&line, "a.md", &github(), 3);
        let converting = started.elapsed();
        eprintln!("escaping {escaping:?}, converting {converting:?}");
        assert!(converting < escaping * 8 + std::time::Duration::from_secs(1));
    }
}
