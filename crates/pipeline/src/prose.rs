//! Which of a feature's Markdown documents its articles show, and how much of them.
//!
//! A feature's prose is its own documentation. Documents about the project rather than the
//! feature are never shown: changelogs and release notes, contributing guides, codes of
//! conduct, security policies, licences, author lists, governance, issue and pull-request
//! templates, anything under `.github/`, design records (`rfcs/`, `adr/`, `decisions/`), and
//! translations of a document that exists in its primary language (`README.ja.md` beside
//! `README.md`, `docs/ja/x.md` beside `docs/x.md` or `docs/en/x.md`). A document the feature
//! names itself (`paths = ["CHANGELOG.md"]`) is shown all the same.
//!
//! What remains goes where its reader is:
//! - a README gives the help center its introduction and its sections about using the
//!   feature (install, usage, getting started, examples, FAQ, troubleshooting…), and the
//!   developer docs all of it but its table of contents and its sections about working on the
//!   project (contributing, license, changelog…);
//! - a reference document (`api.md`, `reference.md`, `architecture.md`, `design.md`…) goes to
//!   the developer docs only;
//! - any other document (a guide) to both.
//!
//! Each article shows at most [`MAX_PROSE_BYTES`] of prose. A document that does not fit is
//! cut at a section boundary (else a paragraph boundary), never inside a block or sentence,
//! and ends with a sentence that says where the rest is; documents left out for space are
//! listed, linked, in a last section.

use std::collections::{BTreeMap, BTreeSet};

use crate::extract::Prose;
use crate::mdx::{closes_fence, opens_fence};
use crate::walkthrough::{self, matches_words};

/// The prose one article shows, in bytes of Markdown: about 2,500 words, more than a reader
/// takes in on one page.
pub(crate) const MAX_PROSE_BYTES: usize = 16 * 1024;
/// A document cut to less than this is left out and listed instead.
const MIN_CUT_BYTES: usize = 512;
/// At most this many left-out documents are listed by name.
const MAX_LISTED: usize = 20;

/// File names (stems as words) of documents about the project rather than a feature: left out
/// of its prose, and never the source of a walkthrough.
pub(crate) const PROJECT_FILES: &[&str] = &[
    "changelog",
    "changes",
    "history",
    "news",
    "releases",
    "release notes",
    "contributing",
    "contributors",
    "code of conduct",
    "conduct",
    "security",
    "license",
    "licence",
    "copying",
    "notice",
    "authors",
    "maintainers",
    "codeowners",
    "governance",
    "support",
    "funding",
    "issue template",
    "pull request template",
];

/// Folders of documents about the project: forge settings, design records, release notes.
const PROJECT_FOLDERS: &[&str] = &[
    ".github",
    ".gitlab",
    ".gitea",
    ".forgejo",
    "issue_template",
    "pull_request_template",
    "rfcs",
    "rfc",
    "adr",
    "adrs",
    "decisions",
    "changelog.d",
    "changelogs",
    "newsfragments",
    "release-notes",
];

/// File names of reference documents, for developers only.
const REFERENCE_FILES: &[&str] = &[
    "api",
    "reference",
    "architecture",
    "design",
    "internals",
    "spec",
    "specification",
    "protocol",
];

/// README sections the help center shows besides the walkthrough: how to use the feature.
const HELP_HEADINGS: &[&str] = &[
    "faq",
    "troubleshooting",
    "configuration",
    "configuring",
    "options",
    "how it works",
    "requirements",
    "prerequisites",
    "documentation",
];

/// README sections no article shows: a table of contents (its links point into the README)
/// and sections about working on the project.
const LEFT_OUT_HEADINGS: &[&str] = &[
    "table of contents",
    "contents",
    "toc",
    "contributing",
    "contribute",
    "contributors",
    "license",
    "licence",
    "licensing",
    "changelog",
    "release notes",
    "code of conduct",
    "security policy",
    "reporting a vulnerability",
    "sponsors",
    "backers",
    "acknowledgements",
    "acknowledgments",
    "maintainers",
];

