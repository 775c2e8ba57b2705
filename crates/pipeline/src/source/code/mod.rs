//! What the repository's code says: the public symbols of its source files with their
//! signatures, doc comments and examples, one module per language under `lang`.

pub(crate) mod comments;
pub(crate) mod doc_comment;
mod extractor;
pub(crate) mod lang;
mod outside;
pub(crate) mod symbol;
mod text;
pub(crate) mod tree;
mod walk;

#[cfg(test)]
mod tests;

pub use comments::Example;
pub(crate) use comments::first_sentence;
pub use doc_comment::{DocComment, DocItem, DocSection};
pub(crate) use extractor::Extractor;
pub(crate) use lang::Language;
pub(crate) use lang::go::{GoExample, attach_go_examples, go_members_of_declared_types};
pub(crate) use lang::python::docs_order as python_docs_order;
pub(crate) use lang::python::{PythonApi, PythonModuleFacts, uses_autodoc};
pub(crate) use lang::rust::{CrateManifest, RustModuleFacts, rust_manifest, rust_public_api};
pub(crate) use lang::typescript::{TsFiles, TsModuleFacts, typescript_public_api};
pub(crate) use outside::OutsideFiles;
pub(crate) use symbol::ModuleDoc;
pub use symbol::{Symbol, SymbolKind};
pub(crate) use text::{FileText, read_text};
