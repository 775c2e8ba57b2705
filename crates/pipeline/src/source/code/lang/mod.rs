//! Per-language knowledge: which declarations are public, what their signature is, and where
//! their doc comment lives. One module per language; this one names the languages and hands
//! each node to its module.

pub(crate) mod common;
mod deprecation;
pub(crate) mod go;
pub(crate) mod python;
pub(crate) mod rust;
pub(crate) mod typescript;

pub(crate) use deprecation::deprecation;

use tree_sitter::Node;

use super::symbol::SymbolKind;
use super::tree::{Declaration, Place, Source};
use common::comment_lines;
use go::{go, go_doc};
use python::{docstring_lines, python};
use rust::{is_pub, rust, rust_hidden};
use typescript::typescript;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Language {
    Rust = 0,
    Python = 1,
    TypeScript = 2,
    Tsx = 3,
    Go = 4,
}

impl Language {
    pub fn from_path(path: &str) -> Option<Self> {
        let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
        Some(match ext.as_str() {
            "rs" => Language::Rust,
            "py" | "pyi" => Language::Python,
            "ts" | "mts" | "cts" | "js" | "mjs" | "cjs" => Language::TypeScript,
            "tsx" | "jsx" => Language::Tsx,
            "go" => Language::Go,
            _ => return None,
        })
    }

    pub fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::Rust => tree_sitter_rust::LANGUAGE.into(),
            Language::Python => tree_sitter_python::LANGUAGE.into(),
            Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Language::Go => tree_sitter_go::LANGUAGE.into(),
        }
    }

    /// The info string of code fences for this language.
    pub fn fence(self) -> &'static str {
        match self {
            Language::Rust => "rust",
            Language::Python => "python",
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
            Language::Go => "go",
        }
    }

    /// The info string of code fences for the file at `path`: plain JavaScript is shown as
    /// JavaScript, though it is parsed with the TypeScript grammar.
    pub fn fence_for(self, path: &str) -> &'static str {
        let ext = path
            .rsplit_once('.')
            .map_or("", |(_, e)| e)
            .to_ascii_lowercase();
        match ext.as_str() {
            "js" | "mjs" | "cjs" => "javascript",
            "jsx" => "jsx",
            _ => self.fence(),
        }
    }

    /// Whether declarations this language documents can sit under a node of `kind`: the
    /// walk descends only into these, never into function bodies or expressions, so its work
    /// stays proportional to the file's outline.
    pub fn holds_declarations(self, kind: &str) -> bool {
        let kinds: &[&str] = match self {
            Language::Rust => &[
                "source_file",
                "mod_item",
                "declaration_list",
                "impl_item",
                "trait_item",
                "foreign_mod_item",
                "struct_item",
                "union_item",
                "field_declaration_list",
                "enum_item",
                "enum_variant_list",
                "ERROR",
            ],
            Language::Python => &[
                "module",
                "decorated_definition",
                "class_definition",
                "block",
            ],
            Language::TypeScript | Language::Tsx => &[
                "program",
                "export_statement",
                "ambient_declaration",
                "internal_module",
                "module",
                "statement_block",
                "expression_statement",
                "lexical_declaration",
                "variable_declaration",
                "class_declaration",
                "class",
                "abstract_class_declaration",
                "class_body",
                "interface_declaration",
                "interface_body",
                // An object type alias's properties (`type Options = { … } & Base`).
                "type_alias_declaration",
                "intersection_type",
                "object_type",
                "ERROR",
            ],
            // A `const` block is read whole where it is declared: its specs inherit the
            // type and value of the ones before them (`iota`).
            Language::Go => &[
                "source_file",
                "var_declaration",
                "var_spec_list",
                "type_declaration",
                "type_spec",
                "struct_type",
                "field_declaration_list",
                "interface_type",
                "ERROR",
            ],
        };
        kinds.contains(&kind)
    }
}

/// The declarations `def` makes that the articles document (none when it is private, local
/// or not a declaration), pushed to `out`.
pub(crate) fn describe<'t>(
    language: Language,
    def: Node<'t>,
    place: &Place<'_, 't>,
    src: &Source,
    out: &mut Vec<Declaration<'t>>,
) {
    match language {
        Language::Rust => {
            let found = rust(def, place, src);
            let derived = match &found {
                Some(d) if matches!(d.kind, SymbolKind::Struct | SymbolKind::Enum) => {
                    rust::rust_derives(def, &d.name, place, src)
                }
                _ => Vec::new(),
            };
            out.extend(found);
            out.extend(derived);
        }
        Language::Python => python(def, place, src, out),
        Language::TypeScript | Language::Tsx => typescript(def, place, src, out),
        Language::Go => go(def, place, src, out),
    }
}

