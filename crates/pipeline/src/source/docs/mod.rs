//! What the repository's documents say: its Markdown read as prose (`markdown`), which
//! documents an article shows and how much of them (`selection`, `translations`), and the
//! walkthrough a document describes (`walkthrough`), what the docs call the project and how
//! they introduce it (`intro`), all read by the same words (`vocabulary`).

mod budget;
mod cross_refs;
mod directives;
mod fences;
mod frameworks;
mod html_blocks;
mod includes;
mod intro;
mod logo_walls;
mod markdown;
mod markup;
mod published;
mod pymdown;
mod rst;
mod selection;
mod shortcodes;
mod site;
mod site_chrome;
mod site_config;
mod sphinx_toc;
mod substitutions;
mod tabs;
mod tidy;
mod translations;
mod vitepress;
mod vocabulary;
pub(crate) mod walkthrough;
mod xrefs;

pub use cross_refs::heading_slug;
pub(crate) use cross_refs::resolve as resolve_cross_references;
pub(crate) use fences::Fences;
pub(crate) use includes::expand as expand_includes;
pub(crate) use intro::{distinct_titles, docs_intro, docs_title};
pub use markdown::Prose;
pub(crate) use markdown::{atx_heading, closes_fence, opens_fence, prose};
pub(crate) use selection::{
    MAX_PROSE_BYTES, for_dev_docs, for_help_center_around, for_help_center_pages, older_versions,
    summary_said, without_first_paragraph_if,
};
pub(crate) use site::{SiteOrder, site_order};
pub(crate) use substitutions::substitute;
pub(crate) use tidy::tidy;
pub(crate) use translations::translations;
