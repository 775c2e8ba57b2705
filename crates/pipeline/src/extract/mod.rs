//! Stage `extract`: the public symbols of source files (tree-sitter parses; one walk over the
//! file's outline finds the declarations, decides what is public and reads doc comments) and
//! the Markdown files used as prose. Work per file is bounded by [`Limits`]: its size, its
//! bracket nesting, and a parse deadline.

mod cfg;
mod docs;
mod languages;
mod outside;
mod public;

use git2::{Oid, Repository};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::ops::ControlFlow;
use std::time::{Duration, Instant};
use tree_sitter::{Node, ParseOptions, ParseState, Parser};

pub use cfg::Requires;

use crate::error::PipelineError;
use crate::feature::humanize;
use crate::limits::Limits;
use crate::mdx::{closes_fence, opens_fence};
pub use docs::Example;
pub(crate) use docs::first_sentence;
pub(crate) use languages::Language;
pub(crate) use outside::OutsideFiles;
pub(crate) use public::{
    CrateManifest, GoExample, RustModuleFacts, attach_go_examples, has_declaration_file,
    is_generated_script, is_hidden_internal, is_test_file, rust_manifest, rust_public_api,
};

/// A signature is shown whole in the developer docs (its members are also listed one by one
/// beneath it); one from a minified file can be a single line of a megabyte.
const MAX_SIGNATURE_CHARS: usize = 8_000;
/// How many nodes the walk visits between two looks at the clock.
const NODES_PER_CLOCK_CHECK: usize = 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SymbolKind {
    Module,
    Macro,
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
            SymbolKind::Macro => "macro",
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
            SymbolKind::Macro => "Macros",
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
    /// Rust: the crate features the item is compiled with only, by its `#[cfg]` attributes
    /// and those of what encloses it in its file (docs.rs's "Available on crate feature …").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requires: Option<Requires>,
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
        let (tree, deadline) = self.parse(path, language, source)?;
        let too_slow = || self.too_slow(path);
        let src = Source::new(source);
        let root = tree.root_node();
        let declarations = declarations(root, language, &src, deadline).ok_or_else(too_slow)?;
        let module = match language {
            Language::Go => path.rsplit_once('/').map_or("", |(dir, _)| dir).to_string(),
            _ => path.to_string(),
        };
        let fence = language.fence_for(path);
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
            let doc = match language {
                // A Go doc comment's indented lines are a preformatted block.
                Language::Go => first_sentence(docs::before_preformatted(&decl.doc)),
                Language::Rust => docs::without_intra_doc_links(&first_sentence(&decl.doc)),
                _ => first_sentence(&decl.doc),
            };
            // `#[macro_export]` puts a macro at the crate root, whatever module defines it.
            let module = match decl.kind {
                SymbolKind::Macro => public::rust_crate_root(path).unwrap_or(module.clone()),
                _ => module.clone(),
            };
            found.push((
                Symbol {
                    path: path.to_string(),
                    language: fence,
                    kind: decl.kind,
                    hash: token_hash(&decl, &src),
                    examples: docs::examples(&decl.doc, fence),
                    doc,
                    parent: decl.parent,
                    module,
                    name: decl.name,
                    signature: languages::truncate(&decl.signature, MAX_SIGNATURE_CHARS),
                    line: decl.node.start_position().row + 1,
                    requires: decl.requires,
                },
                stub,
            ));
        }
        found.sort_by(|(a, _), (b, _)| a.line.cmp(&b.line).then_with(|| a.name.cmp(&b.name)));
        found.dedup_by(|(a, _), (b, _)| a.line == b.line && a.name == b.name && a.kind == b.kind);
        let (overview, package) = languages::file_overview(language, root, &src);
        let mut overview = docs::overview(&overview);
        let mut rust_modules = RustModuleFacts::default();
        if language == Language::Rust {
            overview = docs::without_intra_doc_links(&overview);
            rust_modules = languages::rust_module_facts(root, &src);
        }
        Ok(Outline {
            symbols: merge_overloads(found, language),
            overview,
            package,
            go_examples,
            rust_modules,
        })
    }

    /// The `mod` declarations and `pub use` re-exports of a Rust file, and nothing else: what
    /// a file outside a feature says about the feature's modules. Bounded as
    /// [`Extractor::symbols`].
    pub fn rust_module_facts(
        &mut self,
        path: &str,
        source: &str,
    ) -> Result<RustModuleFacts, PipelineError> {
        let (tree, _) = self.parse(path, Language::Rust, source)?;
        Ok(languages::rust_module_facts(
            tree.root_node(),
            &Source::new(source),
        ))
    }

    /// The syntax tree of `source` and the deadline its reading must keep, or the limit the
    /// file crosses (nesting before parsing, then parse time).
    fn parse(
        &mut self,
        path: &str,
        language: Language,
        source: &str,
    ) -> Result<(tree_sitter::Tree, Instant), PipelineError> {
        if let Some(line) = nesting_exceeded(source, self.max_nesting_depth) {
            return Err(PipelineError::LimitExceeded {
                what: "the bracket nesting of a source file".into(),
                limit: "max_nesting_depth",
                value: self.max_nesting_depth as u64,
                detail: format!("{path}, line {line}"),
            });
        }
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
            return Err(self.too_slow(path));
        };
        Ok((tree, deadline))
    }

    fn too_slow(&self, path: &str) -> PipelineError {
        PipelineError::LimitExceeded {
            what: "the time to parse a source file".into(),
            limit: "max_parse_millis",
            value: self.max_parse_millis,
            detail: path.to_string(),
        }
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
    /// Rust: the file's `mod` declarations and `pub use` re-exports.
    pub rust_modules: RustModuleFacts,
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
/// stubs, the implementation's own signature is left out (it is not callable as written).
/// In Rust, items of one name and kind are `#[cfg]` variants of one item: rustdoc shows
/// the one it was built with, so the first is kept. The hash covers every declaration
/// merged, so drift sees a change to any of them.
fn merge_overloads(found: Vec<(Symbol, bool)>, language: Language) -> Vec<Symbol> {
    let mut out: Vec<Symbol> = Vec::with_capacity(found.len());
    let mut stubs: Vec<bool> = Vec::with_capacity(found.len());
    let mut index: std::collections::HashMap<(String, SymbolKind), usize> =
        std::collections::HashMap::new();
    for (symbol, stub) in found {
        let cfg_variant = language == Language::Rust;
        let mergeable = cfg_variant
            || matches!(
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
                    _ if cfg_variant => {}
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
                // Variants under different gates: what one needs, another may not.
                if kept.requires != symbol.requires {
                    kept.requires = None;
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
    /// Rust: the `cfg` gates of this node and of every ancestor (see `cfg`).
    pub gate: cfg::Gate,
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
            let before = found.len();
            languages::describe(language, node, &place, src, &mut found);
            // Rust: the gates of the node, with those of its ancestors; read only for a
            // declaration or a container (each attribute once).
            let holds = language.holds_declarations(kind);
            let gate = (language == Language::Rust && (found.len() > before || holds)).then(|| {
                let enclosing = ancestors.last().map(|f| f.gate.clone()).unwrap_or_default();
                enclosing.and(&cfg::Gate::of(
                    leading
                        .iter()
                        .filter(|n| n.kind() == "attribute_item")
                        .map(|n| src.of(*n)),
                ))
            });
            if let Some(gate) = &gate {
                let requires = gate.requires();
                for declaration in &mut found[before..] {
                    declaration.requires.clone_from(&requires);
                }
            }
            if language.holds_declarations(kind)
                && !languages::is_hidden_container(language, node, &leading, src)
                && cursor.goto_first_child()
            {
                ancestors.push(Frame {
                    node,
                    leading: std::mem::take(&mut leading),
                    gate: gate.unwrap_or_default(),
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
    /// Rust: the modules `pub use` lines of the file reach into, found on first use.
    reexported: std::cell::OnceCell<std::collections::HashSet<&'a str>>,
}

impl<'a> Source<'a> {
    pub fn new(text: &'a str) -> Self {
        Self {
            text,
            reexported: std::cell::OnceCell::new(),
        }
    }

    /// Whether a `pub use` line of the file names something inside its module `name`
    /// (`pub use self::inner::X`, `pub use inner::*`): the file is scanned once, however many
    /// modules ask.
    pub fn reexports_from(&self, name: &str) -> bool {
        self.reexported
            .get_or_init(|| {
                let mut found = std::collections::HashSet::new();
                for line in self.text.lines() {
                    let Some(path) = line.trim_start().strip_prefix("pub use ") else {
                        continue;
                    };
                    let path = path.trim_start();
                    if let Some((first, _)) = path.split_once("::") {
                        found.insert(first);
                    }
                    for (at, _) in path.match_indices("self::") {
                        let rest = &path[at + "self::".len()..];
                        if let Some((module, _)) = rest.split_once("::") {
                            found.insert(module);
                        }
                    }
                }
                found
            })
            .contains(name)
    }

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
    /// Rust: the crate features it is compiled with only (set by [`declarations`]).
    pub requires: Option<Requires>,
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

/// First headings that name a section rather than the document (an RFC starts with
/// `# Summary`): such a document takes its title from its file name.
const SECTION_TITLES: &[&str] = &[
    "summary",
    "overview",
    "introduction",
    "intro",
    "abstract",
    "motivation",
    "background",
    "contents",
    "table of contents",
];

/// Reads a Markdown file as prose: its title is its first level-1 heading (ATX `# T` or
/// setext `T` over `===`) unless that heading names a section, else its file name.
pub(crate) fn prose(path: &str, text: &str) -> Prose {
    let body = strip_frontmatter(text);
    let mut title = None;
    let mut first_heading_seen = false;
    let mut kept = Vec::new();
    for line in atx_headings(body) {
        let Some((level, text)) = line.heading else {
            // Status badges and language menus speak to the project's visitors, not to the
            // feature's readers.
            if !line.fenced && crate::prose::is_chrome(line.text) {
                continue;
            }
            kept.push(line.text.to_string());
            continue;
        };
        if level == 1 && !first_heading_seen {
            first_heading_seen = true;
            if !SECTION_TITLES.contains(&text.to_lowercase().as_str()) {
                title = Some(text);
                continue;
            }
        }
        kept.push(format!("{} {text}", "#".repeat((level + 2).min(6))));
    }
    let stem = path.rsplit('/').next().unwrap_or(path);
    let stem = stem.rsplit_once('.').map_or(stem, |(s, _)| s);
    // `0296-structured-logging` → `Structured logging`.
    let stem = stem.trim_start_matches(|c: char| c.is_ascii_digit() || c == '-' || c == '_');
    Prose {
        path: path.to_string(),
        title: title.unwrap_or_else(|| humanize(if stem.is_empty() { "document" } else { stem })),
        markdown: kept.join("\n").trim().to_string(),
    }
}

/// A line of Markdown, with its level and text when it is a heading.
struct MarkdownLine<'a> {
    text: &'a str,
    heading: Option<(usize, String)>,
    /// Inside a fenced code block (its fences included).
    fenced: bool,
}

/// The lines of `markdown` with its headings recognised, ATX (`## T`) and setext (a paragraph
/// over a line of `=` or `-`), outside fenced blocks. A setext heading's paragraph becomes one
/// heading line and its underline is dropped.
fn atx_headings(markdown: &str) -> Vec<MarkdownLine<'_>> {
    let mut out: Vec<MarkdownLine> = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    // Where the paragraph that is open in `out` starts, when one is.
    let mut paragraph: Option<usize> = None;
    for line in markdown.lines() {
        if let Some((ch, len)) = fence {
            if closes_fence(line, ch, len) {
                fence = None;
            }
            out.push(MarkdownLine {
                text: line,
                heading: None,
                fenced: true,
            });
            continue;
        }
        if let Some((ch, len, _)) = opens_fence(line) {
            fence = Some((ch, len));
            paragraph = None;
            out.push(MarkdownLine {
                text: line,
                heading: None,
                fenced: true,
            });
            continue;
        }
        if let (Some(start), Some(level)) = (paragraph, setext_underline(line)) {
            let text = out[start..]
                .iter()
                .map(|l| l.text.trim())
                .collect::<Vec<_>>()
                .join(" ");
            out.truncate(start);
            out.push(MarkdownLine {
                text: "",
                heading: Some((level, text.trim_end_matches('\\').trim().to_string())),
                fenced: false,
            });
            paragraph = None;
            continue;
        }
        let heading = atx_heading(line);
        if heading.is_some() || line.trim().is_empty() || !starts_paragraph(line) {
            paragraph = None;
        } else if paragraph.is_none() {
            paragraph = Some(out.len());
        }
        out.push(MarkdownLine {
            text: line,
            heading: heading.map(|(level, text)| (level, text.to_string())),
            fenced: false,
        });
    }
    out
}

/// An ATX heading's level and text (at most three spaces of indentation, as CommonMark).
pub(crate) fn atx_heading(line: &str) -> Option<(usize, &str)> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let level = trimmed.chars().take_while(|c| *c == '#').count();
    let rest = &trimmed[level..];
    if !(1..=6).contains(&level) || !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    Some((level, rest.trim().trim_end_matches('#').trim()))
}

/// The level of the setext heading `line` underlines: 1 for `===`, 2 for `---`.
fn setext_underline(line: &str) -> Option<usize> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let marks = trimmed.trim_end();
    let level = match marks.chars().next()? {
        '=' => 1,
        '-' => 2,
        _ => return None,
    };
    let ch = if level == 1 { '=' } else { '-' };
    marks.chars().all(|c| c == ch).then_some(level)
}

/// Whether `line` starts a paragraph that a setext underline could turn into a heading: not
/// a list item, quote, table row, HTML block or indented code.
fn starts_paragraph(line: &str) -> bool {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 || line.starts_with('\t') {
        return false;
    }
    let bullet = trimmed
        .strip_prefix(['-', '*', '+'])
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']));
    let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
    let numbered = digits > 0 && trimmed[digits..].starts_with(['.', ')']);
    !(bullet || numbered || trimmed.starts_with(['>', '|', '<']))
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
    use super::public::ModDecl;
    use super::*;

    fn outline(path: &str, source: &str) -> Outline {
        let language = Language::from_path(path).unwrap_or(Language::Rust);
        Extractor::new(&Limits::default())
            .outline(path, language, source)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn names(outline: &Outline) -> Vec<&str> {
        outline.symbols.iter().map(|s| s.name.as_str()).collect()
    }

    #[test]
    fn rust_hidden_test_only_and_private_module_items_are_left_out() {
        let source = r#"
/// Shown.
pub struct Shown;

#[doc(hidden)]
pub fn hidden() {}

#[doc(hidden)]
pub mod __private_api {
    pub type Key = str;
}

#[cfg(test)]
#[derive(Debug)]
pub enum Token { A }

impl Shown {
    #[cfg(test)]
    pub fn to_test_token(&self) {}
    #[doc(hidden)]
    pub fn internal(&self) {}
    pub fn visible(&self) {}
}

mod inner {
    pub enum Inner { None }
    impl Inner {
        pub fn to_test_token(&self) {}
    }
}

mod reexported {
    pub fn again() {}
}
pub use self::reexported::again;

pub mod api {
    pub fn call() {}
}
"#;
        let found = outline("src/lib.rs", source);
        assert_eq!(
            names(&found),
            ["Shown", "Shown::visible", "again", "call"],
            "{:#?}",
            found.symbols
        );
        assert_eq!(
            found.rust_modules.mods,
            [
                ModDecl {
                    name: "__private_api".into(),
                    public: true,
                    hidden: true,
                    requires: None
                },
                ModDecl {
                    name: "inner".into(),
                    public: false,
                    hidden: false,
                    requires: None
                },
                ModDecl {
                    name: "reexported".into(),
                    public: false,
                    hidden: false,
                    requires: None
                },
                ModDecl {
                    name: "api".into(),
                    public: true,
                    hidden: false,
                    requires: None
                },
            ]
        );
        assert_eq!(
            found.rust_modules.reexports,
            [public::ReExport {
                path: vec!["self".into(), "reexported".into(), "again".into()],
                alias: None
            }]
        );
    }

    #[test]
    fn rust_docs_skip_ordinary_comments_before_the_item() {
        let source = "/// A key in a key-value.\n// Impls must only use as_str().\n#[derive(Clone)]\npub struct Key;\n";
        assert_eq!(
            outline("src/lib.rs", source).symbols[0].doc,
            "A key in a key-value."
        );
    }

    #[test]
    fn rust_cfg_variants_are_one_item() {
        let source = r#"
/// A key.
#[cfg(feature = "kv")]
pub type Key = str;
#[cfg(not(feature = "kv"))]
pub type Key = ();
"#;
        let found = outline("src/lib.rs", source);
        assert_eq!(names(&found), ["Key"]);
        assert_eq!(found.symbols[0].signature, "pub type Key = str;");
        assert_eq!(found.symbols[0].doc, "A key.");
        // Under different gates, one variant or the other is there: no label.
        assert_eq!(found.symbols[0].requires, None);
    }

    #[test]
    fn rust_items_behind_crate_features_say_which() {
        let source = r#"
/// Logs with key-values.
#[macro_export]
#[cfg(feature = "kv")]
macro_rules! log_kv { () => {} }

#[cfg(all(feature = "std", not(feature = "alloc")))]
pub fn odd() {}

pub struct Logger;

#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
#[cfg(feature = "std")]
impl Logger {
    pub fn flush(&self) {}
    #[cfg(any(feature = "serde", feature = "sval"))]
    pub fn serialize(&self) {}
}
"#;
        let found = outline("src/lib.rs", source);
        let requires = |name: &str| {
            let symbol = found.symbols.iter().find(|s| s.name == name).unwrap();
            symbol
                .requires
                .as_ref()
                .map(|r| (r.features.join(","), r.any))
        };
        assert_eq!(requires("log_kv!"), Some(("kv".into(), false)));
        assert_eq!(requires("odd"), None);
        assert_eq!(requires("Logger"), None);
        assert_eq!(requires("Logger::flush"), Some(("std".into(), false)));
        assert_eq!(requires("Logger::serialize"), None);
    }

    #[test]
    fn rust_exported_macros_are_documented_at_the_crate_root() {
        let source = r#"
/// Logs a message at the info level. More text.
///
/// ```
/// info!("hi");
/// ```
#[macro_export]
macro_rules! info {
    (target: $target:expr, $($arg:tt)+) => (log!(target: $target, $($arg)+));
    ($($arg:tt)+) => (log!($($arg)+))
}

macro_rules! private_helper { () => {} }

#[doc(hidden)]
#[macro_export]
macro_rules! __log_key { () => {} }
"#;
        let found = outline("src/macros.rs", source);
        assert_eq!(names(&found), ["info!"]);
        let info = &found.symbols[0];
        assert_eq!(info.kind, SymbolKind::Macro);
        assert_eq!(info.module, "src/lib.rs");
        assert_eq!(info.path, "src/macros.rs");
        assert_eq!(info.doc, "Logs a message at the info level.");
        assert_eq!(
            info.signature,
            "macro_rules! info {\n    (target: $target:expr, $($arg:tt)+) => { ... };\n    ($($arg:tt)+) => { ... };\n}"
        );
        assert_eq!(info.examples[0].code, "info!(\"hi\");");
    }

    #[test]
    fn rust_intra_doc_links_read_as_code() {
        let source = "//! Defines the [`Value`] type, see [`Key`](crate::kv::Key).\n\n/// Wraps a [`Value`](struct.Value.html), like [`log!`].\npub struct Wrap;\n";
        let found = outline("src/lib.rs", source);
        assert_eq!(found.overview, "Defines the `Value` type, see `Key`.");
        assert_eq!(found.symbols[0].doc, "Wraps a `Value`, like `log!`.");
    }

    #[test]
    fn go_first_sentence_stops_before_a_preformatted_block() {
        let source = "package uuid\n\n// Validate returns an error if s is not a properly formatted UUID in one of the following formats:\n//   xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx\n//   {xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}\n// It returns an error if the format is invalid, otherwise nil.\nfunc Validate(s string) error { return nil }\n\n// Well known namespace IDs and UUIDs\nvar (\n\tNameSpaceDNS  = Must(\"6ba7b810\")\n\tNameSpaceURL  = Must(\"6ba7b811\")\n\tNil           UUID // empty UUID, all zeros\n)\n";
        let found = outline("uuid.go", source);
        let by_name = |name: &str| {
            found
                .symbols
                .iter()
                .find(|s| s.name == name)
                .unwrap_or_else(|| panic!("{name}: {:#?}", found.symbols))
        };
        assert_eq!(
            by_name("Validate").doc,
            "Validate returns an error if s is not a properly formatted UUID in one of the following formats:"
        );
        assert_eq!(
            by_name("NameSpaceDNS").signature,
            "var NameSpaceDNS = Must(\"6ba7b810\")"
        );
        assert_eq!(by_name("Nil").signature, "var Nil UUID");
    }

    #[test]
    fn plain_javascript_is_fenced_as_javascript() {
        let found = outline(
            "index.js",
            "/** Makes an id. */\nexport function nanoid(size) {}\n",
        );
        assert_eq!(found.symbols[0].language, "javascript");
        let found = outline(
            "index.d.ts",
            "/** Makes an id. */\nexport function nanoid(size?: number): string\n",
        );
        assert_eq!(found.symbols[0].language, "typescript");
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

    #[test]
    fn status_badges_are_left_out_of_prose_and_screenshots_kept() {
        let readme = "# uuid\n\n[![Build](https://github.com/o/r/actions/workflows/ci.yml/badge.svg)](https://github.com/o/r/actions) [![Latest](https://img.shields.io/crates/v/log.svg)](https://crates.io/crates/log)\n![License](https://img.shields.io/crates/l/log.svg)\n\nThe uuid package.\n\n### Documentation\n[![Go Reference](https://pkg.go.dev/badge/github.com/google/uuid.svg)](https://pkg.go.dev/github.com/google/uuid)\n\n![The dashboard](docs/dashboard.png)\n\nSee ![badge](https://img.shields.io/x.svg) inline.\n\n```md\n[![Build](https://x/badge.svg)](https://x)\n```\n";
        let p = prose("README.md", readme);
        for gone in [
            "actions/workflows",
            "img.shields.io/crates",
            "pkg.go.dev/badge",
        ] {
            assert!(!p.markdown.contains(gone), "{gone}:\n{}", p.markdown);
        }
        for kept in [
            "The uuid package.",
            "### Documentation",
            "docs/dashboard.png",
            "See ![badge]",
            "[![Build](https://x/badge.svg)](https://x)",
        ] {
            assert!(p.markdown.contains(kept), "{kept}:\n{}", p.markdown);
        }
    }

    #[test]
    fn setext_headings_are_headings() {
        let p = prose(
            "README.md",
            "log\n===\n\nA logging facade.\n\nUsage\n-----\n\nCall it.\n\n- item\n---\n\n```\ncode\n---\n```\n",
        );
        assert_eq!(p.title, "log");
        assert!(
            p.markdown.starts_with("A logging facade.\n\n#### Usage\n"),
            "{}",
            p.markdown
        );
        // A list item is no heading's text, and a fence holds no heading.
        assert!(p.markdown.contains("- item\n---"), "{}", p.markdown);
        assert!(p.markdown.contains("code\n---\n```"), "{}", p.markdown);
        let p = prose("a.md", "Two line\ntitle\n===\nText");
        assert_eq!(p.title, "Two line title");
        assert_eq!(p.markdown, "Text");
    }

    #[test]
    fn a_first_heading_that_names_a_section_is_no_title() {
        let p = prose(
            "rfcs/0296-structured-logging.md",
            "- Feature Name: x\n\n# Summary\n\nAdd structure.\n\n# Motivation\n\nWhy.\n",
        );
        assert_eq!(p.title, "Structured logging");
        assert!(
            p.markdown.contains("### Summary\n\nAdd structure."),
            "{}",
            p.markdown
        );
        assert!(p.markdown.contains("### Motivation"), "{}", p.markdown);
        assert_eq!(prose("ü.md", "ü\n===\n").title, "ü");
    }
}
