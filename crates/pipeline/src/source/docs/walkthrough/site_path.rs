//! A help-center article that follows a docs site's navigation: one ordered page tree (the
//! site's pages in its order, titled as its navigation titles them), and every decision read
//! from it.
//!
//! - **The body** is the getting-started path: the tree's first page (its introduction), the
//!   pages named like the way in (installation, quick start, tutorial, first steps) and the
//!   first page that is a sequence, among the tree's first [`WINDOW`] pages, in the tree's
//!   order, whole, while [`BODY_BYTES`] last; then the other pages of that window that fit
//!   whole. A page is shown once. Reference, API, cookbook, gallery, upgrade and translated
//!   pages are never the body.
//! - **Steps** only where a page is a sequence (a quick start or tutorial whose sections are
//!   actions in order): each step holds its whole section; what the page says before its
//!   first step ("What you'll learn", "Prerequisites") and after its last ("What you've
//!   learned") stays prose around the steps.
//! - **The listing** ("More documentation") is the rest of the tree, grouped by folder, titled
//!   as the navigation titles the pages; a page the site does not list is not listed.

use super::outline::Outline;
use super::text::step_number;
use super::{DerivedStep, MAX_STEPS, Walkthrough};
use crate::source::docs::budget::{link_target, link_text};
use crate::source::docs::markdown::Prose;
use crate::source::docs::site::SiteOrder;
use crate::source::docs::translations::translations;
use crate::source::docs::vocabulary::{PROJECT_HEADINGS, imperative, matches_words};
use crate::source::files::{PROJECT_FILES, is_reference};
use crate::source::paths::stem;

/// Bytes of Markdown the body shows, steps included: about 4,000 words.
const BODY_BYTES: usize = 24 * 1024;
/// A sequence page (a quick start) is shown whole up to this size, past the body's budget.
const MAX_SEQUENCE_BYTES: usize = 48 * 1024;
/// A page is cut (at a section) only when at least this much budget is left for it.
const MIN_CUT_BYTES: usize = 4 * 1024;
/// The tree's first pages the getting-started path is chosen among.
const WINDOW: usize = 12;
/// Pages named in the listing, at most (the others are counted).
const MAX_LISTED: usize = 40;
/// Pages named in one group of the listing when the listing is long.
const LISTED_PER_GROUP: usize = 6;

/// Names of the pages on the way in besides those of a sequence ([`SEQUENCE_NAMES`]).
const WAY_IN: &[&str] = &["install", "installation", "installing", "setup", "set up"];

/// Names of pages that walk through a task in order.
const SEQUENCE_NAMES: &[&str] = &[
    "getting started",
    "get started",
    "quick start",
    "quickstart",
    "quick-start",
    "first steps",
    "tutorial",
    "walkthrough",
    "step by step",
    "your first",
];

/// Pages that are not the way in: reference, recipes, galleries, upgrades, answers.
const NOT_BODY: &[&str] = &[
    "api",
    "api reference",
    "reference",
    "cookbook",
    "recipes",
    "faq",
    "changelog",
    "changes",
    "release notes",
    "migration",
    "migrating",
    "migrate",
    "upgrade",
    "upgrading",
    "themes",
    "showcase",
    "gallery",
    "glossary",
];

/// Folders of reference pages, one per command or option (`cli/init.md`, `config/include.md`).
const REFERENCE_FOLDERS: &[&str] = &["cli", "commands", "command line", "config", "options"];

/// Sections of a sequence page that frame its steps rather than being one.
const FRAMING: &[&str] = &[
    "what you'll learn",
    "what you will learn",
    "what you've learned",
    "what you have learned",
    "prerequisites",
    "prerequisite",
    "requirements",
    "dependencies",
    "optional dependencies",
    "introduction",
    "overview",
    "summary",
    "next steps",
    "what's next",
    "further reading",
    "learn more",
    "conclusion",
    "recap",
    "how to read this tutorial",
];

/// The article a docs site's tree gives: the body before the steps, the steps, the body after
/// them and the listing.
pub(crate) struct SitePath {
    pub(crate) intro: Vec<Prose>,
    pub(crate) walkthrough: Option<Walkthrough>,
    /// The body after the steps, then the listing (a `Prose` with no path).
    pub(crate) after: Vec<Prose>,
}

/// One page of the tree.
struct Page<'a> {
    doc: &'a Prose,
    /// Whether the page can be the body.
    body: bool,
}

