//! How much prose an article shows: whole documents while they fit its budget, then the one
//! that does not fit cut at a boundary (a section's, else a paragraph's, never inside a block
//! or after a sentence that introduces what follows) with a sentence saying where the rest
//! is; the documents left out are listed, linked, in a last section, unless a shown page
//! links to them already.

use super::markdown::{Prose, atx_heading, closes_fence, opens_fence};

/// A document cut to less than this is left out and listed instead.
const MIN_CUT_BYTES: usize = 512;
/// At most this many left-out documents are listed by name.
const MAX_LISTED: usize = 20;

/// Where a document's headings and paragraphs start, as byte offsets, outside fences.
pub(super) struct Boundaries {
    /// (offset, level, title) of each heading.
    pub(super) headings: Vec<(usize, usize, String)>,
    /// Offsets of the lines after a blank line, where a block can start.
    pub(super) blocks: Vec<usize>,
}

pub(super) fn boundaries(markdown: &str) -> Boundaries {
    let mut out = Boundaries {
        headings: Vec::new(),
        blocks: Vec::new(),
    };
    let mut fence: Option<(char, usize)> = None;
    let mut offset = 0;
    let mut after_blank = false;
    // Inside an HTML comment that spans lines, where a `#` line is no heading.
    let mut comment = false;
    for line in markdown.split_inclusive('\n') {
        let text = line.trim_end_matches(['\n', '\r']);
        if fence.is_none() {
            let was = comment;
            if let Some(open) = text.rfind("<!--") {
                comment = !text[open..].contains("-->");
            } else if comment && text.contains("-->") {
                comment = false;
            }
            if was || comment {
                offset += line.len();
                after_blank = false;
                continue;
            }
        }
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
                } else if let Some((level, title)) = atx_heading(text) {
                    out.headings.push((offset, level, title.to_string()));
                }
            }
        }
        after_blank = fence.is_none() && text.trim().is_empty();
        offset += line.len();
    }
    out
}

/// `docs` within `budget` bytes of Markdown, in order: whole documents while they fit, then
/// the one that does not fit cut at a boundary with a sentence saying where the rest is; the
/// documents left out are listed in a last section.
pub(super) fn cap(docs: Vec<Prose>, budget: usize) -> Vec<Prose> {
    let mut out: Vec<Prose> = Vec::new();
    // The documents left out, as (path, title).
    let mut left: Vec<(String, String)> = Vec::new();
    let mut remaining = budget;
    for doc in docs {
        if doc.markdown.trim().is_empty() {
            continue;
        }
        if !left.is_empty() {
            left.push((doc.path, doc.title));
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
            None => left.push((doc.path, doc.title)),
        }
        remaining = 0;
    }
    // A document a shown one already links to ("Guides: [Using Black with other tools]…")
    // is not listed again.
    let linked = linked_paths(&out);
    left.retain(|(path, _)| !linked.contains(path));
    if !left.is_empty() {
        let list = left_out_list(&left);
        out.push(Prose {
            path: String::new(),
            title: "More documentation".into(),
            markdown: format!(
                "These documents of the feature did not fit on this page:\n\n{}",
                list.join("\n")
            ),
            dropped: Vec::new(),
            labels: Vec::new(),
        });
    }
    out
}

/// The repository paths the relative links of `docs` point to (`guides/x.md`, `x` meaning
/// `x.md`), each resolved from its document's folder; bounded per document.
fn linked_paths(docs: &[Prose]) -> std::collections::HashSet<String> {
    static LINK: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| crate::builtin::regex(r"\]\(\s*<?([^)\s>#?]{1,300})"));
    let mut out = std::collections::HashSet::new();
    for doc in docs {
        let folder = doc.path.rsplit_once('/').map_or("", |(f, _)| f);
        for found in LINK.captures_iter(&doc.markdown).take(1_000) {
            let Some(target) = found.get(1).map(|m| m.as_str()) else {
                continue;
            };
            if target.contains(':') {
                continue;
            }
            let path = match target.strip_prefix('/') {
                Some(rooted) => super::site_config::join("", rooted),
                None => super::site_config::join(folder, target),
            };
            let stem = path.strip_suffix(".html").unwrap_or(&path).to_string();
            for ext in ["", ".md", ".mdx", ".rst", "/index.md", "/README.md"] {
                out.insert(format!("{}{ext}", stem.trim_end_matches('/')));
            }
        }
    }
    out
}

