//! Stage `validate`: every body must parse as MDX with frontmatter, exactly as an MDX docs
//! site will read it.

use markdown::message::Place;
use markdown::{Constructs, ParseOptions};

use crate::error::MdxError;

fn options() -> ParseOptions {
    ParseOptions {
        constructs: Constructs {
            frontmatter: true,
            gfm_table: true,
            ..Constructs::mdx()
        },
        ..ParseOptions::mdx()
    }
}

/// Parses `body` with markdown-rs (MDX constructs, frontmatter, GFM tables).
pub fn validate_mdx(body: &str) -> Result<(), MdxError> {
    markdown::to_mdast(body, &options())
        .map(|_| ())
        .map_err(|message| {
            let (line, column) = match message.place.as_deref() {
                Some(Place::Point(p)) => (p.line, p.column),
                Some(Place::Position(p)) => (p.start.line, p.start.column),
                None => (0, 0),
            };
            MdxError {
                message: message.reason,
                line,
                column,
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_position_of_broken_mdx() {
        assert!(validate_mdx("---\ntitle: x\n---\n\n# Hi {/* c */}\n").is_ok());
        let err = validate_mdx("# Title\n\nSee Vec<T> here\n").unwrap_err();
        assert_eq!(err.line, 3);
        assert!(err.column > 0);
        assert!(validate_mdx("<!-- html comment -->\n").is_err());
    }
}
