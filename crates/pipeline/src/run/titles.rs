//! An article's title and description, surface by surface: as the docs name and introduce
//! the feature, as its API, history or release is counted, unless the manifest declares them.

use domain::Surface;

use super::extract::Extracted;
use crate::render::{StepView, blog};
use crate::source::code::first_sentence;
use crate::source::docs;
use crate::source::docs::walkthrough::text::plain_text;
use crate::source::history::Entry;
use crate::source::manifest::Feature;

/// The title and description of `surface`'s article.
pub(super) fn title_and_description(
    surface: Surface,
    feature: &Feature,
    extracted: &Extracted,
    entries: &[Entry],
    post: Option<&blog::Post>,
    steps: &[StepView],
) -> (String, String) {
    let summary = first_sentence(std::slice::from_ref(&feature.summary));
    let or = |fallback: String| {
        if summary.is_empty() {
            fallback
        } else {
            summary.clone()
        }
    };
    let title = &feature.title;
    match surface {
        // As the docs name and introduce it: the site's name or the README's title, and the
        // docs' first sentence, else the package's own description, else what the steps do.
        // A feature the manifest declares keeps its author's title and summary.
        Surface::HelpCenter => {
            let (prose, site) = (&extracted.prose, extracted.site.as_ref());
            let title = Some(title.clone())
                .filter(|_| feature.declared)
                .or_else(|| docs::docs_title(prose, site))
                .unwrap_or_else(|| title.clone());
            let description = Some(summary.clone())
                .filter(|s| feature.declared && !s.is_empty())
                .or_else(|| docs::docs_intro(prose, site, &title))
                .unwrap_or_else(|| or(steps_description(&title, steps)));
            (title, description)
        }
        Surface::DevDocs => (
            format!("{title} reference"),
            format!(
                "Public API of {title}: {} in {}.",
                plural(extracted.symbols.len(), "symbol"),
                plural(extracted.code.len() + extracted.prose_files.len(), "file"),
            ),
        ),
        Surface::Changelog => (
            format!("{title} changelog"),
            format!(
                "What changed in {title}: {}.",
                plural(entries.len(), "change")
            ),
        ),
        Surface::Blog => match post {
            // What the release means for users, not the package's summary once more; a first
            // release is introduced by that summary.
            Some(post) if post.introducing => (post.title.clone(), or(post.lede.clone())),
            // The lede in plain words (it may quote the project's Markdown).
            Some(post) => (post.title.clone(), plain_text(&post.lede)),
            // A repository's own template writes a post with nothing to announce.
            None => (
                format!("What's new in {title}"),
                or(format!("News of {title}.")),
            ),
        },
    }
}

/// "Getting started with X: install with pip, then import httpx." from the steps' titles.
fn steps_description(title: &str, steps: &[StepView]) -> String {
    let names: Vec<String> = steps
        .iter()
        .take(3)
        .map(|s| {
            let mut chars = s.title.chars();
            chars.next().map_or(String::new(), |c| {
                c.to_lowercase().chain(chars).collect::<String>()
            })
        })
        .filter(|t| !t.is_empty())
        .collect();
    if names.is_empty() {
        format!("Getting started with {title}.")
    } else {
        format!("Getting started with {title}: {}.", names.join(", then "))
    }
}

pub(super) fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}