/// The article along `site`'s tree of `docs` (in the site's order), when the site lists at
/// least two of them and one is a body page.
pub(crate) fn along_site(docs: &[Prose], site: &SiteOrder) -> Option<SitePath> {
    let translated = translations(docs.iter().map(|d| d.path.as_str()));
    let pages: Vec<Prose> = docs
        .iter()
        .filter(|d| site.rank.contains_key(&d.path) && !translated.contains(&d.path))
        .filter(|d| !is_project_page(&d.path))
        .map(own_title)
        .collect();
    let mut tree: Vec<Page> = pages
        .iter()
        .map(|doc| Page {
            doc,
            body: is_body_page(doc),
        })
        .collect();
    tree.sort_by_key(|p| site.rank.get(&p.doc.path).copied().unwrap_or(usize::MAX));
    if tree.len() < 2 || !tree.iter().any(|p| p.body) {
        return None;
    }
    let window: Vec<usize> = (0..tree.len())
        .filter(|&i| tree[i].body)
        .take(WINDOW)
        .collect();
    let sequence = window
        .iter()
        .copied()
        .find(|&i| sequence_steps(tree[i].doc).is_some());
    let must = |i: usize| {
        Some(i) == window.first().copied() || Some(i) == sequence || is_way_in(tree[i].doc)
    };
    // (tree index, markdown shown)
    let mut shown: Vec<(usize, String)> = Vec::new();
    let mut remaining = BODY_BYTES;
    for pass in [true, false] {
        for &i in &window {
            if must(i) != pass || shown.iter().any(|(j, _)| *j == i) {
                continue;
            }
            let markdown = tree[i].doc.markdown.trim();
            if markdown.is_empty() {
                continue;
            }
            if markdown.len() <= remaining {
                remaining -= markdown.len();
            } else if Some(i) == sequence && markdown.len() <= MAX_SEQUENCE_BYTES {
                remaining = 0;
            } else if remaining >= MIN_CUT_BYTES && Some(i) != sequence {
                let Some(kept) = cut_at_section(markdown, remaining) else {
                    continue;
                };
                remaining = 0;
                let note = match site.urls.get(&tree[i].doc.path) {
                    Some(url) => format!("\n\n*The rest of this page is [on the site]({url}).*"),
                    None => String::new(),
                };
                shown.push((i, format!("{kept}{note}")));
                continue;
            } else if pass {
                continue;
            } else {
                // The rest of the window follows the tree: no later page is pulled forward
                // past one that does not fit.
                break;
            }
            shown.push((i, markdown.to_string()));
        }
    }
    shown.sort_by_key(|(i, _)| *i);
    let mut intro = Vec::new();
    let mut after = Vec::new();
    let mut walkthrough = None;
    let mut said = std::collections::HashSet::new();
    for (i, markdown) in shown.iter() {
        let doc = tree[*i].doc;
        let page = Prose {
            markdown: without_said(markdown, &mut said),
            ..doc.clone()
        };
        if page.markdown.is_empty() {
            continue;
        }
        if Some(*i) == sequence
            && let Some(found) = sequence_steps(doc)
        {
            intro.push(Prose {
                markdown: found.lead,
                ..doc.clone()
            });
            after.extend(sections_of(&found.rest, doc));
            walkthrough = Some(Walkthrough {
                path: doc.path.clone(),
                steps: found.steps,
                used: vec![found.used],
                rule: "site sequence",
            });
        } else if walkthrough.is_some() {
            after.push(page);
        } else {
            intro.push(page);
        }
    }
    let listed: Vec<&Page> = tree
        .iter()
        .enumerate()
        .filter(|(i, _)| !shown.iter().any(|(j, _)| j == i))
        .map(|(_, p)| p)
        .collect();
    if let Some(listing) = listing(&listed) {
        after.push(listing);
    }
    Some(SitePath {
        intro,
        walkthrough,
        after,
    })
}

/// A page titled by its own first heading when it opens with the only heading of that level
/// and that heading names the page more fully ("Introduction" in `intro.rst`, titled "Intro"
/// from its file name), or again (a title repeated one level down), without that heading.
fn own_title(doc: &Prose) -> Prose {
    let outline = Outline::new(&doc.markdown);
    let opens = outline
        .lines
        .iter()
        .position(|l| !l.trim().is_empty())
        .zip(outline.headings.first())
        .filter(|(first, heading)| *first == heading.line);
    if let Some((_, heading)) = opens
        && outline
            .headings
            .iter()
            .filter(|h| h.level <= heading.level)
            .count()
            == 1
        && heading
            .text
            .to_lowercase()
            .starts_with(&doc.title.trim().to_lowercase())
    {
        return Prose {
            title: super::clean_title(&heading.text),
            markdown: outline.text(heading.line + 1..outline.lines.len()),
            ..doc.clone()
        };
    }
    doc.clone()
}

