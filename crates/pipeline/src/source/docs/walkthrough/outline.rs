//! A document's outline (its headings, sections and fenced blocks) and the rules that read
//! steps from it.

use std::ops::Range;

use super::text::*;
use super::{DerivedStep, MAX_STEPS};
use crate::source::docs::markdown::{atx_heading, closes_fence, opens_fence};
use crate::source::docs::vocabulary::*;

#[derive(Default)]
pub(crate) struct Found {
    pub(crate) steps: Vec<DerivedStep>,
    pub(crate) used: Vec<Range<usize>>,
}

impl Found {
    /// Only the first `n` steps; the lines from the first step left out on are no longer
    /// used, so the rest of the document stays in the article's prose rather than vanishing.
    pub(crate) fn keep_first(&mut self, n: usize) {
        let Some(cutoff) = self.steps.iter().skip(n).map(|s| s.line).min() else {
            return;
        };
        self.steps.truncate(n);
        self.used.retain(|r| r.start < cutoff);
        for range in &mut self.used {
            range.end = range.end.min(cutoff);
        }
    }
}

pub(crate) struct Heading {
    pub(crate) line: usize,
    pub(crate) level: usize,
    pub(crate) text: String,
    /// Index past the section's last line.
    pub(crate) end: usize,
    /// Inside (or itself) a section about working on the project.
    pub(crate) project: bool,
    /// Inside an API reference (`## API`, `## Options`): its examples illustrate one call
    /// each, they are no steps.
    pub(crate) reference: bool,
}

pub(crate) struct Outline<'a> {
    pub(crate) lines: Vec<&'a str>,
    /// Whether each line belongs to a fenced block (its fences included).
    pub(crate) fenced: Vec<bool>,
    pub(crate) headings: Vec<Heading>,
}

