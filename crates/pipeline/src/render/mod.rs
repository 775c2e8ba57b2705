//! The surfaces: one body per surface rendered from a template (`template`) with what the
//! source model says (`context`), the developer docs' module layout (`dev_docs`), the release
//! post (`blog`), and MDX itself (`mdx`: escaping, the team's Markdown converted, frontmatter,
//! validation). Renderers read `crate::source`; nothing there reads back.

pub(crate) mod blog;
mod context;
pub(crate) mod dev_docs;
mod doc_links;
pub(crate) mod handwritten;
pub(crate) mod lede;
pub(crate) mod mdx;
pub(crate) mod pending;
mod template;
mod text;
mod written_items;

pub(crate) use context::{Context, Older, StepView, group_symbols};
pub(crate) use template::{Renderer, template_path};
