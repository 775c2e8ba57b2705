//! What a feature's docs call it and how they introduce it: the article's title and
//! description come from the docs themselves, never from a folder path or a placeholder.

use super::markdown::{Prose, atx_heading, closes_fence, opens_fence};
use super::site::SiteOrder;
use super::walkthrough::plain_text;
use crate::source::paths::stem;
use crate::source::sentences::first_sentence;

/// Words at least in a sentence that introduces the project (not a badge row or a link).
const MIN_WORDS: usize = 4;
/// Lines of a document read for its introduction.
const MAX_LINES: usize = 400;

/// The name the docs give the project: the site's own name, else the title of the
/// shallowest README.
pub(crate) fn docs_title(docs: &[Prose], site: Option<&SiteOrder>) -> Option<String> {
    if let Some(title) = site.and_then(|s| s.title.clone()) {
        return Some(title);
    }
    readme(docs)
        .map(|doc| doc.title.trim().to_string())
        .filter(|t| !t.is_empty() && !t.eq_ignore_ascii_case("readme"))
}

/// The docs' own first sentence: from the site's first page, else the shallowest README,
/// else the first document; skipping headings, HTML, images, badges, admonitions, code and
/// lists.
pub(crate) fn docs_intro(docs: &[Prose], site: Option<&SiteOrder>) -> Option<String> {
    let first_listed = site.and_then(|s| {
        docs.iter()
            .filter_map(|d| Some((s.rank.get(&d.path)?, d)))
            .min_by_key(|(rank, _)| **rank)
            .map(|(_, d)| d)
    });
    first_listed
        .into_iter()
        .chain(readme(docs))
        .chain(docs.first())
        .find_map(|doc| first_paragraph(&doc.markdown))
}

fn readme(docs: &[Prose]) -> Option<&Prose> {
    docs.iter()
        .filter(|d| stem(&d.path).starts_with("readme"))
        .min_by_key(|d| d.path.matches('/').count())
}

/// The first sentence of the first paragraph of running text in `markdown`.
fn first_paragraph(markdown: &str) -> Option<String> {
    let mut fence: Option<(char, usize)> = None;
    let mut paragraph: Vec<String> = Vec::new();
    for line in markdown.lines().take(MAX_LINES) {
        if let Some((ch, len)) = fence {
            if closes_fence(line, ch, len) {
                fence = None;
            }
            continue;
        }
        if let Some((ch, len, _)) = opens_fence(line) {
            fence = Some((ch, len));
            if let Some(found) = sentence(&paragraph) {
                return Some(found);
            }
            paragraph.clear();
            continue;
        }
        let trimmed = line.trim();
        let chrome = trimmed.is_empty()
            || atx_heading(line).is_some()
            || line.starts_with("    ")
            || trimmed.starts_with(['<', '!', '>', '|', '{', ':', '=', '[', '#', '`'])
            // List items and rules, not emphasis (`**Uvicorn** is…`).
            || trimmed.starts_with(['-', '*', '+'])
                && trimmed[1..].starts_with([' ', '-', '*', '+'])
                && !trimmed.starts_with("**")
            || trimmed.starts_with("..")
            || trimmed.starts_with("import ")
            || trimmed.starts_with("export ");
        if chrome {
            if let Some(found) = sentence(&paragraph) {
                return Some(found);
            }
            paragraph.clear();
            continue;
        }
        paragraph.push(trimmed.to_string());
    }
    sentence(&paragraph)
}

/// The paragraph's first sentence as plain text, when it is one.
fn sentence(paragraph: &[String]) -> Option<String> {
    if paragraph.is_empty() {
        return None;
    }
    let plain = plain_text(&paragraph.join(" "));
    let first = first_sentence(&[plain]);
    let words = first.split_whitespace().count();
    let ends = first.ends_with(['.', '!', '?']);
    (words >= MIN_WORDS && ends && !first.ends_with(':')).then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(path: &str, title: &str, markdown: &str) -> Prose {
        Prose {
            path: path.into(),
            title: title.into(),
            markdown: markdown.into(),
            dropped: Vec::new(),
        }
    }

    #[test]
    fn the_intro_is_the_first_real_sentence() {
        let readme = doc(
            "README.md",
            "HTTPX",
            "[![Build](https://x/badge.svg)](https://x)\n\n<p align=\"center\"><img src=\"logo.png\"></p>\n\n### Install\n\n```sh\npip install x\n```\n\nHTTPX is a fully featured HTTP client for Python 3, which provides\nsync and async APIs. It has more.\n",
        );
        assert_eq!(
            docs_intro(std::slice::from_ref(&readme), None).as_deref(),
            Some(
                "HTTPX is a fully featured HTTP client for Python 3, which provides sync and async APIs."
            )
        );
        assert_eq!(docs_title(&[readme], None).as_deref(), Some("HTTPX"));
    }

    #[test]
    fn the_site_names_the_project_and_its_first_page_introduces_it() {
        let docs = [
            doc(
                "README.md",
                "readme",
                "A README sentence that is long enough.",
            ),
            doc(
                "docs/index.md",
                "Home",
                "The site's own **first** sentence here. More.",
            ),
        ];
        let site = SiteOrder {
            kind: "MkDocs",
            rank: [("docs/index.md".to_string(), 0)].into_iter().collect(),
            title: Some("Uvicorn".into()),
        };
        assert_eq!(docs_title(&docs, Some(&site)).as_deref(), Some("Uvicorn"));
        assert_eq!(
            docs_intro(&docs, Some(&site)).as_deref(),
            Some("The site's own first sentence here.")
        );
        assert_eq!(docs_title(&docs[..1], None), None);
    }

    #[test]
    fn no_sentence_gives_none() {
        assert_eq!(
            docs_intro(
                &[doc("README.md", "x", "# x\n\n[![b](u)](v)\n\nSee:\n")],
                None
            ),
            None
        );
    }
}
