//! Release tags: which tags name a release of the feature's package, their versions and
//! commits.
//!
//! A tag names a version alone (`v1.2.3`, `1.2.3`) or a package's version, in the forms
//! cargo-release, changesets, release-please and Go modules write: `name-v1.2.3`,
//! `name@1.2.3`, `@scope/name@1.2.3`, `path/to/module/v1.2.3`. Without `[changelog]
//! tag_prefix` or `tag_pattern`, the tags read are those of the feature's package (its
//! nearest package manifest's name, or its folder), else the unprefixed ones, else those of
//! the only package that has tags.

use git2::{Oid, Repository};

use crate::error::PipelineError;

/// Never read more tag references than this; the newest versions are kept.
pub const MAX_TAGS: usize = 10_000;

/// A release tag.
#[derive(Clone, Debug)]
pub(crate) struct Tag {
    pub name: String,
    /// The version without prefix, e.g. `1.2.3`.
    pub version: String,
    pub semver: semver::Version,
    /// The tagged commit.
    pub commit: Oid,
    /// Commit time of the tagged commit.
    pub time: i64,
    /// The release's day (`YYYY-MM-DD`): an annotated tag's own date, else the tagged
    /// commit's, each in its author's time zone, as the project's changelog dates it.
    pub date: String,
    /// The tag of the release before it on its line, for the compare link.
    pub previous: Option<String>,
    /// The tagged commit's subject, when it names the version (`chore: release 1.2.3`).
    pub subject: Option<String>,
}

/// Which tag names are releases: `<prefix>[v]<semver>` with `[changelog] tag_prefix`
/// (`pkg@` for `pkg@1.2.3`, `pkg-` for `pkg-v1.2.3`), or a regular expression whose group
/// `version` (else the first group, else the whole match) is the version; without either,
/// the feature's package's tags ([`Tags::read`]).
pub(crate) struct TagRule {
    pub prefix: Option<String>,
    pub pattern: Option<regex::Regex>,
    pub prereleases: bool,
}

impl TagRule {
    /// The version of `name` under the manifest's prefix or pattern; `None` when the
    /// manifest gives neither, or the name is not a release.
    fn configured(&self, name: &str) -> Option<Option<semver::Version>> {
        let text = match (&self.pattern, &self.prefix) {
            (Some(pattern), _) => pattern.captures(name).and_then(|caps| {
                caps.name("version")
                    .or_else(|| caps.get(1))
                    .or_else(|| caps.get(0))
                    .map(|m| m.as_str())
            }),
            (None, Some(prefix)) => name.strip_prefix(prefix.as_str()),
            (None, None) => return None,
        };
        Some(text.and_then(parse_version))
    }
}

/// `1.2.3`, `v1.2.3`, `1.2` (a release too) as a semver version.
fn parse_version(text: &str) -> Option<semver::Version> {
    let text = text.strip_prefix(['v', 'V']).unwrap_or(text);
    semver::Version::parse(text).ok().or_else(|| {
        let (major, minor) = text.split_once('.')?;
        let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        (numeric(major) && numeric(minor))
            .then(|| semver::Version::parse(&format!("{text}.0")).ok())
            .flatten()
    })
}

/// The package a tag names (empty for none) and its version: `v1.2.3`, `name-v1.2.3`,
/// `name-1.2.3`, `name@1.2.3`, `@scope/name@v1.2.3`, `path/to/module/v1.2.3`.
pub(crate) fn split_tag(name: &str) -> Option<(&str, semver::Version)> {
    if let Some(version) = parse_version(name) {
        return Some(("", version));
    }
    // `@scope/name@1.2.3`: the last `@` ends the package; a leading one is its scope's.
    if let Some((package, version)) = name.rsplit_once('@')
        && !package.is_empty()
    {
        return Some((package, parse_version(version)?));
    }
    if let Some((package, version)) = name.rsplit_once('/') {
        return Some((package, parse_version(version)?));
    }
    // `my-crate-1.2.3`: the first dash after which a version follows.
    name.match_indices('-').find_map(|(i, _)| {
        let package = &name[..i];
        (!package.is_empty())
            .then(|| parse_version(&name[i + 1..]))
            .flatten()
            .map(|version| (package, version))
    })
}

