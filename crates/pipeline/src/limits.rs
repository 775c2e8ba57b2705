//! The bounds of one run or drift check. Repository content is written by tenants, so every
//! piece of work a repository can make grow (files, bytes, symbols, nesting, parse time,
//! commit messages, rendered articles, template evaluation) has a cap here; crossing one fails
//! the run with [`PipelineError::LimitExceeded`](crate::PipelineError::LimitExceeded), whose
//! message names the cap. The operator configures them; the defaults suit real repositories.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Files of the repository a feature may cover.
    pub max_feature_files: usize,
    /// Bytes of all the files a feature covers, added up.
    pub max_feature_bytes: u64,
    /// Symbols extracted from one feature.
    pub max_feature_symbols: usize,
    /// Bytes of one source or Markdown file that is parsed.
    pub max_file_bytes: u64,
    /// Nesting depth of one parsed file (brackets in source, block quotes and lists in
    /// Markdown).
    pub max_nesting_depth: usize,
    /// Milliseconds spent parsing one file.
    pub max_parse_millis: u64,
    /// Bytes of one commit message; longer messages are cut at a character boundary.
    pub max_commit_message_bytes: usize,
    /// Bytes of one rendered article.
    pub max_article_bytes: usize,
    /// Fuel of one template evaluation (minijinja instructions).
    pub max_template_fuel: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_feature_files: 5_000,
            max_feature_bytes: 64 * 1024 * 1024,
            max_feature_symbols: 20_000,
            max_file_bytes: 1024 * 1024,
            max_nesting_depth: 256,
            max_parse_millis: 2_000,
            max_commit_message_bytes: 16 * 1024,
            max_article_bytes: 2 * 1024 * 1024,
            max_template_fuel: 5_000_000,
        }
    }
}
