//! Public API a release removes (`source::history::removed_names`: the names its code no
//! longer declares, compared with the release before), told in its post when no breaking
//! entry already says so: a step of "How to upgrade", and the lede. A minor or patch version
//! number does not make a removal any less breaking for the code that used it.

use git2::Repository;

use super::toolchain::release_commits;
use crate::render::blog::{Post, Upgrade};
use crate::source::history::removed_names;

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
