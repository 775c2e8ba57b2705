//! Release tags: which tags name a release of the feature, their versions and commits.

use git2::{Commit, Oid, Repository};

use crate::error::PipelineError;

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
    pub(crate) by_commit: std::collections::HashMap<Oid, Tag>,
    /// Tags whose commit's subject names their version (`bump: version 1.2.2 → 1.2.3`), by
    /// that subject, with the tagged commit.
    pub(crate) by_subject: std::collections::HashMap<String, (Oid, Tag)>,
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

    pub(crate) fn at(&self, commit: Oid) -> Option<&Tag> {
        self.by_commit.get(&commit)
    }

    /// The release of a tag put on a copy of `commit` that is not in HEAD's history (a release
    /// commit amended or rebased after tagging): same subject, naming the tag's version.
    pub(crate) fn moved(&self, repo: &Repository, head: &Commit, commit: &Commit) -> Option<&Tag> {
        let subject = String::from_utf8_lossy(commit.summary_bytes()?);
        let (tagged, tag) = self.by_subject.get(subject.as_ref())?;
        let in_history =
            *tagged == head.id() || repo.graph_descendant_of(head.id(), *tagged).unwrap_or(true);
        (*tagged != commit.id() && !in_history).then_some(tag)
    }
}
