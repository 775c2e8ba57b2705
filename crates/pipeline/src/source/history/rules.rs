//! The `[changelog]` settings, checked and compiled: release tags, and the repository's own
//! commit parsers tried before the built-in rules.

use regex::{Regex, RegexBuilder};
use std::collections::BTreeMap;

use super::tags::TagRule;
use crate::error::PipelineError;
use crate::source::manifest::{ChangelogConfig, DEFAULT_RELEASES};

/// Longest regular expression accepted in `[changelog]` or a changelog tool's configuration.
pub(super) const MAX_PATTERN_BYTES: usize = 1024;
/// Compiled size cap of one such expression.
const MAX_REGEX_BYTES: usize = 256 * 1024;

pub(crate) struct Parser {
    pub(crate) kind: Option<Regex>,
    pub(crate) scope: Option<Regex>,
    pub(crate) subject: Option<Regex>,
    pub(crate) author: Option<Regex>,
    /// `None`: skip.
    pub(crate) group: Option<String>,
}

/// The `[changelog]` settings, checked and compiled.
pub(crate) struct Rules {
    pub releases: usize,
    pub tags: TagRule,
    pub(crate) unconventional: bool,
    pub(crate) other: bool,
    pub(crate) parsers: Vec<Parser>,
    pub(crate) scopes: BTreeMap<String, String>,
}

impl Rules {
    pub fn new(config: &ChangelogConfig) -> Result<Rules, PipelineError> {
        let mut parsers = Vec::with_capacity(config.parsers.len());
        for (i, p) in config.parsers.iter().enumerate() {
            let key = |name: &str| format!("changelog.parsers[{i}].{name}");
            let group = match (&p.group, p.skip) {
                (Some(_), true) | (None, false) => {
                    return Err(PipelineError::InvalidManifest(format!(
                        "{}: give either `group` or `skip = true`",
                        key("group")
                    )));
                }
                (Some(group), false) if group.trim().is_empty() => {
                    return Err(PipelineError::InvalidManifest(format!(
                        "{}: must not be empty",
                        key("group")
                    )));
                }
                (group, _) => group.clone(),
            };
            let whole = |v: &Option<String>, name: &str| {
                v.as_deref()
                    .map(|p| compile(&format!("^(?:{p})$"), p, &key(name)))
                    .transpose()
            };
            let anywhere = |v: &Option<String>, name: &str| {
                v.as_deref().map(|p| compile(p, p, &key(name))).transpose()
            };
            parsers.push(Parser {
                kind: whole(&p.kind, "type")?,
                scope: whole(&p.scope, "scope")?,
                subject: anywhere(&p.subject, "subject")?,
                author: anywhere(&p.author, "author")?,
                group,
            });
        }
        let pattern = config
            .tag_pattern
            .as_deref()
            .map(|p| compile(p, p, "changelog.tag_pattern"))
            .transpose()?;
        Ok(Rules {
            releases: config.releases.unwrap_or(DEFAULT_RELEASES),
            tags: TagRule {
                prefix: config.tag_prefix.clone(),
                pattern,
                prereleases: config.prereleases.unwrap_or(true),
            },
            unconventional: config.unconventional.unwrap_or(true),
            other: config.other.unwrap_or(false),
            parsers,
            scopes: config.scopes.clone(),
        })
    }
}

impl Rules {
    /// Follows a changelog tool's rules (`tools`) unless `[changelog]` gave parsers, which
    /// override them; true when followed.
    pub(crate) fn follow(&mut self, tool_parsers: Vec<Parser>) -> bool {
        if !self.parsers.is_empty() {
            return false;
        }
        self.parsers = tool_parsers;
        true
    }
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            releases: DEFAULT_RELEASES,
            tags: TagRule {
                prefix: None,
                pattern: None,
                prereleases: true,
            },
            unconventional: true,
            other: false,
            parsers: Vec::new(),
            scopes: BTreeMap::new(),
        }
    }
}

/// `source` compiled as `pattern`, with the size caps; an error names the manifest key.
fn compile(pattern: &str, source: &str, key: &str) -> Result<Regex, PipelineError> {
    if source.len() > MAX_PATTERN_BYTES {
        return Err(PipelineError::InvalidManifest(format!(
            "{key}: the regular expression is longer than {MAX_PATTERN_BYTES} bytes"
        )));
    }
    bounded(pattern).map_err(|e| {
        let reason = match e {
            regex::Error::CompiledTooBig(_) => "it is too large".to_string(),
            other => other
                .to_string()
                .lines()
                .last()
                .unwrap_or("")
                .trim()
                .to_string(),
        };
        PipelineError::InvalidManifest(format!(
            "{key}: invalid regular expression '{source}': {reason}"
        ))
    })
}

/// `pattern` compiled within the size caps (the `regex` crate matches in linear time; the
/// caps bound its memory).
pub(super) fn bounded(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .size_limit(MAX_REGEX_BYTES)
        .dfa_size_limit(MAX_REGEX_BYTES)
        .build()
}
