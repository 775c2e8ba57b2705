//! The history walk: the commits since the previous run that touched the feature, release
//! by release. A release's commits are those its tag reaches and no tag of a lower version
//! does, so that a patch release cut from a maintenance branch lists only that branch's
//! commits; a pre-release folds into its final release once that is tagged.

use git2::{Oid, Repository, Sort};
use std::collections::{HashMap, HashSet};

use super::pulls::Pulls;
use super::renames::{Renamed, touches};
use super::tags::{Tag, Tags};
use super::{CommitInfo, MAX_COMMITS, MAX_WALKED, cut_text};
use crate::error::PipelineError;
use crate::source::files::FeatureMatcher;

/// At most this many tags on copies of commits (an amended release commit) are looked for in
/// HEAD's history.
const MAX_MOVED_SEARCHES: usize = 20;

/// One release of the range: the commits its tag reaches and no lower version's tag does
/// (or, for `tag: None`, the commits no release tag reaches: "Unreleased").
#[derive(Clone, Debug)]
pub(crate) struct Release {
    pub tag: Option<Tag>,
    /// Newest first.
    pub commits: Vec<CommitInfo>,
}

pub(crate) struct History {
    /// The first is "Unreleased" when commits follow the newest tag; then the releases,
    /// highest version first.
    pub releases: Vec<Release>,
    /// False when `since` was given but is not a commit of this repository.
    pub since_found: bool,
    pub truncated: bool,
    pub walked: usize,
    /// Commits whose message or author was cut to `max_commit_message_bytes`.
    pub cut: usize,
    /// Files renamed into the feature whose earlier paths were followed.
    pub renames: usize,
    /// Copies of a change listed in an earlier release too (cherry-picks), left out.
    pub cherry_picks: usize,
    /// The versions of the release tags this run covers, whether or not a commit of the
    /// feature is in them (a release of only its release commit).
    pub tags_in_range: Vec<semver::Version>,
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
/// (or an earlier path of one of its files, renames followed), split into releases, at most
/// [`MAX_COMMITS`]. Merge commits are left out: the commits they merge are listed, except
/// that the commits of a GitHub pull request (a merge "Merge pull request #N from …" whose
/// body is the pull request's title) are one entry, "<title> (#N)", where the newest of
/// them is, as GitHub's release notes list them, unless one of them is a Conventional
/// Commit (then they are listed one by one, as git-cliff lists them). A change listed twice
/// (a cherry-pick: the same patch id on another line, whatever its subject) is listed in the
/// lower version only. Messages and author names are cut to `max_message_bytes`, so that a
/// commit subject of megabytes never reaches an article.
pub(crate) fn history(
    repo: &Repository,
    head: &git2::Commit,
    range: &Range,
    matcher: &FeatureMatcher,
    max_message_bytes: usize,
) -> Result<History, PipelineError> {
    let since = range
        .since
        .and_then(|s| Oid::from_str(s).ok())
        .and_then(|oid| repo.find_commit(oid).ok())
        .map(|c| c.id());
    let since_found = range.since.is_none() || since.is_some();
    // Without a usable previous run, the newest releases only.
    let release_cap = if since.is_some() {
        usize::MAX
    } else {
        range.releases
    };
    let mut walker = Walker {
        repo,
        matcher,
        max_message_bytes,
        renamed: Renamed::default(),
        pulls: Pulls::default(),
        pull_entries: HashMap::new(),
        listed: 0,
        walked: 0,
        cut: 0,
        truncated: false,
    };
    let tags = released(repo, head, range.tags)?;
    // Releases the previous run already covered.
    let covered = match since {
        Some(since) => reachable(repo, since, &tags)?,
        None => HashSet::new(),
    };
    let every_tag: Vec<Oid> = range.tags.list.iter().map(|t| t.commit).collect();
    let mut releases: Vec<Release> = Vec::new();
    let unreleased_hidden: Vec<Oid> = every_tag
        .iter()
        .copied()
        .chain(tags.iter().map(|t| t.commit))
        .chain(since)
        .collect();
    walker.walk(head.id(), &unreleased_hidden, None, &mut releases)?;
    let mut counted = 0;
    let mut tags_in_range = Vec::new();
    for (i, tag) in tags.iter().enumerate().rev() {
        if counted >= release_cap || walker.truncated {
            break;
        }
        if covered.contains(&tag.commit) {
            continue;
        }
        tags_in_range.push(tag.semver.clone());
        let tag = &Tag {
            previous: previous(repo, &tags, i),
            ..tag.clone()
        };
        let hidden: Vec<Oid> = range
            .tags
            .list
            .iter()
            .chain(&tags)
            .filter(|lower| hides(lower, tag))
            .map(|lower| lower.commit)
            .chain(since)
            .collect();
        let before = releases.len();
        walker.walk(tag.commit, &hidden, Some(tag.clone()), &mut releases)?;
        if releases.len() > before
            && releases
                .last()
                .is_some_and(|r| r.commits.iter().any(|c| (range.listed)(c)))
        {
            counted += 1;
        }
    }
    let cherry_picks = drop_cherry_picks(repo, &mut releases);
    releases.retain(|r| !r.commits.is_empty());
    Ok(History {
        releases,
        since_found,
        truncated: walker.truncated,
        walked: walker.walked,
        cut: walker.cut,
        renames: walker.renamed.paths.len(),
        cherry_picks,
        tags_in_range,
    })
}

/// Whether `release`'s commits exclude those `lower` reaches: every lower version does, but
/// a pre-release of the same version, which folds into it.
fn hides(lower: &Tag, release: &Tag) -> bool {
    let folds = release.semver.pre.is_empty()
        && !lower.semver.pre.is_empty()
        && (lower.semver.major, lower.semver.minor, lower.semver.patch)
            == (
                release.semver.major,
                release.semver.minor,
                release.semver.patch,
            );
    lower.semver < release.semver && !folds
}

/// The releases the changelog shows at `head`, lowest version first: the tags HEAD's history
/// holds (a tag on a copy of a release commit counts where that commit is), and releases of
/// maintenance lines that HEAD's history does not hold but that were cut before it, below
/// its newest release; pre-releases whose final release is among them fold into it.
fn released(
    repo: &Repository,
    head: &git2::Commit,
    tags: &Tags,
) -> Result<Vec<Tag>, PipelineError> {
    let in_history = reachable(repo, head.id(), &tags.list)?;
    let mut searches = 0;
    // Each tag where HEAD's history holds it, or `None` for a tag it does not hold.
    let mut placed: Vec<(Tag, bool)> = Vec::new();
    for tag in &tags.list {
        if in_history.contains(&tag.commit) {
            placed.push((tag.clone(), true));
            continue;
        }
        if tag.subject.is_some() && searches < MAX_MOVED_SEARCHES {
            searches += 1;
            if let Some(copy) = moved(repo, head.id(), tag)? {
                let tag = Tag {
                    commit: copy,
                    ..tag.clone()
                };
                placed.push((tag, true));
                continue;
            }
        }
        placed.push((tag.clone(), false));
    }
    let newest = placed
        .iter()
        .filter(|(_, held)| *held)
        .map(|(t, _)| t.semver.clone())
        .max();
    let head_time = head.time().seconds();
    // A release HEAD's history does not hold is one of a maintenance line when it is below
    // the newest release HEAD holds and was cut before HEAD; else it is a later one.
    let mut kept: Vec<Tag> = placed
        .into_iter()
        .filter(|(t, held)| {
            *held || (newest.as_ref().is_some_and(|n| t.semver < *n) && t.time <= head_time)
        })
        .map(|(t, _)| t)
        .collect();
    let finals: HashSet<(u64, u64, u64)> = kept
        .iter()
        .filter(|t| t.semver.pre.is_empty())
        .map(|t| (t.semver.major, t.semver.minor, t.semver.patch))
        .collect();
    kept.retain(|t| {
        t.semver.pre.is_empty()
            || !finals.contains(&(t.semver.major, t.semver.minor, t.semver.patch))
    });
    Ok(kept)
}

/// The compare link's base for `tags[i]`: the highest lower release its history holds
/// (among the nearest [`MAX_MOVED_SEARCHES`]), else the next lower version.
fn previous(repo: &Repository, tags: &[Tag], i: usize) -> Option<String> {
    let release = tags.get(i)?;
    let lower = &tags[..i];
    lower
        .iter()
        .rev()
        .take(MAX_MOVED_SEARCHES)
        .find(|l| {
            repo.graph_descendant_of(release.commit, l.commit)
                .unwrap_or(false)
        })
        .or(lower.last())
        .map(|l| l.name.clone())
}

/// Which of `tags`' commits `from`'s history holds (at most [`MAX_WALKED`] commits read).
fn reachable(repo: &Repository, from: Oid, tags: &[Tag]) -> Result<HashSet<Oid>, PipelineError> {
    let wanted: HashSet<Oid> = tags.iter().map(|t| t.commit).collect();
    let mut found = HashSet::new();
    if wanted.is_empty() {
        return Ok(found);
    }
    let mut walk = repo.revwalk()?;
    walk.push(from)?;
    for (i, oid) in walk.enumerate() {
        if i >= MAX_WALKED || found.len() == wanted.len() {
            break;
        }
        let oid = oid?;
        if wanted.contains(&oid) {
            found.insert(oid);
        }
    }
    Ok(found)
}

/// The commit of HEAD's history that `tag`'s commit is a copy of (a release commit amended
/// or rebased after tagging): same subject, naming the tag's version, after the tagged
/// commit's parents.
fn moved(repo: &Repository, head: Oid, tag: &Tag) -> Result<Option<Oid>, PipelineError> {
    let Some(subject) = &tag.subject else {
        return Ok(None);
    };
    let tagged = repo.find_commit(tag.commit)?;
    let mut walk = repo.revwalk()?;
    walk.push(head)?;
    for parent in tagged.parent_ids() {
        walk.hide(parent)?;
    }
    for (i, oid) in walk.enumerate() {
        if i >= MAX_WALKED {
            break;
        }
        let oid = oid?;
        let commit = repo.find_commit(oid)?;
        if commit
            .summary_bytes()
            .map(String::from_utf8_lossy)
            .as_deref()
            == Some(subject)
        {
            return Ok(Some(oid));
        }
    }
    Ok(None)
}

/// The walks of one run, with what they share: renames followed, pull requests found, caps.
struct Walker<'a> {
    repo: &'a Repository,
    matcher: &'a FeatureMatcher,
    max_message_bytes: usize,
    renamed: Renamed,
    pulls: Pulls,
    /// Where each pull request's entry is: (index in the releases, index in its commits).
    pull_entries: HashMap<usize, (usize, usize)>,
    listed: usize,
    walked: usize,
    cut: usize,
    truncated: bool,
}

