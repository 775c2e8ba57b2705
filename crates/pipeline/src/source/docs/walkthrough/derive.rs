//! Which document a walkthrough comes from, and the prose left once its steps are taken out.

use std::ops::Range;

use super::outline::{Found, Outline};
use super::{DerivedStep, MAX_STEPS, Walkthrough};
use crate::source::docs::markdown::{Prose, closes_fence, opens_fence};
use crate::source::docs::site::SiteOrder;
use crate::source::docs::translations::translations;
use crate::source::docs::vocabulary::{
    PROJECT_HEADINGS, SHELL_LANGUAGES, USAGE_HEADINGS, imperative, matches_words,
};
use crate::source::files::PROJECT_FILES;
use crate::source::paths::stem;

/// The walkthrough the documents describe, if any. `docs` are in the order of the project's
/// docs site when it has one (`site`): then the site's own getting-started pages
/// (installation, quick start, tutorial) come first, in the site's order.
pub(crate) fn derive(docs: &[Prose], site: Option<&SiteOrder>) -> Option<Walkthrough> {
    // READMEs, then documents named like a procedure (quickstart.md, getting-started.md),
    // then the others, then translations of another document; never documents about the
    // project itself (CONTRIBUTING.md).
    let translated = translations(docs.iter().map(|d| d.path.as_str()));
    let listed = |doc: &Prose| site.is_some_and(|s| s.rank.contains_key(&doc.path));
    // (priority, depth or 0, site position, path), the document's kind, the document.
    type Ranked<'a> = ((u8, usize, usize, String), u8, &'a Prose);
    let mut order: Vec<Ranked> = docs
        .iter()
        .enumerate()
        .filter_map(|(position, doc)| {
            let stem = stem(&doc.path);
            // A page in a folder named like a procedure (`getting-started/introduction.md`)
            // is on that path too.
            let folder = doc
                .path
                .rsplit('/')
                .nth(1)
                .map(|f| f.replace(['-', '_'], " "));
            let usage = matches_words(&stem, USAGE_HEADINGS)
                || folder.is_some_and(|f| site.is_some() && matches_words(&f, USAGE_HEADINGS))
                || (site.is_some() && matches_words(&doc.title, USAGE_HEADINGS));
            let (priority, rank) =
                if matches_words(&stem, PROJECT_HEADINGS) || matches_words(&stem, PROJECT_FILES) {
                    return None;
                } else if translated.contains(&doc.path) {
                    (4, 3)
                } else if usage && listed(doc) {
                    (0, 1)
                } else if stem.starts_with("readme") {
                    (1, 0)
                } else if usage {
                    (2, 1)
                } else {
                    (3, 2)
                };
            // The site's order among its pages, else the shallowest first.
            let key = if listed(doc) {
                (priority, 0, position, String::new())
            } else {
                (
                    priority,
                    1 + doc.path.matches('/').count(),
                    0,
                    doc.path.clone(),
                )
            };
            Some((key, rank, doc))
        })
        .collect();
    order.sort_by(|a, b| a.0.cmp(&b.0));
    let order: Vec<(u8, &Prose)> = order
        .into_iter()
        .map(|(_, rank, doc)| (rank, doc))
        .collect();
    let outlines: Vec<(u8, &Prose, Outline)> = order
        .into_iter()
        .map(|(rank, doc)| (rank, doc, Outline::new(&doc.markdown)))
        .collect();
    type Rule = (&'static str, fn(&Outline, u8, &Prose) -> Found);
    // What is written as a procedure, in any document, before what may be one: a usage
    // section anywhere beats an ordered list in the first README.
    // A page named like a procedure (quickstart.md) is one as a whole: its sections are the
    // steps, not only those titled like usage.
    let written: [Rule; 3] = [
        ("headed steps", |o, _, _| o.headed_steps()),
        ("usage document", |o, rank, doc| {
            if rank == 1 {
                o.section_steps(0..o.lines.len(), &doc.title)
            } else {
                Found::default()
            }
        }),
        ("usage sections", |o, _, _| o.usage_sections()),
    ];
    let read: [Rule; 2] = [
        ("ordered list", |o, _, _| o.ordered_list()),
        ("shell commands", |o, _, _| o.shell_commands()),
    ];
    let steps_of = |rules: &[Rule], rank: u8, doc: &Prose, outline: &Outline| {
        rules.iter().find_map(|(rule, find)| {
            let mut found = find(outline, rank, doc);
            // A step says something: a title alone is no step.
            found.steps.retain(|s| !s.body.trim().is_empty());
            found.steps = merge_same_titles(std::mem::take(&mut found.steps));
            found.keep_first(MAX_STEPS);
            // A page read whole into one step with no code and nothing to do (a section's
            // index: "This subsection contains examples…") introduces; it walks no one.
            let blurb = *rule == "usage document"
                && matches!(&found.steps[..], [only] if !only.body.contains("```")
                    && !imperative(&only.title)
                    && instructions_in(&only.body, &only.title) == 0);
            (!found.steps.is_empty() && !blurb).then_some((*rule, found))
        })
    };
    let (first, rule, found) = [&written[..], &read[..]].into_iter().find_map(|tier| {
        outlines
            .iter()
            .enumerate()
            .find_map(|(i, (rank, doc, outline))| {
                steps_of(tier, *rank, doc, outline).map(|(rule, found)| (i, rule, found))
            })
    })?;
    let (_, doc, _) = &outlines[first];
    Some(Walkthrough {
        path: doc.path.clone(),
        steps: found.steps,
        used: found.used,
        rule,
    })
}