/// ISO 639-1 codes of the languages documentation is most often translated into.
const LANGUAGES: &[&str] = &[
    "af", "ar", "az", "be", "bg", "bn", "bs", "ca", "cs", "cy", "da", "de", "el", "en", "eo", "es",
    "et", "eu", "fa", "fi", "fr", "ga", "gl", "he", "hi", "hr", "hu", "hy", "id", "is", "it", "ja",
    "ka", "kk", "km", "kn", "ko", "lt", "lv", "mk", "ml", "mn", "mr", "ms", "my", "nb", "ne", "nl",
    "nn", "no", "pa", "pl", "pt", "ro", "ru", "si", "sk", "sl", "sq", "sr", "sv", "sw", "ta", "te",
    "th", "tl", "tr", "uk", "ur", "uz", "vi", "zh",
];

/// Why a document is no prose of the feature, or `None` when it is. The feature is its id
/// (an implicit feature's file or folder) and its declared paths (globs).
pub(crate) fn left_out(path: &str, id: &str, paths: &[String]) -> Option<&'static str> {
    if paths.iter().any(|p| p == path) {
        return None;
    }
    // The feature's own folder may be one of these (feature `rfcs`, or `paths = ["rfcs/**"]`):
    // only folders below the deepest one it names are judged.
    let inside = std::iter::once(id.to_string())
        .chain(paths.iter().map(|p| crate::paths::literal_prefix(p)))
        .filter_map(|scope| {
            let rest = path.strip_prefix(scope.as_str())?.strip_prefix('/')?;
            Some(rest)
        })
        .min_by_key(|rest| rest.len())
        .unwrap_or(path);
    let mut folders: Vec<&str> = inside.split('/').collect();
    folders.pop();
    if folders
        .iter()
        .any(|f| PROJECT_FOLDERS.contains(&f.to_ascii_lowercase().as_str()))
    {
        return Some("a folder about the project (forge settings, design records, release notes)");
    }
    let stem = walkthrough::stem(path);
    let stem = stem.split('.').next().unwrap_or("");
    // `LICENSE-MIT`, `CHANGELOG-v1`: a few names take a suffix; `security-model` is a guide.
    let suffixed = [
        "license",
        "licence",
        "copying",
        "changelog",
        "notice",
        "authors",
    ];
    if PROJECT_FILES.contains(&stem) || suffixed.iter().any(|p| stem.starts_with(&format!("{p} ")))
    {
        return Some("a document about the project, not the feature");
    }
    None
}

/// A line of a README that is about the repository page, not the software: status badges or
/// a menu of the document's translations (`**English** | [日本語](README.ja.md) | …`).
pub(crate) fn is_chrome(line: &str) -> bool {
    is_badge_line(line) || is_language_menu(line)
}

/// A line of nothing but status badges: images (linked or not) whose address names a badge
/// service or a `badge` file (shields.io, badgen, pkg.go.dev/badge, docs.rs/…/badge.svg, a CI's
/// `badge.svg`). A screenshot on a line of its own is no badge.
fn is_badge_line(line: &str) -> bool {
    static IMAGE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        crate::builtin_regex(
            r"\[?!\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+[^)]*)?\)(?:\]\([^)\n]*\))?",
        )
    });
    let mut images = 0;
    for found in IMAGE.captures_iter(line) {
        let source = found.get(1).map_or("", |m| m.as_str()).to_ascii_lowercase();
        if !["badge", "shields.io", "badgen.net"]
            .iter()
            .any(|mark| source.contains(mark))
        {
            return false;
        }
        images += 1;
    }
    images > 0 && IMAGE.replace_all(line, "").trim().is_empty()
}

/// At least two links, each to a translation of a document (`README.ja.md`), and between
/// them nothing but separators and the current language's name.
fn is_language_menu(line: &str) -> bool {
    static LINK: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| crate::builtin_regex(r"\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?\s*\)"));
    let mut links = 0;
    for found in LINK.captures_iter(line) {
        let target = found.get(1).map_or("", |m| m.as_str());
        let path = target.split(['#', '?']).next().unwrap_or("");
        if file_tag(path.trim_start_matches("./")).is_none() {
            return false;
        }
        links += 1;
    }
    let rest: String = LINK
        .replace_all(line, "")
        .chars()
        .filter(|c| !c.is_whitespace() && !"|·•/,*_".contains(*c))
        .collect();
    links >= 2 && rest.chars().count() <= 30
}