impl Walker<'_> {
    /// Appends to `releases` the release of `tag` (none: Unreleased) made of the commits of
    /// the feature `from` reaches and `hidden` do not, when there is one.
    fn walk(
        &mut self,
        from: Oid,
        hidden: &[Oid],
        tag: Option<Tag>,
        releases: &mut Vec<Release>,
    ) -> Result<(), PipelineError> {
        let repo = self.repo;
        let mut walk = repo.revwalk()?;
        walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME)?;
        walk.push(from)?;
        for oid in hidden {
            walk.hide(*oid)?;
        }
        let index = releases.len();
        let mut commits: Vec<CommitInfo> = Vec::new();
        for oid in walk {
            let oid = oid?;
            self.walked += 1;
            if self.listed >= MAX_COMMITS || self.walked > MAX_WALKED {
                self.truncated = true;
                break;
            }
            let commit = repo.find_commit(oid)?;
            // A merge brings in commits that are listed themselves; its own message is noise,
            // but for a pull request's title.
            if commit.parent_count() > 1 {
                self.pulls.merged(repo, &commit, self.max_message_bytes)?;
                continue;
            }
            let Some(changed) = touches(repo, &commit, self.matcher, &mut self.renamed)? else {
                continue;
            };
            let pull = self.pulls.of(oid);
            if let Some(pull) = pull {
                if let Some(&(release, at)) = self.pull_entries.get(&pull) {
                    let entry = match releases.get_mut(release) {
                        Some(earlier) => earlier.commits.get_mut(at),
                        None => commits.get_mut(at),
                    };
                    if let Some(entry) = entry {
                        entry.housekeeping &= changed.housekeeping;
                        entry.chores &= changed.chores;
                    }
                    continue;
                }
                self.pull_entries.insert(pull, (index, commits.len()));
            }
            let (message, message_cut) = match pull {
                Some(pull) => (self.pulls.title(pull).to_string(), false),
                None => cut_text(commit.message_bytes(), self.max_message_bytes),
            };
            let author = commit.author();
            let (name, name_cut) = cut_text(author.name_bytes(), self.max_message_bytes);
            let (email, email_cut) = cut_text(author.email_bytes(), self.max_message_bytes);
            self.cut += usize::from(message_cut || name_cut || email_cut);
            self.listed += 1;
            commits.push(CommitInfo {
                sha: oid.to_string(),
                message,
                author: name,
                email,
                time: commit.time().seconds(),
                housekeeping: changed.housekeeping,
                chores: changed.chores,
            });
        }
        if !commits.is_empty() {
            releases.push(Release { tag, commits });
        }
        Ok(())
    }
}