/// Paragraphs shorter than this may repeat (a "Note:" line); longer ones are shown once.
const MIN_REPEATED_BYTES: usize = 80;

/// `markdown` without the prose paragraphs an earlier page of the body said already (a
/// site's index and its introduction opening with the same paragraph); code is kept.
fn without_said(markdown: &str, said: &mut std::collections::HashSet<String>) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut in_fence = false;
    for paragraph in markdown.split("\n\n") {
        let fences = paragraph
            .lines()
            .filter(|l| {
                let t = l.trim_start();
                t.starts_with("```") || t.starts_with("~~~")
            })
            .count();
        let plain = !in_fence && fences == 0 && !paragraph.trim_start().starts_with('#');
        if fences % 2 == 1 {
            in_fence = !in_fence;
        }
        let words = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
        if plain && words.len() >= MIN_REPEATED_BYTES && !said.insert(words) {
            continue;
        }
        out.push(paragraph);
    }
    out.join("\n\n").trim().to_string()
}

/// A page about the project rather than its use (contributing, licence, changelog).
fn is_project_page(path: &str) -> bool {
    let stem = stem(path);
    matches_words(&stem, PROJECT_HEADINGS) || matches_words(&stem, PROJECT_FILES)
}

/// Whether a page can be part of the getting-started path.
fn is_body_page(doc: &Prose) -> bool {
    let folders = doc.path.rsplit_once('/').map_or("", |(f, _)| f);
    !doc.markdown.trim().is_empty()
        && !is_reference(&doc.path)
        && !matches_words(&stem(&doc.path), NOT_BODY)
        && !matches_words(&doc.title, NOT_BODY)
        && !folders.split('/').any(|f| {
            let f = f.replace(['-', '_'], " ");
            matches_words(&f, NOT_BODY) || matches_words(&f, REFERENCE_FOLDERS)
        })
}

/// Whether a page is its folder's index (`_index.md`, `index.md`, `README.md`).
fn is_index(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let stem = name.rsplit_once('.').map_or(name.as_str(), |(s, _)| s);
    matches!(stem, "_index" | "index" | "readme")
}

/// Whether a page is named as a way in (installation, quick start, tutorial).
fn is_way_in(doc: &Prose) -> bool {
    let name = stem(&doc.path).replace(['-', '_'], " ");
    [WAY_IN, SEQUENCE_NAMES]
        .iter()
        .any(|words| matches_words(&name, words) || matches_words(&doc.title, words))
}

/// A sequence page cut into what comes before its steps, its steps and what follows them.
struct Sequence {
    lead: String,
    steps: Vec<DerivedStep>,
    /// The lines of the steps.
    used: std::ops::Range<usize>,
    rest: String,
}

/// The steps of a page that is a sequence: named like one (a quick start, a tutorial) with
/// sibling sections at least half of which say what to do (three or more when they are
/// subsections), or numbered as steps ("Step 1 - Add Dependency"). A page of reference or
/// explanation whose headings happen to be verbs is no sequence. The steps run from the first such section to the last, each whole; a section
/// between two of them that is no action ("Details") belongs to the step before it; framing
/// sections ("Prerequisites", "What you've learned") at either end stay prose.
fn sequence_steps(doc: &Prose) -> Option<Sequence> {
    let outline = Outline::new(&doc.markdown);
    let named = matches_words(&stem(&doc.path).replace(['-', '_'], " "), SEQUENCE_NAMES)
        || matches_words(&doc.title, SEQUENCE_NAMES);
    let mut levels: Vec<usize> = outline.headings.iter().map(|h| h.level).collect();
    levels.sort_unstable();
    levels.dedup();
    for (depth, level) in levels.into_iter().take(2).enumerate() {
        // Sibling runs: headings of this level under the same parent.
        let parent = |i: usize| outline.headings[..i].iter().rposition(|h| h.level < level);
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for i in (0..outline.headings.len()).filter(|&i| outline.headings[i].level == level) {
            match groups.last_mut() {
                Some(group) if group.last().is_some_and(|&j| parent(j) == parent(i)) => {
                    group.push(i)
                }
                _ => groups.push(vec![i]),
            }
        }
        for group in groups {
            if let Some(found) = steps_of_group(&outline, &group, named, depth > 0) {
                return Some(found);
            }
        }
    }
    None
}

