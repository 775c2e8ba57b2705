//! rustdoc: the Markdown whole, its sections kept as labels, its intra-doc links made doc
//! links; the code examples are the symbol's, shown apart.

use super::links;
use super::model::{Builder, DocComment, markdown_text, tidy};

/// rustdoc: the Markdown whole, its intra-doc links made doc links.
pub(super) fn parse(lines: &[String], fence: &str) -> DocComment {
    let text = markdown_text(lines, fence);
    let mut builder = Builder::default();
    for line in links::outside_code(&text, links::rust_intra_doc) {
        builder.line(line);
    }
    builder.finish()
}

/// A module's `//!` documentation whole: headings and code blocks in place, the lines of a
/// Rust doctest that rustdoc hides (`# `) left out, intra-doc links made doc links.
pub(super) fn module(lines: &[String]) -> String {
    let mut kept: Vec<String> = Vec::with_capacity(lines.len());
    let mut rust_fence = None::<bool>;
    for line in lines {
        let t = line.trim_start();
        if let Some(info) = t.strip_prefix("```") {
            rust_fence = match rust_fence {
                Some(_) => None,
                None => Some(is_rust_fence(info.trim())),
            };
            // A doctest's fence names rustdoc's attributes, or nothing: it is Rust.
            if rust_fence == Some(true) {
                kept.push("```rust".to_string());
            } else {
                kept.push(line.clone());
            }
            continue;
        }
        if rust_fence == Some(true) && (t == "#" || t.starts_with("# ")) {
            continue;
        }
        kept.push(line.clone());
    }
    tidy(&links::outside_code(&kept, links::rust_intra_doc))
}

/// Whether a doctest's info string makes it Rust (rustdoc's default).
fn is_rust_fence(info: &str) -> bool {
    let first = info.split([',', ' ']).next().unwrap_or("");
    matches!(
        first,
        "" | "rust"
            | "no_run"
            | "ignore"
            | "should_panic"
            | "compile_fail"
            | "edition2018"
            | "edition2021"
            | "edition2024"
    )
}
