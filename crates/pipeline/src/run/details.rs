//! A sentence of context for each change of a short post: what the change's commit message
//! says beyond its subject (`source::history::body_sentence`), never invented. A change is
//! found by the pull request or commit its item links (the project's changelog), else by the
//! commit its entry came from. A post of more than [`MAX_ITEMS`] changes has no room for them;
//! one whose commits say nothing more, or only say the item again, stays short. An item of
//! the project's changelog whose change touched only CI, tests or contributor documents
//! leaves the post (the changelog keeps it). A change whose commit message asks something of
//! users ("Users should pass explicit content types") is also a step under "How to upgrade".

use git2::{Oid, Repository};
use regex::Regex;
use std::collections::HashMap;
use std::sync::LazyLock;

use super::toolchain::release_commits;
use crate::builtin::regex as builtin;
use crate::render::blog::{Post, Upgrade};
use crate::render::lede;
use crate::source::history::{action_sentences, body_sentence, is_chore_path, repeats};

/// A post listing more changes than this gets no context sentences.
const MAX_ITEMS: usize = 6;
/// Items of a post looked up at most (for CI-only changes; context needs fewer).
const MAX_CHECKED: usize = 60;
/// Files of a commit looked at most: a larger change is not housekeeping alone.
const MAX_FILES: usize = 500;
/// Commits of the release read at most.
const MAX_COMMITS: usize = 2_000;

/// "(#12)", "[#12](…)", "/pull/12", "/issues/12" in an item or a subject.
static PULL: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"(?:\(#|\[#|/pull/|/issues/|Merge pull request #)(\d{1,9})\b"));
/// A commit linked from an item.
static COMMIT: LazyLock<Regex> = LazyLock::new(|| builtin(r"/commit/([0-9a-f]{7,40})\b"));

/// Sets `post.context` (see the module).
pub(crate) fn for_post(repo: &Repository, post: &mut Post, commit: &str) {
    let items: Vec<String> = post
        .highlights
        .iter()
        .flat_map(|h| h.items.iter())
        .chain(&post.fixed)
        .chain(&post.changes)
        .cloned()
        .collect();
    if items.is_empty() || items.len() > MAX_CHECKED {
        return;
    }
    let Some((at, previous)) = release_commits(repo, post, commit) else {
        return;
    };
    let Ok(mut walk) = repo.revwalk() else {
        return;
    };
    if walk.push(at).is_err() || walk.hide(previous).is_err() {
        return;
    }
    let mut by_pull: HashMap<u64, Oid> = HashMap::new();
    let mut commits: Vec<Oid> = Vec::new();
    for oid in walk.flatten().take(MAX_COMMITS) {
        commits.push(oid);
        let Ok(c) = repo.find_commit(oid) else {
            continue;
        };
        let subject = c.summary().ok().flatten().unwrap_or("");
        for caps in PULL.captures_iter(subject) {
            if let Ok(n) = caps[1].parse() {
                by_pull.entry(n).or_insert(oid);
            }
        }
    }
    // The entries a post built from commits lists, by the text it shows them with.
    let entries: Vec<(String, String)> = post
        .release
        .filter(|_| !post.markdown)
        .map(|r| {
            r.breaking
                .iter()
                .chain(r.groups.iter().flat_map(|g| &g.entries))
                .map(|e| (e.description.to_lowercase(), e.sha.clone()))
                .collect()
        })
        .unwrap_or_default();
    let short = items.len() <= MAX_ITEMS;
    for item in items {
        let linked = PULL
            .captures_iter(&item)
            .find_map(|c| {
                c[1].parse()
                    .ok()
                    .and_then(|n: u64| by_pull.get(&n).copied())
            })
            .or_else(|| {
                let sha = COMMIT.captures(&item)?[1].to_string();
                commits
                    .iter()
                    .copied()
                    .find(|o| o.to_string().starts_with(&sha))
            })
            .or_else(|| {
                let lower = item.to_lowercase();
                let (_, sha) = entries
                    .iter()
                    .find(|(text, _)| lower.ends_with(text.as_str()))?;
                Oid::from_str(sha).ok()
            });
        let Some(found) = linked.and_then(|o| repo.find_commit(o).ok()) else {
            continue;
        };
        // An item of the project's changelog whose change touched only CI, tests or
        // contributor documents is no news for users ("Add auto-merge required gate").
        if post.markdown && chores_only(repo, &found) {
            drop_item(post, &item);
            continue;
        }
        if found.parent_count() > 1 {
            continue;
        }
        let message = found.message().unwrap_or("");
        // A change whose commit asks something of users is a step of the upgrade, whatever
        // its version number promises ("Users should pass explicit content types").
        if let Some(step) = action_sentences(message)
            && !post.upgrade.iter().any(|u| u.title == item)
        {
            post.upgrade.push(Upgrade {
                title: item.clone(),
                detail: step,
            });
            post.facts.steps.push(item.clone());
            post.write_lede();
        }
        if !short {
            continue;
        }
        let subject = found.summary().ok().flatten().unwrap_or("");
        // Context about documentation, tests or CI is not for users, nor is such an item's.
        if let Some(sentence) = body_sentence(message, subject)
            .filter(|s| !lede::minor(&item) && !lede::minor(s) && !repeats(s, &item))
        {
            post.context.insert(item, sentence);
        }
    }
}

/// Whether every file `commit` changes (against its first parent) is a test, CI or lint
/// configuration or a document for contributors.
fn chores_only(repo: &Repository, commit: &git2::Commit) -> bool {
    let Some(parent) = commit.parents().next() else {
        return false;
    };
    let (Ok(old), Ok(new)) = (parent.tree(), commit.tree()) else {
        return false;
    };
    let Ok(diff) = repo.diff_tree_to_tree(Some(&old), Some(&new), None) else {
        return false;
    };
    let count = diff.deltas().len();
    count > 0
        && count <= MAX_FILES
        && diff.deltas().all(|d| {
            d.new_file()
                .path()
                .or_else(|| d.old_file().path())
                .and_then(|p| p.to_str())
                .is_some_and(is_chore_path)
        })
}

/// Takes `item` out of the post's lists and out of what its lede is written from.
fn drop_item(post: &mut Post, item: &str) {
    for h in &mut post.highlights {
        h.items.retain(|i| i != item);
    }
    post.highlights.retain(|h| !h.items.is_empty());
    post.fixed.retain(|i| i != item);
    post.changes.retain(|i| i != item);
    let facts = &mut post.facts;
    for list in [&mut facts.added, &mut facts.fixed, &mut facts.other] {
        list.retain(|i| i != item);
    }
    post.unlisted += 1;
    post.write_lede();
}
