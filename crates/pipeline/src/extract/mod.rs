//! Stage `extract`: the public symbols of source files (tree-sitter parses; one walk over the
//! file's outline finds the declarations, decides what is public and reads doc comments) and
//! the Markdown files used as prose. Work per file is bounded by [`Limits`]: its size, its
//! bracket nesting, and a parse deadline.

mod docs;
mod languages;
mod public;

use git2::{Oid, Repository};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::ops::ControlFlow;
use std::time::{Duration, Instant};
use tree_sitter::{Node, ParseOptions, ParseState, Parser};

use crate::error::PipelineError;
use crate::feature::humanize;
use crate::limits::Limits;
pub use docs::Example;
pub(crate) use docs::first_sentence;
pub(crate) use languages::Language;
pub(crate) use public::{GoExample, attach_go_examples, is_hidden_internal, is_test_file};

/// A signature is shown whole in the developer docs (its members are also listed one by one
/// beneath it); one from a minified file can be a single line of a megabyte.
const MAX_SIGNATURE_CHARS: usize = 8_000;
/// How many nodes the walk visits between two looks at the clock.
const NODES_PER_CLOCK_CHECK: usize = 1024;

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
    Constructor,
    Method,
    Property,
    Field,
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
            SymbolKind::Constructor => "constructor",
            SymbolKind::Method => "method",
            SymbolKind::Property => "property",
            SymbolKind::Field => "field",
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
            SymbolKind::Constructor => "Constructors",
            SymbolKind::Method => "Methods",
            SymbolKind::Property => "Properties",
            SymbolKind::Field => "Fields",
            SymbolKind::Constant => "Constants",
            SymbolKind::Variable => "Variables",
        }
    }

    /// Whether symbols of this kind are types, under which members are listed.
    pub fn is_type(self) -> bool {
        matches!(
            self,
            SymbolKind::Trait
                | SymbolKind::Interface
                | SymbolKind::Class
                | SymbolKind::Struct
                | SymbolKind::Enum
                | SymbolKind::Type
        )
    }
}

/// A public declaration of a source file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Symbol {
    pub path: String,
    pub language: &'static str,
    pub kind: SymbolKind,
    /// Qualified within the file: `Type::method` (Rust), `Class.method` (others). With the
    /// path, the symbol's identity in provenance and drift.
    pub name: String,
    /// The type a member (method, field, property, constructor) belongs to, as named in
    /// `name`; `None` for a top-level symbol.
    pub parent: Option<String>,
    /// The module the symbol is documented under: its Go package's folder, else its file.
    pub module: String,
    pub signature: String,
    /// The first sentence of the doc comment (TypeDoc style); empty when undocumented.
    pub doc: String,
    /// Code examples from its doc comment (or Go `ExampleX` functions), shown under it.
    pub examples: Vec<Example>,
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

/// A file of the repository as the extract stage reads it.
pub(crate) enum FileText {
    Text(String),
    /// Larger than [`Limits::max_file_bytes`]: the size from the object header.
    TooLarge(u64),
    Binary,
}

/// Reads a file worth parsing, never inflating one larger than `max_file_bytes`. Runs and
/// drift checks both read with this, so the symbols they hash are always made the same way.
pub(crate) fn read_text(
    repo: &Repository,
    blob: Oid,
    limits: &Limits,
) -> Result<FileText, PipelineError> {
    let (bytes, _) = repo.odb()?.read_header(blob)?;
    let bytes = bytes as u64;
    if bytes > limits.max_file_bytes {
        return Ok(FileText::TooLarge(bytes));
    }
    let blob = repo.find_blob(blob)?;
    let content = blob.content();
    Ok(if looks_binary(content) {
        FileText::Binary
    } else {
        FileText::Text(String::from_utf8_lossy(content).into_owned())
    })
}

/// The line (1-based) where bracket nesting first goes deeper than `max`, if it does. Every
/// bracket counts, in strings and comments too: a cheap bound taken before tree-sitter, which
/// a file of unclosed brackets costs most.
fn nesting_exceeded(text: &str, max: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut line = 1;
    for byte in text.bytes() {
        match byte {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return Some(line);
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'\n' => line += 1,
            _ => {}
        }
    }
    None
}

/// Parses source files within the per-file bounds of [`Limits`]; keeps one parser.
pub(crate) struct Extractor {
    parser: Parser,
    max_nesting_depth: usize,
    max_parse_millis: u64,
}

impl Extractor {
    pub fn new(limits: &Limits) -> Self {
        Self {
            parser: Parser::new(),
            max_nesting_depth: limits.max_nesting_depth,
            max_parse_millis: limits.max_parse_millis,
        }
    }

    /// The public symbols of `source`, in file order. Fails when the file nests deeper than
    /// `max_nesting_depth` or takes longer than `max_parse_millis` to parse and read.
    pub fn symbols(
        &mut self,
        path: &str,
        language: Language,
        source: &str,
    ) -> Result<Vec<Symbol>, PipelineError> {
        Ok(self.outline(path, language, source)?.symbols)
    }