/// The steps of one run of sibling sections, when they make a sequence ([`sequence_steps`]).
fn steps_of_group(
    outline: &Outline,
    group: &[usize],
    named: bool,
    nested: bool,
) -> Option<Sequence> {
    let text = |i: usize| outline.headings[i].text.as_str();
    // A section whose first line is an instruction ("Run part 1:") is an action too.
    let opens_with_action = |i: usize| {
        let h = &outline.headings[i];
        outline.lines[h.line + 1..h.end]
            .iter()
            .find(|l| !l.trim().is_empty())
            .is_some_and(|l| {
                let l = l.trim();
                imperative(l) && l.ends_with(':') && l.starts_with(char::is_alphabetic)
            })
    };
    let numbered = group
        .iter()
        .filter(|&&i| step_number(text(i)).is_some())
        .count();
    let acts = |i: usize| {
        !outline.headings[i].project
            && if numbered >= 2 {
                step_number(text(i)).is_some()
            } else {
                !matches_words(text(i), FRAMING) && (is_action(text(i)) || opens_with_action(i))
            }
    };
    let actions = group.iter().filter(|&&i| acts(i)).count();
    let framing = group
        .iter()
        .filter(|&&i| matches_words(text(i), FRAMING))
        .count();
    let candidates = group.len() - framing;
    // Subsections walk the page only when several say what to do ("Usage Summary": install,
    // create a store, provide it…), not one among alternatives.
    let least = if nested { 3 } else { 1 };
    let sequence = numbered >= 2 || (named && actions >= least && actions * 2 >= candidates);
    if !sequence {
        return None;
    }
    let first = group.iter().position(|&i| acts(i))?;
    let last = group.iter().rposition(|&i| acts(i))?;
    let mut steps: Vec<DerivedStep> = Vec::new();
    let mut end = outline.headings[group[first]].line;
    for &i in &group[first..=last] {
        let h = &outline.headings[i];
        let body = outline.text(h.line + 1..h.end);
        // A section that is no action continues the step before it, under its heading.
        if !acts(i)
            && let Some(step) = steps.last_mut()
        {
            step.body = format!("{}\n\n{}", step.body, outline.text(h.line..h.end));
        } else if steps.len() >= MAX_STEPS {
            break;
        } else {
            steps.push(DerivedStep {
                title: super::clean_title(step_number(&h.text).unwrap_or(&h.text)),
                body,
                line: h.line,
            });
        }
        end = h.end.min(outline.lines.len());
    }
    if steps.iter().any(|s| s.body.trim().is_empty()) {
        return None;
    }
    let start = outline.headings[group[first]].line;
    Some(Sequence {
        lead: outline.text(0..start),
        steps,
        used: start..end,
        rest: outline.text(end..outline.lines.len()),
    })
}

/// Verbs of a tutorial's sections besides those of an instruction (`imperative`): "List your
/// books", "Test your server".
const SECTION_VERBS: &[&str] = &[
    "list",
    "test",
    "validate",
    "serialize",
    "serialise",
    "extend",
    "try",
    "handle",
    "customize",
    "customise",
    "declare",
    "render",
    "query",
    "fetch",
    "display",
    "show",
    "store",
    "style",
    "package",
    "debug",
    "organize",
    "organise",
    "split",
    "persist",
    "serve",
    "preview",
    "view",
    "watch",
    "format",
    "lint",
    "inspect",
    "monitor",
    "scale",
    "secure",
    "protect",
];

/// Whether a section's title says what to do: an instruction ("Install", "Create a store",
/// "List your books", not "List of options"), its gerund ("Creating the project"), "Your
/// first server", "Step 2".
fn is_action(title: &str) -> bool {
    let lower = title.trim().to_lowercase();
    let mut words = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty());
    let first = words.next().unwrap_or("");
    let second = words.next().unwrap_or("");
    let verb = |word: &str| {
        imperative(word) || (SECTION_VERBS.contains(&word) && !matches!(second, "of" | "and"))
    };
    let gerund = first
        .strip_suffix("ing")
        .filter(|stem| stem.len() >= 2)
        .is_some_and(|stem| {
            let shorter = &stem[..stem.len() - 1];
            // creat-ing, call-ing, runn-ing
            [stem.to_string(), format!("{stem}e"), shorter.to_string()]
                .iter()
                .any(|v| verb(v))
        });
    verb(first) || gerund || lower.starts_with("your first") || lower.starts_with("step ")
}

