//! The blog post of a run: an announcement of the feature's newest release, as a release post
//! (the Rust release announcements) has it: what users gain, the highlights in plain words,
//! the fixes and other changes, how to upgrade past breaking changes, where to read more, who
//! made it. A release with nothing listed has no post, and neither has a release of internal
//! changes only (refactors: the changelog lists them, a reader of the blog has nothing to
//! try); refactors are left out of a post's lists as well (counted with what only the
//! changelog lists). A body of counts alone, or a post about code moving, is filler. Items
//! about documentation, comments or tests come after the rest of their list. The run adds
//! what only the repository tells: a raised toolchain, public names removed, an example,
//! and for a short post a sentence of context per change from its commit message.
//!
//! "Learn more" links only to addresses that exist whoever reads the post: the forge's
//! comparison of the release with the one before and the feature's source at the run's
//! commit. The same run's other articles are not linked: their public address
//! (`/published/{article id}`) is given by the service when, and only if, each is published,
//! which a run cannot know.

use serde::Serialize;

use super::lede;
use super::text::upper_first;
use super::written_items::{self, Kind};
use crate::source::forge::Forge;
use crate::source::history::{Entry, ReleaseNotes, has_known_type};
use crate::source::manifest::Feature;

/// Highlights listed at most (the changelog has the rest).
const MAX_HIGHLIGHTS: usize = 12;
/// Fixes and other changes listed at most, each.
const MAX_ITEMS: usize = 10;
/// Contributors thanked by name at most; the rest are counted ("and 80 others").
const MAX_CONTRIBUTORS: usize = 10;

#[derive(Debug, Serialize)]
pub(crate) struct Post<'a> {
    pub title: String,
    /// The release announced: the newest tagged one, else the changes after the newest tag.
    pub release: Option<&'a ReleaseNotes>,
    /// This release is the package's first.
    pub introducing: bool,
    /// One paragraph of what users gain, in plain words.
    pub lede: String,
    /// New features and breaking changes, by scope.
    pub highlights: Vec<Highlights>,
    /// The breaking changes and deprecations, for "How to upgrade".
    pub upgrade: Vec<Upgrade>,
    /// Steps before upgrading, in Markdown: a minimum toolchain the release raised (set by
    /// the run, which reads the manifests at both tags: `run/toolchain.rs`).
    pub toolchain: Vec<String>,
    /// The items are the project's own Markdown (from its changelog file at `source`), not
    /// plain text.
    pub markdown: bool,
    pub source: Option<String>,
    /// How many fixes the release holds beyond the highlights.
    pub fixes: usize,
    /// The fixes in plain words (at most [`MAX_ITEMS`]).
    pub fixed: Vec<String>,
    /// Changes that are neither new features nor fixes (changed, removed, deprecated,
    /// faster, security, reverted), in plain words (at most [`MAX_ITEMS`]).
    pub changes: Vec<String>,
    /// Entries of the release not listed in the post (see the changelog).
    pub unlisted: usize,
    /// Thanked by name, at most [`MAX_CONTRIBUTORS`].
    pub contributors: Vec<&'a str>,
    /// Contributors beyond those named.
    pub others: usize,
    /// The same run's articles on other surfaces.
    pub related: Vec<Related>,
    /// The new features' entries, whose APIs an example may show.
    #[serde(skip)]
    pub features: Vec<String>,
    /// A short example of a new API from the repository's docs or tests (set by the run,
    /// which reads the repository: `run/example.rs`).
    pub example: Option<Example>,
    /// A sentence of context for a listed change, by its item: what its commit message says
    /// beyond its subject (set by the run, which reads the repository: `run/details.rs`).
    pub context: std::collections::BTreeMap<String, String>,
    /// What the lede is written from; the run completes it (a raised toolchain, removed
    /// names) and writes the lede again ([`Post::write_lede`]).
    #[serde(skip)]
    pub facts: lede::Facts,
}