/// Leaves out the copies of a change listed more than once (a fix cherry-picked onto a
/// maintenance branch, whatever its new subject says): commits on different lines (neither
/// holds the other) with the same patch id are one change, listed where it was first
/// released, the lowest version. A change re-applied after its revert holds the original,
/// and stays. Returns how many were left out.
fn drop_cherry_picks(repo: &Repository, releases: &mut [Release]) -> usize {
    // Only commits that change the same files can have the same patch id, which is costly
    // (it reads the files): it is computed for those alone.
    let mut by_files: HashMap<Vec<Vec<u8>>, Vec<(usize, usize)>> = HashMap::new();
    for (r, release) in releases.iter().enumerate() {
        for (c, commit) in release.commits.iter().enumerate() {
            if let Some(files) = change(repo, &commit.sha).map(|(_, diff)| files(&diff)) {
                by_files.entry(files).or_default().push((r, c));
            }
        }
    }
    let mut dropped: HashSet<(usize, usize)> = HashSet::new();
    for places in by_files.values().filter(|p| p.len() > 1) {
        let mut kept: HashMap<Oid, Vec<Oid>> = HashMap::new();
        // Oldest first: the last release listed is the lowest version.
        for &(r, c) in places.iter().rev() {
            let Some((commit, diff)) = change(repo, &releases[r].commits[c].sha) else {
                continue;
            };
            let Ok(id) = diff.patchid(None) else {
                continue;
            };
            let copies = kept.entry(id).or_default();
            if copies.iter().any(|&k| !same_line(repo, k, commit)) {
                dropped.insert((r, c));
            } else {
                copies.push(commit);
            }
        }
    }
    for (r, release) in releases.iter_mut().enumerate() {
        let mut c = 0;
        release.commits.retain(|_| {
            c += 1;
            !dropped.contains(&(r, c - 1))
        });
    }
    dropped.len()
}

/// A commit's id and its change to its first parent.
fn change<'r>(repo: &'r Repository, sha: &str) -> Option<(Oid, git2::Diff<'r>)> {
    let commit = repo.find_commit(Oid::from_str(sha).ok()?).ok()?;
    let tree = commit.tree().ok()?;
    let parent = commit.parent(0).ok().and_then(|p| p.tree().ok());
    let diff = repo
        .diff_tree_to_tree(parent.as_ref(), Some(&tree), None)
        .ok()?;
    Some((commit.id(), diff))
}

/// The paths a change touches, sorted (read from the trees, not the files).
fn files(diff: &git2::Diff) -> Vec<Vec<u8>> {
    let mut paths: Vec<Vec<u8>> = diff
        .deltas()
        .flat_map(|d| [d.old_file().path_bytes(), d.new_file().path_bytes()])
        .flatten()
        .map(<[u8]>::to_vec)
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

/// Whether one of two commits holds the other: a change and its re-application after a
/// revert, not a copy on another line.
fn same_line(repo: &Repository, a: Oid, b: Oid) -> bool {
    a == b
        || repo.graph_descendant_of(a, b).unwrap_or(false)
        || repo.graph_descendant_of(b, a).unwrap_or(false)
}
