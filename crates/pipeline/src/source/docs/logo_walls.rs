//! Walls of logos in a document: sponsors, backers, a menu of the project's other languages
//! or frameworks as logos. They speak to the repository page's visitors, not to the feature's
//! readers.

use super::vocabulary::is_funding_text;

/// The lines without their walls of logos: a paragraph made only of images, at least three of
/// which link elsewhere (sponsors, backers, a menu of the project's other languages or
/// frameworks as logos, each perhaps with a short label), and the bold caption just before it
/// ("**Gold sponsors:**"). Screenshots (no link, or a link to the image itself) and a single
/// linked diagram stay, and so does a wall that is all the page's text.
pub(super) fn without_logo_walls(lines: Vec<String>, kinds: &[Line]) -> Vec<String> {
    // Chrome lines (badges, a logo, a menu of translations) go in any case.
    let mut drop: Vec<bool> = (0..lines.len())
        .map(|i| kinds.get(i) == Some(&Line::Chrome))
        .collect();
    let is_prose = |i: usize| matches!(kinds.get(i), Some(Line::Prose | Line::Chrome));
    let mut start = 0;
    while start < lines.len() {
        if !is_prose(start) || lines[start].trim().is_empty() {
            start += 1;
            continue;
        }
        let mut end = start;
        while end < lines.len() && is_prose(end) && !lines[end].trim().is_empty() {
            end += 1;
        }
        // A caption may open the wall's paragraph (`<p><strong>Other languages</strong></p>`
        // right above the grid of logos).
        let first = if end - start > 1 && is_caption(&lines[start]) {
            start + 1
        } else {
            start
        };
        let mut linked = 0usize;
        let wall = (first..end).all(|i| {
            // Chrome lines go anyway and may sit in a wall; a row of badges alone is no wall
            // (the tagline above it is no caption).
            if kinds.get(i) == Some(&Line::Chrome) {
                return true;
            }
            match logo_line(&lines[i]) {
                Some(n) => {
                    linked += n;
                    true
                }
                None => false,
            }
        });
        if wall && linked >= 3 {
            drop[start..end].iter_mut().for_each(|d| *d = true);
            // The caption of the wall, when a bold line alone before it (past blank lines
            // and layout such as `<br />`, dropped with the wall).
            let mut before = start;
            while before > 0
                && is_prose(before - 1)
                && (lines[before - 1].trim().is_empty() || logo_line(&lines[before - 1]) == Some(0))
            {
                before -= 1;
                drop[before] = true;
            }
            let lone = before >= 1
                && is_prose(before - 1)
                && (before < 2 || !is_prose(before - 2) || lines[before - 2].trim().is_empty());
            if lone && is_caption(&lines[before - 1]) {
                drop[before - 1] = true;
            }
        }
        start = end;
    }
    // A wall gone, the words that ask for its money or thank its sponsors ("made possible by
    // the sponsors below") point at nothing: their paragraphs go too.
    let walls = (0..lines.len()).any(|i| drop[i] && kinds.get(i) != Some(&Line::Chrome));
    if walls {
        let mut start = 0;
        while start < lines.len() {
            let mut end = start;
            while end < lines.len() && is_prose(end) && !lines[end].trim().is_empty() {
                end += 1;
            }
            if end > start && is_funding_text(&lines[start..end].join(" ")) {
                drop[start..end].iter_mut().for_each(|d| *d = true);
            }
            start = end + 1;
        }
    }
    let has_text = lines
        .iter()
        .enumerate()
        .any(|(i, l)| !drop[i] && is_prose(i) && !l.trim().is_empty());
    if !has_text {
        drop = (0..lines.len())
            .map(|i| kinds.get(i) == Some(&Line::Chrome))
            .collect();
    }
    lines
        .into_iter()
        .zip(drop)
        .filter(|(_, d)| !d)
        .map(|(l, _)| l)
        .collect()
}

/// What a line of a document is, for [`without_logo_walls`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Line {
    Prose,
    /// Badges, a logo, a menu of translations: see `markdown::is_chrome`.
    Chrome,
    /// A heading or code.
    Other,
}