impl Post<'_> {
    /// Writes the lede from [`Post::facts`]; a first release is introduced instead.
    pub(crate) fn write_lede(&mut self) {
        if !self.introducing {
            self.lede = lede::lede(&self.facts);
        }
    }
}

/// A snippet of the repository's documentation or tests that shows a new API.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub(crate) struct Example {
    /// The API as the entry names it.
    pub api: String,
    /// The file it comes from, and its address on the forge at the tag (line included).
    pub path: String,
    pub href: Option<String>,
    pub language: String,
    pub code: String,
}

#[derive(Debug, Serialize)]
pub(crate) struct Highlights {
    /// The scope (`None` for changes without one).
    pub scope: Option<String>,
    /// Subjects in plain words: capitalised, without type, scope or references.
    pub items: Vec<String>,
}

/// One thing to act on when upgrading.
#[derive(Debug, Serialize)]
pub(crate) struct Upgrade {
    /// "scope: Description" of a commit, or the project's own item.
    pub title: String,
    /// What to do, when the commit says (`BREAKING CHANGE:`).
    pub detail: String,
}

#[derive(Debug, Serialize)]
pub(crate) struct Related {
    /// `compare` or `source`.
    pub kind: &'static str,
    pub label: String,
    /// An absolute http(s) address on the repository's forge.
    pub href: String,
}

/// Why a run writes no post.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NoPost {
    /// The newest release lists nothing.
    NothingListed,
    /// Everything the newest release lists is internal (see [`internal`]).
    InternalOnly,
}

impl NoPost {
    /// For the run's log: "no blog article: …".
    pub(crate) fn reason(self) -> &'static str {
        match self {
            NoPost::NothingListed => "no listed change in the range",
            NoPost::InternalOnly => {
                "the release holds nothing for its users (refactors, CI, tests, or what the project's changelog files for contributors), which the changelog lists"
            }
        }
    }
}

/// A change readers of a release post have no use for: a refactor that breaks nothing, by
/// its Conventional Commits type or, without a known one (`rt: refactor …`, `Refactoring
/// …`), by the first word of its description.
fn internal(entry: &Entry) -> bool {
    let housekeeping = matches!(
        entry.kind.as_str(),
        "ci" | "cd" | "chore" | "test" | "tests" | "style" | "docs" | "doc"
    ) || (entry.kind == "build"
        && !entry
            .scope
            .as_deref()
            .is_some_and(|s| s.to_ascii_lowercase().starts_with("dep")));
    !entry.breaking
        && (entry.kind == "refactor"
            || (entry.conventional && housekeeping)
            || (!has_known_type(&entry.subject)
                && entry
                    .description
                    .split_whitespace()
                    .next()
                    .is_some_and(|w| w.to_ascii_lowercase().starts_with("refactor"))))
}

/// What a post announces and in which package: a file or folder inside its package's release
/// ("src/macros.rs in log"); the package's source folder (`src`), or anything else, under
/// its own title, never under its path.
fn names(feature: &Feature) -> (String, String) {
    match &feature.path {
        Some(path) if !feature.product.is_empty() && feature.title != feature.product => {
            (path.clone(), feature.product.clone())
        }
        _ => (feature.title.clone(), feature.title.clone()),
    }
}

