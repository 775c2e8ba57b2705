//! The Unreleased section from the project's pending changesets or news fragments
//! (`source::history::pending`): what its changelog tool will write for the next release,
//! in place of the commits, which describe the same changes in fewer words.

use super::handwritten::rst_to_markdown_text;
use crate::source::history::{Fragment, Markup, Pending, ReleaseNotes};

/// Gives the Unreleased section the fragments' Markdown; when no commit made one, a new
/// Unreleased section is added only when `add` (a first run: a later run with nothing new
/// writes nothing).
pub(crate) fn apply(releases: &mut Vec<ReleaseNotes>, pending: Pending, add: bool) -> bool {
    let markdown = markdown(&pending.fragments);
    if markdown.is_empty() {
        return false;
    }
    let unreleased = releases.iter_mut().find(|r| r.version.is_none());
    let release = match unreleased {
        Some(release) => release,
        None if add => {
            releases.insert(0, ReleaseNotes::unreleased());
            &mut releases[0]
        }
        None => return false,
    };
    release.handwritten = Some(markdown);
    release.source = Some(pending.path);
    true
}

/// One `##` heading per group, in the fragments' order, each a list of their summaries.
fn markdown(fragments: &[Fragment]) -> String {
    let mut out = String::new();
    let mut group: Option<&str> = None;
    for fragment in fragments {
        if group != Some(fragment.group.as_str()) {
            group = Some(&fragment.group);
            out.push_str(&format!("\n## {}\n\n", fragment.group));
        }
        out.push_str(&item(fragment));
    }
    out.trim().to_string()
}

/// `- **scope:** summary`, its later lines indented into the list item.
fn item(fragment: &Fragment) -> String {
    let text = match fragment.markup {
        Markup::Markdown => fragment.text.clone(),
        Markup::ReStructuredText => rst_to_markdown_text(&fragment.text),
    };
    let scope = fragment
        .scope
        .as_deref()
        .map(|s| format!("**{s}:** "))
        .unwrap_or_default();
    let mut out = format!("- {scope}");
    for (i, line) in text.lines().enumerate() {
        if i > 0 && !line.trim().is_empty() {
            out.push_str("  ");
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fragment(group: &str, text: &str, markup: Markup) -> Fragment {
        Fragment {
            group: group.into(),
            scope: None,
            text: text.into(),
            markup,
        }
    }

    #[test]
    fn one_heading_per_group_and_summaries_kept_whole() {
        let md = markdown(&[
            fragment(
                "Features",
                "Add ``Gadget``.\n\nIt gadgets.",
                Markup::ReStructuredText,
            ),
            fragment("Features", "Add streams.", Markup::Markdown),
            fragment("Bugfixes", "Fix a crash.", Markup::Markdown),
        ]);
        assert_eq!(
            md,
            "## Features\n\n- Add `Gadget`.\n\n  It gadgets.\n- Add streams.\n\n## Bugfixes\n\n- Fix a crash."
        );
    }
}
