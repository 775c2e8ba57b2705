//! The public symbols of source files (tree-sitter parses; one walk over the
//! file's outline finds the declarations, decides what is public and reads doc comments).
//! Work per file is bounded by [`Limits`]: its size, its bracket nesting, and a parse
//! deadline.

use sha2::{Digest, Sha256};
use std::ops::ControlFlow;
use std::time::{Duration, Instant};
use tree_sitter::{ParseOptions, ParseState, Parser};

use super::comments::{self, Example, first_sentence};
use super::doc_comment::DocComment;
use super::lang::go::go_example_body;
use super::lang::python::PythonModuleFacts;
use super::lang::rust::RustModuleFacts;
use super::lang::typescript::TsModuleFacts;
use super::lang::{self, Language};
use super::symbol::{Symbol, SymbolKind};
use super::text::nesting_exceeded;
use super::tree::Source;
use super::walk::{declarations, hex, token_hash};
use crate::error::PipelineError;
use crate::limits::Limits;

/// A signature is shown whole in the developer docs (its members are also listed one by one
/// beneath it); one from a minified file can be a single line of a megabyte.
const MAX_SIGNATURE_CHARS: usize = 8_000;

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
            let mut comment = DocComment::parse(&decl.doc, language, fence);
            if comment.hidden {
                continue;
            }
            if comment.deprecated.is_none() {
                comment.deprecated = lang::deprecation(language, decl.node, &src);
            }
            let doc = match language {
                // A Go doc comment's indented lines are a preformatted block.
                Language::Go => first_sentence(comments::before_preformatted(&decl.doc)),
                Language::Rust => comments::without_intra_doc_links(&first_sentence(&decl.doc)),
                _ => comment.summary(),
            };
            // `#[macro_export]` puts a macro at the crate root, whatever module defines it.
            let module = match decl.kind {
                SymbolKind::Macro => lang::rust::rust_crate_root(path).unwrap_or(module.clone()),
                _ if language == Language::Rust => {
                    lang::rust::rust_inline_module(path, decl.node, &src).unwrap_or(module.clone())
                }
                _ => module.clone(),
            };
            found.push((
                Symbol {
                    path: path.to_string(),
                    language: fence,
                    kind: decl.kind,
                    hash: token_hash(&decl, &src),
                    examples: comments::tag_examples(&decl.doc, fence),
                    doc,
                    comment,
                    parent: decl.parent,
                    module,
                    name: decl.name,
                    signature: lang::common::truncate(&decl.signature, MAX_SIGNATURE_CHARS),
                    line: decl.node.start_position().row + 1,
                    requires: decl.requires,
                    reexport: None,
                    listed_at: None,
                },
                stub,
            ));
        }
        found.sort_by(|(a, _), (b, _)| a.line.cmp(&b.line).then_with(|| a.name.cmp(&b.name)));
        found.dedup_by(|(a, _), (b, _)| a.line == b.line && a.name == b.name && a.kind == b.kind);
        let (overview, package) = lang::file_overview(language, root, &src);
        let overview = DocComment::module(&overview, language);
        let mut rust_modules = RustModuleFacts::default();
        if language == Language::Rust {
            rust_modules = lang::rust::rust_module_facts(root, &src);
        }
        let python_module =
            (language == Language::Python).then(|| lang::python::python_module_facts(root, &src));
        let typescript_exports = match language {
            Language::TypeScript | Language::Tsx => {
                lang::typescript::typescript_module_facts(root, &src)
            }
            _ => TsModuleFacts::default(),
        };
        Ok(Outline {
            symbols: merge_overloads(found, language),
            overview,
            package,
            go_examples,
            rust_modules,
            python_module,
            typescript_exports,
        })
    }

    /// The imports, `__all__` and top-level names of a Python file, and nothing else: what a
    /// module outside a feature says about the names it re-exports. Bounded as
    /// [`Extractor::symbols`].
    pub fn python_module_facts(
        &mut self,
        path: &str,
        source: &str,
    ) -> Result<PythonModuleFacts, PipelineError> {
        let (tree, _) = self.parse(path, Language::Python, source)?;
        Ok(lang::python::python_module_facts(
            tree.root_node(),
            &Source::new(source),
        ))
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
        Ok(lang::rust::rust_module_facts(
            tree.root_node(),
            &Source::new(source),
        ))
    }

    /// What a TypeScript or JavaScript file exports, and nothing else: what a file outside a
    /// feature says about the feature's public names. Bounded as [`Extractor::symbols`].
    pub fn typescript_module_facts(
        &mut self,
        path: &str,
        language: Language,
        source: &str,
    ) -> Result<TsModuleFacts, PipelineError> {
        let (tree, _) = self.parse(path, language, source)?;
        Ok(lang::typescript::typescript_module_facts(
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
    /// Python: the file's imports, `__all__` and top-level names.
    pub python_module: Option<PythonModuleFacts>,
    /// TypeScript and JavaScript: what the file exports, by name.
    pub typescript_exports: TsModuleFacts,
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
    let mut index: std::collections::HashMap<(String, String, SymbolKind), usize> =
        std::collections::HashMap::new();
    // Each merged symbol's shown signatures with their own deprecation, and whether the
    // implementation, which speaks for the whole function, is deprecated.
    let mut overloads: Vec<Vec<(String, Option<String>)>> = Vec::with_capacity(found.len());
    let mut whole_deprecated: Vec<bool> = Vec::with_capacity(found.len());
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
        // Same-named items of two inline modules (`sync::OnceCell`, `unsync::OnceCell`) are
        // two items, never variants of one.
        let key = (symbol.module.clone(), symbol.name.clone(), symbol.kind);
        match index.get(&key).copied().filter(|_| mergeable) {
            Some(at) => {
                let kept = &mut out[at];
                let had_stubs = stubs[at];
                // An implementation after its overloads adds nothing; the first overload
                // after a plain declaration replaces it.
                let own = (symbol.signature.clone(), symbol.comment.deprecated.clone());
                match (had_stubs, stub) {
                    _ if cfg_variant => {}
                    (true, false) => whole_deprecated[at] = own.1.is_some(),
                    (false, true) => {
                        kept.signature = symbol.signature.clone();
                        overloads[at] = vec![own];
                    }
                    _ => {
                        kept.signature.push('\n');
                        kept.signature.push_str(&symbol.signature);
                        overloads[at].push(own);
                    }
                }
                if kept.doc.is_empty() {
                    kept.doc = symbol.doc;
                }
                if kept.comment.text.is_empty() && kept.comment.sections.is_empty() {
                    let deprecated = kept.comment.deprecated.take();
                    kept.comment = symbol.comment;
                    kept.comment.deprecated = kept.comment.deprecated.take().or(deprecated);
                }
                // Variants under different gates: what one needs, another may not.
                if kept.requires != symbol.requires {
                    kept.requires = None;
                }
                // Overloads that repeat one doc comment show its examples once.
                for example in symbol.examples {
                    if !kept.examples.contains(&example) {
                        kept.examples.push(example);
                    }
                }
                let mut hasher = Sha256::new();
                hasher.update(&kept.hash);
                hasher.update(&symbol.hash);
                kept.hash = hex(&hasher.finalize()[..16]);
                stubs[at] = had_stubs || stub;
            }
            None => {
                index.insert(key, out.len());
                overloads.push(vec![(
                    symbol.signature.clone(),
                    symbol.comment.deprecated.clone(),
                )]);
                whole_deprecated.push(!stub && symbol.comment.deprecated.is_some());
                out.push(symbol);
                stubs.push(stub);
            }
        }
    }
    for ((symbol, shown), whole) in out.iter_mut().zip(overloads).zip(whole_deprecated) {
        one_overload_deprecated(symbol, &shown, whole);
    }
    out
}

/// A deprecation one overload states (TSDoc `@deprecated` on one signature, as TypeDoc
/// shows it on that signature alone) deprecates that overload, not the function: the others
/// stay current, and the text says which overload is deprecated and why.
fn one_overload_deprecated(symbol: &mut Symbol, shown: &[(String, Option<String>)], whole: bool) {
    let deprecated = shown.iter().filter(|(_, d)| d.is_some()).count();
    if whole || shown.len() < 2 || deprecated == 0 || deprecated == shown.len() {
        return;
    }
    symbol.comment.deprecated = None;
    for (signature, message) in shown {
        let Some(message) = message else { continue };
        // On one line, without the line breaks' spaces and trailing comma.
        let signature = signature.split_whitespace().collect::<Vec<_>>().join(" ");
        let signature = signature
            .replace("( ", "(")
            .replace(", )", ")")
            .replace(" )", ")");
        let signature = if signature.contains('`') {
            format!("`` {signature} ``")
        } else {
            format!("`{signature}`")
        };
        let note = match message.trim() {
            "" => format!("The overload {signature} is deprecated."),
            why => format!("The overload {signature} is deprecated: {why}"),
        };
        if !symbol.comment.text.is_empty() {
            symbol.comment.text.push_str("\n\n");
        }
        symbol.comment.text.push_str(&note);
    }
}
