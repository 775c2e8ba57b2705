//! rustdoc: the Markdown whole, its sections kept as labels, its intra-doc links made doc
//! links; the code examples are the symbol's, shown apart.

use super::links;
use super::model::{Builder, DocComment, markdown_text};

/// rustdoc: the Markdown whole, its intra-doc links made doc links.
pub(super) fn parse(lines: &[String], fence: &str) -> DocComment {
    let text = markdown_text(lines, fence);
    let mut builder = Builder::default();
    for line in links::outside_code(&text, links::rust_intra_doc) {
        builder.line(line);
    }
    builder.finish()
}