/// The paths among `paths` that translate a document also present in its primary language:
/// `README.ja.md` when `README.md` exists, `docs/ja/x.md` when `docs/x.md` or `docs/en/x.md`
/// does. Of language versions without an untagged one, English (else the first tag) is
/// primary. A folder named like a language that is also a common word (`id/`, `it/`) is read
/// as one only beside another language's folder.
pub(crate) fn translations<'a>(paths: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
    let paths: Vec<&str> = paths.into_iter().collect();
    let untagged_files: BTreeSet<String> = paths
        .iter()
        .filter(|path| file_tag(path).is_none())
        .map(|path| markdown_stem(path))
        .collect();
    // (folder form?, document without its language tag) → [(tag, path)]
    let mut versions: BTreeMap<(bool, String), Vec<(String, &str)>> = BTreeMap::new();
    for path in &paths {
        if let Some((tag, untagged)) = file_tag(path) {
            versions
                .entry((false, untagged))
                .or_default()
                .push((tag, path));
        }
        let segments: Vec<&str> = path.split('/').collect();
        for (i, segment) in segments.iter().enumerate().take(segments.len() - 1) {
            if language_tag(segment) {
                let mut rest = segments.clone();
                rest.remove(i);
                versions
                    .entry((true, markdown_stem(&rest.join("/"))))
                    .or_default()
                    .push((segment.to_ascii_lowercase(), path));
            }
        }
    }
    let mut out = BTreeSet::new();
    for ((folder, untagged), tagged) in &versions {
        let tags: BTreeSet<&str> = tagged.iter().map(|(tag, _)| tag.as_str()).collect();
        let words = tags.iter().all(|tag| AMBIGUOUS_TAGS.contains(tag));
        let has_untagged = untagged_files.contains(untagged) && !(*folder && words);
        if !has_untagged && tags.len() < 2 {
            continue;
        }
        let primary = if has_untagged {
            None
        } else {
            tagged
                .iter()
                .min_by_key(|(tag, path)| {
                    (
                        tag != "en" && !tag.starts_with("en-") && !tag.starts_with("en_"),
                        tag.clone(),
                        *path,
                    )
                })
                .map(|(_, path)| *path)
        };
        for (_, path) in tagged {
            if Some(*path) != primary {
                out.insert((*path).to_string());
            }
        }
    }
    out
}

/// Language codes that are also common folder names.
const AMBIGUOUS_TAGS: &[&str] = &["id", "is", "it", "no", "my", "be"];

/// `README.ja.md` → (`ja`, `readme`): the language tag of a file name and the path without
/// it (lower case, without extension).
fn file_tag(path: &str) -> Option<(String, String)> {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    let parts: Vec<&str> = name.split('.').collect();
    if parts.len() < 3 || !language_tag(parts[parts.len() - 2]) {
        return None;
    }
    let untagged = [&parts[..parts.len() - 2], &parts[parts.len() - 1..]]
        .concat()
        .join(".");
    let untagged = if dir.is_empty() {
        untagged
    } else {
        format!("{dir}/{untagged}")
    };
    Some((
        parts[parts.len() - 2].to_ascii_lowercase(),
        markdown_stem(&untagged),
    ))
}

/// A path without its Markdown extension, lower case.
fn markdown_stem(path: &str) -> String {
    let lower = path.to_ascii_lowercase();
    [".markdown", ".mdx", ".md"]
        .iter()
        .find_map(|ext| lower.strip_suffix(ext).map(str::to_string))
        .unwrap_or(lower)
}

/// `ja`, `zh-CN`, `pt_BR`, `zh-Hans`.
fn language_tag(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let (base, region) = match lower.split_once(['-', '_']) {
        Some((base, region)) => (base, Some(region)),
        None => (lower.as_str(), None),
    };
    LANGUAGES.contains(&base)
        && region.is_none_or(|r| {
            (2..=4).contains(&r.len()) && r.chars().all(|c| c.is_ascii_alphanumeric())
        })
}

fn is_readme(path: &str) -> bool {
    walkthrough::stem(path).starts_with("readme")
}

fn is_reference(path: &str) -> bool {
    REFERENCE_FILES.contains(&walkthrough::stem(path).as_str())
}

