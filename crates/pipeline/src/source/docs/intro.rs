//! What a feature's docs call it and how they introduce it: the article's title and
//! description come from the docs themselves, never from a folder path or a placeholder.

use super::markdown::{Prose, atx_heading, closes_fence, opens_fence};
use super::site::SiteOrder;
use super::vocabulary::{is_funding_text, is_generic_nav_title};
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
    site.and_then(|s| s.title.clone())
        .or_else(|| readme(docs).map(|doc| doc.title.clone()))
        .map(|t| without_symbols(&super::walkthrough::unescaped(&t)))
        .filter(|t| !t.is_empty() && !t.eq_ignore_ascii_case("readme") && !is_generic_nav_title(t))
}

/// Documents that share one title (every page of a docs folder opening with the project's
/// name) told apart by their file names (`Getting-Started.md` → "Getting Started").
/// Pages count by file name: the same page kept for each released version
/// (`versioned_docs/version-29/GettingStarted.md`) keeps its title.
pub(crate) fn distinct_titles(docs: &mut [Prose]) {
    let stem = |path: &str| {
        let name = path.rsplit('/').next().unwrap_or(path);
        name.rsplit_once('.')
            .map_or(name, |(s, _)| s)
            .to_lowercase()
    };
    let mut files: std::collections::HashMap<String, std::collections::HashSet<String>> =
        std::collections::HashMap::new();
    for doc in docs.iter() {
        files
            .entry(doc.title.trim().to_lowercase())
            .or_default()
            .insert(stem(&doc.path));
    }
    for doc in docs.iter_mut() {
        if files
            .get(&doc.title.trim().to_lowercase())
            .is_some_and(|names| names.len() >= SHARED_TITLE)
        {
            let name = doc.path.rsplit('/').next().unwrap_or(&doc.path);
            let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
            if !matches!(stem.to_lowercase().as_str(), "readme" | "index" | "_index") {
                doc.title = crate::source::manifest::humanize(stem);
            }
        }
    }
}

/// Documents sharing a title from which it names none of them.
const SHARED_TITLE: usize = 3;

/// A title without the emoji and symbols at its ends (`MobX 🇺🇦` → `MobX`).
fn without_symbols(title: &str) -> String {
    let decoration = |c: char| !(c.is_alphanumeric() || c.is_ascii_punctuation());
    title
        .trim_matches(|c: char| c.is_whitespace() || decoration(c))
        .to_string()
}

/// The docs' own first sentence: from the site's first page, else the shallowest README,
/// else the first document; skipping headings, HTML, images, badges, admonitions, code and
/// lists.
///
/// A sentence among the first paragraphs that names the project (`title`) as what it speaks
/// of ("Task is a task runner…") is preferred to one that greets or digresses ("Welcome to
/// the guide!", "Using this package requires…").
pub(crate) fn docs_intro(docs: &[Prose], site: Option<&SiteOrder>, title: &str) -> Option<String> {
    // The site's first pages (a home page may hold only its hero), in its order.
    let mut listed: Vec<(usize, &Prose)> = site
        .map(|s| {
            docs.iter()
                .filter_map(|d| Some((*s.rank.get(&d.path)?, d)))
                .collect()
        })
        .unwrap_or_default();
    listed.sort_by_key(|(rank, _)| *rank);
    let sources: Vec<&Prose> = listed
        .iter()
        .take(SITE_PAGES_READ)
        .map(|(_, d)| *d)
        .chain(readme(docs))
        .chain(docs.first())
        .collect();
    const NOT_NAMES: &[&str] = &[
        "the",
        "and",
        "for",
        "with",
        "user",
        "guide",
        "book",
        "docs",
        "documentation",
        "manual",
    ];
    // The project's name, not a tagline after it ("CXX — safe FFI between Rust and C++").
    let name = [" \u{2014} ", " \u{2013} ", " - ", ": "]
        .iter()
        .filter_map(|separator| title.split_once(separator).map(|(name, _)| name))
        .min_by_key(|name| name.len())
        .unwrap_or(title);
    let names: Vec<String> = name
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.chars().count() >= 2 && !NOT_NAMES.contains(&w.as_str()))
        .collect();
    let names_project = |sentence: &str| {
        let lower = sentence.to_lowercase();
        let mut words = lower
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty());
        let opening: Vec<&str> = words.by_ref().take(3).collect();
        // A condition or a purpose ("To use PyO3, you need…") is no introduction.
        let digresses = opening
            .first()
            .is_some_and(|w| matches!(*w, "welcome" | "to" | "if" | "when" | "before"));
        !digresses && opening.iter().any(|w| names.iter().any(|n| n == w))
    };
    let sentences: Vec<String> = sources
        .iter()
        .flat_map(|doc| paragraphs(&doc.markdown, MAX_PARAGRAPHS))
        .map(|sentence| without_back_reference(&sentence))
        .collect();
    // The docs' own definition ("Pinia is a store library for Vue…") first, else the first
    // sentence that speaks of the project.
    let defines = |sentence: &str| {
        let lower = sentence.to_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        words.iter().take(3).any(|w| names.iter().any(|n| n == w))
            && words.windows(2).take(6).any(|pair| {
                matches!(pair[0], "is" | "are") && matches!(pair[1], "a" | "an" | "the")
            })
    };
    // Else the site's own summary (its tagline), else the first sentence that speaks of the
    // project.
    sentences
        .iter()
        .find(|sentence| defines(sentence))
        .cloned()
        .or_else(|| site.and_then(|s| s.summary.clone()))
        .or_else(|| {
            sentences
                .iter()
                .find(|sentence| names_project(sentence))
                .cloned()
        })
        .or_else(|| {
            // Else the opening of the site's first page, the README or the first document:
            // not a sentence from further in (a step's detail), nor a greeting.
            let first = listed.first().map(|(_, d)| *d);
            first
                .into_iter()
                .chain(readme(docs))
                .chain(docs.first())
                .filter_map(|doc| first_paragraph(&doc.markdown))
                .find(|sentence| !sentence.to_lowercase().starts_with("welcome"))
        })
}

