//! Stage `extract`: the public symbols of source files (tree-sitter, one small query per
//! language finds the declarations; the code here decides what is public and reads doc
//! comments) and the Markdown files used as prose.

mod languages;

use serde::Serialize;
use sha2::{Digest, Sha256};
use std::sync::OnceLock;
use tree_sitter::{Node, Parser, Query, QueryCursor, StreamingIterator};

use crate::feature::humanize;
pub(crate) use languages::Language;

/// Files above this size are not parsed (generated code, bundles).
pub const MAX_SOURCE_BYTES: usize = 1024 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SymbolKind {
    Module,
    Trait,
    Interface,
    Class,
    Struct,
    Enum,
    Type,
    Function,
    Method,
    Constant,
    Variable,
}

impl SymbolKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Module => "module",
            SymbolKind::Trait => "trait",
            SymbolKind::Interface => "interface",
            SymbolKind::Class => "class",
            SymbolKind::Struct => "struct",
            SymbolKind::Enum => "enum",
            SymbolKind::Type => "type",
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
            SymbolKind::Constant => "constant",
            SymbolKind::Variable => "variable",
        }
    }

    /// The heading of this kind's section in the developer docs.
    pub fn heading(self) -> &'static str {
        match self {
            SymbolKind::Module => "Modules",
            SymbolKind::Trait => "Traits",
            SymbolKind::Interface => "Interfaces",
            SymbolKind::Class => "Classes",
            SymbolKind::Struct => "Structs",
            SymbolKind::Enum => "Enums",
            SymbolKind::Type => "Types",
            SymbolKind::Function => "Functions",
            SymbolKind::Method => "Methods",
            SymbolKind::Constant => "Constants",
            SymbolKind::Variable => "Variables",
        }
    }
}

/// A public declaration of a source file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Symbol {
    pub path: String,
    pub language: &'static str,
    pub kind: SymbolKind,
    /// Qualified within the file: `Type::method` (Rust), `Class.method` (others).
    pub name: String,
    pub signature: String,
    /// The first sentence of the doc comment (TypeDoc style); empty when undocumented.
    pub doc: String,
    /// 1-based line of the declaration.
    pub line: usize,
    /// Normalised token hash: changes when the declaration's tokens or doc comment change,
    /// not when whitespace, ordinary comments or its position in the file change.
    pub hash: String,
}

/// A Markdown file used as prose.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Prose {
    pub path: String,
    pub title: String,
    /// The Markdown without its frontmatter and first-level title, headings moved two levels
    /// down so they nest under the article's own sections. Not yet escaped for MDX.
    pub markdown: String,
}

pub(crate) fn is_markdown(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".md", ".mdx", ".markdown"]
        .iter()
        .any(|ext| lower.ends_with(ext))
}

fn looks_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8000).any(|b| *b == 0)
}

/// The text of a file worth parsing: `None` when it is too large or binary. Runs and drift
/// checks both decide with this, so the symbols they hash are always made the same way.
pub(crate) fn source_text(content: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
    (content.len() <= MAX_SOURCE_BYTES && !looks_binary(content))
        .then(|| String::from_utf8_lossy(content))
}

/// Parses source files; keeps one parser and reuses the compiled queries.
pub(crate) struct Extractor {
    parser: Parser,
    cursor: QueryCursor,
}

impl Extractor {
    pub fn new() -> Self {
        Self {
            parser: Parser::new(),
            cursor: QueryCursor::new(),
        }
    }

    /// The public symbols of `source`, in file order. Err carries a reason to log.
    pub fn symbols(
        &mut self,
        path: &str,
        language: Language,
        source: &str,
    ) -> Result<Vec<Symbol>, String> {
        let query = compiled_query(language)?;
        self.parser
            .set_language(&language.grammar())
            .map_err(|e| e.to_string())?;
        let tree = self
            .parser
            .parse(source, None)
            .ok_or_else(|| "the parser gave up".to_string())?;
        let def_index = query.capture_index_for_name("def");
        let name_index = query.capture_index_for_name("name");
        let mut found = Vec::new();
        let mut matches = self
            .cursor
            .matches(query, tree.root_node(), source.as_bytes());
        while let Some(m) = matches.next() {
            let mut def = None;
            let mut name = None;
            for capture in m.captures() {
                if Some(capture.index) == def_index {
                    def = Some(capture.node);
                } else if Some(capture.index) == name_index {
                    name = Some(capture.node);
                }
            }
            let (Some(def), Some(name)) = (def, name) else {
                continue;
            };
            let src = Source { text: source };
            if let Some(decl) = languages::describe(language, def, name, &src) {
                let hash = token_hash(&decl, &src);
                found.push(Symbol {
                    path: path.to_string(),
                    language: language.fence(),
                    kind: decl.kind,
                    name: decl.name,
                    signature: cap_lines(&decl.signature, 40),
                    doc: first_sentence(&decl.doc),
                    line: def.start_position().row + 1,
                    hash,
                });
            }
        }
        found.sort_by(|a, b| a.line.cmp(&b.line).then_with(|| a.name.cmp(&b.name)));
        found.dedup_by(|a, b| a.line == b.line && a.name == b.name && a.kind == b.kind);
        Ok(found)
    }
}

fn compiled_query(language: Language) -> Result<&'static Query, String> {
    static QUERIES: [OnceLock<Result<Query, String>>; Language::COUNT] =
        [const { OnceLock::new() }; Language::COUNT];
    QUERIES[language as usize]
        .get_or_init(|| {
            Query::new(&language.grammar(), language.query()).map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The text of the file being read.
pub(crate) struct Source<'a> {
    pub text: &'a str,
}

impl Source<'_> {
    pub fn of(&self, node: Node) -> &str {
        self.text.get(node.byte_range()).unwrap_or("")
    }

    pub fn between(&self, start: usize, end: usize) -> &str {
        self.text.get(start..end).unwrap_or("")
    }
}

