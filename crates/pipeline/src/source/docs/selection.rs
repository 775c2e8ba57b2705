//! Which of a feature's Markdown documents its articles show, and how much of them.
//!
//! A feature's prose is its own documentation: documents about the project rather than the
//! feature (`source::files::project_document`: changelogs, contributing guides, licences,
//! design records…) and translations of a document in its primary language
//! (`super::translations`) are left out before the documents reach this module.
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

use super::budget::{boundaries, cap};
use super::markdown::{Prose, closes_fence, opens_fence};
use super::vocabulary::{HELP_HEADINGS, LEFT_OUT_HEADINGS, USAGE_HEADINGS, matches_words};
use crate::source::files::{is_readme, is_reference};
use crate::source::paths::stem;

/// The prose one article shows, in bytes of Markdown: about 2,500 words, more than a reader
/// takes in on one page.
pub(crate) const MAX_PROSE_BYTES: usize = 16 * 1024;

/// Headings of sections about the people behind the project, and a site's leftovers, in any
/// document: not for the help center's reader.
const LEFT_OUT_SECTIONS: &[&str] = &[
    "sponsors",
    "sponsor",
    "backers",
    "patrons",
    "contributors",
    "contributing",
    "code of conduct",
    "acknowledgements",
    "acknowledgments",
    // What sphinx-quickstart leaves on a site's index: links to the generated index and
    // search pages, which have no page here.
    "indices and tables",
    "table of contents",
];

/// The help center's prose: READMEs' introductions and usage sections, guides without
/// their sections about sponsors and contributors.
fn for_help_center(docs: &[Prose]) -> Vec<Prose> {
    let chosen: Vec<Prose> = docs
        .iter()
        .filter(|doc| !is_reference(&doc.path))
        .cloned()
        .collect();
    cap(for_help_center_pages(&chosen), MAX_PROSE_BYTES)
}

/// Each document as the help center shows it: a README's usage sections, a guide without its
/// sections about sponsors and contributors.
pub(crate) fn for_help_center_pages(docs: &[Prose]) -> Vec<Prose> {
    docs.iter()
        .map(|doc| {
            // A README's kept sections lose what they hold for someone else too (a table of
            // contents under "Documentation").
            let markdown = if is_readme(&doc.path) {
                let kept = sections(&doc.markdown, |title| {
                    matches_words(title, USAGE_HEADINGS) || matches_words(title, HELP_HEADINGS)
                });
                without_sections(&kept, |title| {
                    matches_words(title, LEFT_OUT_HEADINGS)
                        || matches_words(title, LEFT_OUT_SECTIONS)
                })
            } else {
                without_sections(&doc.markdown, |title| {
                    matches_words(title, LEFT_OUT_SECTIONS)
                })
            };
            Prose {
                markdown,
                ..doc.clone()
            }
        })
        .collect()
}

/// `markdown` without the sections (at any level, with their subsections) whose titles
/// `drop` accepts.
fn without_sections(markdown: &str, drop: impl Fn(&str) -> bool) -> String {
    let found = boundaries(markdown);
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    for (n, (offset, level, title)) in found.headings.iter().enumerate() {
        if cuts.last().is_some_and(|(_, end)| offset < end) || !drop(title) {
            continue;
        }
        let end = found.headings[n + 1..]
            .iter()
            .find(|(_, l, _)| l <= level)
            .map_or(markdown.len(), |(o, _, _)| *o);
        cuts.push((*offset, end));
    }
    if cuts.is_empty() {
        return markdown.to_string();
    }
    let mut out = String::with_capacity(markdown.len());
    let mut at = 0;
    for (start, end) in cuts {
        out.push_str(&markdown[at..start]);
        at = end;
    }
    out.push_str(&markdown[at..]);
    out.trim().to_string()
}