/// Whether a sentence tells its reader what to do: it starts with an instruction ("Install
/// our command"), or with "Start by" and one ("Start by creating a directory").
fn says_to_do(sentence: &str) -> bool {
    let said = sentence.trim_start_matches(|c: char| !c.is_alphanumeric());
    let gerund = said
        .strip_prefix("Start by ")
        .or_else(|| said.strip_prefix("Begin by "))
        .and_then(|rest| rest.split(' ').next()?.strip_suffix("ing"))
        .unwrap_or("");
    // The verb in its plain form: creat-ing, us-ing, runn-ing.
    let verbs = [
        gerund.to_string(),
        format!("{gerund}e"),
        gerund[..gerund.len().saturating_sub(1)].to_string(),
    ];
    imperative(said) || (!gerund.is_empty() && verbs.iter().any(|v| imperative(v)))
}

/// How often a step's Markdown tells its reader what to do: shell command blocks a paragraph
/// (or, first, the step's title `lead`) leads to, and code blocks the paragraph before them
/// introduces with an instruction ("Create a file `greet.go`:").
fn instructions_in(markdown: &str, lead: &str) -> usize {
    let mut count = 0;
    // What leads to a block at the very start: the step's title.
    let mut paragraph: Vec<&str> = vec![lead];
    let mut ended = true;
    let mut comment = false;
    let mut fence: Option<(char, usize)> = None;
    for line in markdown.lines() {
        if let Some((ch, len)) = fence {
            if closes_fence(line, ch, len) {
                fence = None;
            }
            continue;
        }
        if let Some((ch, len, info)) = opens_fence(line) {
            fence = Some((ch, len));
            let language = info.trim().split([' ', ',', '{']).next().unwrap_or("");
            // A command block right after another block shows what the code before it
            // prints; one a paragraph leads to is what to type.
            if !paragraph.is_empty()
                && (SHELL_LANGUAGES.contains(&language.to_ascii_lowercase().as_str())
                    || says_to_do(&paragraph.join(" ")))
            {
                count += 1;
            }
            paragraph.clear();
            ended = false;
            continue;
        }
        // The last paragraph before a block, however many blank lines follow it; an HTML
        // comment between them (a test harness's note) is not read.
        let text = line.trim();
        if comment || text.starts_with("<!--") {
            comment = !text.contains("-->");
        } else if text.is_empty() {
            ended = true;
        } else {
            if ended {
                paragraph.clear();
                ended = false;
            }
            paragraph.push(text);
        }
    }
    count
}

/// The steps with one title each: a step titled like an earlier one ("Install with pip"
/// twice) is that step continued, so its text joins the earlier step's.
fn merge_same_titles(steps: Vec<DerivedStep>) -> Vec<DerivedStep> {
    let mut out: Vec<DerivedStep> = Vec::with_capacity(steps.len());
    for step in steps {
        let key = step.title.to_lowercase();
        match out.iter_mut().find(|s| s.title.to_lowercase() == key) {
            Some(earlier) => {
                earlier.body.push_str("\n\n");
                earlier.body.push_str(&step.body);
            }
            None => out.push(step),
        }
    }
    out
}

/// `markdown` without the lines in `used`, and without the runs of blank lines, empty headings
/// and stray breaks their removal leaves (outside code blocks).
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
    crate::source::docs::tidy(&out.join("\n"))
}
