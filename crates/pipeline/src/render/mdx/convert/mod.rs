//! Repository Markdown (a README, a docs page, a step's body) converted into MDX that shows
//! what its author meant rather than its source text:
//!
//! - admonitions of Docusaurus (`:::note Title` … `:::`), MkDocs (`!!! warning "Title"` with an
//!   indented body, `???` collapsible ones) and GitHub (`> [!NOTE]`) become `<Note>`,
//!   `<Tip>` or `<Warning>`;
//! - well-formed HTML that MDX can hold becomes JSX: `<details>`/`<summary>` (each on its own
//!   line, so that MDX reads them as blocks), `<br />`, `<img src alt />`, and the phrasing
//!   elements of [`html::PHRASING`] when opened and closed on one line; `<a href>` becomes a
//!   Markdown link; layout wrappers (`<p align="center">`, `<div>`, `<picture>`) are dropped
//!   with their content kept. Attributes other than `src`/`alt`/`href` are dropped, so no event
//!   handler or style survives; any other tag stays escaped text.
//! - headings are re-levelled under the article's: the first becomes `top`, and none is more
//!   than one level below the heading it follows;
//! - relative links and images point at the repository's web host at the run's commit
//!   ([`links::Links::file`]).
//!
//! The result is checked as MDX; should an unusual combination of HTML and Markdown not parse
//! (an inline tag that crosses an emphasis, say), the text is converted again without HTML
//! and, failing that, only escaped ([`escape::sanitize_markdown`]), so a run never fails on
//! Markdown it was given. Every pass is linear in the text: tags are read at most
//! [`html::MAX_TAG_CHARS`] ahead, admonitions nest at most [`doc::MAX_CALLOUT_DEPTH`] deep and
//! `<details>` at most [`doc::MAX_DETAILS_DEPTH`].

mod callouts;
mod doc;
mod html;
mod links;
#[cfg(test)]
mod tests;

use super::escape;
use super::validate::validate_mdx;
use doc::Doc;
pub(crate) use links::Links;

/// Repository Markdown from the file `path` as MDX, headings starting at level `top`.
pub(crate) fn markdown_to_mdx(markdown: &str, path: &str, links: &Links, top: usize) -> String {
    let doc = Doc { path, links };
    for html in [true, false] {
        let converted = doc.convert(markdown, html, top);
        if validate_mdx(&converted).is_ok() {
            return converted;
        }
    }
    escape::sanitize_markdown(markdown)
}
