//! The content pipeline: a git repository in, validated MDX articles and their provenance
//! out (stages resolve, collect, extract, render, validate), plus the drift check that
//! compares a provenance with the repository's current HEAD. It needs neither HTTP nor a
//! database; the service calls it from its run workers and stores what it returns.

mod collect;
mod convert;
mod drift;
mod error;
mod extract;
mod feature;
mod feature_cache;
mod forge;
mod limits;
mod log;
mod mdx;
mod nesting;
mod paths;
mod prose;
mod provenance;
mod render;
mod repository;
mod run;
mod validate;
mod walkthrough;

pub use domain::{Change, ChangeKind};
pub use drift::DriftChecker;
pub use error::{MdxError, PipelineError};
pub use extract::{Prose, Symbol, SymbolKind};
pub use feature::{
    DeclaredFeature, Feature, MANIFEST_PATH, Step, declared_features, resolve_feature,
};
pub use feature_cache::FeatureCache;
pub use forge::{Forge, ForgeConfig, ForgeKind, encode_path, encode_segment};
pub use limits::Limits;
pub use log::{DiscardLog, LogSink};
pub use provenance::{FileRole, FileSource, Provenance, StepsSource, SymbolSource};
pub use repository::{head_commit_id, is_git_repository, limit_pack_mappings};
pub use run::{GeneratedArticle, RunOutput, RunRequest, run};
pub use validate::{ALLOWED_COMPONENTS, ParseRefusal, parse_mdx, url_is_allowed, validate_mdx};

/// A regular expression of the pipeline's own, a constant pattern: only those reach this, and
/// the tests of each module that declares one use it.
pub(crate) fn builtin_regex(pattern: &str) -> regex::Regex {
    regex::Regex::new(pattern).unwrap_or_else(|e| unreachable!("built-in pattern {pattern}: {e}"))
}