/// The help center's prose: READMEs' introductions and usage sections, guides.
pub(crate) fn for_help_center(docs: &[Prose]) -> Vec<Prose> {
    let chosen: Vec<Prose> = docs
        .iter()
        .filter(|doc| !is_reference(&doc.path))
        .map(|doc| {
            if is_readme(&doc.path) {
                Prose {
                    markdown: sections(&doc.markdown, |title| {
                        matches_words(title, walkthrough::USAGE_HEADINGS)
                            || matches_words(title, HELP_HEADINGS)
                    }),
                    ..doc.clone()
                }
            } else {
                doc.clone()
            }
        })
        .collect();
    cap(chosen, MAX_PROSE_BYTES)
}

/// The developer docs' prose: READMEs without their table of contents and sections about
/// working on the project, guides and reference documents.
pub(crate) fn for_dev_docs(docs: &[Prose]) -> Vec<Prose> {
    let chosen: Vec<Prose> = docs
        .iter()
        .map(|doc| {
            if is_readme(&doc.path) {
                Prose {
                    markdown: sections(&doc.markdown, |title| {
                        !matches_words(title, LEFT_OUT_HEADINGS)
                    }),
                    ..doc.clone()
                }
            } else {
                doc.clone()
            }
        })
        .collect();
    cap(chosen, MAX_PROSE_BYTES)
}

/// Where a document's headings and paragraphs start, as byte offsets, outside fences.
struct Boundaries {
    /// (offset, level, title) of each heading.
    headings: Vec<(usize, usize, String)>,
    /// Offsets of the lines after a blank line, where a block can start.
    blocks: Vec<usize>,
}

fn boundaries(markdown: &str) -> Boundaries {
    let mut out = Boundaries {
        headings: Vec::new(),
        blocks: Vec::new(),
    };
    let mut fence: Option<(char, usize)> = None;
    let mut offset = 0;
    let mut after_blank = false;
    for line in markdown.split_inclusive('\n') {
        let text = line.trim_end_matches(['\n', '\r']);
        match fence {
            Some((ch, len)) => {
                if closes_fence(text, ch, len) {
                    fence = None;
                }
            }
            None => {
                if after_blank && !text.trim().is_empty() {
                    out.blocks.push(offset);
                }
                if let Some((ch, len, _)) = opens_fence(text) {
                    fence = Some((ch, len));
                } else if let Some((level, title)) = crate::extract::atx_heading(text) {
                    out.headings.push((offset, level, title.to_string()));
                }
            }
        }
        after_blank = fence.is_none() && text.trim().is_empty();
        offset += line.len();
    }
    out
}

/// `markdown`'s introduction (before its first heading) and the top-level sections whose
/// titles `keep` accepts, each with its subsections.
fn sections(markdown: &str, keep: impl Fn(&str) -> bool) -> String {
    let found = boundaries(markdown);
    let Some(top) = found.headings.iter().map(|(_, level, _)| *level).min() else {
        return markdown.to_string();
    };
    let starts: Vec<(usize, &str)> = found
        .headings
        .iter()
        .filter(|(_, level, _)| *level == top)
        .map(|(offset, _, title)| (*offset, title.as_str()))
        .collect();
    let first = found
        .headings
        .first()
        .map_or(markdown.len(), |(o, _, _)| *o);
    let mut out = markdown[..first].trim_end().to_string();
    for (i, (start, title)) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(markdown.len(), |(o, _)| *o);
        if *start >= first && keep(title) {
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str(markdown[*start..end].trim_end());
        }
    }
    out.trim().to_string()
}