    /// The public symbols of `source` in file order, with the file's overview and, for Go,
    /// its package name and `ExampleX` functions. Bounded as [`Extractor::symbols`].
    pub fn outline(
        &mut self,
        path: &str,
        language: Language,
        source: &str,
    ) -> Result<Outline, PipelineError> {
        if let Some(line) = nesting_exceeded(source, self.max_nesting_depth) {
            return Err(PipelineError::LimitExceeded {
                what: "the bracket nesting of a source file".into(),
                limit: "max_nesting_depth",
                value: self.max_nesting_depth as u64,
                detail: format!("{path}, line {line}"),
            });
        }
        let too_slow = || PipelineError::LimitExceeded {
            what: "the time to parse a source file".into(),
            limit: "max_parse_millis",
            value: self.max_parse_millis,
            detail: path.to_string(),
        };
        self.parser.set_language(&language.grammar()).map_err(|e| {
            PipelineError::Repository(format!("cannot load the {} grammar: {e}", language.fence()))
        })?;
        let deadline = Instant::now() + Duration::from_millis(self.max_parse_millis);
        let mut until_deadline = |_: &ParseState| {
            if Instant::now() >= deadline {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let bytes = source.as_bytes();
        let tree = self.parser.parse_with_options(
            &mut |offset, _| bytes.get(offset..).unwrap_or_default(),
            None,
            Some(ParseOptions::new().progress_callback(&mut until_deadline)),
        );
        let Some(tree) = tree else {
            // A cancelled parse would otherwise resume on the parser's next call.
            self.parser.reset();
            return Err(too_slow());
        };
        let src = Source { text: source };
        let root = tree.root_node();
        let declarations = declarations(root, language, &src, deadline).ok_or_else(too_slow)?;
        let module = match language {
            Language::Go => path.rsplit_once('/').map_or("", |(dir, _)| dir).to_string(),
            _ => path.to_string(),
        };
        let mut go_examples = Vec::new();
        // Each symbol with whether it is a stub: a signature without a body that only states
        // an overload (TypeScript, Python `@overload`).
        let mut found: Vec<(Symbol, bool)> = Vec::with_capacity(declarations.len());
        for decl in declarations {
            if language == Language::Go
                && decl.kind == SymbolKind::Function
                && decl.name.starts_with("Example")
            {
                go_examples.push((decl.name.clone(), go_example_body(decl.node, &src)));
            }
            let stub = decl.stub;
            found.push((
                Symbol {
                    path: path.to_string(),
                    language: language.fence(),
                    kind: decl.kind,
                    hash: token_hash(&decl, &src),
                    examples: docs::examples(&decl.doc, language.fence()),
                    doc: first_sentence(&decl.doc),
                    parent: decl.parent,
                    module: module.clone(),
                    name: decl.name,
                    signature: languages::truncate(&decl.signature, MAX_SIGNATURE_CHARS),
                    line: decl.node.start_position().row + 1,
                },
                stub,
            ));
        }
        found.sort_by(|(a, _), (b, _)| a.line.cmp(&b.line).then_with(|| a.name.cmp(&b.name)));
        found.dedup_by(|(a, _), (b, _)| a.line == b.line && a.name == b.name && a.kind == b.kind);
        let (overview, package) = languages::file_overview(language, root, &src);
        Ok(Outline {
            symbols: merge_overloads(found),
            overview: docs::overview(&overview),
            package,
            go_examples,
        })
    }
}

/// What the extract stage reads from one source file.
pub(crate) struct Outline {
    pub symbols: Vec<Symbol>,
    /// The file's documentation (Rust `//!`, Python module docstring, Go package comment,
    /// TS `@packageDocumentation`/`@module` JSDoc), its first paragraphs.
    pub overview: String,
    /// Go: the package clause's name.
    pub package: Option<String>,
    /// Go: `ExampleX` functions, by name, their bodies as examples.
    pub go_examples: Vec<(String, Example)>,
}

/// The body of a Go example function, without its braces, as pkg.go.dev shows it.
fn go_example_body(node: Node, src: &Source) -> Example {
    let body = node
        .child_by_field_name("body")
        .map(|b| src.of(b))
        .unwrap_or("");
    let inner = body
        .strip_prefix('{')
        .and_then(|b| b.strip_suffix('}'))
        .unwrap_or(body);
    let lines: Vec<&str> = inner.lines().collect();
    Example {
        language: "go".into(),
        code: docs::dedent(&lines).trim_matches('\n').to_string(),
        label: String::new(),
    }
}

/// One entry per name: overload signatures (TypeScript, Python `@overload`) and accessor
/// pairs (TypeScript `get`/`set`) are one symbol, as TypeDoc and Sphinx show them. With
/// stubs, the implementation's own signature is left out (it is not callable as written);
/// the hash covers every declaration merged, so drift sees a change to any of them.
fn merge_overloads(found: Vec<(Symbol, bool)>) -> Vec<Symbol> {
    let mut out: Vec<Symbol> = Vec::with_capacity(found.len());
    let mut stubs: Vec<bool> = Vec::with_capacity(found.len());
    let mut index: std::collections::HashMap<(String, SymbolKind), usize> =
        std::collections::HashMap::new();
    for (symbol, stub) in found {
        let mergeable = matches!(
            symbol.kind,
            SymbolKind::Function
                | SymbolKind::Method
                | SymbolKind::Constructor
                | SymbolKind::Property
        );
        let key = (symbol.name.clone(), symbol.kind);
        match index.get(&key).copied().filter(|_| mergeable) {
            Some(at) => {
                let kept = &mut out[at];
                let had_stubs = stubs[at];
                // An implementation after its overloads adds nothing; the first overload
                // after a plain declaration replaces it.
                match (had_stubs, stub) {
                    (true, false) => {}
                    (false, true) => kept.signature = symbol.signature.clone(),
                    _ => {
                        kept.signature.push('\n');
                        kept.signature.push_str(&symbol.signature);
                    }
                }
                if kept.doc.is_empty() {
                    kept.doc = symbol.doc;
                }
                kept.examples.extend(symbol.examples);
                let mut hasher = Sha256::new();
                hasher.update(&kept.hash);
                hasher.update(&symbol.hash);
                kept.hash = hex(&hasher.finalize()[..16]);
                stubs[at] = had_stubs || stub;
            }
            None => {
                index.insert(key, out.len());
                out.push(symbol);
                stubs.push(stub);
            }
        }
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A node on the walk's way down.
pub(crate) struct Frame<'t> {
    pub node: Node<'t>,
    /// The comment and attribute siblings right before it, in file order.
    pub leading: Vec<Node<'t>>,
}

/// Where the walk found a node.
pub(crate) struct Place<'a, 't> {
    /// Its ancestors, the root first.
    ancestors: &'a [Frame<'t>],
    /// The comment and attribute siblings right before it, in file order.
    pub leading: &'a [Node<'t>],
}

impl<'a, 't> Place<'a, 't> {
    /// The ancestor `up` levels above the node: 0 is its parent.
    pub fn up(&self, up: usize) -> Option<&'a Frame<'t>> {
        let index = self.ancestors.len().checked_sub(up + 1)?;
        self.ancestors.get(index)
    }

