//! What a document is left with once a site's build-only parts are taken out, tidied: a
//! heading whose section lost everything (a toctree's "Reference" with no chapters left) is
//! dropped, and so is a thematic break that separates nothing (the `---` under a README's
//! removed badges, or one right under a heading). Linear in the document.

use super::fences::{Fences, atx_heading};

/// `markdown` without empty sections and without thematic breaks that separate nothing.
pub(crate) fn tidy(markdown: &str) -> String {
    let lines: Vec<&str> = markdown.lines().collect();
    // What each line is, outside code: a heading (its level), a break, text or blank.
    let mut kinds = Vec::with_capacity(lines.len());
    let mut fence = Fences::default();
    let mut previous_blank = true;
    for line in &lines {
        let kind = if fence.is_code(line) {
            Kind::Text
        } else if line.trim().is_empty() || is_spacer(line) {
            Kind::Blank
        } else if let Some((level, _)) = atx_heading(line) {
            Kind::Heading(level)
        } else if previous_blank && is_break(line) {
            // After text, `---` underlines a setext heading: only a break after a blank line.
            Kind::Break
        } else {
            Kind::Text
        };
        previous_blank = kind == Kind::Blank;
        kinds.push(kind);
    }
    let mut keep = vec![true; lines.len()];
    // Breaks with no text on one side (up to a heading, the document's edge or another break).
    let mut last_content: Option<Kind> = None;
    for i in 0..lines.len() {
        match kinds[i] {
            Kind::Blank => {}
            Kind::Break => {
                let next = kinds[i + 1..].iter().copied().find(|k| *k != Kind::Blank);
                let text_before = last_content == Some(Kind::Text);
                let text_after = next == Some(Kind::Text);
                if !(text_before && text_after) {
                    keep[i] = false;
                } else {
                    last_content = Some(Kind::Break);
                }
            }
            kind => last_content = Some(kind),
        }
    }
    // Headings whose section holds nothing, deepest first: a section whose subsections were
    // all empty is empty too. Walking backwards, `open[level]` says whether text follows
    // (before a heading of that level or higher).
    let mut has_content = [false; 7];
    for i in (0..lines.len()).rev() {
        if !keep[i] {
            continue;
        }
        match kinds[i] {
            Kind::Blank => {}
            Kind::Text | Kind::Break => has_content = [true; 7],
            Kind::Heading(level) => {
                let level = level.min(6);
                if !has_content[level] {
                    keep[i] = false;
                    continue;
                }
                // A heading is content for the sections above it, not for its siblings.
                for (l, slot) in has_content.iter_mut().enumerate() {
                    *slot = l < level;
                }
            }
        }
    }
    let mut out: Vec<&str> = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        if !keep[i] {
            continue;
        }
        // No run of blank lines where something was taken out.
        if kinds[i] == Kind::Blank {
            if out.last().is_none_or(|l| l.trim().is_empty()) {
                continue;
            }
            // A spacer line (`&nbsp;`) is a blank line.
            out.push("");
            continue;
        }
        out.push(line);
    }
    out.join("\n").trim().to_string()
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Blank,
    Text,
    Heading(usize),
    Break,
}

/// A line that only makes room on the page (`&nbsp;`, `<br />`), which Docusaurus pages use to
/// space their title from their text.
fn is_spacer(line: &str) -> bool {
    let mut rest = line.trim();
    while !rest.is_empty() {
        let Some(after) = ["&nbsp;", "&#160;", "<br>", "<br/>", "<br />"]
            .iter()
            .find_map(|spacer| rest.strip_prefix(spacer))
        else {
            return false;
        };
        rest = after.trim_start();
    }
    true
}

/// A thematic break: three or more of one of `-`, `*`, `_`, spaces between allowed.
fn is_break(line: &str) -> bool {
    let trimmed = line.trim();
    let Some(first) = trimmed
        .chars()
        .next()
        .filter(|c| matches!(c, '-' | '*' | '_'))
    else {
        return false;
    };
    line.len() - line.trim_start().len() <= 3
        && trimmed.chars().filter(|c| *c == first).count() >= 3
        && trimmed.chars().all(|c| c == first || c == ' ' || c == '\t')
}

#[cfg(test)]
mod tests {
    use super::tidy;

    #[test]
    fn empty_sections_and_breaks_that_separate_nothing_go() {
        let text = "---\n\nThe pitch.\n\n---\n\n#### Basics\n\nRead in order.\n\n#### Reference\n\n#### Deprecated\n\n##### Old\n\n#### Usage\n\n***\n\nText.\n\n---\n\nMore.\n\n```\n# not a heading\n---\n```\n\n---";
        assert_eq!(
            tidy(text),
            "The pitch.\n\n#### Basics\n\nRead in order.\n\n#### Usage\n\nText.\n\n---\n\nMore.\n\n```\n# not a heading\n---\n```"
        );
        // A line that only spaces the page is a blank line.
        assert_eq!(
            tidy("&nbsp;\n\nText.\n\n<br /> &nbsp;\n\nMore."),
            "Text.\n\nMore."
        );
        // A setext underline is no break, and a section with only subsections keeps them.
        let text = "#### Guide\n\n##### Part\n\nTitle\n---\n\nBody.";
        assert_eq!(tidy(text), text);
    }
}
