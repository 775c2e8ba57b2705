//! MDX: text escaped so that it shows literally (`escape`), the team's Markdown converted
//! (`convert`), the article's frontmatter (`frontmatter`), and every body checked to parse
//! and to hold only what the portal renders safely (`validate`, with `nesting` as its cheap
//! bound before the parser).

pub mod anchors;
pub(crate) mod convert;
pub(crate) mod escape;
pub mod frontmatter;
pub(crate) mod nesting;
pub(crate) mod plain;
pub(crate) mod validate;

pub(crate) use escape::{code_block, code_span, escape_text, jsx_attribute, mdx_comment};