/// The repository's release tags of the feature's package, lowest version first.
#[derive(Default)]
pub(crate) struct Tags {
    pub(crate) list: Vec<Tag>,
    /// True when the repository has more tags than [`MAX_TAGS`].
    pub capped: bool,
    pub count: usize,
    /// The package whose tags were chosen (empty: unprefixed tags or the manifest's rule).
    pub package: String,
    /// Packages with version tags that were not chosen.
    pub other_packages: usize,
}

impl Tags {
    /// The release tags under `rule`; without a prefix or pattern in the manifest, those of
    /// the first of `packages` (the feature's package names and folders) that has tags, else
    /// the unprefixed ones, else those of the only package that has tags.
    pub fn read(
        repo: &Repository,
        rule: &TagRule,
        packages: &[String],
    ) -> Result<Tags, PipelineError> {
        let mut found: Vec<(String, Tag)> = Vec::new();
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
            let (package, version) = match rule.configured(&name) {
                Some(Some(version)) => (String::new(), version),
                Some(None) => continue,
                None => match split_tag(&name) {
                    Some((package, version)) => (package.to_string(), version),
                    None => continue,
                },
            };
            if !rule.prereleases && !version.pre.is_empty() {
                continue;
            }
            // A tag of a tree or a blob is no release.
            let Ok(commit) = reference.peel_to_commit() else {
                continue;
            };
            let subject = commit
                .summary_bytes()
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .filter(|s| s.contains(&version.to_string()));
            let signed = reference
                .peel_to_tag()
                .ok()
                .and_then(|t| t.tagger().map(|s| s.when()))
                .unwrap_or_else(|| commit.time());
            let tag = Tag {
                name,
                version: version.to_string(),
                semver: version,
                commit: commit.id(),
                time: commit.time().seconds(),
                date: super::local_date(signed),
                previous: None,
                subject,
            };
            found.push((package, tag));
        }
        let mut names: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        let chosen = packages
            .iter()
            .map(String::as_str)
            .find(|p| !p.is_empty() && names.contains(p))
            .or_else(|| names.contains(&"").then_some(""))
            .or_else(|| (names.len() == 1).then(|| names[0]))
            .map(str::to_string);
        let other_packages = names.len() - usize::from(chosen.is_some());
        let mut list: Vec<Tag> = match &chosen {
            Some(chosen) => found
                .into_iter()
                .filter(|(p, _)| p == chosen)
                .map(|(_, t)| t)
                .collect(),
            None => Vec::new(),
        };
        list.sort_by(|a, b| a.semver.cmp(&b.semver).then_with(|| a.name.cmp(&b.name)));
        Ok(Tags {
            count: list.len(),
            list,
            capped,
            package: chosen.unwrap_or_default(),
            other_packages,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_tags_in_their_common_forms() {
        let v = |s: &str| semver::Version::parse(s).unwrap();
        for (name, package, version) in [
            ("v1.2.3", "", "1.2.3"),
            ("1.2", "", "1.2.0"),
            ("name-v0.8.9", "name", "0.8.9"),
            ("my-crate-1.0.0-rc.1", "my-crate", "1.0.0-rc.1"),
            ("pkg@1.2.3", "pkg", "1.2.3"),
            ("@scope/pkg@1.2.3", "@scope/pkg", "1.2.3"),
            ("pkg/v1.2.3", "pkg", "1.2.3"),
            ("tools/gopls/v0.16.1", "tools/gopls", "0.16.1"),
        ] {
            assert_eq!(split_tag(name), Some((package, v(version))), "{name}");
        }
        for name in ["latest", "nightly-2024", "@1.2.3x", "release-candidate"] {
            assert_eq!(split_tag(name), None, "{name}");
        }
    }
}
