//! HTML that a README or a docs page spreads over several lines, read before the rest of its
//! markup so that no surface shows it as text:
//!
//! - a heading (`<h1 align="center">` … `</h1>`) becomes a Markdown heading of its text, or is
//!   dropped when it holds only a logo;
//! - a centring wrapper (`<p align="center">`, `<div align="center">`, `<center>`) that holds
//!   only images and links (a logo, badges, an ad slot), or a sponsor's ad whose text speaks
//!   of funding, is dropped; one with other text keeps it;
//! - a `<summary>` split over lines is joined into one, which the converter reads with its
//!   `<details>`;
//! - what has no place in an article (`<style>`, `<script>`, `<iframe>`, `<video>`…) is
//!   dropped;
//! - tags lose their indentation, and so do indented lines inside an HTML block other than a
//!   list's items, so that the layout's indentation before `<br />` or before text is not
//!   read as an indented code block.
//!
//! An element is followed at most [`MAX_BLOCK_LINES`] lines; one left open is kept as
//! written. Every pass is linear in the text times that bound.

use super::fences::Fences;
use super::vocabulary::is_funding_text;

/// Lines one element may span.
const MAX_BLOCK_LINES: usize = 64;
/// Elements whose content is no article's text.
const DROPPED: &[&str] = &[
    "style", "script", "iframe", "video", "audio", "object", "embed", "noscript", "svg", "map",
];
/// Block elements whose lines are HTML (not Markdown code) while they are open.
const BLOCKS: &[&str] = &[
    "details", "div", "p", "center", "aside", "picture", "figure", "section", "table",
];

pub(crate) fn read(lines: &[&str]) -> Vec<String> {
    let cleaned = without_jsx_expressions(lines);
    let lines: Vec<&str> = cleaned.iter().map(String::as_str).collect();
    let lines = lines.as_slice();
    let mut out = Vec::with_capacity(lines.len());
    let mut fence = Fences::default();
    let mut open_blocks = Open::default();
    let mut i = 0;
    while let Some(&line) = lines.get(i) {
        i += 1;
        if fence.is_code(line) {
            out.push(line.to_string());
            continue;
        }
        let trimmed = line.trim_start();
        let Some((name, closing)) = tag_name(trimmed) else {
            // Indented text inside an HTML block is the block's layout, not code: tabs in any,
            // spaces in a layout element (`<div>`, `<p>`) unless before a list item (a nested
            // list); a `<details>` holds Markdown (an admonition's indented body).
            let layout = (open_blocks.any > 0 && line.starts_with('\t'))
                || (open_blocks.layout > 0 && line.starts_with(' ') && !is_list_item(trimmed));
            out.push(if layout { trimmed } else { line }.to_string());
            continue;
        };
        if !closing {
            let element = Element {
                lines,
                open: i - 1,
                name: &name,
            };
            if let Some(level) = heading_level(&name)
                && let Some((close, rest)) = element.close()
            {
                let text = plain(&element.inner(close));
                if !text.is_empty() {
                    out.push(format!("{} {text}", "#".repeat(level)));
                }
                push_rest(&mut out, &mut open_blocks, rest);
                i = close + 1;
                continue;
            }
            if name == "div"
                && let Some((close, rest)) = element.close()
                && lines[i - 1..=close].iter().any(|l| has_inline_heading(l))
            {
                // A page rendered as HTML (a "Result" sample), whose headings sit among other
                // tags where no converter reads them: its text, headings in bold, so that none
                // of them enters the article's outline or leaks as a tag.
                out.extend(flattened(&element.inner(close)));
                push_rest(&mut out, &mut open_blocks, rest);
                i = close + 1;
                continue;
            }
            if DROPPED.contains(&name.as_str())
                && let Some((close, rest)) = element.close()
            {
                push_rest(&mut out, &mut open_blocks, rest);
                i = close + 1;
                continue;
            }
            if name == "summary"
                && let Some((close, rest)) = element.close()
            {
                out.push(format!(
                    "<summary>{}</summary>",
                    plain(&element.inner(close))
                ));
                push_rest(&mut out, &mut open_blocks, rest);
                i = close + 1;
                continue;
            }
            let centred = name == "center"
                || (matches!(name.as_str(), "p" | "div")
                    && opening_tag(trimmed).contains("center"));
            // Empty of text (a logo, a row of badges), or a sponsor's ad ("… supported by the
            // community. Special thanks to:" and the sponsor's slogan): for the repository
            // page's visitors.
            if (centred || name == "p")
                && let Some((close, rest)) = element.close()
                && let inner = element.inner(close)
                && let text = plain(&inner)
                && ((text.is_empty() && (centred || linked_images(&inner)))
                    || (centred && is_funding_text(&text)))
            {
                push_rest(&mut out, &mut open_blocks, rest);
                i = close + 1;
                continue;
            }
        }
        update_open(&mut open_blocks, trimmed, &name);
        out.push(trimmed.to_string());
    }
    out
}