/// What a language module found about one declaration.
pub(crate) struct Declaration<'tree> {
    pub kind: SymbolKind,
    pub name: String,
    pub signature: String,
    /// Doc comment lines without their markers.
    pub doc: Vec<String>,
    /// The tokens of this node, up to `hash_end` (a byte offset), make the symbol's hash.
    pub node: Node<'tree>,
    pub hash_end: usize,
}

fn token_hash(decl: &Declaration, src: &Source) -> String {
    let mut hasher = Sha256::new();
    hasher.update(decl.kind.as_str());
    hasher.update([0]);
    hasher.update(&decl.name);
    hasher.update([0]);
    let mut stack = vec![decl.node];
    while let Some(node) = stack.pop() {
        if node.start_byte() >= decl.hash_end {
            continue;
        }
        let kind = node.kind();
        if kind.contains("comment") {
            continue;
        }
        if node.child_count() == 0 || kind.contains("string") || kind.ends_with("_literal") {
            hasher.update(src.of(node));
            hasher.update([0x1f]);
            continue;
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    hasher.update([0]);
    for word in decl.doc.iter().flat_map(|l| l.split_whitespace()) {
        hasher.update(word);
        hasher.update([0x1f]);
    }
    let digest = hasher.finalize();
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// The first sentence of a doc comment: up to the first `.`, `!` or `?` followed by a space,
/// within the first paragraph, before any tag (`@param`) or section heading (`# Errors`).
pub(crate) fn first_sentence(lines: &[String]) -> String {
    let mut paragraph = Vec::new();
    for line in lines {
        let line = line.trim();
        if line.is_empty() {
            if paragraph.is_empty() {
                continue;
            }
            break;
        }
        if line.starts_with('@') || line.starts_with('#') || line.starts_with("```") {
            break;
        }
        paragraph.push(line);
    }
    let text = paragraph.join(" ");
    let chars: Vec<char> = text.chars().collect();
    let mut end = chars.len();
    for (i, c) in chars.iter().enumerate() {
        if matches!(c, '.' | '!' | '?') && chars.get(i + 1).is_none_or(|n| n.is_whitespace()) {
            end = i + 1;
            break;
        }
    }
    let sentence: String = chars[..end].iter().collect();
    if sentence.chars().count() > 400 {
        let cut: String = sentence.chars().take(399).collect();
        format!("{cut}…")
    } else {
        sentence
    }
}

fn cap_lines(text: &str, max: usize) -> String {
    let mut lines = text.lines();
    let kept: Vec<&str> = lines.by_ref().take(max).collect();
    let mut out = kept.join("\n");
    if lines.next().is_some() {
        out.push_str("\n…");
    }
    out
}

/// Reads a Markdown file as prose.
pub(crate) fn prose(path: &str, text: &str) -> Prose {
    let body = strip_frontmatter(text);
    let mut title = None;
    let mut kept = Vec::new();
    let mut fence: Option<String> = None;
    for line in body.lines() {
        let trimmed = line.trim_start();
        if let Some(marker) = &fence {
            if trimmed.starts_with(marker.as_str()) {
                fence = None;
            }
            kept.push(line.to_string());
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(trimmed[..3].to_string());
            kept.push(line.to_string());
            continue;
        }
        let level = trimmed.chars().take_while(|c| *c == '#').count();
        let is_heading =
            (1..=6).contains(&level) && trimmed[level..].chars().next().is_none_or(|c| c == ' ');
        if is_heading {
            let text = trimmed[level..].trim().trim_end_matches('#').trim();
            if level == 1 && title.is_none() {
                title = Some(text.to_string());
                continue;
            }
            kept.push(format!("{} {text}", "#".repeat((level + 2).min(6))));
        } else {
            kept.push(line.to_string());
        }
    }
    let stem = path.rsplit('/').next().unwrap_or(path);
    let stem = stem.rsplit_once('.').map_or(stem, |(s, _)| s);
    Prose {
        path: path.to_string(),
        title: title.unwrap_or_else(|| humanize(stem)),
        markdown: kept.join("\n").trim().to_string(),
    }
}

fn strip_frontmatter(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("---\n") else {
        return text;
    };
    match rest.find("\n---") {
        Some(end) => {
            let after = &rest[end + 4..];
            after.split_once('\n').map_or("", |(_, body)| body)
        }
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sentence_stops_at_the_first_period() {
        let lines = vec![
            "Exports a report as CSV. Quoting follows RFC 4180.".to_string(),
            "More.".to_string(),
        ];
        assert_eq!(first_sentence(&lines), "Exports a report as CSV.");
        assert_eq!(
            first_sentence(&["Uses v1.2 format".into(), "".into(), "x".into()]),
            "Uses v1.2 format"
        );
        assert_eq!(
            first_sentence(&["Adds.".into(), "@param x".into()]),
            "Adds."
        );
    }

    #[test]
    fn prose_takes_title_and_nests_headings() {
        let p = prose(
            "docs/export.md",
            "---\nx: 1\n---\n# Export\n\nText.\n\n## Usage\n\n```sh\n# not a heading\n```\n",
        );
        assert_eq!(p.title, "Export");
        assert!(p.markdown.contains("#### Usage"));
        assert!(p.markdown.contains("# not a heading"));
        assert_eq!(prose("docs/csv_tips.md", "Hi").title, "Csv tips");
    }
}
