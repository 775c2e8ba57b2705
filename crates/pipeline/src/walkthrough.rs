//! A help-center walkthrough derived from what the repository says, for a feature whose
//! manifest gives no steps. The feature's Markdown is read, READMEs first (shallowest first),
//! then the other documents by path; the first document that describes a procedure gives the
//! steps, by the first of these rules that finds one:
//!
//! 1. headed steps: two or more sibling headings numbered as steps (`## Step 1: Install`,
//!    `### 2. Configure`);
//! 2. usage sections: every section titled like a procedure ("Installation", "Usage",
//!    "Getting started", "Quick start", "Setup", "Tutorial", "Examples"…), in order; within
//!    one, its subsections, else its ordered list, else each fenced block with the text before
//!    it, else its text, are the steps;
//! 3. an ordered list of two or more items;
//! 4. shell commands in fenced blocks (`sh`, `bash`, `console`…), each with the paragraph
//!    before it.
//!
//! Sections about working on the project rather than using it (contributing, development,
//! testing, license, changelog) are never read as a procedure. When no rule finds a step, the
//! feature gets no help-center article. Every pass is linear in the document; at most
//! [`MAX_STEPS`] steps are kept.

use std::ops::Range;

use crate::extract::{Prose, atx_heading};
use crate::mdx::{closes_fence, opens_fence};

pub(crate) const MAX_STEPS: usize = 12;
const MAX_TITLE_CHARS: usize = 80;

/// Heading words (lower case, whole words) of a section that tells how to use something.
pub(crate) const USAGE_HEADINGS: &[&str] = &[
    "usage",
    "getting started",
    "get started",
    "quick start",
    "quickstart",
    "quick-start",
    "installation",
    "install",
    "installing",
    "how to use",
    "setup",
    "set up",
    "tutorial",
    "walkthrough",
    "first steps",
    "example",
    "examples",
];

/// Heading words of a README's API reference, whose examples show one call each.
const REFERENCE_HEADINGS: &[&str] = &[
    "api",
    "api reference",
    "reference",
    "methods",
    "functions",
    "options",
    "parameters",
    "arguments",
    "props",
];

/// Heading words of sections about working on the project itself.
const PROJECT_HEADINGS: &[&str] = &[
    "contributing",
    "contribute",
    "contributors",
    "development",
    "developing",
    "hacking",
    "testing",
    "tests",
    "running tests",
    "license",
    "licence",
    "changelog",
    "release",
    "releasing",
    "building from source",
    "build from source",
    "benchmarks",
    "acknowledgements",
    "acknowledgments",
    "sponsors",
    "code of conduct",
    "security",
];

/// Heading words over an ordered list that make it a procedure.
const PROCEDURE_HEADINGS: &[&str] = &["how to", "steps", "procedure", "instructions"];

/// Verbs that start an instruction (lower case).
const IMPERATIVE_VERBS: &[&str] = &[
    "access",
    "activate",
    "add",
    "allow",
    "append",
    "apply",
    "attach",
    "build",
    "call",
    "change",
    "check",
    "choose",
    "clear",
    "click",
    "clone",
    "close",
    "compile",
    "configure",
    "confirm",
    "connect",
    "copy",
    "create",
    "define",
    "delete",
    "deploy",
    "disable",
    "download",
    "drag",
    "drop",
    "edit",
    "enable",
    "enter",
    "execute",
    "export",
    "extract",
    "fill",
    "find",
    "follow",
    "fork",
    "generate",
    "get",
    "give",
    "go",
    "grant",
    "import",
    "include",
    "initialize",
    "initialise",
    "insert",
    "install",
    "invoke",
    "launch",
    "link",
    "load",
    "log",
    "login",
    "make",
    "mount",
    "move",
    "navigate",
    "open",
    "paste",
    "pick",
    "place",
    "press",
    "provide",
    "publish",
    "pull",
    "push",
    "put",
    "read",
    "register",
    "reload",
    "remove",
    "rename",
    "replace",
    "require",
    "restart",
    "return",
    "review",
    "run",
    "save",
    "scroll",
    "search",
    "select",
    "send",
    "set",
    "setup",
    "share",
    "sign",
    "specify",
    "start",
    "stop",
    "submit",
    "switch",
    "tap",
    "type",
    "uncomment",
    "unzip",
    "update",
    "upgrade",
    "upload",
    "use",
    "verify",
    "visit",
    "wait",
    "wrap",
    "write",
];