/// The help center's prose ([`for_help_center`]) before and after its walkthrough: before it
/// the pages that introduce the project or start its getting-started path, among those
/// `before` says come first on the site; after it the others, in order, and guides to upgrading from
/// an older release last.
///
/// Without a site's order (`site_ordered` false), a user guide or tutorial comes before the
/// other documents, which are otherwise in path order.
pub(crate) fn for_help_center_around(
    mut docs: Vec<Prose>,
    before: impl Fn(&Prose) -> bool,
    site_ordered: bool,
) -> (Vec<Prose>, Vec<Prose>) {
    let leads = |doc: &Prose| {
        before(doc)
            && (is_overview(&doc.path, &doc.title)
                || matches_words(&stem(&doc.path), USAGE_HEADINGS)
                || matches_words(&doc.title, USAGE_HEADINGS))
    };
    let guide = |doc: &Prose| {
        !site_ordered
            && (matches_words(&stem(&doc.path), GUIDE_PAGES)
                || matches_words(&doc.title, GUIDE_PAGES))
    };
    docs.sort_by_key(|doc| {
        if leads(doc) {
            (0, 0)
        } else if is_upgrade_guide(&doc.path, &doc.title) {
            (2, 0)
        } else {
            (1, u8::from(!guide(doc)))
        }
    });
    let intro: Vec<String> = docs
        .iter()
        .filter(|doc| leads(doc))
        .map(|doc| doc.path.clone())
        .collect();
    for_help_center(&docs)
        .into_iter()
        .partition(|doc| intro.contains(&doc.path))
}

/// Pages that guide a user through the project, first among a docs folder without a site.
const GUIDE_PAGES: &[&str] = &[
    "user guide",
    "guide",
    "tutorial",
    "getting started",
    "usage",
];

/// Pages that introduce the project (its site's home, its introduction): the only ones a
/// help-center article shows before its walkthrough.
const OVERVIEW_PAGES: &[&str] = &[
    "index",
    "readme",
    "home",
    "welcome",
    "introduction",
    "intro",
    "overview",
    "about",
    "what is",
];

/// Pages about moving from an older release, which a new reader of the current one reads last.
const UPGRADE_PAGES: &[&str] = &[
    "migration",
    "migrating",
    "migrate",
    "upgrade",
    "upgrading",
    "changelog",
    "release notes",
    "breaking changes",
];

/// Whether the document at `path`, titled `title`, introduces the project.
fn is_overview(path: &str, title: &str) -> bool {
    let stem = stem(path);
    OVERVIEW_PAGES.contains(&stem.as_str())
        || OVERVIEW_PAGES.contains(&title.trim().to_lowercase().as_str())
        || stem.starts_with("what is")
        || stem.starts_with("about ")
        || title.trim().to_lowercase().starts_with("about ")
}

/// Whether the document at `path`, titled `title`, is about upgrading from an older release.
fn is_upgrade_guide(path: &str, title: &str) -> bool {
    matches_words(&stem(path), UPGRADE_PAGES) || matches_words(title, UPGRADE_PAGES)
}

/// The paths of `paths` that document an older release: under a version folder (`v1/`,
/// `2.x/`, `version-1.0/`) beside a newer one (`v3/`) in the same folder.
pub(crate) fn older_versions<'a>(paths: impl Iterator<Item = &'a str> + Clone) -> Vec<&'a str> {
    // (parent folder, version) of each version folder a path passes through.
    let versioned = |path: &'a str| {
        let mut at = 0;
        let mut found = Vec::new();
        for segment in path.split('/') {
            if let Some(version) = version_of(segment)
                && at + segment.len() < path.len()
            {
                found.push((&path[..at], version));
            }
            at += segment.len() + 1;
        }
        found
    };
    let mut newest: std::collections::HashMap<&str, Vec<u64>> = std::collections::HashMap::new();
    for path in paths.clone() {
        for (parent, version) in versioned(path) {
            let slot = newest.entry(parent).or_default();
            if version > *slot {
                *slot = version;
            }
        }
    }
    paths
        .filter(|path| {
            versioned(path)
                .iter()
                .any(|(parent, version)| newest.get(parent).is_some_and(|n| n > version))
        })
        .collect()
}