/// Whether a line opens a heading element after other text or tags (`</p></div><h4 id=…>`).
fn has_inline_heading(line: &str) -> bool {
    let lower = line.trim().to_ascii_lowercase();
    (1..=6).any(|level| {
        let marker = format!("<h{level}");
        lower.match_indices(&marker).any(|(at, _)| {
            at > 0
                && lower[at + marker.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| c.is_whitespace() || c == '>')
        })
    })
}

/// Some HTML as Markdown paragraphs of its text: a block element (`<p>`, `<div>`, a heading)
/// starts a paragraph, a heading's text is bold, inline tags go without a space.
fn flattened(html: &str) -> Vec<String> {
    let words = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut paragraphs = Vec::new();
    let mut current = String::new();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        current.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('>') else {
            rest = after;
            continue;
        };
        let tag_name: String = after[..close]
            .trim_start_matches('/')
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect::<String>()
            .to_ascii_lowercase();
        let heading = heading_level(&tag_name).is_some();
        if heading || BLOCKS.contains(&tag_name.as_str()) || tag_name == "br" {
            let text = words(&current);
            if !text.is_empty() {
                let closes_heading = heading && after.starts_with('/');
                paragraphs.push(if closes_heading {
                    format!("**{text}**")
                } else {
                    text
                });
            }
            current.clear();
        }
        rest = &after[close + 1..];
    }
    current.push_str(rest);
    paragraphs.push(words(&current));
    let mut out = Vec::new();
    for paragraph in paragraphs.into_iter().filter(|p| !p.is_empty()) {
        out.push(String::new());
        out.push(paragraph);
    }
    out.push(String::new());
    out
}

/// Whether some HTML without text is a row of linked images (badges, sponsors' logos).
fn linked_images(html: &str) -> bool {
    let lower = html.to_ascii_lowercase();
    lower.contains("<a ") && lower.contains("<img")
}

/// The lines with the JSX an MDX page writes in its HTML taken out, outside code: expression
/// attributes (`style={{ display: 'flex' }}`, `className={x}`) in an HTML tag, and the
/// `{' '}` that keeps a space between two elements.
fn without_jsx_expressions(lines: &[&str]) -> Vec<String> {
    use std::sync::LazyLock;
    static ATTRIBUTE: LazyLock<regex::Regex> = LazyLock::new(|| {
        crate::builtin::regex(r"\s[A-Za-z][\w-]{0,40}=\{(?:\{[^{}\n]{0,500}\}|[^{}\n]{0,200})\}")
    });
    static SPACE: LazyLock<regex::Regex> =
        LazyLock::new(|| crate::builtin::regex(r#"\{\s*(?:' '|" ")\s*\}"#));
    let mut fence = Fences::default();
    lines
        .iter()
        .map(|line| {
            if fence.is_code(line) || !line.contains('{') {
                return line.to_string();
            }
            let line = SPACE.replace_all(line, " ");
            // Only HTML's own (lower-case) tags: a component's props are read with it.
            let html_tag = line
                .trim_start()
                .strip_prefix('<')
                .is_some_and(|t| t.starts_with(|c: char| c.is_ascii_lowercase()));
            if html_tag {
                ATTRIBUTE.replace_all(&line, "").into_owned()
            } else {
                line.into_owned()
            }
        })
        .collect()
}

/// Whether `line` (without its indentation) starts a Markdown list item (`- x`, `1. x`).
fn is_list_item(line: &str) -> bool {
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    let rest = &line[digits..];
    let marker = if digits > 0 {
        rest.strip_prefix(['.', ')'])
    } else {
        rest.strip_prefix(['-', '*', '+'])
    };
    marker.is_some_and(|after| after.is_empty() || after.starts_with([' ', '\t']))
}

/// An element opened at the start of line `open`.
struct Element<'a> {
    lines: &'a [&'a str],
    open: usize,
    name: &'a str,
}

