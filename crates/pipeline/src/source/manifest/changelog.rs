//! `[changelog]` of `features.toml`, as written; `source::history::Rules` checks and compiles
//! it.

use serde::Deserialize;
use std::collections::BTreeMap;

/// How many releases a feature's first run covers when `[changelog] releases` is not set.
pub const DEFAULT_RELEASES: usize = 20;
/// `[changelog]` in `features.toml`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChangelogConfig {
    /// Releases a feature's first run covers (plus the commits after the newest tag).
    pub releases: Option<usize>,
    /// Release tags are `<tag_prefix>[v]<semver>`: `pkg@` for `pkg@1.2.3`, `pkg-` for
    /// `pkg-v1.2.3`. Default: none (`v1.2.3` and `1.2.3`).
    pub tag_prefix: Option<String>,
    /// A regular expression for release tags instead; its group `version` (else its first
    /// group, else the whole match) is the semver version.
    pub tag_pattern: Option<String>,
    /// Whether pre-release tags (`1.2.0-rc.1`) are releases. Default true, as in git-cliff.
    pub prereleases: Option<bool>,
    /// Commits without a Conventional Commits type are listed, grouped by their leading
    /// verb (git-cliff's keepachangelog.toml). `false`: left out (git-cliff's
    /// `filter_unconventional`). Default true.
    pub unconventional: Option<bool>,
    /// Such commits whose verb says nothing go to an "Other" group instead of "Changed".
    /// Default false.
    pub other: Option<bool>,
    /// Rules tried in order before the built-in ones, like git-cliff's `commit_parsers`.
    #[serde(default)]
    pub parsers: Vec<ParserConfig>,
    /// Scope renames: `[changelog.scopes] cli = "Command line"`.
    #[serde(default)]
    pub scopes: BTreeMap<String, String>,
}

/// One rule: every regular expression given must match (`type` and `scope` match the whole
/// value; `subject` and `author` anywhere, so anchor them with `^` as needed); then the commit
/// goes to `group`, or is left out with `skip = true`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParserConfig {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub scope: Option<String>,
    pub subject: Option<String>,
    pub author: Option<String>,
    pub group: Option<String>,
    #[serde(default)]
    pub skip: bool,
}
