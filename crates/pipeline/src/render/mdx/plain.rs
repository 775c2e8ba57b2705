//! An article as plain text: what a reader reads of it, for full-text search. Prose, headings,
//! list items, table cells, code, image descriptions and the titles and labels our components
//! show (`<Step title>`, `<Update label>`, `<Frame caption>`) are kept, one block a line;
//! frontmatter, ESM, expressions, link targets and what `<script>`/`<style>` hold are not.
//! Parsed with [`parse_mdx`] under the run's bounds, like every other reading of an article.

use markdown::mdast::{AttributeContent, AttributeValue, Node};

use super::validate::parse_mdx;
use crate::limits::Limits;

/// The longest plain text kept, in bytes: a search snippet needs no more, and the indexes'
/// cost (PostgreSQL's `ts_headline` reads the whole text) stays bounded per article.
pub const MAX_PLAIN_TEXT_BYTES: usize = 128 * 1024;

/// Attributes whose value a reader sees on the page.
const SHOWN_ATTRIBUTES: &[&str] = &["title", "label", "caption", "alt", "description"];
/// Elements whose content is code for a browser, never text for a reader.
const SILENT: &[&str] = &["script", "style"];

/// The plain text of the MDX `body` (see the module). A body that does not parse within the
/// bounds is kept as it is, without its frontmatter: it is what the site shows then (its
/// source, escaped).
pub fn plain_text(body: &str) -> String {
    let limits = Limits::default();
    let mut out = String::new();
    match (body.len() <= limits.max_article_bytes)
        .then(|| parse_mdx(body, limits.max_nesting_depth).ok())
        .flatten()
    {
        Some(root) => {
            let mut walk = Walk { out: &mut out };
            walk.node(&root);
        }
        None => out.push_str(without_frontmatter(body)),
    }
    finish(out)
}

fn without_frontmatter(body: &str) -> &str {
    body.strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n").map(|(_, after)| after))
        .unwrap_or(body)
}

/// Control characters become spaces (search engines mark their matches with some), blank
/// lines go, each line is trimmed, and the text is cut at [`MAX_PLAIN_TEXT_BYTES`] on a character
/// boundary.
fn finish(text: String) -> String {
    let mut out = String::with_capacity(text.len().min(MAX_PLAIN_TEXT_BYTES));
    for line in text.lines() {
        let line: String = line
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        if out.len() + line.len() > MAX_PLAIN_TEXT_BYTES {
            let room = MAX_PLAIN_TEXT_BYTES.saturating_sub(out.len());
            let cut = (0..=room.min(line.len()))
                .rev()
                .find(|i| line.is_char_boundary(*i))
                .unwrap_or(0);
            out.push_str(&line[..cut]);
            break;
        }
        out.push_str(line);
    }
    out
}

struct Walk<'a> {
    out: &'a mut String,
}

impl Walk<'_> {
    /// The tree is at most the nesting bound deep ([`parse_mdx`]), so recursion is safe.
    fn node(&mut self, node: &Node) {
        match node {
            Node::Text(t) => self.out.push_str(&t.value),
            Node::InlineCode(c) => self.out.push_str(&c.value),
            Node::InlineMath(m) => self.out.push_str(&m.value),
            Node::Break(_) => self.out.push(' '),
            Node::Code(c) => self.block(|w| w.out.push_str(&c.value)),
            Node::Math(m) => self.block(|w| w.out.push_str(&m.value)),
            Node::Image(image) => self.words(&image.alt),
            Node::ImageReference(image) => self.words(&image.alt),
            Node::Html(h) => self.out.push_str(&h.value),
            Node::MdxJsxFlowElement(e) => {
                if !is_silent(e.name.as_deref()) {
                    self.block(|w| {
                        w.attributes(&e.attributes);
                        w.children(&e.children);
                    });
                }
            }
            Node::MdxJsxTextElement(e) => {
                if !is_silent(e.name.as_deref()) {
                    self.attributes(&e.attributes);
                    self.children(&e.children);
                }
            }
            Node::Yaml(_)
            | Node::Toml(_)
            | Node::MdxjsEsm(_)
            | Node::MdxFlowExpression(_)
            | Node::MdxTextExpression(_)
            | Node::Definition(_)
            | Node::FootnoteReference(_)
            | Node::ThematicBreak(_) => {}
            Node::TableCell(_) => {
                self.children_of(node);
                self.out.push(' ');
            }
            Node::Paragraph(_)
            | Node::Heading(_)
            | Node::ListItem(_)
            | Node::TableRow(_)
            | Node::Blockquote(_)
            | Node::FootnoteDefinition(_) => self.block(|w| w.children_of(node)),
            _ => self.children_of(node),
        }
    }

    fn children_of(&mut self, node: &Node) {
        if let Some(children) = node.children() {
            self.children(children);
        }
    }

    fn children(&mut self, children: &[Node]) {
        for child in children {
            self.node(child);
        }
    }

    /// A block on lines of its own.
    fn block(&mut self, inner: impl FnOnce(&mut Self)) {
        self.out.push('\n');
        inner(self);
        self.out.push('\n');
    }

    fn words(&mut self, text: &str) {
        if !text.is_empty() {
            self.out.push(' ');
            self.out.push_str(text);
            self.out.push(' ');
        }
    }

    fn attributes(&mut self, attributes: &[AttributeContent]) {
        for attribute in attributes {
            if let AttributeContent::Property(p) = attribute
                && SHOWN_ATTRIBUTES.contains(&p.name.as_str())
                && let Some(AttributeValue::Literal(value)) = &p.value
            {
                self.words(value);
                self.out.push('\n');
            }
        }
    }
}

fn is_silent(name: Option<&str>) -> bool {
    name.is_some_and(|n| SILENT.contains(&n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_what_a_reader_reads_and_drops_markup() {
        let body = "---\ntitle: \"CSV export\"\nfeature: csv-export\n---\n\n\
            # Export *reports*\n\nChoose **Reports** and [export](https://x.example/y).\n\n\
            <Steps>\n<Step title=\"Open Reports\">Click `Export`.</Step>\n</Steps>\n\n\
            {/* a comment */}\n\n| A | B |\n|---|---|\n| one | two |\n\n\
            ![A chart of sales](chart.png)\n\n```sh\ncurl -o out.csv\n```\n";
        let text = plain_text(body);
        for kept in [
            "Export reports",
            "Choose Reports and export.",
            "Open Reports",
            "Click Export.",
            "one two",
            "A chart of sales",
            "curl -o out.csv",
        ] {
            assert!(text.contains(kept), "{kept:?} in {text:?}");
        }
        for dropped in [
            "feature:",
            "csv-export",
            "https://",
            "comment",
            "**",
            "<Step",
            "---",
        ] {
            assert!(!text.contains(dropped), "{dropped:?} not in {text:?}");
        }
    }

    #[test]
    fn control_characters_never_reach_the_index() {
        let text = plain_text("Before\u{1}marked\u{2}after");
        assert_eq!(text, "Before marked after");
    }

    #[test]
    fn a_body_that_does_not_parse_is_kept_without_its_frontmatter() {
        let text = plain_text("---\ntitle: x\n---\nSome <Unclosed text\n");
        assert_eq!(text, "Some <Unclosed text");
    }

    #[test]
    fn the_text_is_bounded_on_a_character_boundary() {
        let body = "é".repeat(MAX_PLAIN_TEXT_BYTES);
        let text = plain_text(&body);
        assert!(text.len() <= MAX_PLAIN_TEXT_BYTES);
        assert!(text.len() > MAX_PLAIN_TEXT_BYTES - 4);
    }
}