/// `introducing`: whether the release is the package's first (decided by the caller, which
/// can look at the repository and its own changelog).
pub(crate) fn post<'a>(
    feature: &Feature,
    releases: &'a [ReleaseNotes],
    introducing: bool,
    forge: Option<&Forge>,
    commit: &str,
) -> Result<Post<'a>, NoPost> {
    let release = releases
        .iter()
        .find(|r| r.version.is_some())
        .or_else(|| releases.first())
        .filter(|r| r.count > 0 || r.handwritten.is_some());
    let release_ref = release.ok_or(NoPost::NothingListed)?;
    let (name, product) = names(feature);
    let name = &name;
    let version = release_ref.version.as_deref();
    let introducing = introducing && version.is_some();
    let subject = match version {
        Some(v) if name == &product => format!("{name} {v}"),
        Some(v) => format!("{name} in {product} {v}"),
        None => name.clone(),
    };
    let title = match version {
        Some(_) if introducing => format!("Introducing {subject}"),
        _ => format!("What's new in {subject}"),
    };
    let entries = || {
        release
            .into_iter()
            .flat_map(|r| {
                r.breaking
                    .iter()
                    .chain(r.groups.iter().flat_map(|g| &g.entries))
            })
            .filter(|e| !internal(e))
    };
    let count = |group: &str| {
        release.map_or(0, |r| {
            r.groups
                .iter()
                .filter(|g| g.title == group)
                .flat_map(|g| &g.entries)
                .filter(|e| !internal(e))
                .count()
        })
    };
    // Every breaking change and deprecation is something to act on when upgrading.
    if let Some(section) = &release_ref.handwritten {
        let post = written(
            feature,
            release_ref,
            section,
            introducing,
            forge,
            commit,
            (title, subject, name.clone()),
        )?;
        return Ok(post);
    }
    let upgrade: Vec<Upgrade> = release
        .map(|r| {
            r.breaking
                .iter()
                .chain(
                    r.groups
                        .iter()
                        .filter(|g| g.title == "Deprecated")
                        .flat_map(|g| &g.entries),
                )
                .filter(|e| !e.description.trim().is_empty())
                .map(|e| Upgrade {
                    title: match &e.scope {
                        Some(scope) => format!("{scope}: {}", upper_first(&e.description)),
                        None => upper_first(&e.description),
                    },
                    detail: e.breaking_description.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    let mut highlights: Vec<Highlights> = Vec::new();
    // A breaking change is told once, under "How to upgrade".
    for entry in entries()
        .filter(|e| !e.breaking && e.group.as_deref() == Some("Added"))
        .take(MAX_HIGHLIGHTS)
    {
        let item = upper_first(&entry.description);
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
    for h in &mut highlights {
        h.items.sort_by_key(|i| lede::minor(i));
    }
    let item = |e: &Entry| match &e.scope {
        Some(scope) if e.conventional => format!("{scope}: {}", upper_first(&e.description)),
        _ => upper_first(&e.description),
    };
    let fixes = count("Fixed");
    let fixed = major_first(
        entries()
            .filter(|e| !e.breaking && e.group.as_deref() == Some("Fixed"))
            .map(item)
            .collect(),
    );
    let others = || {
        entries().filter(|e| !e.breaking && !matches!(e.group.as_deref(), Some("Added" | "Fixed")))
    };
    let changes = major_first(others().map(item).collect());
    let listed =
        highlights.iter().map(|h| h.items.len()).sum::<usize>() + fixed.len() + changes.len();
    if listed == 0 && upgrade.is_empty() && !introducing {
        return Err(NoPost::InternalOnly);
    }
    let unlisted = release_ref
        .count
        .saturating_sub(listed + entries().filter(|e| e.breaking).count());
    let strings = |filter: &dyn Fn(&Entry) -> bool| -> Vec<String> {
        entries().filter(|e| filter(e)).map(item).collect()
    };
    let (breaking, added, fixed_all, other) = (
        strings(&|e| e.breaking),
        strings(&|e| !e.breaking && e.group.as_deref() == Some("Added")),
        strings(&|e| !e.breaking && e.group.as_deref() == Some("Fixed")),
        strings(&|e| !e.breaking && !matches!(e.group.as_deref(), Some("Added" | "Fixed"))),
    );
    let facts = lede::Facts {
        subject: subject.clone(),
        released: version.is_some(),
        breaking,
        added: added.clone(),
        fixed: fixed_all,
        deprecated: entries()
            .filter(|e| !e.breaking && e.group.as_deref() == Some("Deprecated"))
            .count(),
        other,
        requires: Vec::new(),
        removed: Vec::new(),
        compatible: compatible(release_ref),
        steps: Vec::new(),
    };
    let lede = lede(&subject, name, introducing, &facts);
    let related = related(feature, release_ref, forge, commit);
    let (contributors, others) = thanked(release_ref);
    Ok(Post {
        title,
        release,
        introducing,
        lede,
        highlights,
        upgrade,
        markdown: false,
        source: None,
        fixes,
        fixed,
        changes,
        unlisted,
        contributors,
        others,
        related,
        features: added,
        example: None,
        toolchain: Vec::new(),
        context: Default::default(),
        facts,
    })
}

/// A post from the release's section of the project's own changelog: its items, in its
/// words, under what its headings say they are.
fn written<'a>(
    feature: &Feature,
    release: &'a ReleaseNotes,
    section: &str,
    introducing: bool,
    forge: Option<&Forge>,
    commit: &str,
    (title, subject, name): (String, String, String),
) -> Result<Post<'a>, NoPost> {
    let items = written_items::items(section);
    let of = |kind: Kind| {
        items
            .iter()
            .filter(move |(k, _)| *k == kind)
            .map(|(_, t)| t)
    };
    let mut upgrade: Vec<Upgrade> = of(Kind::Breaking)
        .chain(of(Kind::Deprecated))
        .map(|t| Upgrade {
            title: t.clone(),
            detail: String::new(),
        })
        .collect();
    // The notes' own steps ("#### Migration" under an item), with the item they belong to.
    let steps = written_items::upgrade_steps(section);
    for (title, detail) in &steps {
        match upgrade
            .iter_mut()
            .find(|u| Some(&u.title) == title.as_ref() && u.detail.is_empty())
        {
            Some(known) => known.detail = detail.clone(),
            None => upgrade.push(Upgrade {
                title: title.clone().unwrap_or_default(),
                detail: detail.clone(),
            }),
        }
    }
    let added: Vec<String> = of(Kind::Added).cloned().collect();
    // A breaking change is told once, under "How to upgrade".
    let mut highlight_items: Vec<String> = added.clone();
    highlight_items.sort_by_key(|i| lede::minor(i));
    highlight_items.truncate(MAX_HIGHLIGHTS);
    let fixes = of(Kind::Fixed).count();
    let mut fixed = major_first(of(Kind::Fixed).cloned().collect());
    let mut changes = major_first(
        of(Kind::Changed)
            .chain(of(Kind::Deprecated))
            .cloned()
            .collect(),
    );
    // An item with a step is told once, under "How to upgrade".
    let stepped = |i: &String| steps.iter().any(|(t, _)| t.as_ref() == Some(i));
    let told = (highlight_items.iter().chain(&fixed).chain(&changes))
        .filter(|i| stepped(i))
        .count();
    for list in [&mut highlight_items, &mut fixed, &mut changes] {
        list.retain(|i| !stepped(i));
    }
    let listed = highlight_items.len() + fixed.len() + changes.len() + told;
    if listed == 0 && upgrade.is_empty() && !introducing {
        return Err(NoPost::InternalOnly);
    }
    let unlisted = items
        .len()
        .saturating_sub(listed + of(Kind::Deprecated).count() + of(Kind::Breaking).count());
    let strings = |kinds: &[Kind]| -> Vec<String> {
        items
            .iter()
            .filter(|(k, _)| kinds.contains(k))
            .map(|(_, t)| t.clone())
            .collect()
    };
    let facts = lede::Facts {
        subject: subject.clone(),
        released: release.version.is_some(),
        breaking: strings(&[Kind::Breaking]),
        added: added.clone(),
        fixed: strings(&[Kind::Fixed]),
        other: strings(&[Kind::Changed, Kind::Deprecated]),
        deprecated: of(Kind::Deprecated).count(),
        requires: Vec::new(),
        removed: Vec::new(),
        compatible: compatible(release),
        // A step of no item (a "Migration" section of its own) still asks something.
        steps: steps
            .iter()
            .map(|(title, _)| title.clone().unwrap_or_default())
            .collect(),
    };
    let lede = lede(&subject, &name, introducing, &facts);
    let (contributors, others) = thanked(release);
    Ok(Post {
        title,
        release: Some(release),
        introducing,
        lede,
        highlights: if highlight_items.is_empty() {
            Vec::new()
        } else {
            vec![Highlights {
                scope: None,
                items: highlight_items,
            }]
        },
        upgrade,
        markdown: true,
        source: release.source.clone(),
        fixes,
        fixed,
        changes,
        unlisted,
        contributors,
        others,
        related: related(feature, release, forge, commit),
        features: added,
        example: None,
        toolchain: Vec::new(),
        context: Default::default(),
        facts,
    })
}

/// At most [`MAX_ITEMS`] items, those about documentation, comments, typos or tests after
/// the rest (each part in the release's order): a comment's broken link is not the first fix
/// a reader sees.
fn major_first(mut items: Vec<String>) -> Vec<String> {
    items.sort_by_key(|i| lede::minor(i));
    items.truncate(MAX_ITEMS);
    items
}

/// Thanked by name (at most [`MAX_CONTRIBUTORS`]) and how many more.
fn thanked(release: &ReleaseNotes) -> (Vec<&str>, usize) {
    (
        release
            .contributors
            .iter()
            .take(MAX_CONTRIBUTORS)
            .map(String::as_str)
            .collect(),
        release.contributors.len().saturating_sub(MAX_CONTRIBUTORS),
    )
}

/// "Learn more": the forge's comparison with the release before, the feature's source.
fn related(
    feature: &Feature,
    release: &ReleaseNotes,
    forge: Option<&Forge>,
    commit: &str,
) -> Vec<Related> {
    let mut related = Vec::new();
    if let Some(url) = &release.compare_url {
        related.push(Related {
            kind: "compare",
            label: match (&release.previous_tag, &release.tag) {
                (Some(from), Some(to)) => format!("Every change from {from} to {to}"),
                (Some(from), None) => format!("Every change since {from}"),
                _ => "Every change".to_string(),
            },
            href: url.clone(),
        });
    }
    if let (Some(path), Some(forge)) = (&feature.path, forge)
        && let Some(url) = forge.file_url(commit, path, None)
    {
        related.push(Related {
            kind: "source",
            label: format!("The source of {path}"),
            href: url,
        });
    }
    related
}

/// `subject`: "log 0.4.33", "src/macros.rs in log 0.4.33", or the name alone (changes not
/// released yet). What the release is for a user and its most important change
/// ([`lede`](super::lede)); a first release is introduced.
fn lede(subject: &str, name: &str, introducing: bool, facts: &lede::Facts) -> String {
    if introducing {
        return format!("{subject} is the first release of {name}.");
    }
    lede::lede(facts)
}

/// Whether semantic versioning promises that `release` breaks nothing: a patch release, or a
/// minor one from 1.0 on, judged against the version of the tag before it.
fn compatible(release: &ReleaseNotes) -> bool {
    let numbers = |v: &str| -> Option<(u64, u64, u64)> {
        let v = v.trim_start_matches(|c: char| !c.is_ascii_digit());
        let core = v.split(['-', '+']).next()?;
        let mut parts = core.split('.').map(|p| p.parse::<u64>().ok());
        Some((
            parts.next()??,
            parts.next()??,
            parts.next().flatten().unwrap_or(0),
        ))
    };
    let previous = release.previous_tag.as_deref().and_then(|t| {
        // The version at the end of a tag ("pkg-v1.2.3", "@scope/pkg@1.2.3").
        let start = t
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+')))
            .map_or(0, |i| i + 1);
        let tail = &t[start..];
        let at = tail.find(|c: char| c.is_ascii_digit())?;
        numbers(&tail[at..])
    });
    let (Some(now), Some(before)) = (release.version.as_deref().and_then(numbers), previous) else {
        return false;
    };
    let prerelease = release.version.as_deref().is_some_and(|v| v.contains('-'));
    !prerelease && now > before && now.0 == before.0 && (now.1 == before.1 || now.0 >= 1)
}
