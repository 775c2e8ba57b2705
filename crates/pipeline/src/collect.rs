//! Stage `collect`: the feature's files at HEAD with their blob ids, and the commits that
//! touched them. The feature's files are counted and weighed here, before any is read, against
//! `max_feature_files` and `max_feature_bytes`.

use git2::{Commit, ObjectType, Oid, Repository, Sort, Tree, TreeWalkMode, TreeWalkResult};
use globset::{GlobSet, GlobSetBuilder};
use std::path::Path;

use crate::error::PipelineError;
use crate::feature::Feature;
use crate::limits::Limits;
use crate::paths::{MODE_LINK, MODE_SUBMODULE, check_link_entry, has_glob_syntax, literal_prefix};

/// At most this many commits go into a changelog (a first run reads the newest releases, a
/// repository without release tags its newest commits up to this cap).
pub const MAX_COMMITS: usize = 500;
/// Never walk more history than this looking for commits that touch a feature.
const MAX_WALKED: usize = 100_000;
/// A pull request of more commits than this (GitHub lists at most 250) is not grouped: its
/// commits are listed one by one.
const MAX_PULL_COMMITS: usize = 250;

#[derive(Clone, Debug)]
pub(crate) struct RepoFile {
    pub path: String,
    pub blob: Oid,
    pub bytes: u64,
}

#[derive(Clone, Debug)]
pub(crate) struct CommitInfo {
    pub sha: String,
    pub message: String,
    pub author: String,
    pub email: String,
    pub time: i64,
    /// Every file the commit changes is documentation, a test, CI or tooling configuration,
    /// or a lock file ([`is_housekeeping_path`]): what a commit without a Conventional
    /// Commits type is, when its subject cannot say.
    pub housekeeping: bool,
}

/// Which repository paths belong to a feature.
pub(crate) struct FeatureMatcher {
    globs: GlobSet,
    /// The folders (or files) the globs can match under; empty when one glob starts with a
    /// wildcard and the whole tree must be searched.
    prefixes: Vec<String>,
}

impl FeatureMatcher {
    pub fn new(feature: &Feature, tree: &Tree) -> Result<Self, PipelineError> {
        let mut builder = GlobSetBuilder::new();
        let mut prefixes = Vec::new();
        let mut whole_tree = false;
        let mut add = |pattern: &str| -> Result<(), PipelineError> {
            let glob = crate::paths::glob(pattern).map_err(|e| {
                PipelineError::InvalidManifest(format!(
                    "feature '{}': invalid glob '{pattern}': {}",
                    feature.id,
                    e.kind()
                ))
            })?;
            builder.add(glob);
            Ok(())
        };
        for pattern in &feature.paths {
            add(pattern)?;
            // A plain folder name means everything under it.
            if !has_glob_syntax(pattern)
                && tree
                    .get_path(Path::new(pattern))
                    .is_ok_and(|e| e.kind() == Some(ObjectType::Tree))
            {
                add(&format!("{pattern}/**"))?;
            }
            let prefix = literal_prefix(pattern);
            if prefix.is_empty() {
                whole_tree = true;
            } else {
                prefixes.push(prefix);
            }
        }
        let globs = builder
            .build()
            .map_err(|e| PipelineError::InvalidManifest(e.to_string()))?;
        if whole_tree {
            prefixes.clear();
        }
        prefixes.sort();
        prefixes.dedup();
        Ok(Self { globs, prefixes })
    }

    pub fn is_match(&self, path: &str) -> bool {
        self.globs.is_match(path)
    }

    /// Whether `tree` holds at least one path of the feature.
    pub fn matches_any(&self, tree: &Tree) -> bool {
        let mut found = false;
        // An aborted walk reports an error: `found` says why it stopped.
        let _ = tree.walk(TreeWalkMode::PreOrder, |root, entry| {
            let Ok(name) = entry.name() else {
                return TreeWalkResult::Skip;
            };
            let path = format!("{root}{name}");
            match entry.kind() {
                Some(ObjectType::Tree) if !self.may_contain(&path) => TreeWalkResult::Skip,
                Some(ObjectType::Blob) if self.is_match(&path) => {
                    found = true;
                    TreeWalkResult::Abort
                }
                _ => TreeWalkResult::Ok,
            }
        });
        found
    }