/// The version a folder is named for: `v3`, `2.x`, `1.0`, `version-2.1`.
fn version_of(segment: &str) -> Option<Vec<u64>> {
    let lower = segment.to_ascii_lowercase();
    let named = lower.starts_with('v') || lower.ends_with(".x") || lower.contains('.');
    let rest = lower
        .strip_prefix("version-")
        .or_else(|| lower.strip_prefix('v'))
        .unwrap_or(&lower);
    let rest = rest.strip_suffix(".x").unwrap_or(rest);
    // A folder named by a bare number (`lessons/2/`) is a part, not a release.
    if !named || rest.is_empty() || rest.len() > 20 {
        return None;
    }
    rest.split('.')
        .map(|part| part.parse::<u64>().ok())
        .collect()
}

/// The developer docs' prose: READMEs without their table of contents and sections about
/// working on the project, guides and reference documents; and whether the first of them
/// is the feature's README shown as its overview. That is its shallowest README, when
/// `readmes` says the article shows READMEs and none of the module `overviews` already
/// says its opening paragraph (a Go package comment copied from the README, say); the
/// others keep their place. Without `readmes`, no README is shown.
pub(crate) fn for_dev_docs(
    docs: &[Prose],
    readmes: bool,
    overviews: &[&str],
) -> (Vec<Prose>, bool) {
    let main = docs
        .iter()
        .filter(|doc| readmes && is_readme(&doc.path))
        .min_by_key(|doc| doc.path.matches('/').count())
        .filter(|doc| !repeats_an_overview(&doc.markdown, overviews));
    let rest = docs.iter().filter(|doc| {
        (readmes || !is_readme(&doc.path)) && main.is_none_or(|m| m.path != doc.path)
            // A README an overview repeats is not shown either.
            && !(is_readme(&doc.path) && repeats_an_overview(&doc.markdown, overviews))
    });
    let chosen: Vec<Prose> = main
        .into_iter()
        .chain(rest)
        .map(|doc| {
            if is_readme(&doc.path) {
                let kept = sections(&doc.markdown, |title| {
                    !matches_words(title, LEFT_OUT_HEADINGS)
                });
                Prose {
                    markdown: without_api_docs_pointers(&kept),
                    ..doc.clone()
                }
            } else {
                doc.clone()
            }
        })
        .collect();
    let capped = cap(chosen, MAX_PROSE_BYTES);
    let leads = main.is_some_and(|m| capped.first().is_some_and(|d| d.path == m.path));
    (capped, leads)
}

/// Words a paragraph that only points at the package's API docs holds at most.
const MAX_POINTER_WORDS: usize = 16;

/// `markdown` without the short paragraphs that only send the reader to the package's API
/// reference on pkg.go.dev, godoc.org, godocs.io or docs.rs ("Full documentation is
/// available at https://pkg.go.dev/…", "[Read the package documentation](https://godoc.org/…)"):
/// the developer docs are that reference.
pub(crate) fn without_api_docs_pointers(markdown: &str) -> String {
    static SITE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        crate::builtin::regex(
            r"https?://(?:pkg\.go\.dev|godoc\.org|godocs\.io|docs\.rs)/[^\s)\]>]*",
        )
    });
    let mut out: Vec<&str> = Vec::new();
    let mut paragraph: Vec<&str> = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    fn flush<'m>(paragraph: &mut Vec<&'m str>, out: &mut Vec<&'m str>, site: &regex::Regex) {
        let text = paragraph.join("\n");
        let without = site.replace_all(&text, " ");
        let words = words(&without);
        let count = words.split(' ').filter(|w| !w.is_empty()).count();
        let drop = !text.trim_start().starts_with('#')
            && site.is_match(&text)
            && !text.contains("![")
            && count <= MAX_POINTER_WORDS
            && (words.contains("doc") || words.contains("reference"));
        if !drop {
            out.append(paragraph);
        }
        paragraph.clear();
    }
    for line in markdown.lines() {
        if let Some((ch, len)) = fence {
            out.push(line);
            if closes_fence(line, ch, len) {
                fence = None;
            }
            continue;
        }
        if let Some((ch, len, _)) = opens_fence(line) {
            flush(&mut paragraph, &mut out, &SITE);
            fence = Some((ch, len));
            out.push(line);
            continue;
        }
        if line.trim().is_empty() {
            flush(&mut paragraph, &mut out, &SITE);
            out.push(line);
            continue;
        }
        paragraph.push(line);
    }
    flush(&mut paragraph, &mut out, &SITE);
    let joined = out.join("\n");
    // Blank lines the dropped paragraphs leave are one.
    let mut tidy = String::with_capacity(joined.len());
    let mut blanks = 0;
    for line in joined.lines() {
        blanks = if line.trim().is_empty() {
            blanks + 1
        } else {
            0
        };
        if blanks <= 1 {
            tidy.push_str(line);
            tidy.push('\n');
        }
    }
    tidy.trim().to_string()
}