impl Element<'_> {
    /// The line that closes the element (nested elements of the same name counted) and what
    /// follows its closing tag there.
    fn close(&self) -> Option<(usize, String)> {
        let mut depth = 0usize;
        let end = (self.open + MAX_BLOCK_LINES).min(self.lines.len());
        for (index, line) in self.lines.iter().enumerate().take(end).skip(self.open) {
            let lower = line.to_ascii_lowercase();
            depth += count_tags(&lower, self.name, false);
            let closes = count_tags(&lower, self.name, true);
            // `<iframe … />` and `<img … />`: nothing to close.
            if index == self.open && closes == 0 && lower.trim_end().ends_with("/>") {
                return Some((index, String::new()));
            }
            if closes >= depth && closes > 0 {
                let marker = format!("</{}", self.name);
                let at = lower.rfind(&marker)?;
                let rest = line.get(at..)?;
                let rest = rest.split_once('>').map_or("", |(_, r)| r);
                return Some((index, rest.trim().to_string()));
            }
            depth -= closes.min(depth);
        }
        None
    }

    /// The lines from the opening to the closing one, joined.
    fn inner(&self, close: usize) -> String {
        self.lines[self.open..=close]
            .iter()
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// What follows an element's closing tag on its line (`</center> <details>`), as a line.
/// How many block elements are open, and how many of them are layout.
#[derive(Default)]
struct Open {
    any: usize,
    layout: usize,
}

/// Block elements that only lay out their content.
const LAYOUT: &[&str] = &[
    "div", "p", "center", "section", "figure", "picture", "table",
];

fn push_rest(out: &mut Vec<String>, open_blocks: &mut Open, rest: String) {
    if rest.is_empty() {
        return;
    }
    if let Some((name, _)) = tag_name(&rest) {
        update_open(open_blocks, &rest, &name);
    }
    out.push(rest);
}

fn update_open(open_blocks: &mut Open, line: &str, name: &str) {
    if BLOCKS.contains(&name) {
        let opened = count_tags(line, name, false);
        let closed = count_tags(line, name, true);
        let count = |n: usize| (n + opened).saturating_sub(closed).min(64);
        open_blocks.any = count(open_blocks.any);
        if LAYOUT.contains(&name) {
            open_blocks.layout = count(open_blocks.layout);
        }
    }
}

/// The lower-case name of the tag a line starts with, and whether it closes.
fn tag_name(trimmed: &str) -> Option<(String, bool)> {
    let after = trimmed.strip_prefix('<')?;
    let (closing, after) = match after.strip_prefix('/') {
        Some(rest) => (true, rest),
        None => (false, after),
    };
    let name: String = after
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .take(16)
        .collect::<String>()
        .to_ascii_lowercase();
    let next = after[name.len()..].chars().next();
    (name.starts_with(|c: char| c.is_ascii_alphabetic())
        && next.is_none_or(|c| c.is_whitespace() || c == '>' || c == '/'))
    .then_some((name, closing))
}

fn heading_level(name: &str) -> Option<usize> {
    let level = name.strip_prefix('h')?.parse::<usize>().ok()?;
    (1..=6).contains(&level).then_some(level)
}

/// The opening tag at the start of `line`, lower case (up to its `>` or the line's end).
fn opening_tag(line: &str) -> String {
    line.split('>').next().unwrap_or("").to_ascii_lowercase()
}

/// How many `<name` (or `</name`) tags `line` holds.
fn count_tags(line: &str, name: &str, closing: bool) -> usize {
    let lower = line.to_ascii_lowercase();
    let marker = if closing {
        format!("</{name}")
    } else {
        format!("<{name}")
    };
    lower
        .match_indices(&marker)
        .filter(|(at, _)| {
            lower[at + marker.len()..]
                .chars()
                .next()
                .is_none_or(|c| c.is_whitespace() || c == '>' || c == '/')
        })
        .count()
}

/// The text of some HTML: tags taken out, whitespace collapsed.
fn plain(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    let mut chars = html.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '<' if chars
                .peek()
                .is_some_and(|n| n.is_ascii_alphabetic() || *n == '/' || *n == '!') =>
            {
                in_tag = true;
            }
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(text: &str) -> String {
        let lines: Vec<&str> = text.lines().collect();
        read(&lines).join("\n")
    }

    #[test]
    fn headings_spread_over_lines_become_markdown() {
        assert_eq!(
            md(
                "<h1 align=\"center\" style=\"x\">\n  <img src=\"logo.svg\" width=\"80\">\n  <br>\n  Widgets\n</h1>\ntext"
            ),
            "# Widgets\ntext"
        );
        assert_eq!(
            md("<h1 align=\"center\">\n  <img src=\"logo.svg\">\n</h1>\ntext"),
            "text"
        );
    }

    #[test]
    fn centred_logos_and_badges_are_dropped_and_text_is_kept() {
        let text = "<p align=\"center\">\n  <a href=\"https://x\"><img src=\"https://img.shields.io/b.svg\"></a>\n</p>\n\n<p align=\"center\">\n<em>An ASGI web server.</em>\n</p>\n\n<center>\n\t<div\n\t\tdata-x=\"y\"\n\t></div>\n</center> <details>\n\t<summary className=\"s\">\n\t\tLesson 3\n\t</summary>\n\t<br />\n\t<div>\n\t\t<iframe\n\t\t\tsrc=\"https://v\"\n\t\t></iframe>\n\t</div>\n\tHosted elsewhere\n</details>";
        assert_eq!(
            md(text),
            "\n<p align=\"center\">\n<em>An ASGI web server.</em>\n</p>\n\n<details>\n<summary>Lesson 3</summary>\n<br />\n<div>\n</div>\nHosted elsewhere\n</details>"
        );
    }

    #[test]
    fn a_rendered_page_in_a_div_is_its_text_with_headings_in_bold() {
        let text = "<div><div><p>Print print!</p><div><div>\n<h4 id=\"a\">\n<code class=\"x\">\nmethod_a<span class=\"p\">(</span>self<span>)</span> </code>\n</h4><div>\n<p>Print A!</p></div></div><div><h4 id=\"b\">method_b</h4><div><p>Print B!</p></div></div></div></div></div>\nAfter.";
        assert_eq!(
            md(text),
            "\nPrint print!\n\n**method_a(self)**\n\nPrint A!\n\n**method_b**\n\nPrint B!\n\nAfter."
        );
    }

    #[test]
    fn jsx_in_html_and_rows_of_linked_images_go() {
        let text = "<div align=\"center\" style={{ display: 'flex', gap: '10px' }}>\n  <p>Typesafe APIs made easy</p>\n  <p>\n    <a href=\"https://x\">\n      <img src=\"https://img.shields.io/a.svg\" />\n    </a>{' '}\n    <a href=\"https://y\"><img src=\"b.svg\" /></a>\n  </p>\n</div>\n\n<p><img src=\"screenshot.png\" /></p>\n\n```jsx\n<div style={{ a: 1 }}>{' '}</div>\n```";
        assert_eq!(
            md(text),
            "<div align=\"center\">\n<p>Typesafe APIs made easy</p>\n</div>\n\n<p><img src=\"screenshot.png\" /></p>\n\n```jsx\n<div style={{ a: 1 }}>{' '}</div>\n```"
        );
    }

    #[test]
    fn a_centred_sponsor_ad_is_dropped() {
        let text = "<div align=\"center\">\n\t<img src=\"media/logo.svg\" alt=\"ky\">\n\t<p>\n\t\t<sup>\n\t\t\tOur open source work is supported by the community.<br>Special thanks to:\n\t\t</sup>\n\t\t<a href=\"https://sponsor.example?utm_source=x\">\n\t\t\t<b>Get the most out of every conversation.</b>\n\t\t</a>\n\t</p>\n</div>\n\n> Ky is a tiny HTTP client.";
        assert_eq!(md(text), "\n> Ky is a tiny HTTP client.");
        // A centred tagline stays.
        let text = "<div align=\"center\">\n<em>An HTTP client with retries.</em>\n</div>";
        assert_eq!(md(text), text);
    }

    #[test]
    fn indented_text_in_a_block_is_layout_and_a_nested_list_is_not() {
        assert_eq!(
            md(
                "<div class=\"benefits\">\n    <div>\n        <h4>Fast</h4>\n        <p>\n            Changes are tracked.\n        </p>\n    </div>\n    - kept\n</div>\n\n    code after"
            ),
            "<div class=\"benefits\">\n<div>\n#### Fast\n<p>\nChanges are tracked.\n</p>\n</div>\n    - kept\n</div>\n\n    code after"
        );
    }

    #[test]
    fn styles_scripts_go_and_open_elements_stay() {
        assert_eq!(
            md("<style>\n  h1 { display: none; }\n</style>\n\n<script src=\"x.js\" />\nText."),
            "\nText."
        );
        assert_eq!(md("<h2>\nNever closed"), "<h2>\nNever closed");
        assert_eq!(
            md("```html\n<style>\n```\n    code"),
            "```html\n<style>\n```\n    code"
        );
        let _ = md(&"<div>\n".repeat(10_000));
        let _ = md(&"<h1>\n".repeat(10_000));
    }
}
