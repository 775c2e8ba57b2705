//! Sentences addressed to a docs site's own navigation ("Please choose from the chapters on
//! the left", "See the hamburger menu in the top left"): an article has no such menu, so they
//! are taken out of their paragraphs, and a paragraph left without text goes. Code, headings,
//! lists, tables, quotes and HTML are left as written.

use std::sync::LazyLock;

use regex::Regex;

use super::fences::Fences;

/// A sentence that points at the site's chrome: its chapters or pages "on the left", its
/// hamburger menu, its sidebar's chapters.
static NAVIGATION: LazyLock<Regex> = LazyLock::new(|| {
    crate::builtin::regex(
        r"(?i)\b(?:chapters?|pages?|topics?|sections?)\b[^.!?\n]{0,80}\b(?:on|in) the (?:left|right|sidebar|side bar|navigation)\b|\bhamburger menu\b|\b(?:sidebar|side bar|navigation (?:bar|menu|pane))\b[^.!?\n]{0,60}\b(?:chapters?|pages?|topics?)\b",
    )
});

pub(crate) fn without_navigation_sentences(markdown: &str) -> String {
    if !NAVIGATION.is_match(markdown) {
        return markdown.to_string();
    }
    let mut fence = Fences::default();
    let mut out: Vec<String> = Vec::new();
    let mut paragraph: Vec<&str> = Vec::new();
    for line in markdown.lines() {
        let code = fence.is_code(line);
        if !code && is_prose(line) && (!paragraph.is_empty() || !line.trim().is_empty()) {
            if line.trim().is_empty() {
                out.extend(read_paragraph(&paragraph));
                paragraph.clear();
                out.push(String::new());
            } else {
                paragraph.push(line);
            }
            continue;
        }
        out.extend(read_paragraph(&paragraph));
        paragraph.clear();
        out.push(line.to_string());
    }
    out.extend(read_paragraph(&paragraph));
    let mut joined = out.join("\n");
    if markdown.ends_with('\n') {
        joined.push('\n');
    }
    joined
}

/// Whether a line can belong to a paragraph of prose.
fn is_prose(line: &str) -> bool {
    let trimmed = line.trim_start();
    let list = ["- ", "* ", "+ "].iter().any(|m| trimmed.starts_with(m))
        || trimmed
            .split_once(". ")
            .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    !(list || trimmed.starts_with(['#', '|', '<', '>', ':']) || line.starts_with("    "))
}

/// A paragraph's lines without the sentences about the site's navigation; nothing when no
/// text is left.
fn read_paragraph(lines: &[&str]) -> Vec<String> {
    let text = lines.join("\n");
    if lines.is_empty() || !NAVIGATION.is_match(&text) {
        return lines.iter().map(|l| l.to_string()).collect();
    }
    let kept: String = sentences(&text)
        .into_iter()
        .filter(|s| !NAVIGATION.is_match(s))
        .collect();
    let kept = kept.trim();
    if kept.chars().all(|c| !c.is_alphanumeric()) {
        return Vec::new();
    }
    kept.lines().map(str::to_string).collect()
}

/// A paragraph's sentences, each with the space after it: a sentence ends at `.`, `!` or `?`
/// (and the emphasis or quotes closing it) before white space.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut k = 0;
    while k < chars.len() {
        let (_, c) = chars[k];
        k += 1;
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        while k < chars.len() && matches!(chars[k].1, '*' | '_' | '"' | '\'' | ')') {
            k += 1;
        }
        if k < chars.len() && chars[k].1.is_whitespace() {
            while k < chars.len() && chars[k].1.is_whitespace() {
                k += 1;
            }
            let end = chars.get(k).map_or(text.len(), |(at, _)| *at);
            out.push(&text[start..end]);
            start = end;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::without_navigation_sentences as clean;

    #[test]
    fn sentences_about_the_sites_menu_go_and_the_rest_stays() {
        assert_eq!(
            clean(
                "Intro.\n\nPlease choose from the chapters on the left to jump to individual topics, or continue below.\n\n***Chapter outline:** See the hamburger menu in the top left if you are on a small\nscreen and it didn't open with a sidebar by default.*\n\nRead on. The pages on the left list\nevery topic. Then install it.\n"
            ),
            "Intro.\n\n\n\nRead on. Then install it.\n"
        );
        // An application's own sidebar, code and lists are the reader's.
        let kept = "Open the sidebar and click Settings.\n\n```\n# pages on the left\n```\n\n- The pages on the left.\n";
        assert_eq!(clean(kept), kept);
    }
}