    /// Whether the folder `dir` (no trailing slash) may contain matching paths.
    fn may_contain(&self, dir: &str) -> bool {
        self.prefixes.is_empty()
            || self.prefixes.iter().any(|p| {
                p == dir || p.starts_with(&format!("{dir}/")) || dir.starts_with(&format!("{p}/"))
            })
    }

    /// The ids of the subtrees (or blobs) at the prefixes: equal ids mean no matching path
    /// changed between two trees.
    fn fingerprint(&self, tree: &Tree) -> Vec<Option<Oid>> {
        self.prefixes
            .iter()
            .map(|p| tree.get_path(Path::new(p)).ok().map(|e| e.id()))
            .collect()
    }
}

/// The regular files (and executables) under the feature's globs at `tree`, sorted by path.
/// Symlinks are never followed; one that points out of the repository is an error. More than
/// `max_feature_files` files, or more than `max_feature_bytes` bytes in all, fail the run.
pub(crate) fn files(
    repo: &Repository,
    tree: &Tree,
    matcher: &FeatureMatcher,
    feature_id: &str,
    limits: &Limits,
) -> Result<Vec<RepoFile>, PipelineError> {
    let mut found = Vec::new();
    let mut links = Vec::new();
    let walked = tree.walk(TreeWalkMode::PreOrder, |root, entry| {
        let Ok(name) = entry.name() else {
            return TreeWalkResult::Skip;
        };
        let path = format!("{root}{name}");
        match entry.kind() {
            Some(ObjectType::Tree) => {
                if matcher.may_contain(&path) {
                    TreeWalkResult::Ok
                } else {
                    TreeWalkResult::Skip
                }
            }
            Some(ObjectType::Blob) if matcher.is_match(&path) => {
                if entry.filemode() == MODE_LINK {
                    links.push((path, entry.id()));
                } else if entry.filemode() != MODE_SUBMODULE {
                    found.push((path, entry.id()));
                }
                // Stop as soon as the cap is crossed: a tree of a million files is not listed.
                if found.len() > limits.max_feature_files {
                    TreeWalkResult::Abort
                } else {
                    TreeWalkResult::Ok
                }
            }
            _ => TreeWalkResult::Ok,
        }
    });
    if found.len() > limits.max_feature_files {
        return Err(PipelineError::LimitExceeded {
            what: "the number of the feature's files".into(),
            limit: "max_feature_files",
            value: limits.max_feature_files as u64,
            detail: format!("feature '{feature_id}' matches more files"),
        });
    }
    walked?;
    for (path, id) in links {
        check_link_entry(repo, &path, id)?;
    }
    // Sizes come from the object headers: nothing is read or inflated before the cap holds.
    let odb = repo.odb()?;
    let mut total = 0u64;
    let mut files = Vec::with_capacity(found.len());
    for (path, blob) in found {
        let (bytes, _) = odb.read_header(blob)?;
        let bytes = bytes as u64;
        total = total.saturating_add(bytes);
        files.push(RepoFile { path, blob, bytes });
    }
    if total > limits.max_feature_bytes {
        return Err(PipelineError::LimitExceeded {
            what: "the size of the feature's files".into(),
            limit: "max_feature_bytes",
            value: limits.max_feature_bytes,
            detail: format!(
                "feature '{feature_id}': {total} bytes in {} files",
                files.len()
            ),
        });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

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

/// The pull requests merged by the merges a history walk meets, and which commits are theirs.
/// Finding them is bounded: the main line (the first parents from the first merge met) and
/// each pull request's commits (the first parents from its merged commit down to the main
/// line) together walk at most [`MAX_WALKED`] commits; past that, commits are listed alone.
#[derive(Default)]
struct Pulls {
    /// "<title> (#N)" of each pull request found.
    titles: Vec<String>,
    /// Each commit of a pull request, with the pull request's index.
    members: std::collections::HashMap<Oid, usize>,
    /// Commits of the main line walked so far, and the next one to walk.
    main_line: std::collections::HashSet<Oid>,
    main_next: Option<Oid>,
    steps: usize,
}

impl Pulls {
    fn of(&self, commit: Oid) -> Option<usize> {
        self.members.get(&commit).copied()
    }

    fn title(&self, pull: usize) -> &str {
        self.titles.get(pull).map_or("", String::as_str)
    }

    /// Records the pull request `merge` merges, if it merges one.
    fn merged(
        &mut self,
        repo: &Repository,
        merge: &Commit,
        max_message_bytes: usize,
    ) -> Result<(), PipelineError> {
        let (message, _) = cut_text(merge.message_bytes(), max_message_bytes);
        let Some((number, title)) = pull_request_merge(&message) else {
            return Ok(());
        };
        let (Ok(main), Ok(merged)) = (merge.parent_id(0), merge.parent_id(1)) else {
            return Ok(());
        };
        if self.main_next.is_none() && self.main_line.is_empty() {
            self.main_next = Some(main);
        }
        let mut members = Vec::new();
        let mut next = Some(merged);
        while let Some(oid) = next {
            if self.steps >= MAX_WALKED || members.len() > MAX_PULL_COMMITS {
                return Ok(());
            }
            self.steps += 1;
            let commit = repo.find_commit(oid)?;
            if self.on_main_line(repo, oid, commit.time().seconds())? {
                break;
            }
            // Conventional Commits say more than the pull request's title: listed one by one,
            // as git-cliff lists them.
            let first_line = commit.message_bytes().split(|b| *b == b'\n').next();
            let (subject, _) = cut_text(first_line.unwrap_or_default(), 256);
            if crate::render::changelog::has_known_type(&subject) {
                return Ok(());
            }
            members.push(oid);
            next = commit.parent_id(0).ok();
        }
        let pull = self.titles.len();
        self.titles.push(format!("{title} (#{number})"));
        for oid in members {
            self.members.entry(oid).or_insert(pull);
        }
        Ok(())
    }

    /// Whether `oid` is a first parent of the main line. The main line is walked on demand,
    /// down to commits older than `oid` (`time`): further down it cannot be, but for clocks
    /// that disagree.
    fn on_main_line(
        &mut self,
        repo: &Repository,
        oid: Oid,
        time: i64,
    ) -> Result<bool, PipelineError> {
        while !self.main_line.contains(&oid) {
            let Some(next) = self.main_next else {
                return Ok(false);
            };
            if self.steps >= MAX_WALKED {
                return Ok(false);
            }
            self.steps += 1;
            let commit = repo.find_commit(next)?;
            self.main_line.insert(next);
            self.main_next = commit.parent_id(0).ok();
            if next != oid && commit.time().seconds() < time {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// The number and title of a GitHub pull request merge: "Merge pull request #12 from
/// owner/branch", a blank line, the title.
fn pull_request_merge(message: &str) -> Option<(u64, &str)> {
    let mut lines = message.lines();
    let subject = lines.next()?.trim();
    let rest = subject.strip_prefix("Merge pull request #")?;
    let (number, from) = rest.split_once(' ')?;
    if !from.starts_with("from ") {
        return None;
    }
    let number = number.parse().ok()?;
    let title = lines.map(str::trim).find(|l| !l.is_empty())?;
    Some((number, title))
}

/// Never read more tag references than this; the newest versions are kept.
pub const MAX_TAGS: usize = 10_000;

/// A release tag.
#[derive(Clone, Debug)]
pub(crate) struct Tag {
    pub name: String,
    /// The version without prefix, e.g. `1.2.3`.
    pub version: String,
    /// Commit time of the tagged commit.
    pub time: i64,
    /// The tag of the next lower version, for the compare link.
    pub previous: Option<String>,
}

/// Which tag names are releases: `<prefix>[v]<semver>` by default (`v1.2.3`, `1.2.3`,
/// `pkg@1.2.3` with prefix `pkg@`, `pkg-v1.2.3` with prefix `pkg-`), or a regular expression
/// whose group `version` (else the first group, else the whole match) is the version.
pub(crate) struct TagRule {
    pub prefix: String,
    pub pattern: Option<regex::Regex>,
    pub prereleases: bool,
}

impl TagRule {
    pub fn version(&self, name: &str) -> Option<semver::Version> {
        let text = match &self.pattern {
            Some(pattern) => {
                let caps = pattern.captures(name)?;
                caps.name("version")
                    .or_else(|| caps.get(1))
                    .or_else(|| caps.get(0))?
                    .as_str()
            }
            None => name.strip_prefix(self.prefix.as_str())?,
        };
        let text = text.strip_prefix(['v', 'V']).unwrap_or(text);
        let version = semver::Version::parse(text).ok().or_else(|| {
            // `v1.2` is a release too.
            let (major, minor) = text.split_once('.')?;
            let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            (numeric(major) && numeric(minor))
                .then(|| semver::Version::parse(&format!("{text}.0")).ok())
                .flatten()
        })?;
        (self.prereleases || version.pre.is_empty()).then_some(version)
    }
}

/// The repository's release tags, by the commit they point to.
#[derive(Default)]
pub(crate) struct Tags {
    by_commit: std::collections::HashMap<Oid, Tag>,
    /// Tags whose commit's subject names their version (`bump: version 1.2.2 → 1.2.3`), by
    /// that subject, with the tagged commit.
    by_subject: std::collections::HashMap<String, (Oid, Tag)>,
    /// True when the repository has more tags than [`MAX_TAGS`].
    pub capped: bool,
    pub count: usize,
}

impl Tags {
    pub fn read(repo: &Repository, rule: &TagRule) -> Result<Tags, PipelineError> {
        let mut found: Vec<(semver::Version, String, Oid, i64, Option<String>)> = Vec::new();
        let mut capped = false;
        for (seen, reference) in repo.references_glob("refs/tags/*")?.enumerate() {
            if seen >= MAX_TAGS {
                capped = true;
                break;
            }
            let Ok(reference) = reference else { continue };
            let Ok(name) = reference.shorthand().map(str::to_string) else {
                continue;
            };
            let Some(version) = rule.version(&name) else {
                continue;
            };
            // A tag of a tree or a blob is no release.
            let Ok(commit) = reference.peel_to_commit() else {
                continue;
            };
            let subject = commit
                .summary_bytes()
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .filter(|s| s.contains(&version.to_string()));
            found.push((version, name, commit.id(), commit.time().seconds(), subject));
        }
        found.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
        let count = found.len();
        let mut by_commit = std::collections::HashMap::new();
        let mut by_subject = std::collections::HashMap::new();
        let mut previous: Option<String> = None;
        for (version, name, commit, time, subject) in found {
            let tag = Tag {
                name: name.clone(),
                version: version.to_string(),
                time,
                previous: previous.replace(name),
            };
            if let Some(subject) = subject {
                by_subject.insert(subject, (commit, tag.clone()));
            }
            // Two tags on one commit: the higher version names the release.
            by_commit.insert(commit, tag);
        }
        Ok(Tags {
            by_commit,
            by_subject,
            capped,
            count,
        })
    }

    fn at(&self, commit: Oid) -> Option<&Tag> {
        self.by_commit.get(&commit)
    }

    /// The release of a tag put on a copy of `commit` that is not in HEAD's history (a release
    /// commit amended or rebased after tagging): same subject, naming the tag's version.
    fn moved(&self, repo: &Repository, head: &Commit, commit: &Commit) -> Option<&Tag> {
        let subject = String::from_utf8_lossy(commit.summary_bytes()?);
        let (tagged, tag) = self.by_subject.get(subject.as_ref())?;
        let in_history =
            *tagged == head.id() || repo.graph_descendant_of(head.id(), *tagged).unwrap_or(true);
        (*tagged != commit.id() && !in_history).then_some(tag)
    }
}

/// At most this many earlier paths of renamed files are followed.
const MAX_RENAMED_PATHS: usize = 1_000;
/// Rename detection compares at most this many added and deleted files of one commit.
const RENAME_CANDIDATES: usize = 1_000;

/// Earlier paths of the feature's files, found by rename detection while walking back.
#[derive(Default)]
struct Renamed {
    paths: std::collections::BTreeSet<String>,
}

impl Renamed {
    fn contains(&self, path: &str) -> bool {
        self.paths.contains(path)
    }
}

/// The text of `bytes`, cut to at most `max` bytes at a character boundary; true when cut.
fn cut_text(bytes: &[u8], max: usize) -> (String, bool) {
    if bytes.len() <= max {
        return (String::from_utf8_lossy(bytes).into_owned(), false);
    }
    let mut end = max;
    // Back off the continuation bytes of a UTF-8 character the cut would split.
    while end > 0 && bytes[end] & 0b1100_0000 == 0b1000_0000 {
        end -= 1;
    }
    (String::from_utf8_lossy(&bytes[..end]).into_owned(), true)
}

/// What a commit that touches the feature changes.
struct Changed {
    /// Every path it changes is housekeeping ([`is_housekeeping_path`]).
    housekeeping: bool,
}

/// `Some` when `commit` changes a path of the feature.
fn touches(
    repo: &Repository,
    commit: &Commit,
    matcher: &FeatureMatcher,
    renamed: &mut Renamed,
) -> Result<Option<Changed>, PipelineError> {
    let tree = commit.tree()?;
    let parent = match commit.parent(0) {
        Ok(parent) => Some(parent.tree()?),
        Err(_) => None,
    };
    differs(repo, parent.as_ref(), &tree, matcher, renamed)
}

fn differs(
    repo: &Repository,
    old: Option<&Tree>,
    new: &Tree,
    matcher: &FeatureMatcher,
    renamed: &mut Renamed,
) -> Result<Option<Changed>, PipelineError> {
    if !matcher.prefixes.is_empty() {
        let print = |tree: &Tree| {
            let mut ids = matcher.fingerprint(tree);
            ids.extend(
                renamed
                    .paths
                    .iter()
                    .map(|p| tree.get_path(Path::new(p)).ok().map(|e| e.id())),
            );
            ids
        };
        let before = old.map(print);
        let after = print(new);
        match before {
            Some(before) if before == after => return Ok(None),
            None if after.iter().all(Option::is_none) => return Ok(None),
            _ => {}
        }
    }
    let mut diff = repo.diff_tree_to_tree(old, Some(new), None)?;
    let ours = |path: Option<&Path>| {
        path.and_then(|p| p.to_str())
            .is_some_and(|p| matcher.is_match(p) || renamed.contains(p))
    };
    let mut touched = false;
    let mut added = false;
    let mut housekeeping = true;
    for delta in diff.deltas() {
        let new_ours = ours(delta.new_file().path());
        touched |= new_ours || ours(delta.old_file().path());
        added |= new_ours && delta.status() == git2::Delta::Added;
        housekeeping &= [delta.new_file().path(), delta.old_file().path()]
            .into_iter()
            .flatten()
            .all(|p| p.to_str().is_some_and(is_housekeeping_path));
    }
    if !touched {
        return Ok(None);
    }
    // A file that appears in the feature may have been moved there: its earlier path's
    // commits are the feature's history too.
    if added && renamed.paths.len() < MAX_RENAMED_PATHS {
        let mut options = git2::DiffFindOptions::new();
        options.renames(true).rename_limit(RENAME_CANDIDATES);
        diff.find_similar(Some(&mut options))?;
        let earlier: Vec<String> = diff
            .deltas()
            .filter(|d| d.status() == git2::Delta::Renamed && ours(d.new_file().path()))
            .filter_map(|d| d.old_file().path()?.to_str().map(str::to_string))
            .filter(|from| !matcher.is_match(from))
            .collect();
        for from in earlier {
            if renamed.paths.len() >= MAX_RENAMED_PATHS {
                break;
            }
            renamed.paths.insert(from);
        }
    }
    Ok(Some(Changed { housekeeping }))
}

/// Folders whose files are documentation, tests, examples, benchmarks, CI or editor set-up
/// wherever they are.
const HOUSEKEEPING_FOLDERS: &[&str] = &[
    "docs",
    "doc",
    "test",
    "tests",
    "__tests__",
    "testdata",
    "fixtures",
    "benches",
    "bench",
    "benchmark",
    "benchmarks",
    "examples",
    ".github",
    ".gitlab",
    ".circleci",
    ".devcontainer",
    ".vscode",
    ".idea",
    ".husky",
    ".changeset",
    "requirements",
];

/// Files that are documentation, CI, tooling configuration or lock files.
const HOUSEKEEPING_FILES: &[&str] = &[
    ".gitignore",
    ".gitattributes",
    ".gitmodules",
    ".mailmap",
    ".editorconfig",
    ".npmignore",
    ".prettierignore",
    ".eslintignore",
    ".travis.yml",
    ".gitlab-ci.yml",
    ".cirrus.yml",
    "appveyor.yml",
    "azure-pipelines.yml",
    "codecov.yml",
    ".codecov.yml",
    "renovate.json",
    ".renovaterc",
    ".renovaterc.json",
    "rustfmt.toml",
    ".rustfmt.toml",
    "clippy.toml",
    ".clippy.toml",
    "deny.toml",
    "rust-toolchain",
    "rust-toolchain.toml",
    ".golangci.yml",
    ".golangci.yaml",
    ".pre-commit-config.yaml",
    ".devcontainer.json",
    "CODEOWNERS",
    "Cargo.lock",
    "package-lock.json",
    "pnpm-lock.yaml",
    "yarn.lock",
    "bun.lockb",
    "go.sum",
    "poetry.lock",
    "uv.lock",
    "tox.ini",
    "noxfile.py",
    ".flake8",
    ".pylintrc",
    "mypy.ini",
    "pytest.ini",
    ".coveragerc",
    "ruff.toml",
    ".ruff.toml",
    ".readthedocs.yaml",
    ".readthedocs.yml",
    ".pre-commit-config.yml",
    ".pre-commit-hooks.yaml",
    ".nvmrc",
    ".node-version",
    ".python-version",
    ".tool-versions",
    ".dockerignore",
    ".prettierrc",
];

/// Whether a change to `path` alone is housekeeping: documentation (Markdown and other text
/// formats, images, `LICENSE`), tests (test folders, `*_test.go`, `*.test.js`, `test_*.py`),
/// CI, tooling configuration, lock files. Such a commit is not news for a changelog.
pub(crate) fn is_housekeeping_path(path: &str) -> bool {
    let (folders, name) = path.rsplit_once('/').unwrap_or(("", path));
    if folders
        .split('/')
        .any(|f| HOUSEKEEPING_FOLDERS.contains(&f))
    {
        return true;
    }
    if HOUSEKEEPING_FILES.contains(&name) {
        return true;
    }
    let lower = name.to_ascii_lowercase();
    let (stem, extension) = lower.rsplit_once('.').unwrap_or((lower.as_str(), ""));
    let prefixed = |p: &str| lower.starts_with(p);
    matches!(
        extension,
        "md" | "markdown"
            | "mdx"
            | "rst"
            | "adoc"
            | "txt"
            | "png"
            | "jpg"
            | "jpeg"
            | "gif"
            | "svg"
            | "webp"
            | "ico"
    ) || [
        "license",
        "licence",
        "copying",
        "authors",
        "contributors",
        "notice",
    ]
    .iter()
    .any(|p| prefixed(p))
        || prefixed(".eslintrc")
        || prefixed(".prettierrc")
        || prefixed("eslint.config.")
        || prefixed(".size-limit")
        || crate::extract::is_test_file(path)
        // Test files of languages the extractor does not read (`x_test.rb`, `x.spec.rb`).
        || stem.ends_with("_test")
        || stem.ends_with(".test")
        || stem.ends_with(".spec")
}

#[cfg(test)]
mod tests {
    use super::pull_request_merge;

    #[test]
    fn a_known_conventional_type_is_told_from_a_word_before_a_colon() {
        use crate::render::changelog::has_known_type;
        for typed in ["feat: x", "fix(io)!: y", "Docs: z", "perf(a,b): w"] {
            assert!(has_known_type(typed), "{typed}");
        }
        for untyped in [
            "Review: fixed",
            "macros: fix",
            "Fixed key comparison",
            "v1.2: x",
        ] {
            assert!(!has_known_type(untyped), "{untyped}");
        }
    }

    #[test]
    fn a_pull_request_merge_is_read_from_its_message() {
        assert_eq!(
            pull_request_merge("Merge pull request #732 from me/fix\n\nFixed key comparison\n"),
            Some((732, "Fixed key comparison"))
        );
        for other in [
            "Merge pull request #732 from me/fix",
            "Merge branch 'main' into fix\n\nFixed",
            "Merge pull request #x from me/fix\n\nTitle",
            "Merge pull request #7 into main\n\nTitle",
        ] {
            assert_eq!(pull_request_merge(other), None, "{other}");
        }
    }
}