impl<'a> Outline<'a> {
    pub(crate) fn new(markdown: &'a str) -> Self {
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

    pub(crate) fn headed_steps(&self) -> Found {
        let mut index = 0;
        while index < self.headings.len() {
            let first = &self.headings[index];
            if first.project || step_number(&first.text).is_none() {
                index += 1;
                continue;
            }
            // Siblings: the next numbered headings of the same level before one of a higher
            // rank. A heading between two of them that is not numbered ("Details" between
            // "Step 3" and "Step 4") belongs to the step before it.
            let mut run = vec![index];
            let mut last_end = first.end;
            for (next, heading) in self.headings.iter().enumerate().skip(index + 1) {
                if heading.level < first.level {
                    break;
                }
                if heading.level == first.level {
                    if step_number(&heading.text).is_some() {
                        run.push(next);
                        last_end = heading.end;
                    } else {
                        let resumes = self.headings[next + 1..]
                            .iter()
                            .take_while(|h| h.level >= first.level)
                            .any(|h| h.level == first.level && step_number(&h.text).is_some());
                        if !resumes {
                            break;
                        }
                    }
                }
            }
            if run.len() >= 2 {
                let mut found = Found::default();
                // What the steps need that comes before the first one (the library a
                // benchmark imports): the text of the enclosing section ahead of the steps,
                // when it shows code, is the first step, named by that section.
                let parent = self.headings[..index]
                    .iter()
                    .rev()
                    .find(|h| h.level < first.level && h.end > first.line);
                let ahead = parent.map_or(0, |p| p.line + 1)..first.line;
                if (ahead.clone()).any(|i| self.fenced[i])
                    && !ahead
                        .clone()
                        .any(|i| atx_heading(self.lines[i]).is_some() && !self.fenced[i])
                {
                    let title = parent
                        .map_or_else(|| "Before you start".to_string(), |p| clean_title(&p.text));
                    found.steps.push(DerivedStep {
                        title,
                        body: self.text(ahead.clone()),
                        line: ahead.start,
                    });
                    found.used.push(ahead);
                }
                for (n, &i) in run.iter().enumerate() {
                    let h = &self.headings[i];
                    let end = run
                        .get(n + 1)
                        .map_or(last_end, |&next| self.headings[next].line);
                    let title = step_number(&h.text).unwrap_or(&h.text);
                    found.steps.push(DerivedStep {
                        title: clean_title(title),
                        body: without_section_numbers(&self.text(h.line + 1..end)),
                        line: h.line,
                    });
                    found.used.push(h.line..end);
                }
                return found;
            }
            index += 1;
        }
        Found::default()
    }

    pub(crate) fn usage_sections(&self) -> Found {
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
    pub(crate) fn section_steps(&self, range: Range<usize>, title: &str) -> Found {
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
        // A page under one title (`# Tutorial`) is read by its sections, its title's own
        // text first.
        if let [only] = children.as_slice()
            && only.end >= range.end
            && self.text(intro.clone()).is_empty()
            && self
                .headings
                .iter()
                .any(|h| h.line > only.line && h.line < only.end)
        {
            let mut found = self.section_steps(only.line + 1..only.end, &only.text);
            found.used.push(only.line..only.line + 1);
            return found;
        }
        let (steps, used) = self.list_steps(intro.clone());
        // A list is steps when it is written as a procedure: under a heading about usage or
        // steps, or most of its items naming what to do. The parts of a concept ("A list of
        // processors", "And finally a logger") stay its text.
        let imperatives = steps.iter().filter(|s| imperative(&s.title)).count();
        let procedure = matches_words(title, USAGE_HEADINGS)
            || matches_words(title, PROCEDURE_HEADINGS)
            || imperatives * 2 > steps.len();
        let mut found = if steps.len() >= 2 && procedure {
            Found {
                steps,
                used: vec![used],
            }
        } else {
            let (steps, used) = self.fenced_steps(intro.clone(), title, false);
            // Blocks that no sentence names apart would make steps of one title, their
            // prose torn from them: the text is then one step, whole.
            let titles: std::collections::HashSet<String> =
                steps.iter().map(|s| s.title.to_lowercase()).collect();
            let torn = intro
                .clone()
                .any(|i| !self.lines[i].trim().is_empty() && !used.iter().any(|r| r.contains(&i)));
            if torn && titles.len() < steps.len() {
                Found::default()
            } else {
                Found { steps, used }
            }
        };
        if found.steps.is_empty() {
            let body = self.text(intro.clone());
            if !body.is_empty() {
                found.steps.push(DerivedStep {
                    title: clean_title(title),
                    body,
                    line: intro.start,
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
                    line: child.line,
                });
                found.used.push(child.line..child.end);
            }
        }
        found
    }

    /// The first ordered list that reads as a procedure: under a heading about usage or
    /// steps, or most of its items (the first among them) starting with an imperative verb.
    pub(crate) fn ordered_list(&self) -> Found {
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

    pub(crate) fn shell_commands(&self) -> Found {
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
        // The notes of a code block's annotations are no steps.
        let mut above = start;
        while above > range.start && self.lines[above - 1].trim().is_empty() {
            above -= 1;
        }
        let annotation = above > 0
            && self.fenced[above - 1]
            && annotates(&self.lines[open_of(&self.fenced, above - 1)..above].join("\n"));
        // A sentence that cannot name a step leaves the name to the section's heading.
        let heading = self.nearest_heading(start).map(clean_title);
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
                    let (mut title, mut kept) = title_and_lead(&lead.join(" "), rest.is_empty());
                    if let Some(heading) = heading.as_ref().filter(|_| is_not_a_title(&title)) {
                        title = heading.clone();
                        kept = lead.join(" ").trim().to_string();
                    }
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
                    line: i,
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
        if annotation {
            steps.clear();
        }
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
                let (mut title, mut body) = if intro.is_empty() {
                    (clean_title(fallback), String::new())
                } else {
                    title_and_lead(&intro.join(" "), false)
                };
                // A sentence that is no step's name ("It can be installed by running"): over
                // the section's only example the section's heading names it ("A simple
                // example"), else what the block does ("Install with pip"), else the heading;
                // the sentence stays whole in its text.
                if !intro.is_empty() && (is_fragment(&title) || is_not_a_title(&title)) {
                    let only = steps.is_empty() && !(end..range.end).any(|l| self.fenced[l]);
                    let code = self.lines[open..end].join("\n");
                    title = command_title(&code, &language)
                        .filter(|_| !only)
                        .unwrap_or_else(|| clean_title(fallback));
                    body = intro.join("\n");
                }
                if !body.is_empty() {
                    body.push_str("\n\n");
                }
                body.push_str(&self.text(open..end));
                steps.push(DerivedStep {
                    title,
                    body,
                    line: para,
                });
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

    pub(crate) fn text(&self, range: Range<usize>) -> String {
        self.lines[range].join("\n").trim().to_string()
    }
}

/// The first line of the fenced block that holds line `last`.
fn open_of(fenced: &[bool], last: usize) -> usize {
    let mut open = last;
    while open > 0 && fenced[open - 1] {
        open -= 1;
    }
    open
}