    /// The kind of that ancestor; empty above the root.
    pub fn kind_up(&self, up: usize) -> &'t str {
        self.up(up).map_or("", |frame| frame.node.kind())
    }
}

/// Every declaration of the tree worth documenting, or `None` past the deadline.
///
/// One pass of a tree cursor, carrying the ancestors and the comments seen so far: tree-sitter
/// queries and `Node::parent`/`prev_sibling` cost time in the number of siblings, which made a
/// file of 128 K unclosed brackets (one node with 128 K children) take minutes.
fn declarations<'t>(
    root: Node<'t>,
    language: Language,
    src: &Source,
    deadline: Instant,
) -> Option<Vec<Declaration<'t>>> {
    let mut found = Vec::new();
    let mut cursor = root.walk();
    let mut ancestors: Vec<Frame<'t>> = Vec::new();
    let mut leading: Vec<Node<'t>> = Vec::new();
    let mut visited = 0usize;
    // The row where the previous sibling ended: a comment that starts on it trails that
    // sibling (`Field int // doc`) and is no doc of the next one.
    let mut previous_end_row: Option<usize> = None;
    loop {
        visited += 1;
        if visited.is_multiple_of(NODES_PER_CLOCK_CHECK) && Instant::now() >= deadline {
            return None;
        }
        let node = cursor.node();
        let kind = node.kind();
        if kind.contains("comment") || languages::is_attribute(kind) {
            if kind.contains("comment") && previous_end_row == Some(node.start_position().row) {
                languages::trailing_comment(language, node, src, &mut found);
            } else {
                leading.push(node);
            }
        } else {
            let place = Place {
                ancestors: &ancestors,
                leading: &leading,
            };
            languages::describe(language, node, &place, src, &mut found);
            if language.holds_declarations(kind)
                && !languages::is_hidden_container(language, node, &leading, src)
                && cursor.goto_first_child()
            {
                ancestors.push(Frame {
                    node,
                    leading: std::mem::take(&mut leading),
                });
                previous_end_row = None;
                continue;
            }
            leading.clear();
            previous_end_row = Some(node.end_position().row);
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return Some(found);
            }
            previous_end_row = Some(cursor.node().end_position().row);
            ancestors.pop();
            leading.clear();
        }
    }
}

/// The text of the file being read.
pub(crate) struct Source<'a> {
    pub text: &'a str,
}

impl<'a> Source<'a> {
    pub fn of(&self, node: Node) -> &'a str {
        self.text.get(node.byte_range()).unwrap_or("")
    }

    pub fn between(&self, start: usize, end: usize) -> &'a str {
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
    /// The type a member belongs to.
    pub parent: Option<String>,
    /// A signature without a body (an overload).
    pub stub: bool,
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
    hex(&hasher.finalize()[..16])
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