/// Pages of a docs site read, in its order, for the sentence that introduces the project.
const SITE_PAGES_READ: usize = 3;

/// A sentence without an aside that points back at text the reader has not seen ("PDM, as
/// described, is…" → "PDM is…").
fn without_back_reference(sentence: &str) -> String {
    const ASIDES: &[&str] = &[
        ", as described,",
        ", as mentioned,",
        ", as noted,",
        ", as said,",
        ", as stated,",
        ", as explained,",
    ];
    let mut out = sentence.to_string();
    for aside in ASIDES {
        if let Some(at) = out.to_lowercase().find(aside) {
            out.replace_range(at..at + aside.len(), "");
        }
    }
    out
}

/// Paragraphs of a document read for a sentence that names the project.
const MAX_PARAGRAPHS: usize = 4;

/// The first sentences of the first `limit` paragraphs of running text in `markdown`.
fn paragraphs(markdown: &str, limit: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = markdown;
    while out.len() < limit {
        let Some((sentence, after)) = next_paragraph(rest) else {
            break;
        };
        out.push(sentence);
        rest = after;
    }
    out
}

fn first_paragraph(markdown: &str) -> Option<String> {
    next_paragraph(markdown).map(|(sentence, _)| sentence)
}

fn readme(docs: &[Prose]) -> Option<&Prose> {
    docs.iter()
        .filter(|d| stem(&d.path).starts_with("readme"))
        .min_by_key(|d| d.path.matches('/').count())
}

