//! What the project wrote for its releases, beside the commits: the tags of releases its
//! changelog file alone shows, and the Unreleased section from its pending notes.

use domain::{LogLevel, LogStage};
use git2::{Repository, Tree};
use serde_json::json;

use super::collect::Collected;
use crate::log::LogSink;
use crate::render::{self, Older};
use crate::source::forge::Forge;
use crate::source::history::{self, ReleaseNotes};
use crate::source::manifest::Feature;

/// A release shown only from the project's changelog file (no commit of the feature in it)
/// that has a tag gets the tag and the compare link a release of commits has: from the
/// highest lower version's tag.
pub(super) fn tag_written_releases(
    releases: &mut [ReleaseNotes],
    collected: &Collected,
    forge: Option<&Forge>,
) {
    let tags: Vec<(&semver::Version, &String)> = collected
        .tag_versions
        .iter()
        .zip(&collected.tag_names)
        .collect();
    for release in releases.iter_mut().filter(|r| r.tag.is_none()) {
        let Some(version) = release
            .version
            .as_deref()
            .and_then(|v| semver::Version::parse(v).ok())
        else {
            continue;
        };
        let Some(position) = tags.iter().position(|(v, _)| **v == version) else {
            continue;
        };
        let tag = tags[position].1.clone();
        let previous = position
            .checked_sub(1)
            .and_then(|i| tags.get(i))
            .map(|(_, name)| (*name).clone());
        release.compare_url = previous
            .as_deref()
            .and_then(|from| forge?.compare_url(from, &tag));
        release.previous_tag = previous;
        release.tag = Some(tag);
        // A release is dated by its tag, as a release from the commits is; the file's own
        // date only when the tag's is unknown.
        if let Some(date) = collected.tag_dates.get(position) {
            release.date = Some(date.clone());
        }
    }
}

/// The releases older than every one shown (final versions only: a tag of the feature's
/// package or a section of its changelog file, `written`), when there are some; linked to
/// the changelog file at `commit` (`path`), else to the forge's releases page.
pub(super) fn older_releases(
    releases: &[ReleaseNotes],
    collected: &Collected,
    written: &[semver::Version],
    path: Option<&str>,
    forge: Option<&Forge>,
    commit: &str,
) -> Option<Older> {
    let lowest = releases
        .iter()
        .filter_map(|r| semver::Version::parse(r.version.as_deref()?).ok())
        .min()?;
    let mut older: Vec<&semver::Version> = collected
        .tag_versions
        .iter()
        .chain(written)
        .filter(|v| v.pre.is_empty() && **v < lowest)
        .collect();
    older.sort();
    older.dedup();
    let oldest = older.first()?.to_string();
    let (url, label) = match path {
        Some(path) => (
            forge.and_then(|f| f.file_url(commit, path, None)),
            Some(path.rsplit('/').next().unwrap_or(path).to_string()),
        ),
        None => match forge.and_then(Forge::releases_url) {
            Some(url) => (Some(url), Some("the releases page".to_string())),
            None => (None, None),
        },
    };
    Some(Older {
        count: older.len(),
        oldest,
        url,
        label,
    })
}

/// The Unreleased section from the project's pending changesets or news fragments, when it
/// keeps some for the feature.
pub(super) fn pending_changes(
    repo: &Repository,
    tree: &Tree,
    collected: &Collected,
    feature: &Feature,
    first_run: bool,
    releases: &mut Vec<ReleaseNotes>,
    log: &mut dyn LogSink,
) {
    let Some(pending) = history::pending(repo, tree, &collected.matcher.prefixes, &feature.product)
    else {
        return;
    };
    let (path, count) = (pending.path.clone(), pending.fragments.len());
    if render::pending::apply(releases, pending, first_run) {
        log.log(
            LogLevel::Info,
            LogStage::Render,
            &format!("unreleased changes come from the project's pending notes ({path})"),
            json!({ "path": path, "fragments": count }),
        );
    }
}
