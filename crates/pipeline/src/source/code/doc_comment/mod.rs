//! A doc comment whole, as the language's own tool shows it, not only its first sentence:
//! its description as Markdown, its structured sections (parameters, returns, raises or
//! throws, type parameters, attributes, see also), its deprecation and its default value.
//!
//! - Python docstrings in the Google, NumPy and reStructuredText styles, as Sphinx with
//!   napoleon renders them ([`python`]);
//! - JSDoc and TSDoc tags, as TypeDoc renders them ([`jsdoc`]);
//! - Go doc comments (paragraphs, indented code and lists, `# Headings`, `Deprecated:`), as
//!   pkg.go.dev renders them ([`go`]);
//! - rustdoc Markdown, its sections kept.
//!
//! Links between symbols (`:meth:`x``, `{@link X}`, `[pkg.Name]`, ``[`Value`]``) become
//! Markdown links to `doc:` + the target as written (`links::DOC_LINK`); the render layer, which
//! knows every symbol's anchor, resolves them. Code examples stay out of the text: the
//! symbol lists them separately ([`super::comments::examples`]).

mod go;
mod jsdoc;
mod links;
pub(crate) mod model;
mod python;
mod rust;
#[cfg(test)]
mod tests;

use super::lang::Language;

pub use model::{DocComment, DocItem, DocSection};

/// The order sections are shown in, whatever order the comment wrote them.
const SECTION_ORDER: &[&str] = &[
    "Type parameters",
    "Parameters",
    "Keyword arguments",
    "Other parameters",
    "Returns",
    "Yields",
    "Raises",
    "Throws",
    "Warns",
    "Attributes",
    "See also",
];

impl DocComment {
    /// The comment of `lines` (without comment markers), written in `language`; `fence` is
    /// the code fence of its examples (to leave them out of the text).
    pub(crate) fn parse(lines: &[String], language: Language, fence: &str) -> Self {
        let mut comment = match language {
            Language::Python => python::parse(lines),
            Language::TypeScript | Language::Tsx => jsdoc::parse(lines, fence),
            Language::Go => go::parse(lines),
            Language::Rust => rust::parse(lines, fence),
        };
        comment.sections.sort_by_key(|s| {
            SECTION_ORDER
                .iter()
                .position(|t| *t == s.title)
                .unwrap_or(SECTION_ORDER.len())
        });
        comment
    }

    /// A module's own documentation (`//!`, a module docstring, a Go package comment, a
    /// TSDoc `@packageDocumentation` comment) whole, as the tool shows it on the module's
    /// page: its headings and code examples in place (rustdoc's hidden `# ` lines
    /// dropped), its doc links as links; bounded.
    pub(crate) fn module(lines: &[String], language: Language) -> String {
        match language {
            Language::Python => python::parse(lines).text,
            Language::Go => go::parse(lines).text,
            Language::Rust => rust::module(lines),
            Language::TypeScript | Language::Tsx => {
                let end = lines
                    .iter()
                    .position(|l| l.trim_start().starts_with('@'))
                    .unwrap_or(lines.len());
                let text: Vec<String> = links::outside_code(&lines[..end], links::jsdoc_inline);
                model::tidy(&text)
            }
        }
    }
}
