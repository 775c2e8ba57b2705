//! Which document a walkthrough comes from, and the prose left once its steps are taken out.

use std::ops::Range;

use super::outline::{Found, Outline};
use super::{MAX_STEPS, Walkthrough};
use crate::source::docs::markdown::{Prose, closes_fence, opens_fence};
use crate::source::docs::translations::translations;
use crate::source::docs::vocabulary::{PROJECT_HEADINGS, USAGE_HEADINGS, matches_words};
use crate::source::files::PROJECT_FILES;
use crate::source::paths::stem;

/// The walkthrough the documents describe, if any.
pub(crate) fn derive(docs: &[Prose]) -> Option<Walkthrough> {
    // READMEs, then documents named like a procedure (quickstart.md, getting-started.md),
    // then the others, then translations of another document; never documents about the
    // project itself (CONTRIBUTING.md).
    let translated = translations(docs.iter().map(|d| d.path.as_str()));
    let mut order: Vec<(u8, &Prose)> = docs
        .iter()
        .filter_map(|doc| {
            let stem = stem(&doc.path);
            if matches_words(&stem, PROJECT_HEADINGS) || matches_words(&stem, PROJECT_FILES) {
                None
            } else if translated.contains(&doc.path) {
                Some((3, doc))
            } else if stem.starts_with("readme") {
                Some((0, doc))
            } else if matches_words(&stem, USAGE_HEADINGS) {
                Some((1, doc))
            } else {
                Some((2, doc))
            }
        })
        .collect();
    order.sort_by_key(|(rank, doc)| (*rank, doc.path.matches('/').count(), doc.path.clone()));
    let outlines: Vec<(u8, &Prose, Outline)> = order
        .into_iter()
        .map(|(rank, doc)| (rank, doc, Outline::new(&doc.markdown)))
        .collect();
    type Rule = (&'static str, fn(&Outline, u8, &Prose) -> Found);
    // What is written as a procedure, in any document, before what may be one: a usage
    // section anywhere beats an ordered list in the first README.
    let written: [Rule; 3] = [
        ("headed steps", |o, _, _| o.headed_steps()),
        ("usage sections", |o, _, _| o.usage_sections()),
        ("usage document", |o, rank, doc| {
            if rank == 1 {
                o.section_steps(0..o.lines.len(), &doc.title)
            } else {
                Found::default()
            }
        }),
    ];
    let read: [Rule; 2] = [
        ("ordered list", |o, _, _| o.ordered_list()),
        ("shell commands", |o, _, _| o.shell_commands()),
    ];
    [&written[..], &read[..]].into_iter().find_map(|tier| {
        outlines.iter().find_map(|(rank, doc, outline)| {
            tier.iter().find_map(|(rule, find)| {
                let mut found = find(outline, *rank, doc);
                // A step says something: a title alone is no step.
                found.steps.retain(|s| !s.body.trim().is_empty());
                found.steps.truncate(MAX_STEPS);
                (!found.steps.is_empty()).then(|| Walkthrough {
                    path: doc.path.clone(),
                    steps: found.steps,
                    used: found.used,
                    rule,
                })
            })
        })
    })
}

/// `markdown` without the lines in `used`, and without the runs of blank lines their removal
/// leaves (outside code blocks).
pub(crate) fn without(markdown: &str, used: &[Range<usize>]) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    for (i, line) in markdown.lines().enumerate() {
        if used.iter().any(|r| r.contains(&i)) {
            continue;
        }
        match fence {
            Some((ch, len)) if closes_fence(line, ch, len) => fence = None,
            Some(_) => {}
            None => {
                if let Some((ch, len, _)) = opens_fence(line) {
                    fence = Some((ch, len));
                } else if line.trim().is_empty() && out.last().is_none_or(|l| l.trim().is_empty()) {
                    continue;
                }
            }
        }
        out.push(line);
    }
    out.join("\n").trim().to_string()
}
