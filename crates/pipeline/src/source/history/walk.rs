//! The history walk: the commits since the previous run that touched the feature,
//! split at the release tags.

use git2::{Commit, Oid, Repository, Sort};

use super::pulls::Pulls;
use super::renames::{Renamed, touches};
use super::tags::{Tag, Tags};
use super::{CommitInfo, MAX_COMMITS, MAX_WALKED, cut_text};
use crate::error::PipelineError;
use crate::source::files::FeatureMatcher;

/// One release of the range: the commits from its tag back to the previous tag (or, for
/// `tag: None`, the commits after the newest tag: "Unreleased").
#[derive(Clone, Debug)]
pub(crate) struct Release {
    pub tag: Option<Tag>,
    /// Newest first.
    pub commits: Vec<CommitInfo>,
}

pub(crate) struct History {
    /// Newest first; the first is "Unreleased" when commits follow the newest tag.
    pub releases: Vec<Release>,
    /// False when `since` was given but is not a commit of this repository.
    pub since_found: bool,
    pub truncated: bool,
    pub walked: usize,
    /// Commits whose message or author was cut to `max_commit_message_bytes`.
    pub cut: usize,
    /// Files renamed into the feature whose earlier paths were followed.
    pub renames: usize,
}

impl History {
    /// Every listed commit, newest first.
    pub fn commits(&self) -> impl Iterator<Item = &CommitInfo> {
        self.releases.iter().flat_map(|r| r.commits.iter())
    }
}

/// What the walk covers: everything after `since`, or on a first run (`since` = `None`) the
/// newest `releases` releases that touch the feature, plus the commits after them.
pub(crate) struct Range<'a> {
    pub since: Option<&'a str>,
    pub releases: usize,
    pub tags: &'a Tags,
    /// Whether a commit will be listed: a release of release commits and chores alone does
    /// not count against `releases`.
    pub listed: &'a dyn Fn(&CommitInfo) -> bool,
}

/// The commits reachable from `head` and not from `since` that change a path of the feature
/// (or an earlier path of one of its files, renames followed), newest first and split at the
/// release tags, at most [`MAX_COMMITS`]. Merge commits are left out: the commits they merge
/// are listed, except that the commits of a GitHub pull request (a merge "Merge pull request
/// #N from …" whose body is the pull request's title) are one entry, "<title> (#N)", where the
/// newest of them is, as GitHub's release notes list them, unless one of them is a
/// Conventional Commit (then they are listed one by one, as git-cliff lists them). Messages and author names are cut
/// to `max_message_bytes`, so that a commit subject of megabytes never reaches an article.
pub(crate) fn history(
    repo: &Repository,
    head: &Commit,
    range: &Range,
    matcher: &FeatureMatcher,
    max_message_bytes: usize,
) -> Result<History, PipelineError> {
    let mut walk = repo.revwalk()?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME)?;
    walk.push(head.id())?;
    let mut since_found = range.since.is_none();
    if let Some(since) = range.since
        && let Some(commit) = Oid::from_str(since)
            .ok()
            .and_then(|oid| repo.find_commit(oid).ok())
    {
        walk.hide(commit.id())?;
        since_found = true;
    }
    // Without a usable previous run, the newest releases only.
    let release_cap = if since_found && range.since.is_some() {
        usize::MAX
    } else {
        range.releases
    };
    let mut releases: Vec<Release> = Vec::new();
    let mut current = Release {
        tag: None,
        commits: Vec::new(),
    };
    let mut renamed = Renamed::default();
    // Tagged releases passed that list something, and whether the current one does.
    let mut counted = 0;
    let mut current_counts = false;
    // Tags already placed, so that one found by its subject names one release only.
    let mut moved = std::collections::BTreeSet::new();
    let mut listed = 0;
    let mut truncated = false;
    let mut walked = 0;
    let mut cut = 0;
    let mut pulls = Pulls::default();
    // Where each pull request's entry is: (index in `releases` once pushed, index in it).
    let mut pull_entries: std::collections::HashMap<usize, (usize, usize)> = Default::default();
    for oid in walk {
        let oid = oid?;
        walked += 1;
        if listed >= MAX_COMMITS || walked > MAX_WALKED {
            truncated = true;
            break;
        }
        let commit = repo.find_commit(oid)?;
        let tag = range.tags.at(oid).or_else(|| {
            range
                .tags
                .moved(repo, head, &commit)
                .filter(|t| !moved.contains(&t.name))
        });
        if let Some(tag) = tag {
            moved.insert(tag.name.clone());
            // Releases with nothing to list are not counted against the cap.
            counted += usize::from(current.tag.is_some() && current_counts);
            current_counts = false;
            if counted >= release_cap {
                break;
            }
            let previous = std::mem::replace(
                &mut current,
                Release {
                    tag: Some(tag.clone()),
                    commits: Vec::new(),
                },
            );
            if !previous.commits.is_empty() {
                releases.push(previous);
            }
        }
        // A merge brings in commits that are listed themselves; its own message is noise,
        // but for a pull request's title.
        if commit.parent_count() > 1 {
            pulls.merged(repo, &commit, max_message_bytes)?;
            continue;
        }
        if let Some(changed) = touches(repo, &commit, matcher, &mut renamed)? {
            let pull = pulls.of(oid);
            if let Some(pull) = pull {
                if let Some(&(release, index)) = pull_entries.get(&pull) {
                    let entry = match releases.get_mut(release) {
                        Some(earlier) => earlier.commits.get_mut(index),
                        None => current.commits.get_mut(index),
                    };
                    if let Some(entry) = entry {
                        entry.housekeeping &= changed.housekeeping;
                    }
                    continue;
                }
                pull_entries.insert(pull, (releases.len(), current.commits.len()));
            }
            let (message, message_cut) = match pull {
                Some(pull) => (pulls.title(pull).to_string(), false),
                None => cut_text(commit.message_bytes(), max_message_bytes),
            };
            let author = commit.author();
            let (name, name_cut) = cut_text(author.name_bytes(), max_message_bytes);
            let (email, email_cut) = cut_text(author.email_bytes(), max_message_bytes);
            cut += usize::from(message_cut || name_cut || email_cut);
            listed += 1;
            let info = CommitInfo {
                sha: oid.to_string(),
                message,
                author: name,
                email,
                time: commit.time().seconds(),
                housekeeping: changed.housekeeping,
            };
            current_counts |= (range.listed)(&info);
            current.commits.push(info);
        }
    }
    if !current.commits.is_empty() {
        releases.push(current);
    }
    Ok(History {
        releases,
        since_found,
        truncated,
        walked,
        cut,
        renames: renamed.paths.len(),
    })
}
