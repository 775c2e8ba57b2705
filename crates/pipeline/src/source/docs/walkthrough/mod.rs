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
//!
//! A project with a docs site is read another way (`site_path`): its navigation's tree
//! decides the whole article, and the steps come only from a page that is a sequence.

use std::ops::Range;

mod derive;
mod outline;
mod site_path;
#[cfg(test)]
mod tests;
pub(crate) mod text;

pub(crate) use derive::{derive, without};
pub(crate) use site_path::along_site;
pub(crate) use text::{clean_title, plain_text, unescaped};

pub(crate) const MAX_STEPS: usize = 12;
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
}