/// The words of Markdown `text`, without HTML tags and Markdown punctuation.
fn words(text: &str) -> String {
    static TAG: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| crate::builtin::regex(r"</?[A-Za-z][^<>]{0,500}>"));
    TAG.replace_all(text, " ")
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Whether a module overview already says `markdown`'s opening paragraph (its first one of
/// five words or more, headings and chrome aside).
fn repeats_an_overview(markdown: &str, overviews: &[&str]) -> bool {
    let Some(opening) = markdown
        .split("\n\n")
        .map(str::trim)
        .filter(|p| !p.starts_with('#') && !p.starts_with("```"))
        .map(words)
        .find(|w| w.split(' ').count() >= 5)
    else {
        return false;
    };
    overviews.iter().any(|o| words(o).contains(&opening))
}

/// `markdown` without its first paragraph when that paragraph says `text` (whitespace and
/// HTML tags aside), as a README's opening line repeats the package's description.
pub(crate) fn without_first_paragraph_if(markdown: &str, text: &str) -> String {
    static TAG: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| crate::builtin::regex(r"</?[A-Za-z][^<>]{0,500}>"));
    let words = |s: &str| {
        TAG.replace_all(s, " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    if text.trim().is_empty() {
        return markdown.to_string();
    }
    // Past paragraphs left empty once their logos and badges were dropped (`<div>` wrappers).
    let mut rest = markdown.trim_start();
    while !rest.is_empty() {
        let (first, after) = rest.split_once("\n\n").unwrap_or((rest, ""));
        let said = words(first);
        if said == words(text) {
            return after.trim_start().to_string();
        }
        if !said.is_empty() {
            break;
        }
        rest = after.trim_start();
    }
    markdown.to_string()
}

/// Whether `text` already says `summary`: all of the summary's words but one (three letters
/// or more, common ones aside) are in it, a word matching by its first six letters ("manager"
/// says "management"). A package's one-line summary ("The comprehensive WSGI web
/// application library.") is not shown above docs whose opening says the same thing.
fn says_summary(text: &str, summary: &str) -> bool {
    const COMMON: [&str; 12] = [
        "the", "and", "for", "with", "that", "which", "this", "from", "your", "you", "its", "are",
    ];
    let stems = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .map(str::to_lowercase)
            .filter(|w| w.chars().count() >= 3 && !COMMON.contains(&w.as_str()))
            .map(|w| w.chars().take(6).collect())
            .collect()
    };
    let wanted = stems(summary);
    if wanted.len() < 2 {
        return false;
    }
    let present: std::collections::HashSet<String> = stems(text).into_iter().collect();
    let found = wanted.iter().filter(|w| present.contains(*w)).count();
    // All its words but one: a longer summary says more than a text that has its first half.
    found * 5 >= wanted.len() * 3 && found + 1 >= wanted.len()
}