/// Whether the walk stays out of `node`, a container of declarations. Rust: an item hidden
/// by its attributes (`#[cfg(test)]`, `#[doc(hidden)]`: see [`rust_hidden`]), and a private
/// inline module (`mod inner { … }`) unless the file re-exports from it with `pub use`:
/// rustdoc shows neither.
pub(crate) fn is_hidden_container(
    language: Language,
    node: Node,
    leading: &[Node],
    src: &Source,
) -> bool {
    if language != Language::Rust {
        return false;
    }
    if rust_hidden(leading, src) {
        return true;
    }
    node.kind() == "mod_item"
        && !is_pub(node, src)
        && node
            .child_by_field_name("name")
            .is_none_or(|name| !src.reexports_from(src.of(name)))
}

/// A file's own documentation and, for Go, its package name: Rust `//!` comments, a Python
/// module docstring, a Go package comment, a TypeScript JSDoc that says it documents the
/// file (`@packageDocumentation`, `@module`, `@file`, `@fileoverview`) or is followed by a
/// blank line. Only the comments at the top of the file are read.
pub(crate) fn file_overview(
    language: Language,
    root: Node,
    src: &Source,
) -> (Vec<String>, Option<String>) {
    let mut cursor = root.walk();
    let mut comments: Vec<Node> = Vec::new();
    let mut package = None;
    let mut doc = Vec::new();
    let mut first_code_row = usize::MAX;
    for child in root.children(&mut cursor) {
        let kind = child.kind();
        if kind.contains("comment") {
            comments.push(child);
            continue;
        }
        first_code_row = child.start_position().row;
        match language {
            Language::Rust if kind == "inner_attribute_item" => continue,
            Language::Python => {
                if let Some(string) = child
                    .named_child(0)
                    .filter(|s| kind == "expression_statement" && s.kind() == "string")
                {
                    doc = docstring_lines(src.of(string));
                }
            }
            Language::Go if kind == "package_clause" => {
                package = child.named_child(0).map(|n| src.of(n).to_string());
                doc = go_doc(child, &comments, src);
            }
            _ => {}
        }
        break;
    }
    match language {
        Language::Rust => {
            let inner: Vec<&str> = comments
                .iter()
                .map(|c| src.of(*c))
                .filter(|c| c.starts_with("//!") || c.starts_with("/*!"))
                .collect();
            doc = inner
                .iter()
                .flat_map(|c| {
                    c.lines().map(|l| {
                        let l = l.trim_start();
                        let l = l
                            .strip_prefix("//!")
                            .or_else(|| l.strip_prefix("/*!"))
                            .unwrap_or(l);
                        let l = l.strip_suffix("*/").unwrap_or(l);
                        l.strip_prefix(' ').unwrap_or(l).trim_end().to_string()
                    })
                })
                .collect();
        }
        Language::TypeScript | Language::Tsx => {
            let file_doc = comments.iter().enumerate().find(|(i, c)| {
                let text = src.of(**c);
                let tagged = ["@packageDocumentation", "@module", "@file", "@fileoverview"]
                    .iter()
                    .any(|t| text.contains(t));
                let next_row = comments
                    .get(i + 1)
                    .map_or(first_code_row, |n| n.start_position().row);
                text.starts_with("/**") && (tagged || next_row > c.end_position().row + 1)
            });
            if let Some((_, c)) = file_doc {
                doc = comment_lines(&[src.of(*c)])
                    .into_iter()
                    .filter(|l| !l.starts_with("@packageDocumentation"))
                    .collect();
            }
        }
        _ => {}
    }
    (doc, package)
}

/// A comment on the line where a declaration ends documents it when it has no doc of its
/// own: Go's `Field int // doc`, Python's `name = 1  #: doc`.
pub(crate) fn trailing_comment(
    language: Language,
    comment: Node,
    src: &Source,
    found: &mut [Declaration],
) {
    let Some(last) = found.last_mut() else {
        return;
    };
    if !last.doc.is_empty() || last.node.end_position().row != comment.start_position().row {
        return;
    }
    let text = src.of(comment);
    let documents = match language {
        Language::Go => matches!(last.kind, SymbolKind::Field | SymbolKind::Constant),
        Language::Python => text.starts_with("#:"),
        _ => false,
    };
    if documents {
        last.doc = comment_lines(&[text])
            .into_iter()
            .map(|l| l.strip_prefix(':').unwrap_or(&l).trim().to_string())
            .collect();
    }
}
