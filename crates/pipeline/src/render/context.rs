//! What a template can use: the source model as each surface shows it.

use serde::Serialize;

use super::blog;
use super::dev_docs;
use crate::source::code::{Symbol, SymbolKind};
use crate::source::docs::Prose;
use crate::source::history::{Changelog, Entry, ReleaseNotes};
use crate::source::manifest::Feature;

/// Everything a template can use.
#[derive(Debug, Serialize)]
pub(crate) struct Context<'a> {
    pub feature: &'a Feature,
    pub surface: &'static str,
    pub version: i64,
    pub title: String,
    pub description: String,
    pub commit: &'a str,
    pub short_commit: String,
    /// Date of the source commit, `YYYY-MM-DD` (UTC).
    pub date: String,
    pub since_commit: Option<&'a str>,
    pub since_short: Option<String>,
    pub range_label: String,
    pub files: Vec<&'a str>,
    pub symbol_count: usize,
    pub symbol_groups: &'a [SymbolGroup<'a>],
    /// The developer docs' layout: modules, their types with members beneath, functions.
    pub modules: Vec<dev_docs::ModuleView<'a>>,
    /// How the developer docs were shortened to fit the article's size limit; none when they
    /// are shown whole.
    pub shortened: Option<dev_docs::Shortened>,
    /// The developer docs' READMEs, shown before the reference as pkg.go.dev and TypeDoc
    /// show a package's README; empty on the other surfaces.
    pub intro: &'a [Prose],
    /// Whether the description or the opening of the first document shown already says the
    /// package's one-line summary, which the help center then does not print above it.
    pub summary_said: bool,
    pub prose: &'a [Prose],
    /// The listed changelog entries (left-out commits are not here), newest first.
    pub commits: &'a [Entry],
    /// The whole range as one changelog.
    pub changelog: &'a Changelog,
    /// One section per release, newest first ("Unreleased" first when commits follow the
    /// newest release tag).
    pub releases: &'a [ReleaseNotes],
    /// Where the releases older than those shown are, when a first run's window left some
    /// out.
    pub older: Option<Older>,
    /// The blog post's parts; none when the newest release lists nothing.
    pub post: Option<&'a blog::Post<'a>>,
    pub highlights: Vec<&'a Entry>,
    pub contributors: Vec<&'a str>,
    pub steps: Vec<StepView<'a>>,
    pub capture_grounded: bool,
    /// The document a walkthrough was derived from, when the manifest gives no steps.
    pub steps_source: Option<&'a str>,
}

/// The releases a changelog's window left out: how many, the oldest, and where a reader
/// finds them (the project's changelog file at the run's commit, else the forge's releases
/// page; none without a forge).
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Older {
    pub count: usize,
    pub oldest: String,
    pub url: Option<String>,
    /// Where they are: the changelog file's name or "the releases page"; none without a
    /// changelog file or a forge (the changelog then says they are not shown).
    pub label: Option<String>,
}

#[derive(Debug, Serialize)]
pub(crate) struct SymbolGroup<'a> {
    pub kind: SymbolKind,
    pub title: &'static str,
    pub symbols: Vec<&'a Symbol>,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct StepView<'a> {
    pub number: usize,
    pub title: &'a str,
    /// Markdown.
    pub body: &'a str,
    /// The repository file the body comes from, against which its relative links resolve:
    /// the document a walkthrough was derived from, or `""` (the repository root) for the
    /// manifest's steps.
    pub source: &'a str,
    /// The capture's repository path, as declared.
    pub capture: Option<String>,
    /// URL of the image when the capture exists (`convert::Links::file`).
    pub image: Option<String>,
}

pub(crate) fn group_symbols(symbols: &[Symbol]) -> Vec<SymbolGroup<'_>> {
    let mut kinds: Vec<SymbolKind> = symbols.iter().map(|s| s.kind).collect();
    kinds.sort();
    kinds.dedup();
    kinds
        .into_iter()
        .map(|kind| {
            let mut members: Vec<&Symbol> = symbols.iter().filter(|s| s.kind == kind).collect();
            members.sort_by(|a, b| a.name.cmp(&b.name).then(a.path.cmp(&b.path)));
            SymbolGroup {
                kind,
                title: kind.heading(),
                symbols: members,
            }
        })
        .collect()
}
