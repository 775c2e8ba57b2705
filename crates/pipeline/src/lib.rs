//! The content pipeline: a git repository in, validated MDX articles and their provenance
//! out (stages resolve, collect, extract, render, validate), plus the drift check that
//! compares a provenance with the repository's current HEAD. It needs neither HTTP nor a
//! database; the service calls it from its run workers and stores what it returns.

pub mod article_files;
mod builtin;
mod drift;
mod error;
mod feature_cache;
mod limits;
mod log;
mod provenance;
mod render;
mod run;
mod source;
mod touched;

pub use domain::{Change, ChangeKind};
pub use drift::DriftChecker;
pub use error::{MdxError, PipelineError};
pub use feature_cache::FeatureCache;
pub use limits::Limits;
pub use log::{DiscardLog, LogSink};
pub use provenance::{FileRole, FileSource, Provenance, StepsSource, SymbolSource};
pub use render::mdx::anchors::{Anchors, heading_slug, text_of};
pub use render::mdx::frontmatter::Frontmatter;
pub use render::mdx::plain::{MAX_PLAIN_TEXT_BYTES, plain_text};
pub use render::mdx::validate::{
    ALLOWED_COMPONENTS, ParseRefusal, parse_mdx, url_is_allowed, validate_mdx,
};
pub use run::{GeneratedArticle, RunOutput, RunRequest, run};
pub use source::code::{Symbol, SymbolKind};
pub use source::docs::Prose;
pub use source::forge::{Forge, ForgeConfig, ForgeKind, encode_path, encode_segment};
pub use source::manifest::{
    DeclaredFeature, Feature, MANIFEST_PATH, Step, declared_features, resolve_feature,
};
pub use source::repository::{is_git_repository, limit_pack_mappings};
pub use touched::{Touched, touched_features};