/// `docs` within `budget` bytes of Markdown, in order: whole documents while they fit, then
/// the one that does not fit cut at a boundary with a sentence saying where the rest is; the
/// documents left out are listed in a last section.
pub(crate) fn cap(docs: Vec<Prose>, budget: usize) -> Vec<Prose> {
    let mut out: Vec<Prose> = Vec::new();
    let mut left: Vec<String> = Vec::new();
    let mut remaining = budget;
    for doc in docs {
        if doc.markdown.trim().is_empty() {
            continue;
        }
        if !left.is_empty() {
            left.push(doc.path);
            continue;
        }
        if doc.markdown.len() <= remaining {
            remaining -= doc.markdown.len();
            out.push(doc);
            continue;
        }
        match cut(&doc.markdown, remaining) {
            Some((kept, from)) => {
                let name = doc.path.rsplit('/').next().unwrap_or(&doc.path);
                let rest = match from {
                    Some(title) => format!("from “{title}” on"),
                    None => "the rest".to_string(),
                };
                let markdown = format!(
                    "{kept}\n\n*This page shows the beginning of {name}; {rest} is in [{name}]({}).*",
                    link_target(name),
                );
                out.push(Prose { markdown, ..doc });
            }
            None => left.push(doc.path),
        }
        remaining = 0;
    }
    if !left.is_empty() {
        let mut list: Vec<String> = left
            .iter()
            .take(MAX_LISTED)
            .map(|path| format!("- [{path}]({})", link_target(path)))
            .collect();
        if left.len() > MAX_LISTED {
            list.push(format!("- and {} more", left.len() - MAX_LISTED));
        }
        out.push(Prose {
            path: String::new(),
            title: "More documentation".into(),
            markdown: format!(
                "These documents of the feature did not fit on this page:\n\n{}",
                list.join("\n")
            ),
        });
    }
    out
}

/// The longest beginning of `markdown` within `budget` bytes that ends before a heading (when
/// that keeps at least half the budget) or a block, with the title of the section the rest
/// starts with; `None` when less than [`MIN_CUT_BYTES`] would remain.
fn cut(markdown: &str, budget: usize) -> Option<(&str, Option<String>)> {
    let found = boundaries(markdown);
    let heading = found
        .headings
        .iter()
        .rev()
        .find(|(offset, _, _)| *offset <= budget)
        .filter(|(offset, _, _)| *offset >= budget / 2 && *offset >= MIN_CUT_BYTES);
    if let Some((offset, _, title)) = heading {
        return Some((markdown[..*offset].trim_end(), Some(title.clone())));
    }
    let block = found
        .blocks
        .iter()
        .rev()
        .find(|offset| **offset <= budget)
        .filter(|offset| **offset >= MIN_CUT_BYTES)?;
    Some((markdown[..*block].trim_end(), None))
}

