//! Developer docs too large for one article ([`Limits::max_article_bytes`]) are shortened step
//! by step rather than failed, and the article says so at its top. Each level keeps what a
//! reader of a large API looks for first, as docs.rs's module pages list items by their
//! summary before one opens an item:
//!
//! 1. member docs are cut to their first paragraph, without their sections (parameters,
//!    returns, …) and examples; deprecations and defaults stay;
//! 2. members are listed in tables of name and summary (per type, and per module for its
//!    functions, macros, constants and variables), without signatures; module overviews are
//!    cut to their first paragraph;
//! 3. modules are listed as an index: name, symbol count, first sentence of the overview
//!    (its links into the article read as text: the index has no symbol sections).
//!
//! The run stage renders the full article, then each level in turn until one fits, and cuts
//! the index at last (`run/render.rs`). Anchors stay those of the full article (the same
//! views are built, only shortened), so they stay unique; level 3 keeps the modules' alone.
//!
//! [`Limits::max_article_bytes`]: crate::limits::Limits::max_article_bytes

use regex::Regex;
use serde::Serialize;
use std::sync::LazyLock;

use super::ModuleView;
use crate::builtin::regex;
use crate::source::code::{DocComment, Symbol, first_sentence};

/// How much of the API an article shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    Full,
    FirstParagraph,
    Tables,
    Index,
}

impl Level {
    pub const ALL: [Level; 4] = [
        Level::Full,
        Level::FirstParagraph,
        Level::Tables,
        Level::Index,
    ];

    /// 0 for the full article, then 1 to 3.
    pub fn number(self) -> u8 {
        self as u8
    }
}

/// What the article's note says about its shortening (the template's `shortened`).
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Shortened {
    /// 1 to 3 (see the module's documentation).
    pub level: u8,
    /// The article's size limit, as a reader reads it: "2 MiB".
    pub limit: String,
    pub symbols: usize,
    /// Modules of the API, those left out included.
    pub modules: usize,
    /// Modules the index leaves out to fit (level 3 only).
    pub left_out: usize,
}

impl Shortened {
    pub fn new(level: Level, max_bytes: usize, symbols: usize, modules: usize) -> Self {
        Self {
            level: level.number(),
            limit: bytes(max_bytes),
            symbols,
            modules,
            left_out: 0,
        }
    }
}

/// A symbol as level 1 and beyond show it: its doc comment cut to the first paragraph,
/// without sections or examples, its deprecation and default kept. Views are built from
/// these copies, so that the template's symbol sections show the shortened text without
/// knowing the level.
pub(crate) fn shorten_symbol(symbol: &Symbol) -> Symbol {
    Symbol {
        doc: first_paragraph(&symbol.doc),
        comment: DocComment {
            text: first_paragraph(&symbol.comment.text),
            sections: Vec::new(),
            ..symbol.comment.clone()
        },
        examples: Vec::new(),
        ..symbol.clone()
    }
}

/// Shortens views built from [`shorten_symbol`]'s copies to `level`: module examples out
/// from level 1, overviews to their first paragraph from level 2, to their first sentence
/// and without members at level 3 (the index shows their count, `symbol_count`).
pub(crate) fn shorten(modules: &mut [ModuleView], level: Level) {
    for module in modules {
        if level >= Level::FirstParagraph {
            module.examples.clear();
        }
        if level >= Level::Tables {
            module.overview = first_paragraph(&module.overview);
        }
        if level >= Level::Index {
            let lines: Vec<String> = module.overview.lines().map(str::to_string).collect();
            module.overview = without_anchor_links(&first_sentence(&lines));
            module.macros.clear();
            module.types.clear();
            module.functions.clear();
            module.constants.clear();
            module.variables.clear();
        }
    }
}

/// The first block of Markdown: its lines up to the first blank line outside a code fence,
/// leading blank lines left out.
pub(crate) fn first_paragraph(markdown: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        match fence {
            Some((ch, len)) => {
                let run = trimmed.chars().take_while(|c| *c == ch).count();
                if run >= len && trimmed[run * ch.len_utf8()..].trim().is_empty() {
                    fence = None;
                }
            }
            None => {
                if line.trim().is_empty() {
                    if out.is_empty() {
                        continue;
                    }
                    break;
                }
                for ch in ['`', '~'] {
                    let run = trimmed.chars().take_while(|c| *c == ch).count();
                    if run >= 3 {
                        fence = Some((ch, run));
                    }
                }
            }
        }
        out.push(line);
    }
    out.join("\n")
}

/// Markdown whose links to anchors of the article (`[text](#anchor)`) read as their text.
fn without_anchor_links(markdown: &str) -> String {
    static LINK: LazyLock<Regex> = LazyLock::new(|| regex(r"\[([^\]\n]*)\]\(#[^)\s]*\)"));
    if !markdown.contains("](#") {
        return markdown.to_string();
    }
    LINK.replace_all(markdown, "$1").into_owned()
}

/// A size as a reader reads it: "512 bytes", "40 KiB", "2 MiB", "1.5 MiB".
fn bytes(n: usize) -> String {
    const KIB: usize = 1024;
    const MIB: usize = 1024 * 1024;
    let (unit, name) = match n {
        n if n >= MIB => (MIB, "MiB"),
        n if n >= KIB => (KIB, "KiB"),
        n => return format!("{n} bytes"),
    };
    let tenths = (n * 10 / unit) % 10;
    if tenths == 0 {
        format!("{} {name}", n / unit)
    } else {
        format!("{}.{tenths} {name}", n / unit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_paragraph_stops_at_a_blank_line_outside_fences() {
        assert_eq!(first_paragraph("One.\nTwo.\n\nThree."), "One.\nTwo.");
        assert_eq!(first_paragraph("\n\nOne.\n"), "One.");
        assert_eq!(
            first_paragraph("```\na\n\nb\n```\nafter\n\nnext"),
            "```\na\n\nb\n```\nafter"
        );
        assert_eq!(first_paragraph("Only a sentence."), "Only a sentence.");
        assert_eq!(first_paragraph(""), "");
    }

    #[test]
    fn the_index_has_no_links_to_symbol_sections() {
        assert_eq!(
            without_anchor_links("Reads [`Parser`](#m-Parser) from [docs](https://x.y/#a)."),
            "Reads `Parser` from [docs](https://x.y/#a)."
        );
    }

    #[test]
    fn sizes_read_as_a_reader_reads_them() {
        assert_eq!(bytes(512), "512 bytes");
        assert_eq!(bytes(40 * 1024), "40 KiB");
        assert_eq!(bytes(2 * 1024 * 1024), "2 MiB");
        assert_eq!(bytes(3 * 512 * 1024), "1.5 MiB");
    }

    #[test]
    fn levels_are_ordered_and_numbered() {
        assert!(Level::Full < Level::FirstParagraph && Level::Tables < Level::Index);
        assert_eq!(
            Level::ALL.map(Level::number),
            [0, 1, 2, 3],
            "the template reads these numbers"
        );
    }
}