/// Whether a step title starts with an instruction (`Open Reports`, `Then run it`).
fn imperative(title: &str) -> bool {
    let mut words = title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase);
    let mut first = words.next().unwrap_or_default();
    if matches!(
        first.as_str(),
        "first" | "then" | "next" | "finally" | "now" | "and"
    ) {
        first = words.next().unwrap_or_default();
    }
    IMPERATIVE_VERBS.contains(&first.as_str())
}

const SHELL_LANGUAGES: &[&str] = &[
    "sh",
    "bash",
    "shell",
    "console",
    "zsh",
    "fish",
    "powershell",
    "pwsh",
    "ps",
    "cmd",
    "bat",
    "terminal",
    "shell-session",
    "shellsession",
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DerivedStep {
    pub title: String,
    /// Markdown, as written in the document.
    pub body: String,
}

#[derive(Clone, Debug)]
pub(crate) struct Walkthrough {
    /// The document the steps come from.
    pub path: String,
    pub steps: Vec<DerivedStep>,
    /// The lines of the document's Markdown the steps were taken from.
    pub used: Vec<Range<usize>>,
    /// The rule that found the steps, for the run log.
    pub rule: &'static str,
}

/// The walkthrough the documents describe, if any.
pub(crate) fn derive(docs: &[Prose]) -> Option<Walkthrough> {
    // READMEs, then documents named like a procedure (quickstart.md, getting-started.md),
    // then the others, then translations of another document; never documents about the
    // project itself (CONTRIBUTING.md).
    let translated = crate::prose::translations(docs.iter().map(|d| d.path.as_str()));
    let mut order: Vec<(u8, &Prose)> = docs
        .iter()
        .filter_map(|doc| {
            let stem = stem(&doc.path);
            if matches_words(&stem, PROJECT_HEADINGS)
                || matches_words(&stem, crate::prose::PROJECT_FILES)
            {
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

#[derive(Default)]
struct Found {
    steps: Vec<DerivedStep>,
    used: Vec<Range<usize>>,
}

struct Heading {
    line: usize,
    level: usize,
    text: String,
    /// Index past the section's last line.
    end: usize,
    /// Inside (or itself) a section about working on the project.
    project: bool,
    /// Inside an API reference (`## API`, `## Options`): its examples illustrate one call
    /// each, they are no steps.
    reference: bool,
}

struct Outline<'a> {
    lines: Vec<&'a str>,
    /// Whether each line belongs to a fenced block (its fences included).
    fenced: Vec<bool>,
    headings: Vec<Heading>,
}

impl<'a> Outline<'a> {
    fn new(markdown: &'a str) -> Self {
        let lines: Vec<&str> = markdown.lines().collect();
        let mut fenced = vec![false; lines.len()];
        let mut headings: Vec<Heading> = Vec::new();
        let mut fence: Option<(char, usize)> = None;
        for (i, line) in lines.iter().enumerate() {
            if let Some((ch, len)) = fence {
                fenced[i] = true;
                if closes_fence(line, ch, len) {
                    fence = None;
                }
                continue;
            }
            if let Some((ch, len, _)) = opens_fence(line) {
                fenced[i] = true;
                fence = Some((ch, len));
                continue;
            }
            if let Some((level, text)) = atx_heading(line) {
                headings.push(Heading {
                    line: i,
                    level,
                    text: text.to_string(),
                    end: lines.len(),
                    project: false,
                    reference: false,
                });
            }
        }
        // Section ends and the project flag, with a stack of the enclosing headings.
        let mut stack: Vec<usize> = Vec::new();
        for index in 0..headings.len() {
            let level = headings[index].level;
            while let Some(&open) = stack.last() {
                if headings[open].level < level {
                    break;
                }
                headings[open].end = headings[index].line;
                stack.pop();
            }
            let inherited = stack.last().is_some_and(|&open| headings[open].project);
            headings[index].project =
                inherited || matches_words(&headings[index].text, PROJECT_HEADINGS);
            let in_reference = stack.last().is_some_and(|&open| headings[open].reference);
            headings[index].reference =
                in_reference || matches_words(&headings[index].text, REFERENCE_HEADINGS);
            stack.push(index);
        }
        Self {
            lines,
            fenced,
            headings,
        }
    }

    /// Whether line `i` is in a section about working on the project.
    fn in_project_section(&self, i: usize) -> bool {
        self.headings
            .iter()
            .rev()
            .find(|h| h.line <= i && i < h.end)
            .is_some_and(|h| h.project)
    }

    fn headed_steps(&self) -> Found {
        let mut index = 0;
        while index < self.headings.len() {
            let first = &self.headings[index];
            if first.project || step_number(&first.text).is_none() {
                index += 1;
                continue;
            }
            // Siblings: the next headings of the same level before one of a higher rank.
            let mut run = vec![index];
            for (next, heading) in self.headings.iter().enumerate().skip(index + 1) {
                if heading.level < first.level {
                    break;
                }
                if heading.level == first.level {
                    if step_number(&heading.text).is_none() {
                        break;
                    }
                    run.push(next);
                }
            }
            if run.len() >= 2 {
                let mut found = Found::default();
                for &i in &run {
                    let h = &self.headings[i];
                    let title = step_number(&h.text).unwrap_or(&h.text);
                    found.steps.push(DerivedStep {
                        title: clean_title(title),
                        body: self.text(h.line + 1..h.end),
                    });
                    found.used.push(h.line..h.end);
                }
                return found;
            }
            index += 1;
        }
        Found::default()
    }

    fn usage_sections(&self) -> Found {
        let mut found = Found::default();
        let mut covered = 0;
        for h in &self.headings {
            if h.line < covered
                || h.project
                || h.reference
                || !matches_words(&h.text, USAGE_HEADINGS)
            {
                continue;
            }
            covered = h.end;
            let section = self.section_steps(h.line + 1..h.end, &h.text);
            // What the steps do not hold stays in the prose, under the section's heading.
            let left = (h.line + 1..h.end).any(|i| {
                !section.used.iter().any(|r| r.contains(&i)) && !self.lines[i].trim().is_empty()
            });
            if !left {
                found.used.push(h.line..h.line + 1);
            }
            found.used.extend(section.used);
            found.steps.extend(section.steps);
        }
        found
    }

    /// The steps of one usage section: those of its text before any subsection (its ordered
    /// list, else its fenced blocks, else the text itself), then one per subsection.
    fn section_steps(&self, range: Range<usize>, title: &str) -> Found {
        let children: Vec<&Heading> = {
            let inside: Vec<&Heading> = self
                .headings
                .iter()
                .filter(|h| range.contains(&h.line))
                .collect();
            let top = inside.iter().map(|h| h.level).min();
            inside
                .into_iter()
                .filter(|h| Some(h.level) == top && !h.project)
                .collect()
        };
        let intro = range.start..children.first().map_or(range.end, |h| h.line);
        let (steps, used) = self.list_steps(intro.clone());
        let mut found = if steps.len() >= 2 {
            Found {
                steps,
                used: vec![used],
            }
        } else {
            let (steps, used) = self.fenced_steps(intro.clone(), title, false);
            Found { steps, used }
        };
        if found.steps.is_empty() {
            let body = self.text(intro.clone());
            if !body.is_empty() {
                found.steps.push(DerivedStep {
                    title: clean_title(title),
                    body,
                });
                found.used.push(intro);
            }
        }
        for child in children {
            let text = step_number(&child.text).unwrap_or(&child.text);
            let body = self.text(child.line + 1..child.end);
            if !body.is_empty() {
                found.steps.push(DerivedStep {
                    title: clean_title(text),
                    body,
                });
                found.used.push(child.line..child.end);
            }
        }
        found
    }

    /// The first ordered list that reads as a procedure: under a heading about usage or
    /// steps, or most of its items (the first among them) starting with an imperative verb.
    fn ordered_list(&self) -> Found {
        let mut i = 0;
        while i < self.lines.len() {
            if self.fenced[i] || self.in_project_section(i) || list_item(self.lines[i]).is_none() {
                i += 1;
                continue;
            }
            let (steps, used) = self.list_steps(i..self.lines.len());
            let under_usage = self.nearest_heading(i).is_some_and(|h| {
                matches_words(h, USAGE_HEADINGS) || matches_words(h, PROCEDURE_HEADINGS)
            });
            let imperatives = steps.iter().filter(|s| imperative(&s.title)).count();
            let procedure = under_usage
                || (steps.first().is_some_and(|s| imperative(&s.title))
                    && imperatives * 2 >= steps.len());
            if steps.len() >= 2 && procedure {
                return Found {
                    steps,
                    used: vec![used],
                };
            }
            i = used.end.max(i + 1);
        }
        Found::default()
    }

    fn shell_commands(&self) -> Found {
        let (steps, used) = self.fenced_steps(0..self.lines.len(), "", true);
        Found { steps, used }
    }

    /// The first ordered list in `range`, as steps, and its lines.
    fn list_steps(&self, range: Range<usize>) -> (Vec<DerivedStep>, Range<usize>) {
        let Some(start) = range
            .clone()
            .find(|&i| !self.fenced[i] && list_item(self.lines[i]).is_some())
        else {
            return (Vec::new(), range.start..range.start);
        };
        let mut steps: Vec<DerivedStep> = Vec::new();
        // The current item's first paragraph (its title and what follows it), then the rest.
        let mut lead: Vec<&str> = Vec::new();
        let mut in_lead = false;
        let mut body: Vec<String> = Vec::new();
        let mut width = 0;
        let mut i = start;
        let mut blank_before = false;
        let finish =
            |steps: &mut Vec<DerivedStep>, lead: &mut Vec<&str>, body: &mut Vec<String>| {
                if let Some(step) = steps.last_mut() {
                    let rest = body.join("\n").trim().to_string();
                    let (title, kept) = title_and_lead(&lead.join(" "), rest.is_empty());
                    step.title = title;
                    step.body = [kept, rest]
                        .into_iter()
                        .filter(|part| !part.is_empty())
                        .collect::<Vec<_>>()
                        .join("\n\n");
                }
                lead.clear();
                body.clear();
            };
        while i < range.end {
            let line = self.lines[i];
            if self.fenced[i] {
                // A fence right under an item belongs to it, indented or not.
                body.push(strip_indent(line, width).to_string());
                in_lead = false;
                blank_before = false;
                i += 1;
                continue;
            }
            if atx_heading(line).is_some() {
                break;
            }
            if let Some((marker, text)) = list_item(line) {
                finish(&mut steps, &mut lead, &mut body);
                width = marker;
                steps.push(DerivedStep {
                    title: String::new(),
                    body: String::new(),
                });
                lead.push(text);
                in_lead = true;
                blank_before = false;
                i += 1;
                continue;
            }
            let indent = line.len() - line.trim_start().len();
            if line.trim().is_empty() {
                body.push(String::new());
                in_lead = false;
                blank_before = true;
            } else if in_lead && (indent >= 2 || !blank_before) {
                lead.push(line.trim());
            } else if indent >= 2 || !blank_before {
                body.push(strip_indent(line, width).to_string());
                blank_before = false;
            } else {
                break;
            }
            i += 1;
        }
        finish(&mut steps, &mut lead, &mut body);
        (steps, start..i)
    }

    /// One step per fenced block in `range` (only shell blocks when `shell`), with the
    /// paragraph before it; the blocks' lines and paragraphs are the used ranges.
    fn fenced_steps(
        &self,
        range: Range<usize>,
        fallback: &str,
        shell: bool,
    ) -> (Vec<DerivedStep>, Vec<Range<usize>>) {
        let mut steps = Vec::new();
        let mut used = Vec::new();
        let mut i = range.start;
        let mut text_start = range.start;
        while i < range.end && steps.len() < MAX_STEPS {
            let line = self.lines[i];
            if atx_heading(line).is_some() {
                text_start = i + 1;
                i += 1;
                continue;
            }
            if !self.fenced[i] {
                i += 1;
                continue;
            }
            let open = i;
            let end = self.block_end(open, range.end);
            let language = opens_fence(line)
                .map(|(_, _, info)| {
                    info.trim()
                        .split([' ', '{', ','])
                        .next()
                        .unwrap_or("")
                        .to_ascii_lowercase()
                })
                .unwrap_or_default();
            let wanted = !shell
                || (SHELL_LANGUAGES.contains(&language.as_str()) && !self.in_project_section(open));
            if wanted {
                // The paragraph before the block, back to a blank line, heading or block.
                let mut para_end = open;
                while para_end > text_start && self.lines[para_end - 1].trim().is_empty() {
                    para_end -= 1;
                }
                let mut para = para_end;
                while para > text_start
                    && !self.lines[para - 1].trim().is_empty()
                    && !self.fenced[para - 1]
                {
                    para -= 1;
                }
                let intro: Vec<&str> = self.lines[para..para_end].to_vec();
                let fallback = if fallback.is_empty() {
                    self.nearest_heading(open).unwrap_or("Run")
                } else {
                    fallback
                };
                let (mut title, rest) = if intro.is_empty() {
                    (clean_title(fallback), String::new())
                } else {
                    title_and_lead(&intro.join(" "), false)
                };
                let mut body = rest;
                // A sentence too long to be a title, over the section's only example: the
                // section's heading names the step better ("A simple example"), and the
                // sentence stays whole in its text.
                if title.ends_with('…') && steps.is_empty() && !intro.is_empty() {
                    let rest_has_block = (end..range.end).any(|l| self.fenced[l]);
                    if !rest_has_block {
                        title = clean_title(fallback);
                        body = intro.join("\n");
                    }
                }
                if !body.is_empty() {
                    body.push_str("\n\n");
                }
                body.push_str(&self.text(open..end));
                steps.push(DerivedStep { title, body });
                used.push(para..end);
            }
            text_start = end;
            i = end;
        }
        (steps, used)
    }

    /// The line after the fenced block opened at `open`.
    fn block_end(&self, open: usize, limit: usize) -> usize {
        let mut end = open + 1;
        if let Some((ch, len, _)) = opens_fence(self.lines[open]) {
            while end < limit {
                end += 1;
                if closes_fence(self.lines[end - 1], ch, len) {
                    break;
                }
            }
        }
        end
    }

    fn nearest_heading(&self, i: usize) -> Option<&str> {
        self.headings
            .iter()
            .rev()
            .find(|h| h.line < i)
            .map(|h| h.text.as_str())
    }

    fn text(&self, range: Range<usize>) -> String {
        self.lines[range].join("\n").trim().to_string()
    }
}

/// An ordered list item at the top level: the width of its marker and its text.
fn list_item(line: &str) -> Option<(usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let after = &rest[digits..];
    let text = after.strip_prefix(['.', ')'])?;
    if !text.starts_with([' ', '\t']) {
        return None;
    }
    let spaces = text.len() - text.trim_start().len();
    Some((indent + digits + 1 + spaces, text.trim()))
}

/// `text` without anything that looks like an HTML tag (`<` then a letter or `/`, up to `>`).
fn strip_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let tag = after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/');
        match after.find('>').filter(|_| tag) {
            Some(close) => rest = &after[close + 1..],
            None => {
                out.push('<');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn strip_indent(line: &str, width: usize) -> &str {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    &line[spaces.min(width)..]
}

/// The text of a step heading without its number (`Step 2: Configure` → `Configure`), or
/// `None` when the heading is not numbered as a step.
fn step_number(text: &str) -> Option<&str> {
    let lower = text.to_ascii_lowercase();
    let rest = if lower.starts_with("step") {
        let after = text[4..].trim_start();
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        &after[digits..]
    } else {
        let digits = text.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 || digits > 3 || !text[digits..].starts_with(['.', ')']) {
            return None;
        }
        &text[digits + 1..]
    };
    let rest = rest
        .trim_start_matches([':', '.', ')', '-', '–', '—', ' '])
        .trim();
    Some(if rest.is_empty() { text } else { rest })
}

/// A file's name without folder and extension, lower case, `-`/`_` read as spaces.
pub(crate) fn stem(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    stem.to_lowercase().replace(['-', '_'], " ")
}

/// Whether `text`, as lower-case words, contains one of `phrases`.
pub(crate) fn matches_words(text: &str, phrases: &[&str]) -> bool {
    let words: String = text
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' {
                c
            } else {
                ' '
            }
        })
        .collect();
    let padded = format!(
        " {} ",
        words.split_whitespace().collect::<Vec<_>>().join(" ")
    );
    phrases
        .iter()
        .any(|phrase| padded.contains(&format!(" {phrase} ")))
}

/// A step title from the first line of a list item or paragraph: its first sentence or the
/// part before a colon, and the rest (which goes into the step's body).
/// A step's title from the first paragraph of its text, and the Markdown of that paragraph its
/// body keeps: the sentences after the title, or all of it when the title lost something
/// (inline code, links, emphasis, words past the length limit) or when `alone` (nothing else
/// would be in the body).
fn title_and_lead(lead: &str, alone: bool) -> (String, String) {
    let (title, first, rest) = split_title(lead);
    let plain = first
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches([':', '.'])
        .trim()
        .to_string();
    if alone || title != plain {
        (title, lead.trim().to_string())
    } else {
        (title, rest.to_string())
    }
}

/// A title (see [`clean_title`]), the text it was made of and the rest.
fn split_title(text: &str) -> (String, &str, &str) {
    let text = text.trim();
    let mut cut = None;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut in_code = false;
    for (n, (i, c)) in chars.iter().enumerate() {
        if *c == '`' {
            in_code = !in_code;
        }
        let next_is_space = chars.get(n + 1).is_none_or(|(_, c)| c.is_whitespace());
        if !in_code && matches!(c, '.' | ':' | '!' | '?') && next_is_space && *i >= 3 {
            cut = Some(*i);
            break;
        }
    }
    match cut {
        Some(i) => (clean_title(&text[..i]), &text[..i], text[i + 1..].trim()),
        None => (clean_title(text), text, ""),
    }
}

/// A title without Markdown syntax (emphasis, code ticks, link targets, HTML tags), at most
/// [`MAX_TITLE_CHARS`] long.
fn clean_title(text: &str) -> String {
    let text = strip_tags(text);
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find("](") {
            Some(close) if !after[..close].contains('[') => {
                out.push_str(&after[..close]);
                let target = &after[close + 2..];
                rest = target.find(')').map_or("", |end| &target[end + 1..]);
            }
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    let cleaned: String = out
        .chars()
        .filter(|c| !matches!(c, '*' | '`'))
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let cleaned = cleaned.trim_end_matches([':', '.']).trim();
    if cleaned.chars().count() <= MAX_TITLE_CHARS {
        return cleaned.to_string();
    }
    let mut short = String::new();
    for word in cleaned.split(' ') {
        if short.chars().count() + word.chars().count() + 1 > MAX_TITLE_CHARS - 1 {
            break;
        }
        if !short.is_empty() {
            short.push(' ');
        }
        short.push_str(word);
    }
    if short.is_empty() {
        short = cleaned.chars().take(MAX_TITLE_CHARS - 1).collect();
    }
    short.push('…');
    short
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prose::tests::doc;

    fn titles(w: &Walkthrough) -> Vec<&str> {
        w.steps.iter().map(|s| s.title.as_str()).collect()
    }

    const README: &str = "Widgets does things.\n\n## Installation\n\n```sh\npip install widgets\n```\n\n## Usage\n\n1. Create a config:\n\n```sh\nwidgets init\n```\n\n2. **Run** it.\n   It prints a report.\n3. Open [the report](out/report.html).\n\n## Contributing\n\n1. Fork.\n2. Send a PR.\n";

    #[test]
    fn usage_sections_with_an_ordered_list_and_commands() {
        let w = derive(&[
            doc("docs/other.md", "1. a\n2. b"),
            doc("pkg/README.md", README),
        ])
        .unwrap();
        assert_eq!(w.path, "pkg/README.md");
        assert_eq!(w.rule, "usage sections");
        assert_eq!(
            titles(&w),
            [
                "Installation",
                "Create a config",
                "Run it",
                "Open the report"
            ]
        );
        assert_eq!(w.steps[0].body, "```sh\npip install widgets\n```");
        assert_eq!(w.steps[1].body, "```sh\nwidgets init\n```");
        // The title lost the emphasis: the body keeps the sentence as written.
        assert_eq!(w.steps[2].body, "**Run** it. It prints a report.");
        assert_eq!(w.steps[3].body, "Open [the report](out/report.html).");
        let rest = without(README, &w.used);
        assert!(
            rest.starts_with("Widgets does things.\n\n## Contributing"),
            "{rest}"
        );
    }

    #[test]
    fn headed_steps_come_first() {
        let md = "## Overview\n\nx\n\n## Step 1: Install\n\nget it\n\n## Step 2 - Configure\n\nset it\n\n### Details\n\nmore\n\n## Usage\n\nuse it";
        let w = derive(&[doc("docs/guide.md", md)]).unwrap();
        assert_eq!(w.rule, "headed steps");
        assert_eq!(titles(&w), ["Install", "Configure"]);
        assert_eq!(w.steps[1].body, "set it\n\n### Details\n\nmore");
        let md = "### 1. Open\n\na\n\n### 2. Close\n\nb";
        assert_eq!(
            titles(&derive(&[doc("a.md", md)]).unwrap()),
            ["Open", "Close"]
        );
    }

    #[test]
    fn a_usage_section_split_by_subsections_or_code_blocks() {
        let md = "## Getting started\n\n### Install\n\n`npm i w`\n\n### Use it\n\nCall `w()`.\n";
        assert_eq!(
            titles(&derive(&[doc("README.md", md)]).unwrap()),
            ["Install", "Use it"]
        );
        let md = "## Quick start\n\nInstall the tool: it is small.\n\n```console\n$ cargo install w\n```\n\n```rust\nw::run();\n```\n";
        let w = derive(&[doc("README.md", md)]).unwrap();
        assert_eq!(titles(&w), ["Install the tool", "Quick start"]);
        assert_eq!(
            w.steps[0].body,
            "it is small.\n\n```console\n$ cargo install w\n```"
        );
    }

    #[test]
    fn ordered_lists_and_shell_commands_elsewhere() {
        let w = derive(&[doc(
            "docs/export.md",
            "Intro.\n\n1. Open Reports.\n2. Click Export.\n",
        )])
        .unwrap();
        assert_eq!(w.rule, "ordered list");
        assert_eq!(titles(&w), ["Open Reports", "Click Export"]);
        let w = derive(&[doc("docs/cli.md", "## Exporting\n\nExport everything\n```bash\nw export --all\n```\n\n## Development\n\n```sh\nmake test\n```\n")]).unwrap();
        assert_eq!(w.rule, "shell commands");
        assert_eq!(titles(&w), ["Export everything"]);
    }

    #[test]
    fn a_document_named_like_a_procedure_is_one() {
        let docs = [
            doc("docs/contributing.md", "## Setup\n\n```sh\nmake dev\n```\n"),
            doc("docs/api.md", "1. a\n2. b\n"),
            doc(
                "docs/quick-start.md",
                "Hello.\n\n## Make a request\n\n```python\nget()\n```\n\n## Read it\n\nx\n",
            ),
        ];
        let w = derive(&docs).unwrap();
        assert_eq!(
            (w.path.as_str(), w.rule),
            ("docs/quick-start.md", "usage document")
        );
        assert_eq!(titles(&w), ["T", "Make a request", "Read it"]);
    }

    #[test]
    fn nothing_about_usage_gives_no_walkthrough() {
        assert!(derive(&[]).is_none());
        assert!(derive(&[doc("README.md", "# W\n\nA library.\n\n- fast\n- small\n\n```rust\nlet x = 1;\n```\n\n## License\n\n1. MIT\n2. Apache\n")]).is_none());
        assert!(
            derive(&[doc(
                "CONTRIBUTING.md",
                "## Development\n\n1. Clone.\n2. `make`.\n"
            )])
            .is_none()
        );
    }

    #[test]
    fn titles_are_plain_and_short() {
        assert_eq!(
            clean_title("**Run** `x` [the docs](a.md):"),
            "Run x the docs"
        );
        assert_eq!(
            clean_title("Press <kbd>Ctrl</kbd> <a href=\"x\">now</a> if a < b"),
            "Press Ctrl now if a < b"
        );
        let long = "word ".repeat(40);
        let title = clean_title(&long);
        assert!(
            title.chars().count() <= MAX_TITLE_CHARS && title.ends_with('…'),
            "{title}"
        );
        assert_eq!(step_number("Step 3: Deploy"), Some("Deploy"));
        assert_eq!(step_number("Steps"), None);
        assert_eq!(step_number("2) Go"), Some("Go"));
        assert_eq!(step_number("2024 plans"), None);
    }

    #[test]
    fn one_example_under_a_heading_is_named_by_the_heading() {
        let readme = "# Signer\n\nSigns data.\n\n## A Simple Example\n\nHere's how you could generate a token for transmitting a user's id and name between web requests.\n\n```python\nfrom signer import sign\nsign(5)\n```\n\n## Donate\n\nPlease.\n";
        let w = derive(&[doc("README.md", readme)]).expect("a walkthrough");
        assert_eq!(titles(&w), ["A Simple Example"]);
        assert!(
            w.steps[0].body.starts_with("Here's how you could generate a token for transmitting a user's id and name between web requests.\n\n```python"),
            "{}",
            w.steps[0].body
        );
    }

    #[test]
    fn examples_of_an_api_reference_are_no_steps() {
        let readme = "# slugify\n\n## Install\n\n```sh\nnpm install slugify\n```\n\n## API\n\n### slugify(string, options?)\n\n#### Example\n\n```js\nslugify('a b')\n```\n\n### slugifyWithCounter()\n\n#### Use-case example of counter\n\nIf, for example, you have a document with multiple sections where each subsection has an example.\n\n```md\n## Section 1\n```\n";
        let w = derive(&[doc("README.md", readme)]).expect("a walkthrough");
        assert_eq!(titles(&w), ["Install"]);
    }

    #[test]
    fn steps_are_capped() {
        let md: String = (1..=50).map(|i| format!("{i}. Run job {i}\n")).collect();
        assert_eq!(derive(&[doc("a.md", &md)]).unwrap().steps.len(), MAX_STEPS);
    }
}