/// How many images on `line` link elsewhere, when the line holds nothing but images (linked
/// or not, a linked one perhaps with a short label) and layout; `None` when it holds text.
fn logo_line(line: &str) -> Option<usize> {
    const IMAGE: &str = r"(?:<img\b[^>]{0,1000}>|!\[[^\]\n]{0,300}\]\([^)\n]{0,1000}\))";
    static LINKED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        crate::builtin::regex(&format!(
            r#"(?i)\[\s*{IMAGE}([^\[\]\n]{{0,40}})\]\(\s*<?([^)\s>]+)>?[^)\n]{{0,300}}\)|<a\b[^>]{{0,1000}}?href\s*=\s*["']?([^"'\s>]+)[^>]{{0,1000}}>\s*{IMAGE}([^<\n]{{0,40}})</a>"#
        ))
    });
    // An image without a link, perhaps with a short label (a menu's current entry).
    static ALONE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        crate::builtin::regex(&format!(r"(?i){IMAGE}([^<\[\]!\n]{{0,40}})"))
    });
    static LAYOUT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        crate::builtin::regex(
            r"(?i)</?(?:a|p|div|center|picture|source|span|br|sup|sub)\b[^>]{0,1000}>|&nbsp;|[|·•\s]",
        )
    });
    if !line.contains("<img") && !line.contains("<IMG") && !line.contains("![") {
        // A line of layout alone (`<br />`) is part of a wall.
        return LAYOUT.replace_all(line, "").is_empty().then_some(0);
    }
    let mut linked = 0;
    for found in LINKED.captures_iter(line) {
        let target = found
            .get(2)
            .or_else(|| found.get(3))
            .map_or("", |m| m.as_str());
        let label = found
            .get(1)
            .or_else(|| found.get(4))
            .map_or("", |m| m.as_str());
        if label.split_whitespace().count() > 4 {
            return None;
        }
        // A link to the image file itself is a screenshot shown larger.
        let file = target
            .split(['?', '#'])
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        let image_file = [".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp"]
            .iter()
            .any(|ext| file.ends_with(ext));
        if !image_file {
            linked += 1;
        }
    }
    let rest = LINKED.replace_all(line, "");
    if ALONE.captures_iter(&rest).any(|c| {
        c.get(1)
            .map_or(0, |l| l.as_str().split_whitespace().count())
            > 4
    }) {
        return None;
    }
    let rest = ALONE.replace_all(&rest, "");
    LAYOUT.replace_all(&rest, "").is_empty().then_some(linked)
}

/// A line wholly in bold (`**Gold sponsors:**`, `<strong>…</strong>`), of a few words.
fn is_caption(line: &str) -> bool {
    static BREAK: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        crate::builtin::regex(r"(?i)<br\s*/?>|</?(?:p|div|center)\b[^>]{0,1000}>")
    });
    let text = BREAK.replace_all(line, "");
    let text = text.trim();
    let inner = [
        ("**", "**"),
        ("__", "__"),
        ("<strong>", "</strong>"),
        ("<b>", "</b>"),
    ]
    .iter()
    .find_map(|(open, close)| text.strip_prefix(open)?.strip_suffix(close));
    inner.is_some_and(|t| {
        !t.contains("**") && !t.contains("</") && (1..=20).contains(&t.split_whitespace().count())
    })
}

#[cfg(test)]
mod tests {
    use super::super::markdown::prose;

    #[test]
    fn a_wall_of_logos_is_dropped_unless_it_is_the_page() {
        let wall = "[![A](a.png)](https://a.example)\n[![B](b.png)](https://b.example)\n<img src=\"c.png\" alt=\"C\"> [![D](d.png)](https://d.example)";
        let text = format!(
            "# P\n\nIntro.\n\nP is made possible by the generosity of the sponsors below.\n\n**Backers:**\n\n{wall}\n\nMore text.\n"
        );
        let read = prose("README.md", &text).markdown;
        assert!(
            !read.contains("a.example")
                && !read.contains("Backers")
                && !read.contains("generosity"),
            "{read}"
        );
        assert!(
            read.contains("Intro.") && read.contains("More text."),
            "{read}"
        );
        // Two linked logos, or a wall with a sentence in it, are no wall.
        let two = "[![A](a.png)](https://a.example)\n[![B](b.png)](https://b.example)";
        let sentence = format!("{wall}\nThanks to all of them for their support.");
        let caption = format!("{wall}\n![Shot](s.png) The editor after a build, with its preview");
        for kept in [two, sentence.as_str(), caption.as_str()] {
            let read = prose("README.md", &format!("# P\n\nIntro.\n\n{kept}\n")).markdown;
            assert!(read.contains("a.example"), "{read}");
        }
        // A tagline above a row of badges is kept.
        let badges = "[![ci](https://x/badge.svg)](https://x) [![cov](https://y/badge.svg)](https://y)\n[![npm](https://shields.io/npm/badge.svg)](https://z)";
        let read = prose(
            "README.md",
            &format!("# P\n\n**Fast notes.**\n\n{badges}\n\nIntro.\n"),
        )
        .markdown;
        assert!(
            read.contains("Fast notes.") && !read.contains("badge.svg"),
            "{read}"
        );
        // A page that is only the wall keeps it.
        let read = prose("docs/sponsors.md", &format!("# Sponsors\n\n{wall}\n")).markdown;
        assert!(read.contains("a.example"), "{read}");
    }
}
