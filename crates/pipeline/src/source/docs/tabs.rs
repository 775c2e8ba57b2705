//! Tabs of docs frameworks read as labelled blocks: each tab's content under its label in
//! bold, as `markup`'s `<Tabs>`/`<TabItem>` become. Linear in the text per pass.

use std::sync::LazyLock;

use regex::Regex;

use super::fences::{closes_fence, opens_fence};

/// Tabs nested in tabs read at most.
const MAX_TAB_DEPTH: usize = 4;

/// The lines with their tabs read: Docusaurus 1 code tabs, then MkDocs content tabs, tabs
/// within tabs one level per pass.
pub(super) fn read(lines: Vec<String>) -> Vec<String> {
    let mut lines = lines;
    for _ in 0..MAX_TAB_DEPTH {
        let next = content_tabs(lines.clone());
        if next == lines {
            break;
        }
        lines = next;
    }
    lines
}

/// MkDocs content tabs (`=== "pip"` over an indented body): a labelled paragraph and the
/// body one level out, as the framework's `<Tabs>` become. Fenced code outside a tab is
/// left alone.
fn content_tabs(lines: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(lines.len());
    let mut fence: Option<(char, usize)> = None;
    // The indentation of the open tab's body.
    let mut body: Option<usize> = None;
    for line in lines {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if let Some(width) = body {
            if line.trim().is_empty() || indent >= width {
                out.push(line.get(width.min(indent)..).unwrap_or("").to_string());
                continue;
            }
            body = None;
        }
        if let Some((ch, len)) = fence {
            if closes_fence(&line, ch, len) {
                fence = None;
            }
            out.push(line);
            continue;
        }
        if let Some((ch, len, _)) = opens_fence(&line) {
            fence = Some((ch, len));
            out.push(line);
            continue;
        }
        if let Some(found) = CONTENT_TAB.captures(&line) {
            let label = tab_label(found.get(1).map_or("", |m| m.as_str()));
            body = Some(indent + 4);
            if !label.trim().is_empty() {
                out.push(format!("**{}**", label.trim()));
                out.push(String::new());
            }
            continue;
        }
        out.push(line);
    }
    out
}

static CONTENT_TAB: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r#"^ *===\+? +"([^"\n]{0,120})" *$"#));

/// Docusaurus 1 code tabs (`<!--DOCUSAURUS_CODE_TABS-->`, then `<!--label-->` before each
/// block, up to `<!--END_DOCUSAURUS_CODE_TABS-->`): each block under its label in bold; the
/// markers go. A comment outside the markers stays.
pub(super) fn code_tabs<'a>(lines: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    let mut inside = false;
    for line in lines {
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
        let comment = HTML_COMMENT_LINE
            .captures(line)
            .and_then(|c| c.get(1))
            .map(|m| m.as_str().trim());
        match comment {
            Some("DOCUSAURUS_CODE_TABS") => inside = true,
            Some("END_DOCUSAURUS_CODE_TABS") => inside = false,
            Some(label) if inside => {
                let label = tab_label(label);
                if !label.trim().is_empty() {
                    out.push(format!("**{}**", label.trim()));
                    out.push(String::new());
                }
            }
            _ => out.push(line.to_string()),
        }
    }
    out
}

/// A line that is one HTML comment, its text captured.
static HTML_COMMENT_LINE: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r"^ {0,3}<!--([^\n]{0,200}?)-->\s*$"));

/// A tab's label as text: no emphasis, and no icon shortcodes (`:material-apple: macOS`).
pub(super) fn tab_label(label: &str) -> String {
    static ICON: LazyLock<Regex> =
        LazyLock::new(|| crate::builtin::regex(r":[a-z0-9]+(?:-[a-z0-9]+)+:"));
    super::walkthrough::plain_text(&ICON.replace_all(label, ""))
}