/// Whether the help center's description, or the opening (600 bytes) of the first document
/// it shows, already says the package's summary.
pub(crate) fn summary_said(summary: &str, description: &str, first: Option<&Prose>) -> bool {
    let opening = first.map_or("", |doc| {
        let end = (0..=doc.markdown.len().min(600))
            .rev()
            .find(|i| doc.markdown.is_char_boundary(*i))
            .unwrap_or(0);
        &doc.markdown[..end]
    });
    says_summary(description, summary) || says_summary(opening, summary)
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

#[cfg(test)]
mod tests {
    #[test]
    fn a_summary_is_said_by_text_that_has_most_of_its_words() {
        use super::says_summary;
        let werkzeug = "Werkzeug is a comprehensive WSGI web application library.";
        assert!(says_summary(
            werkzeug,
            "The comprehensive WSGI web application library."
        ));
        assert!(says_summary(
            "Hatch is a modern, extensible Python project manager.",
            "Modern, extensible Python project management."
        ));
        assert!(!says_summary(
            "Pip is the package installer for Python.",
            "The PyPA recommended tool for installing Python packages."
        ));
        // Its first sentence does not say a summary of two.
        assert!(!says_summary(
            "A tiny, secure ID generator.",
            "A tiny, secure ID generator. Works anywhere <b>{x}</b>."
        ));
        // One word is not enough to tell.
        assert!(!says_summary("Fast.", "Fast"));
    }

    use super::*;
    use crate::source::docs::markdown::tests::doc;

    #[test]
    fn without_a_site_a_user_guide_comes_first() {
        let docs = vec![
            doc("site/content/active_help.md", "Active help text."),
            doc("site/content/user_guide.md", "Guide text."),
        ];
        let (_, after) = for_help_center_around(docs.clone(), |_| false, false);
        assert_eq!(after[0].path, "site/content/user_guide.md");
        let (_, after) = for_help_center_around(docs, |_| false, true);
        assert_eq!(after[0].path, "site/content/active_help.md");
    }

    #[test]
    fn a_folder_of_reference_pages_is_for_developers() {
        let help = for_help_center(&[
            doc("packages/docs/api/@pinia/testing/index.md", "Testing API."),
            doc("packages/docs/getting-started.md", "Install it."),
        ]);
        assert_eq!(help.len(), 1);
        assert_eq!(help[0].path, "packages/docs/getting-started.md");
    }

    #[test]
    fn readme_sections_go_where_their_reader_is() {
        let readme = "Intro.\n\n#### Table of Contents\n\n- x\n\n#### Install\n\nnpm i\n\n#### API\n\n##### f()\n\nf.\n\n#### FAQ\n\nQ.\n\n#### License\n\nMIT";
        let nested = for_help_center(&[doc(
            "docs/README.md",
            "Intro.\n\n### Documentation\n\n#### Table of Contents\n\n- [API](api.md)\n\n#### Guides\n\nRead on.",
        )]);
        assert_eq!(
            nested[0].markdown,
            "Intro.\n\n### Documentation\n\n#### Guides\n\nRead on."
        );
        let help = for_help_center(&[doc("README.md", readme), doc("docs/api.md", "ref")]);
        assert_eq!(help.len(), 1);
        assert_eq!(
            help[0].markdown,
            "Intro.\n\n#### Install\n\nnpm i\n\n#### FAQ\n\nQ."
        );
        let (dev, _) = for_dev_docs(
            &[doc("README.md", readme), doc("docs/api.md", "ref")],
            true,
            &[],
        );
        assert_eq!(
            dev[0].markdown,
            "Intro.\n\n#### Install\n\nnpm i\n\n#### API\n\n##### f()\n\nf.\n\n#### FAQ\n\nQ."
        );
        assert_eq!(dev[1].markdown, "ref");
    }

    #[test]
    fn pointers_to_the_api_reference_are_left_out_of_the_readme() {
        let readme = "Intro.\n\nFull documentation is available at\nhttps://pkg.go.dev/github.com/acme/errors\n\n[Read the package documentation for more information](https://godoc.org/github.com/acme/errors).\n\n```go\n// see https://pkg.go.dev/github.com/acme/errors docs\n```\n\nUse `errors.Join` from [the standard library](https://pkg.go.dev/errors#Join), which combines many errors and formats them as one message for logs and docs readers alike.\n\n[![GoDoc](https://godoc.org/x?status.svg)](https://godoc.org/x)";
        assert_eq!(
            without_api_docs_pointers(readme),
            "Intro.\n\n```go\n// see https://pkg.go.dev/github.com/acme/errors docs\n```\n\nUse `errors.Join` from [the standard library](https://pkg.go.dev/errors#Join), which combines many errors and formats them as one message for logs and docs readers alike.\n\n[![GoDoc](https://godoc.org/x?status.svg)](https://godoc.org/x)"
        );
    }
}
