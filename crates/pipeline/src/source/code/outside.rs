//! Files read outside a feature: which of a feature's Rust modules are public is said by their
//! parent modules (`mod`, `pub use`), where a Python package re-exports the names of its
//! private modules by its `__init__` files (`from ._core import X`, `__all__`), which
//! TypeScript declarations a package exports by its `package.json` and the scripts its entry
//! points re-export from, and a crate's name by its `Cargo.toml`, wherever those files are. A repository decides how many there are, so they have a budget of their own, the
//! size of a feature's ([`Limits::max_feature_files`], [`Limits::max_feature_bytes`]): each
//! distinct blob counts once, a symbolic link is no file, and a file that crosses a per-file
//! limit (nesting, parse time) fails the run or drift check as a file of the feature would.
//! Callers find the blobs with [`crate::source::repository::regular_file`].

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use git2::{Oid, Repository};

use super::extractor::Extractor;
use super::lang::Language;
use super::lang::python::PythonModuleFacts;
use super::lang::rust::RustModuleFacts;
use super::lang::typescript::TsModuleFacts;
use super::text::{FileText, read_text};
use crate::error::PipelineError;
use crate::limits::Limits;

/// The budget and cache of one run's (or drift check's) reads outside its feature.
pub(crate) struct OutsideFiles {
    limits: Limits,
    files_left: usize,
    bytes_left: u64,
    facts: HashMap<Oid, Option<Arc<RustModuleFacts>>>,
    python: HashMap<Oid, Option<Arc<PythonModuleFacts>>>,
    typescript: HashMap<Oid, Option<Arc<TsModuleFacts>>>,
    /// The blobs counted against the budget.
    counted: HashSet<Oid>,
    /// The files whose module facts were read (Rust, Python, TypeScript and its package
    /// manifests), by path, in the order read.
    modules: Vec<(String, Oid)>,
    module_paths: HashSet<String>,
    /// The first limit crossed or read that failed; every later read answers `None`.
    failed: Option<PipelineError>,
}

impl OutsideFiles {
    pub fn new(limits: &Limits) -> Self {
        Self {
            limits: limits.clone(),
            files_left: limits.max_feature_files,
            bytes_left: limits.max_feature_bytes,
            facts: HashMap::new(),
            python: HashMap::new(),
            typescript: HashMap::new(),
            counted: HashSet::new(),
            modules: Vec::new(),
            module_paths: HashSet::new(),
            failed: None,
        }
    }

    /// The module facts of the Rust file `blob` (named `path` in errors); `None` when it is
    /// no text file, or once the budget or a limit has been crossed ([`OutsideFiles::finish`]
    /// tells).
    pub fn rust_facts(
        &mut self,
        repo: &Repository,
        extractor: &mut Extractor,
        path: &str,
        blob: Oid,
    ) -> Option<Arc<RustModuleFacts>> {
        if self.module_paths.insert(path.to_string()) {
            self.modules.push((path.to_string(), blob));
        }
        if let Some(found) = self.facts.get(&blob) {
            return found.clone();
        }
        let found = match self.text(repo, path, blob) {
            Some(text) => match extractor.rust_module_facts(path, &text) {
                Ok(facts) => Some(Arc::new(facts)),
                Err(e) => {
                    self.fail(e);
                    None
                }
            },
            None => None,
        };
        self.facts.insert(blob, found.clone());
        found
    }

    /// The imports, `__all__` and top-level names of the Python file `blob` (named `path`
    /// in errors), read as [`OutsideFiles::rust_facts`] reads a Rust file's.
    pub fn python_facts(
        &mut self,
        repo: &Repository,
        extractor: &mut Extractor,
        path: &str,
        blob: Oid,
    ) -> Option<Arc<PythonModuleFacts>> {
        if self.module_paths.insert(path.to_string()) {
            self.modules.push((path.to_string(), blob));
        }
        if let Some(found) = self.python.get(&blob) {
            return found.clone();
        }
        let found = match self.text(repo, path, blob) {
            Some(text) => match extractor.python_module_facts(path, &text) {
                Ok(facts) => Some(Arc::new(facts)),
                Err(e) => {
                    self.fail(e);
                    None
                }
            },
            None => None,
        };
        self.python.insert(blob, found.clone());
        found
    }

    /// What the TypeScript or JavaScript file `blob` at `path` exports; `None` as
    /// [`OutsideFiles::rust_facts`]. The file is recorded as one the feature's public API
    /// depends on.
    pub fn typescript_facts(
        &mut self,
        repo: &Repository,
        extractor: &mut Extractor,
        path: &str,
        blob: Oid,
    ) -> Option<Arc<TsModuleFacts>> {
        let language = Language::from_path(path)?;
        self.record(path, blob);
        if let Some(found) = self.typescript.get(&blob) {
            return found.clone();
        }
        let found = match self.text(repo, path, blob) {
            Some(text) => match extractor.typescript_module_facts(path, language, &text) {
                Ok(facts) => Some(Arc::new(facts)),
                Err(e) => {
                    self.fail(e);
                    None
                }
            },
            None => None,
        };
        self.typescript.insert(blob, found.clone());
        found
    }

    /// The text of a package's `package.json`, `tsconfig.json` or README, recorded as a file
    /// the feature's developer docs depend on; counted against the budget once.
    pub fn package_manifest(&mut self, repo: &Repository, path: &str, blob: Oid) -> Option<String> {
        self.record(path, blob);
        self.text(repo, path, blob)
    }

    fn record(&mut self, path: &str, blob: Oid) {
        if self.module_paths.insert(path.to_string()) {
            self.modules.push((path.to_string(), blob));
        }
    }

    /// The text of `blob` (named `path` in errors), counted against the budget once.
    pub fn text(&mut self, repo: &Repository, path: &str, blob: Oid) -> Option<String> {
        if self.failed.is_some() {
            return None;
        }
        match read_text(repo, path, blob, &self.limits) {
            Ok(FileText::Text(text)) => {
                let counted = self.counted.contains(&blob) || self.spend(path, text.len() as u64);
                if counted {
                    self.counted.insert(blob);
                }
                counted.then_some(text)
            }
            Ok(FileText::TooLarge(_) | FileText::Binary) => None,
            Err(e) => {
                self.fail(e);
                None
            }
        }
    }

    /// The Rust files read for their module facts (path, blob), in the order read: what the
    /// visibility of the feature's items depends on outside it.
    pub fn modules(&self) -> &[(String, Oid)] {
        &self.modules
    }

    /// Ok when every read stayed within the budget and the per-file limits.
    pub fn finish(&mut self) -> Result<(), PipelineError> {
        self.failed.take().map_or(Ok(()), Err)
    }

    fn spend(&mut self, path: &str, bytes: u64) -> bool {
        let crossed = |what: &str, limit, value| PipelineError::LimitExceeded {
            what: format!("the {what} read outside the feature for its module structure"),
            limit,
            value,
            detail: format!("crossed at {path}"),
        };
        if self.files_left == 0 {
            let e = crossed(
                "files",
                "max_feature_files",
                self.limits.max_feature_files as u64,
            );
            self.fail(e);
            return false;
        }
        if bytes > self.bytes_left {
            let e = crossed("bytes", "max_feature_bytes", self.limits.max_feature_bytes);
            self.fail(e);
            return false;
        }
        self.files_left -= 1;
        self.bytes_left -= bytes;
        true
    }

    fn fail(&mut self, e: PipelineError) {
        self.failed.get_or_insert(e);
    }
}
