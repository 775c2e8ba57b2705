//! A documented symbol: what the articles show of one declaration.

use serde::Serialize;

use super::comments::Example;
use super::doc_comment::model::DocComment;
use super::lang::rust::Requires;

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
    /// A trait implemented for a type (Rust `impl Trait for Type`), listed under the type.
    Implementation,
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
            SymbolKind::Implementation => "implementation",
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
            SymbolKind::Implementation => "Trait implementations",
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
    /// The whole doc comment, structured. Its links to other symbols are `doc:` links the
    /// render layer resolves, so templates read it from the render layer's view.
    #[serde(skip)]
    pub comment: DocComment,
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
    /// Python: the module nearer the package root that re-exports this top-level symbol
    /// (its file) and the name it has there, when the symbol is documented in its own module
    /// (`itsdangerous.signer.Signer`, imported as `from itsdangerous import Signer`).
    #[serde(skip)]
    pub reexport: Option<(String, String)>,
    /// Python: its place in its module's `__all__`, the order autodoc's `bysource` gives
    /// the names a module lists (pluggy's `PluginManager` first, whatever file defines it).
    #[serde(skip)]
    pub listed_at: Option<usize>,
}

/// What the extract stage read about a module besides its symbols.
#[derive(Clone, Debug, Default)]
pub(crate) struct ModuleDoc {
    pub language: &'static str,
    pub overview: String,
    /// Go: the package name. Rust: the crate's name, from its `Cargo.toml`.
    pub package: Option<String>,
    /// Go: `func Example()` of the package.
    pub examples: Vec<Example>,
    /// Python: the module's place in the article as the project's own docs order it
    /// (`lang::python::docs_order`); modules without one follow, by name.
    pub rank: Option<usize>,
}