/// What follows a sequence page's steps, one `Prose` per section of its highest level
/// (titled by the section), text before the first section under the page's own title.
fn sections_of(markdown: &str, doc: &Prose) -> Vec<Prose> {
    let outline = Outline::new(markdown);
    let Some(top) = outline.headings.iter().map(|h| h.level).min() else {
        return (!markdown.trim().is_empty())
            .then(|| Prose {
                markdown: markdown.trim().to_string(),
                ..doc.clone()
            })
            .into_iter()
            .collect();
    };
    let tops: Vec<&super::outline::Heading> =
        outline.headings.iter().filter(|h| h.level == top).collect();
    let mut out = Vec::new();
    let before = outline.text(0..tops.first().map_or(0, |h| h.line));
    if !before.is_empty() {
        out.push(Prose {
            markdown: before,
            ..doc.clone()
        });
    }
    for (n, heading) in tops.iter().enumerate() {
        let end = tops.get(n + 1).map_or(outline.lines.len(), |h| h.line);
        out.push(Prose {
            title: super::clean_title(&heading.text),
            markdown: outline.text(heading.line + 1..end),
            ..doc.clone()
        });
    }
    out
}

/// The longest beginning of `markdown` within `budget` bytes that ends before a heading,
/// keeping at least half the budget.
fn cut_at_section(markdown: &str, budget: usize) -> Option<String> {
    let outline = Outline::new(markdown);
    let mut offset = 0;
    let mut best = None;
    let mut line_offsets = Vec::with_capacity(outline.lines.len());
    for line in &outline.lines {
        line_offsets.push(offset);
        offset += line.len() + 1;
    }
    for heading in &outline.headings {
        let at = line_offsets.get(heading.line).copied().unwrap_or(offset);
        if at > budget {
            break;
        }
        if at >= budget / 2 {
            best = Some(heading.line);
        }
    }
    best.map(|line| outline.text(0..line))
}

/// The listing of the tree's pages not shown: each by its navigation title, grouped by folder
/// when they are many.
fn listing(pages: &[&Page]) -> Option<Prose> {
    if pages.is_empty() {
        return None;
    }
    let item = |page: &Page| {
        format!(
            "[{}]({})",
            link_text(&page.doc.path, &page.doc.title),
            link_target(&page.doc.path)
        )
    };
    let lines: Vec<String> = if pages.len() <= MAX_LISTED {
        pages.iter().map(|p| format!("- {}", item(p))).collect()
    } else {
        let folder = |p: &Page| {
            p.doc
                .path
                .rsplit_once('/')
                .map_or(String::new(), |(f, _)| f.to_string())
        };
        let mut groups: Vec<(String, Vec<&Page>)> = Vec::new();
        for page in pages {
            let name = folder(page);
            match groups.iter_mut().find(|(f, _)| *f == name) {
                Some((_, members)) => members.push(page),
                None => groups.push((name, vec![page])),
            }
        }
        groups
            .iter()
            .take(MAX_LISTED)
            .map(|(_, members)| {
                // A folder's own index page heads its group ("Content: Overview, Section").
                let (head, members) = match members.split_first() {
                    Some((first, rest)) if is_index(&first.doc.path) && !rest.is_empty() => {
                        (format!("{}: ", item(first)), rest)
                    }
                    _ => (String::new(), &members[..]),
                };
                let named: Vec<String> = members
                    .iter()
                    .take(LISTED_PER_GROUP)
                    .map(|p| item(p))
                    .collect();
                match members.len().saturating_sub(LISTED_PER_GROUP) {
                    0 => format!("- {head}{}", named.join(", ")),
                    more => format!("- {head}{} and {more} more", named.join(", ")),
                }
            })
            .collect()
    };
    Some(Prose {
        path: String::new(),
        title: "More documentation".into(),
        markdown: format!(
            "The rest of the documentation, in the site's order:\n\n{}",
            lines.join("\n")
        ),
        dropped: Vec::new(),
        labels: Vec::new(),
    })
}