/// The first sentence of the first paragraph of running text in `markdown`, and the text
/// after that paragraph.
fn next_paragraph(markdown: &str) -> Option<(String, &str)> {
    let mut fence: Option<(char, usize)> = None;
    let mut comment = false;
    let mut paragraph: Vec<String> = Vec::new();
    let mut offset = 0;
    for line in markdown.split_inclusive('\n').take(MAX_LINES) {
        let start = offset;
        offset += line.len();
        let line = line.trim_end_matches(['\n', '\r']);
        // An HTML comment of several lines (`<!-- x documentation master file, created by
        // sphinx-quickstart … -->`) is no text of the page.
        if comment {
            comment = !line.contains("-->");
            continue;
        }
        if let Some(open) = line.find("<!--")
            && !line[open..].contains("-->")
        {
            comment = true;
            if let Some(found) = sentence(&paragraph) {
                return Some((found, &markdown[start..]));
            }
            paragraph.clear();
            continue;
        }
        if let Some((ch, len)) = fence {
            if closes_fence(line, ch, len) {
                fence = None;
            }
            continue;
        }
        if let Some((ch, len, _)) = opens_fence(line) {
            fence = Some((ch, len));
            if let Some(found) = sentence(&paragraph) {
                return Some((found, &markdown[start..]));
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
                return Some((found, &markdown[start..]));
            }
            paragraph.clear();
            continue;
        }
        paragraph.push(trimmed.to_string());
    }
    sentence(&paragraph).map(|found| (found, ""))
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
    (words >= MIN_WORDS && ends && !first.ends_with(':') && !is_funding_text(&first))
        .then_some(first)
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
            labels: Vec::new(),
        }
    }

    #[test]
    fn pages_sharing_the_projects_name_are_named_by_their_files() {
        let mut docs = vec![
            doc("docs/Guides/Getting-Started.md", "Fastify", "x"),
            doc("docs/Reference/Routes.md", "Fastify", "x"),
            doc("docs/README.md", "Fastify", "x"),
            doc("docs/Guides/Plugins.md", "Plugins Guide", "x"),
        ];
        distinct_titles(&mut docs);
        let titles: Vec<&str> = docs.iter().map(|d| d.title.as_str()).collect();
        assert_eq!(
            titles,
            ["Getting Started", "Routes", "Fastify", "Plugins Guide"]
        );
        assert_eq!(docs_title(&[doc("README.md", "Overview", "x")], None), None);
    }

    #[test]
    fn a_page_kept_for_each_version_keeps_its_title() {
        let mut docs: Vec<Prose> = ["docs", "versioned/v29", "versioned/v30", "versioned/v31"]
            .iter()
            .map(|dir| doc(&format!("{dir}/GettingStarted.md"), "Getting Started", "x"))
            .collect();
        distinct_titles(&mut docs);
        assert!(docs.iter().all(|d| d.title == "Getting Started"));
        assert_eq!(
            docs_title(&[doc("README.md", "CXX &mdash; safe FFI", "x")], None).as_deref(),
            Some("CXX \u{2014} safe FFI")
        );
    }

    #[test]
    fn comments_and_funding_text_introduce_nothing() {
        let index = doc(
            "docs/index.md",
            "Black",
            "<!--\nblack documentation master file, created by\nsphinx-quickstart on Fri Mar 23 10:53:30 2018.\n-->\n\n# The uncompromising code formatter\n\nBy using Black, you agree to cede control over minutiae of hand-formatting.\n",
        );
        assert_eq!(
            docs_intro(std::slice::from_ref(&index), None, "Black").as_deref(),
            Some("By using Black, you agree to cede control over minutiae of hand-formatting.")
        );
        let readme = doc(
            "README.md",
            "MobX",
            "# MobX\n\n_Simple, scalable state management._\n\nMobX is made possible by the generosity of the sponsors below, and many other backers.\n\n## Introduction\n\nMobX is a signal based, battle-tested library that makes state management simple.\n",
        );
        assert_eq!(
            docs_intro(std::slice::from_ref(&readme), None, "MobX").as_deref(),
            Some(
                "MobX is a signal based, battle-tested library that makes state management simple."
            )
        );
    }

    #[test]
    fn the_intro_is_the_first_real_sentence() {
        let readme = doc(
            "README.md",
            "HTTPX",
            "[![Build](https://x/badge.svg)](https://x)\n\n<p align=\"center\"><img src=\"logo.png\"></p>\n\n### Install\n\n```sh\npip install x\n```\n\nHTTPX is a fully featured HTTP client for Python 3, which provides\nsync and async APIs. It has more.\n",
        );
        assert_eq!(
            docs_intro(std::slice::from_ref(&readme), None, "HTTPX").as_deref(),
            Some(
                "HTTPX is a fully featured HTTP client for Python 3, which provides sync and async APIs."
            )
        );
        assert_eq!(docs_title(&[readme], None).as_deref(), Some("HTTPX"));
        assert_eq!(without_symbols("🚀 MobX 🇺🇦 "), "MobX");
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
            ..SiteOrder::default()
        };
        assert_eq!(docs_title(&docs, Some(&site)).as_deref(), Some("Uvicorn"));
        assert_eq!(
            docs_intro(&docs, Some(&site), "Uvicorn").as_deref(),
            Some("The site's own first sentence here.")
        );
        assert_eq!(docs_title(&docs[..1], None), None);
    }

    #[test]
    fn a_sentence_that_names_the_project_is_preferred() {
        let docs = [doc(
            "docs/index.md",
            "Home",
            "Welcome to the Task guide!\n\nUsing this package requires Go.\n\nTask is a task runner that is simpler than Make.\n",
        )];
        assert_eq!(
            docs_intro(&docs, None, "Task").as_deref(),
            Some("Task is a task runner that is simpler than Make.")
        );
        // A greeting introduces nothing.
        assert_eq!(docs_intro(&docs, None, "Other"), None);
    }

    #[test]
    fn the_name_before_a_tagline_is_what_a_sentence_must_open_with() {
        let docs = [doc(
            "book/src/index.md",
            "Intro",
            "This library provides a safe mechanism for calling C++ code from Rust.\n\nThe resulting FFI bridge operates at zero overhead.\n\nTo use CXX, you need a build script.\n",
        )];
        assert_eq!(
            docs_intro(&docs, None, "CXX \u{2014} safe FFI between Rust and C++").as_deref(),
            Some("This library provides a safe mechanism for calling C++ code from Rust.")
        );
        // The site's tagline comes before a sentence that only names the project.
        let docs = [doc(
            "docs/GettingStarted.md",
            "Getting Started",
            "Jest uses matchers to let you test values.\n",
        )];
        let site = SiteOrder {
            kind: "Docusaurus",
            rank: [("docs/GettingStarted.md".to_string(), 0)]
                .into_iter()
                .collect(),
            summary: Some("Delightful JavaScript Testing".into()),
            ..SiteOrder::default()
        };
        assert_eq!(
            docs_intro(&docs, Some(&site), "Jest").as_deref(),
            Some("Delightful JavaScript Testing")
        );
    }

    #[test]
    fn no_sentence_gives_none() {
        assert_eq!(
            docs_intro(
                &[doc("README.md", "x", "# x\n\n[![b](u)](v)\n\nSee:\n")],
                None,
                "x"
            ),
            None
        );
    }
}
