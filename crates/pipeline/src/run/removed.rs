//! Public API a release removes (`source::history::removed_names`: the names its code no
//! longer declares, compared with the release before). In a changelog built from commits,
//! each commit that removed some of them is a breaking change that says which ("Removes
//! `GetApiInstance`."), whatever its subject says; in a post, what no breaking entry already
//! says is a step of "How to upgrade", and the lede tells it. A minor or patch version number
//! does not make a removal any less breaking for the code that used it.

use git2::{Oid, Repository};

use super::example::tag_commit;
use super::toolchain::release_commits;
use crate::render::blog::{Post, Upgrade};
use crate::source::history::{ReleaseNotes, removed_names};

/// Releases of a changelog whose commits are compared at most (the newest first).
const MAX_RELEASES: usize = 50;

/// Marks the commits of each release built from commits (not from the project's changelog
/// file) that removed public names the release no longer has (see the module).
pub(crate) fn for_changelog(
    repo: &Repository,
    releases: &mut [ReleaseNotes],
    folder: &str,
    commit: &str,
) {
    for release in releases
        .iter_mut()
        .filter(|r| r.handwritten.is_none())
        .take(MAX_RELEASES)
    {
        let at = match &release.tag {
            Some(tag) => tag_commit(repo, tag),
            None => Oid::from_str(commit).ok(),
        };
        let previous = release
            .previous_tag
            .as_deref()
            .and_then(|t| tag_commit(repo, t));
        let (Some(at), Some(previous)) = (at, previous) else {
            continue;
        };
        let gone = removed_names(repo, previous, at, folder);
        if gone.is_empty() {
            continue;
        }
        let removed_by = |sha: &str| -> Vec<String> {
            let Some(c) = Oid::from_str(sha)
                .ok()
                .and_then(|o| repo.find_commit(o).ok())
            else {
                return Vec::new();
            };
            let Some(parent) = c.parent_ids().next().filter(|_| c.parent_count() == 1) else {
                return Vec::new();
            };
            removed_names(repo, parent, c.id(), folder)
                .into_iter()
                .filter(|n| gone.contains(n))
                .collect()
        };
        let mut moved = Vec::new();
        for group in &mut release.groups {
            let mut kept = Vec::with_capacity(group.entries.len());
            for mut entry in std::mem::take(&mut group.entries) {
                let names = removed_by(&entry.sha);
                if names.is_empty() {
                    kept.push(entry);
                } else {
                    entry.breaking = true;
                    entry.breaking_description = format!("Removes {}.", names.join(", "));
                    moved.push(entry);
                }
            }
            group.entries = kept;
        }
        release.groups.retain(|g| !g.entries.is_empty());
        release.breaking.extend(moved);
    }
}

/// Removed names listed by name in the upgrade step at most; the rest are counted.
const MAX_LISTED: usize = 12;

/// Completes `post` with the public names its release removes from the feature in `folder`.
pub(crate) fn for_post(repo: &Repository, post: &mut Post, folder: &str, commit: &str) {
    let Some((at, previous)) = release_commits(repo, post, commit) else {
        return;
    };
    let told = |name: &str| {
        let bare = name.trim_matches('`');
        post.upgrade
            .iter()
            .any(|u| u.title.contains(bare) || u.detail.contains(bare))
            || post.facts.breaking.iter().any(|b| b.contains(bare))
    };
    let names: Vec<String> = removed_names(repo, previous, at, folder)
        .into_iter()
        .filter(|n| !told(n))
        .collect();
    if names.is_empty() {
        return;
    }
    let listed = names
        .iter()
        .take(MAX_LISTED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    let more = names.len().saturating_sub(MAX_LISTED);
    let before = post
        .release
        .and_then(|r| r.previous_tag.clone())
        .unwrap_or_else(|| "the release before".to_string());
    post.upgrade.insert(
        0,
        Upgrade {
            title: if more > 0 {
                format!(
                    "No longer in the public API (it was in {before}): {listed} and {more} more."
                )
            } else {
                format!("No longer in the public API (it was in {before}): {listed}.")
            },
            detail: String::new(),
        },
    );
    post.facts.removed = names;
    post.write_lede();
}
