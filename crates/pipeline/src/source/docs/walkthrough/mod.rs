//! A help-center walkthrough derived from what the repository says, for a feature whose
//! manifest gives no steps. The feature's Markdown is read, READMEs first (shallowest first),
//! then the other documents by path; the first document that describes a procedure gives the
//! steps, by the first of these rules that finds one (on a docs site whose getting-started
//! pages come first, the walkthrough goes on through the next ones, up to [`MAX_PAGES`]):
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

mod derive;
mod outline;
mod site_path;
#[cfg(test)]
mod tests;
pub(crate) mod text;

pub(crate) use derive::{derive, without};
pub(crate) use site_path::along_site;
pub(crate) use text::{clean_title, plain_text};

pub(crate) const MAX_STEPS: usize = 12;
/// Getting-started pages of a docs site one walkthrough follows (install, quick start, first
/// task).
const MAX_PAGES: usize = 3;
const MAX_TITLE_CHARS: usize = 80;
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DerivedStep {
    pub title: String,
    /// Markdown, as written in the document.
    pub body: String,
    /// The document's line the step starts at.
    pub line: usize,
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
    /// The docs site's next getting-started pages the walkthrough continues on (quick start
    /// after installation), in the site's order.
    pub continued: Vec<Continued>,
}

/// A further document a walkthrough's steps come from.
#[derive(Clone, Debug)]
pub(crate) struct Continued {
    pub path: String,
    pub used: Vec<Range<usize>>,
    /// The index of its first step.
    pub first_step: usize,
}

impl Walkthrough {
    /// Every document the steps come from, in order.
    pub(crate) fn paths(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.path.as_str()).chain(self.continued.iter().map(|c| c.path.as_str()))
    }

    /// The lines of the document at `path` the steps were taken from.
    pub(crate) fn used_in(&self, path: &str) -> Option<&[Range<usize>]> {
        if path == self.path {
            return Some(&self.used);
        }
        self.continued
            .iter()
            .find(|c| c.path == path)
            .map(|c| c.used.as_slice())
    }

    /// The document step `index` comes from.
    pub(crate) fn source_of(&self, index: usize) -> &str {
        self.continued
            .iter()
            .rev()
            .find(|c| c.first_step <= index)
            .map_or(self.path.as_str(), |c| c.path.as_str())
    }
}