/// A relative link target for `path`, with the characters Markdown would misread encoded.
fn link_target(path: &str) -> String {
    path.replace('%', "%25")
        .replace(' ', "%20")
        .replace('(', "%28")
        .replace(')', "%29")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn doc(path: &str, markdown: &str) -> Prose {
        Prose {
            path: path.into(),
            title: "T".into(),
            markdown: markdown.into(),
        }
    }

    #[test]
    fn language_menus_and_badges_are_chrome() {
        assert!(is_chrome(
            "**English** | [日本語](./README.ja.md) | [Русский](./README.ru.md) | [简体中文](./README.zh-CN.md)"
        ));
        assert!(is_chrome(
            "[![CI](https://github.com/o/r/actions/workflows/ci.yml/badge.svg)](https://github.com/o/r/actions)"
        ));
        for text in [
            "See [the guide](docs/guide.md) and [日本語](README.ja.md).",
            "[日本語](README.ja.md)",
            "![The dashboard](docs/dashboard.png)",
            "Read [this](README.ja.md) or [that](README.ru.md) before you install the package anywhere.",
        ] {
            assert!(!is_chrome(text), "{text}");
        }
    }

    #[test]
    fn project_documents_and_records_are_left_out() {
        let none: &[String] = &[];
        for path in [
            "CHANGELOG.md",
            "pkg/HISTORY.md",
            "NEWS.md",
            "CONTRIBUTING.md",
            "CODE_OF_CONDUCT.md",
            "SECURITY.md",
            "LICENSE-MIT.md",
            "AUTHORS.md",
            ".github/ISSUE_TEMPLATE/bug.md",
            ".github/pull_request_template.md",
            "rfcs/0296-structured-logging.md",
            "docs/adr/0001-use-x.md",
        ] {
            assert!(left_out(path, ".", none).is_some(), "{path}");
        }
        for path in [
            "README.md",
            "docs/guide.md",
            "docs/security-model.md",
            "src/news_feed/README.md",
        ] {
            assert_eq!(left_out(path, ".", none), None, "{path}");
        }
        // Named by the feature, or the feature's own folder: shown.
        assert_eq!(
            left_out("CHANGELOG.md", "CHANGELOG.md", &["CHANGELOG.md".into()]),
            None
        );
        assert_eq!(left_out("rfcs/0001-x.md", "rfcs", none), None);
        let declared = ["rfcs/**".to_string()];
        assert_eq!(
            left_out("rfcs/0001-x.md", "design-records", &declared),
            None
        );
        assert!(left_out("docs/rfcs/0001-x.md", "design", &["docs/**".into()]).is_some());
    }

    #[test]
    fn translations_beside_their_primary_document() {
        let found = translations([
            "README.md",
            "README.ar.md",
            "README.zh-CN.md",
            "README.id-ID.md",
            "README.v2.md",
            "docs/guide.md",
            "docs/ja/guide.md",
            "site/en/intro.md",
            "site/fr/intro.md",
            "site/de/only.md",
            "lonely.ja.md",
            "src/id/README.md",
            "src/README.md",
        ]);
        let found: Vec<&str> = found.iter().map(String::as_str).collect();
        assert_eq!(
            found,
            [
                "README.ar.md",
                "README.id-ID.md",
                "README.zh-CN.md",
                "docs/ja/guide.md",
                "site/fr/intro.md"
            ]
        );
    }

    #[test]
    fn readme_sections_go_where_their_reader_is() {
        let readme = "Intro.\n\n#### Table of Contents\n\n- x\n\n#### Install\n\nnpm i\n\n#### API\n\n##### f()\n\nf.\n\n#### FAQ\n\nQ.\n\n#### License\n\nMIT";
        let help = for_help_center(&[doc("README.md", readme), doc("docs/api.md", "ref")]);
        assert_eq!(help.len(), 1);
        assert_eq!(
            help[0].markdown,
            "Intro.\n\n#### Install\n\nnpm i\n\n#### FAQ\n\nQ."
        );
        let dev = for_dev_docs(&[doc("README.md", readme), doc("docs/api.md", "ref")]);
        assert_eq!(
            dev[0].markdown,
            "Intro.\n\n#### Install\n\nnpm i\n\n#### API\n\n##### f()\n\nf.\n\n#### FAQ\n\nQ."
        );
        assert_eq!(dev[1].markdown, "ref");
    }

    #[test]
    fn the_cap_cuts_at_a_section_and_says_so() {
        let section = format!("{}\n\n", "A sentence of the guide. ".repeat(20));
        let long: String = (1..=8)
            .map(|i| format!("#### Part {i}\n\n{section}"))
            .collect();
        let docs = vec![
            doc("docs/a.md", &long),
            doc("docs/b.md", &long),
            doc("docs/c d.md", "small"),
        ];
        let shown = cap(docs, 2_000);
        assert_eq!(shown.len(), 2, "{shown:?}");
        let first = &shown[0].markdown;
        assert!(first.len() < 2_200, "{}", first.len());
        assert!(
            first.ends_with(
                "A sentence of the guide.\n\n*This page shows the beginning of a.md; from “Part 4” on is in [a.md](a.md).*"
            ),
            "{first}"
        );
        assert_eq!(shown[1].title, "More documentation");
        assert!(
            shown[1]
                .markdown
                .ends_with("- [docs/b.md](docs/b.md)\n- [docs/c d.md](docs/c%20d.md)"),
            "{}",
            shown[1].markdown
        );
        // Without headings: a paragraph boundary; fences are never cut.
        let paragraphs = format!(
            "```\n{}\n```\n\n{}",
            "x\n\n".repeat(400),
            "Text. ".repeat(300)
        );
        let shown = cap(vec![doc("p.md", &paragraphs)], 1_000);
        assert_eq!(shown[0].title, "More documentation");
        let paragraphs = "Text of a paragraph. ".repeat(30) + "\n\n";
        let shown = cap(vec![doc("p.md", &paragraphs.repeat(10))], 2_000);
        assert!(shown[0].markdown.contains("paragraph.\n\n*This page shows the beginning of p.md; the rest is in [p.md](p.md).*"), "{}", shown[0].markdown);
    }
}