/// Documents listed by name in a group of [`left_out_list`].
const LISTED_PER_GROUP: usize = 3;

/// The list of documents left out: each by name when they are few; else one line per folder
/// (in the order of their first document), naming its first few and counting the rest, so
/// that every part of the docs shows, not only the first one's pages.
fn left_out_list(left: &[(String, String)]) -> Vec<String> {
    let item = |(path, title): &(String, String)| {
        format!("[{}]({})", link_text(path, title), link_target(path))
    };
    if left.len() <= MAX_LISTED {
        return left.iter().map(|doc| format!("- {}", item(doc))).collect();
    }
    let folder = |path: &str| path.rsplit_once('/').map_or("", |(f, _)| f).to_string();
    let mut groups: Vec<(String, Vec<&(String, String)>)> = Vec::new();
    for doc in left {
        let name = folder(&doc.0);
        match groups.iter_mut().find(|(f, _)| *f == name) {
            Some((_, docs)) => docs.push(doc),
            None => groups.push((name, vec![doc])),
        }
    }
    let mut list: Vec<String> = groups
        .iter()
        .take(MAX_LISTED)
        .map(|(_, docs)| {
            let named: Vec<String> = docs
                .iter()
                .take(LISTED_PER_GROUP)
                .map(|d| item(d))
                .collect();
            match docs.len().saturating_sub(LISTED_PER_GROUP) {
                0 => format!("- {}", named.join(", ")),
                more => format!("- {} and {more} more beside them", named.join(", ")),
            }
        })
        .collect();
    let unlisted: usize = groups.iter().skip(MAX_LISTED).map(|(_, d)| d.len()).sum();
    if unlisted > 0 {
        list.push(format!("- and {unlisted} more"));
    }
    list
}

/// What a reader sees of a document left out: its title (a path is not a name), else its
/// file's name; brackets escaped for the link text.
pub(super) fn link_text(path: &str, title: &str) -> String {
    let name = match title.trim() {
        "" => path.rsplit('/').next().unwrap_or(path),
        title => title,
    };
    name.replace('\\', "\\\\")
        .replace('[', "\\[")
        .replace(']', "\\]")
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
    // Never after a sentence that introduces what follows ("Next, the `index.html`:").
    let block = found
        .blocks
        .iter()
        .rev()
        .filter(|offset| **offset <= budget)
        .find(|offset| !markdown[..**offset].trim_end().ends_with(':'))
        .filter(|offset| **offset >= MIN_CUT_BYTES)?;
    Some((markdown[..*block].trim_end(), None))
}

/// A relative link target for `path`, with the characters Markdown would misread encoded.
pub(super) fn link_target(path: &str) -> String {
    path.replace('%', "%25")
        .replace(' ', "%20")
        .replace('(', "%28")
        .replace(')', "%29")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::docs::markdown::tests::doc;

    #[test]
    fn the_cap_cuts_at_a_section_and_says_so() {
        let section = format!("{}\n\n", "A sentence of the guide. ".repeat(20));
        let long: String = (1..=8)
            .map(|i| format!("#### Part {i}\n\n{section}"))
            .collect();
        let docs = vec![
            doc("docs/a.md", &long),
            Prose {
                title: "Proxies [advanced]".into(),
                ..doc("docs/b.md", &long)
            },
            Prose {
                title: String::new(),
                ..doc("docs/c d.md", "small")
            },
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
                .ends_with("- [Proxies \\[advanced\\]](docs/b.md)\n- [c d.md](docs/c%20d.md)"),
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
        // What a shown page links to is not listed again.
        let shown = cap(
            vec![
                doc(
                    "docs/index.md",
                    "Guides: [Other tools](guides/tools) and more.",
                ),
                doc("docs/guides/tools.md", &paragraphs.repeat(10)),
                doc("docs/faq.md", &paragraphs),
            ],
            100,
        );
        assert_eq!(shown[1].title, "More documentation");
        assert!(
            !shown[1].markdown.contains("tools"),
            "{}",
            shown[1].markdown
        );
        assert!(
            shown[1].markdown.contains("docs/faq.md"),
            "{}",
            shown[1].markdown
        );
    }
}
