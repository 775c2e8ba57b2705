//! The blog post of a run: an announcement of the feature's newest release, as a release post
//! (the Rust release announcements) has it: what users gain, the highlights in plain words,
//! how to upgrade past breaking changes, where to read more, who made it.

use domain::Surface;
use serde::Serialize;

use super::changelog::{Entry, Release};
use crate::feature::Feature;

/// Highlights listed at most (the changelog has the rest).
const MAX_HIGHLIGHTS: usize = 12;

#[derive(Debug, Serialize)]
pub(crate) struct Post<'a> {
    pub title: String,
    /// The release announced: the newest tagged one, else the changes after the newest tag.
    pub release: Option<&'a Release>,
    /// This release is the first that contains the feature's files.
    pub introducing: bool,
    /// One paragraph of what users gain, in plain words.
    pub lede: String,
    /// New features and breaking changes, by scope.
    pub highlights: Vec<Highlights>,
    /// The breaking changes, for "How to upgrade".
    pub upgrade: Vec<&'a Entry>,
    /// How many fixes the release holds beyond the highlights.
    pub fixes: usize,
    pub contributors: Vec<&'a str>,
    /// The same run's articles on other surfaces.
    pub related: Vec<Related>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Highlights {
    /// The scope (`None` for changes without one).
    pub scope: Option<String>,
    /// Subjects in plain words: capitalised, without type, scope or references.
    pub items: Vec<String>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Related {
    pub surface: &'static str,
    pub label: String,
    /// Relative to the post: `../<surface>/<feature id>`, the layout of a site with one folder
    /// per surface and one page per feature.
    pub href: String,
}

/// `introducing`: whether the release is the feature's first (decided by the caller, which
/// can look at the repository).
pub(crate) fn post<'a>(
    feature: &Feature,
    releases: &'a [Release],
    introducing: bool,
    surfaces: &[Surface],
) -> Post<'a> {
    let release = releases
        .iter()
        .find(|r| r.version.is_some())
        .or_else(|| releases.first());
    let name = &feature.title;
    let version = release.and_then(|r| r.version.as_deref());
    let introducing = introducing && version.is_some();
    let title = match version {
        Some(_) if introducing => format!("Introducing {name}"),
        Some(v) => format!("What's new in {name} {v}"),
        None => format!("What's new in {name}"),
    };
    let entries = || {
        release.into_iter().flat_map(|r| {
            r.breaking
                .iter()
                .chain(r.groups.iter().flat_map(|g| &g.entries))
        })
    };
    let count = |group: &str| {
        release.map_or(0, |r| {
            r.groups
                .iter()
                .filter(|g| g.title == group)
                .map(|g| g.entries.len())
                .sum()
        })
    };
    let upgrade: Vec<&Entry> = release
        .map(|r| r.breaking.iter().collect())
        .unwrap_or_default();
    let mut highlights: Vec<Highlights> = Vec::new();
    for entry in entries()
        .filter(|e| e.breaking || e.group.as_deref() == Some("Added"))
        .take(MAX_HIGHLIGHTS)
    {
        let item = plain(&entry.description);
        match highlights.iter_mut().find(|h| h.scope == entry.scope) {
            Some(h) => h.items.push(item),
            None => highlights.push(Highlights {
                scope: entry.scope.clone(),
                items: vec![item],
            }),
        }
    }
    // Changes without a scope come first, without a heading; then one heading per area.
    highlights.sort_by_key(|h| h.scope.is_some());
    let fixes = count("Fixed");
    let lede = lede(
        name,
        version,
        introducing,
        count("Added"),
        fixes,
        upgrade.len(),
    );
    let related = surfaces
        .iter()
        .filter(|s| matches!(s, Surface::DevDocs | Surface::HelpCenter))
        .map(|s| Related {
            surface: s.as_str(),
            label: match s {
                Surface::DevDocs => format!("{name} API reference"),
                _ => format!("How to use {name}"),
            },
            // The repository root (feature `.`) is the surface's index page.
            href: match feature.id.as_str() {
                "." => format!("../{}/index", s.as_str()),
                id => format!("../{}/{}", s.as_str(), crate::forge::encode_segment(id)),
            },
        })
        .collect();
    Post {
        title,
        release,
        introducing,
        lede,
        highlights,
        upgrade,
        fixes,
        contributors: release
            .map(|r| r.contributors.iter().map(String::as_str).collect())
            .unwrap_or_default(),
        related,
    }
}

fn lede(
    name: &str,
    version: Option<&str>,
    introducing: bool,
    added: usize,
    fixed: usize,
    breaking: usize,
) -> String {
    let subject = match version {
        Some(v) => format!("{name} {v}"),
        None => format!("The latest {name}"),
    };
    if introducing {
        return format!("{subject} is the first release of {name}.");
    }
    let mut parts = Vec::new();
    if added > 0 {
        parts.push(count_of(added, "new feature", "new features"));
    }
    if fixed > 0 {
        parts.push(count_of(fixed, "fix", "fixes"));
    }
    let mut lede = match parts.len() {
        0 => format!("{subject} refines what you already use."),
        _ => format!("{subject} brings {}.", parts.join(" and ")),
    };
    if breaking > 0 {
        lede.push_str(&format!(
            " It has {}: read how to upgrade below.",
            count_of(breaking, "breaking change", "breaking changes")
        ));
    }
    lede
}

fn count_of(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("one {one}")
    } else {
        format!("{n} {many}")
    }
}

/// `add CSV export` → `Add CSV export`.
fn plain(description: &str) -> String {
    let mut chars = description.trim().chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
