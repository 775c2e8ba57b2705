//! Drift: does an article's provenance still match the repository's HEAD? Like Swimm's
//! auto-sync, a file whose bytes changed is only drift when something the article shows from
//! it changed: a documented symbol's token hash, a public symbol added to a documented file
//! (the article misses it), or prose and captures used verbatim.

use git2::{ObjectType, Oid, Repository, TreeWalkMode, TreeWalkResult};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex};

use domain::{Change, ChangeKind};

use crate::error::PipelineError;
use crate::limits::Limits;
use crate::provenance::{FileRole, Provenance, StepsSource};
use crate::source::code::{self, Extractor, FileText, Language};
use crate::source::files::is_python_private;
use crate::source::manifest::{self, MANIFEST_PATH};
use crate::source::paths::{MODE_LINK, MODE_SUBMODULE};
use crate::source::repository;

type SymbolIndex = Arc<Vec<(String, String, String)>>;
type Symbols = Arc<Vec<code::Symbol>>;

/// The repository's HEAD, indexed once, against which many provenances are checked.
pub struct DriftChecker {
    repo: Mutex<Repository>,
    head: String,
    blobs: HashMap<String, Oid>,
    paths_by_blob: HashMap<Oid, Vec<String>>,
    symbols: Mutex<HashMap<(Oid, String), SymbolIndex>>,
    /// The symbols of Python files as extracted, before a feature's re-exports place them.
    python_symbols: Mutex<HashMap<(Oid, String), Symbols>>,
    /// The `mod` declarations and `pub use`s of Rust files at HEAD, read within a budget.
    outside: Mutex<code::OutsideFiles>,
    /// Hash of each feature's manifest steps at HEAD.
    steps: Mutex<HashMap<String, Option<String>>>,
    extractor: Mutex<Extractor>,
    limits: Limits,
}

impl DriftChecker {
    /// Indexes `repo`'s HEAD. The files it parses later are bounded by `limits` as in a run:
    /// one larger than `max_file_bytes` has no symbols (each documented symbol of it counts
    /// as changed), one past `max_nesting_depth` or `max_parse_millis` fails the check.
    pub fn open(repo: &Path, limits: &Limits) -> Result<Self, PipelineError> {
        Self::open_at(repo, None, limits)
    }

    /// Indexes the commit `at` (a full id) of `repo`, or its HEAD.
    pub fn open_at(repo: &Path, at: Option<&str>, limits: &Limits) -> Result<Self, PipelineError> {
        let repository = repository::open(repo)?;
        let (head, blobs) = {
            let commit = match at {
                Some(id) => repository::commit(&repository, id)?,
                None => repository::head_commit(&repository)?,
            };
            let tree = commit.tree()?;
            let mut blobs = HashMap::new();
            tree.walk(TreeWalkMode::PreOrder, |root, entry| {
                if entry.kind() == Some(ObjectType::Blob)
                    && entry.filemode() != MODE_LINK
                    && entry.filemode() != MODE_SUBMODULE
                    && let Ok(name) = entry.name()
                {
                    blobs.insert(format!("{root}{name}"), entry.id());
                }
                TreeWalkResult::Ok
            })?;
            (commit.id().to_string(), blobs)
        };
        let mut paths_by_blob: HashMap<Oid, Vec<String>> = HashMap::new();
        for (path, id) in &blobs {
            paths_by_blob.entry(*id).or_default().push(path.clone());
        }
        for paths in paths_by_blob.values_mut() {
            paths.sort();
        }
        Ok(Self {
            repo: Mutex::new(repository),
            head,
            blobs,
            paths_by_blob,
            symbols: Mutex::new(HashMap::new()),
            python_symbols: Mutex::new(HashMap::new()),
            outside: Mutex::new(code::OutsideFiles::new(limits)),
            steps: Mutex::new(HashMap::new()),
            extractor: Mutex::new(Extractor::new(limits)),
            limits: limits.clone(),
        })
    }

    pub fn head_commit(&self) -> &str {
        &self.head
    }

    /// The sources of `provenance` that changed, were renamed, were deleted or gained public
    /// symbols since it was recorded; empty when the article is up to date.
    pub fn check(&self, provenance: &Provenance) -> Result<Vec<Change>, PipelineError> {
        if provenance.commit == self.head {
            return Ok(Vec::new());
        }
        let recorded: BTreeSet<&str> = provenance.files.iter().map(|f| f.path.as_str()).collect();
        // A Rust or Python module file that changed (outside the feature, or in it) can change
        // which items of the feature's other files of its language are public, and under which
        // name: those are compared again. So can a script or package manifest the feature's
        // TypeScript API is exported through.
        let language = |f: &crate::provenance::FileSource| Language::from_path(&f.path);
        let changed = |lang: Language| {
            provenance.files.iter().any(|f| {
                matches!(f.role, FileRole::Module | FileRole::Code)
                    && language(f) == Some(lang)
                    && self.blobs.get(&f.path).map(|b| b.to_string()) != Some(f.blob.clone())
            })
        };
        let rust_changed = changed(Language::Rust);
        let python_changed = changed(Language::Python);
        let scripts_changed = provenance.files.iter().any(|f| {
            matches!(f.role, FileRole::Module | FileRole::Code)
                && is_script_or_package(&f.path)
                && self.blobs.get(&f.path).map(|b| b.to_string()) != Some(f.blob.clone())
        });
        let python_files: Vec<&str> = provenance
            .files
            .iter()
            .filter(|f| f.role == FileRole::Code && language(f) == Some(Language::Python))
            .map(|f| f.path.as_str())
            .collect();
        let python = if python_files.is_empty() {
            None
        } else {
            Some(self.python_api(&python_files)?)
        };
        let mut changes = Vec::new();
        for file in &provenance.files {
            if file.role == FileRole::Module {
                continue;
            }
            let blob = Oid::from_str(&file.blob).map_err(|_| {
                PipelineError::Repository(format!(
                    "provenance of '{}' holds an invalid blob id '{}'",
                    file.path, file.blob
                ))
            })?;
            let documented: Vec<_> = provenance
                .symbols
                .iter()
                .filter(|s| s.path == file.path)
                .collect();
            let names = |list: &[&crate::provenance::SymbolSource]| {
                let mut names: Vec<String> = list.iter().map(|s| s.name.clone()).collect();
                names.dedup();
                names
            };
            let compared_again = match Language::from_path(&file.path) {
                Some(Language::Rust) => rust_changed,
                Some(Language::Python) => python_changed,
                Some(Language::TypeScript | Language::Tsx) => scripts_changed,
                _ => false,
            };
            match self.blobs.get(&file.path) {
                Some(current) if *current == blob && !compared_again => {}
                Some(current) => match file.role {
                    FileRole::Module => {}
                    FileRole::Prose | FileRole::Capture => changes.push(Change {
                        path: file.path.clone(),
                        kind: ChangeKind::Modified,
                        symbols: Vec::new(),
                        new_path: None,
                    }),
                    FileRole::Code => {
                        let now = match &python {
                            Some(api) if language(file) == Some(Language::Python) => {
                                self.python_symbols_of(*current, &file.path, api)?
                            }
                            _ => self.symbols_of(*current, &file.path)?,
                        };
                        let changed: Vec<_> = documented
                            .iter()
                            .filter(|s| {
                                !now.iter().any(|(name, kind, hash)| {
                                    *name == s.name && *kind == s.kind && *hash == s.hash
                                })
                            })
                            .copied()
                            .collect();
                        if !changed.is_empty() {
                            changes.push(Change {
                                path: file.path.clone(),
                                kind: ChangeKind::Modified,
                                symbols: names(&changed),
                                new_path: None,
                            });
                        }
                        let mut added: Vec<String> = now
                            .iter()
                            .filter(|(name, kind, _)| {
                                !documented
                                    .iter()
                                    .any(|s| s.name == *name && s.kind == *kind)
                            })
                            .map(|(name, _, _)| name.clone())
                            .collect();
                        added.dedup();
                        if !added.is_empty() {
                            changes.push(Change {
                                path: file.path.clone(),
                                kind: ChangeKind::Added,
                                symbols: added,
                                new_path: None,
                            });
                        }
                    }
                },
                None => {
                    let new_path = self
                        .paths_by_blob
                        .get(&blob)
                        .and_then(|paths| paths.iter().find(|p| !recorded.contains(p.as_str())))
                        .cloned();
                    changes.push(Change {
                        path: file.path.clone(),
                        kind: if new_path.is_some() {
                            ChangeKind::Renamed
                        } else {
                            ChangeKind::Deleted
                        },
                        symbols: names(&documented),
                        new_path,
                    });
                }
            }
        }
        if let Some(recorded) = &provenance.steps {
            let now = self.steps_of(&recorded.feature)?;
            if now.as_ref() != Some(&recorded.hash) {
                changes.push(Change {
                    path: MANIFEST_PATH.to_string(),
                    kind: if now.is_some() {
                        ChangeKind::Modified
                    } else {
                        ChangeKind::Deleted
                    },
                    symbols: Vec::new(),
                    new_path: None,
                });
            }
        }
        Ok(changes)
    }

    /// The hash of `feature`'s manifest steps at HEAD (`None`: it has none, or is no longer
    /// declared; empty: the manifest does not read), resolved once per checker.
    fn steps_of(&self, feature: &str) -> Result<Option<String>, PipelineError> {
        if let Some(found) = lock(&self.steps).get(feature) {
            return Ok(found.clone());
        }
        let hash = {
            let repo = lock(&self.repo);
            let head = Oid::from_str(&self.head)
                .and_then(|id| repo.find_commit(id))
                .and_then(|commit| commit.tree())?;
            match manifest::resolve_in_tree(&repo, &head, feature) {
                Ok(resolved) => StepsSource::of(&resolved).map(|s| s.hash),
                Err(PipelineError::UnknownFeature { .. }) => None,
                // A manifest that no longer reads is a change of the steps, not a failure of
                // the whole check; the next run reports why.
                Err(_) => Some(String::new()),
            }
        };
        lock(&self.steps).insert(feature.to_owned(), hash.clone());
        Ok(hash)
    }

    /// (name, kind, hash) of the public symbols of a blob at `path`, parsed once per
    /// checker. A Rust file's symbols are those a run documents: what its modules' privacy
    /// hides is left out, re-exports carry their alias.
    fn symbols_of(&self, blob: Oid, path: &str) -> Result<SymbolIndex, PipelineError> {
        let Some(language) = Language::from_path(path) else {
            return Ok(Arc::new(Vec::new()));
        };
        let key = (blob, path.to_string());
        if let Some(found) = lock(&self.symbols).get(&key) {
            return Ok(found.clone());
        }
        let text = code::read_text(&lock(&self.repo), path, blob, &self.limits)?;
        let index = match text {
            FileText::TooLarge(_) | FileText::Binary => Vec::new(),
            FileText::Text(text) => {
                let mut symbols = lock(&self.extractor).symbols(path, language, &text)?;
                if language == Language::Rust {
                    let mut facts = |file: &str| self.rust_module_facts(file);
                    symbols = code::rust_public_api(symbols, [path], &mut facts).0;
                    lock(&self.outside).finish()?;
                }
                if matches!(language, Language::TypeScript | Language::Tsx) {
                    let mut files = HeadScripts { checker: self };
                    symbols = code::typescript_public_api(symbols, [path], &mut files).symbols;
                    lock(&self.outside).finish()?;
                }
                symbols
                    .into_iter()
                    .map(|s| (s.name, s.kind.as_str().to_string(), s.hash))
                    .collect()
            }
        };
        let index = Arc::new(index);
        lock(&self.symbols).insert(key, index.clone());
        Ok(index)
    }
}

impl DriftChecker {
    /// Where a run documents the symbols of the Python files of a feature (`files`, those a
    /// provenance records), resolved at HEAD. A feature whose Python files are all private
    /// was a run on a private folder: its own private part counts as it did in the run.
    fn python_api(&self, files: &[&str]) -> Result<code::PythonApi, PipelineError> {
        let all_private = files.iter().all(|f| is_python_private(f));
        let own = |path: &str| all_private && is_python_private(path);
        let mut facts = |path: &str| self.python_module_facts(path);
        let autodoc = code::uses_autodoc(|p| self.blobs.contains_key(p));
        let api = code::PythonApi::new(files, &own, &mut facts).with_autodoc(autodoc);
        lock(&self.outside).finish()?;
        Ok(api)
    }

    /// (name, kind, hash) of what a run documents of the Python file at `path` (a blob at
    /// HEAD): its symbols placed by `api`, under the names its package re-exports them as.
    fn python_symbols_of(
        &self,
        blob: Oid,
        path: &str,
        api: &code::PythonApi,
    ) -> Result<SymbolIndex, PipelineError> {
        let key = (blob, path.to_string());
        let found = lock(&self.python_symbols).get(&key).cloned();
        let symbols = match found {
            Some(found) => found,
            None => {
                let symbols = match code::read_text(&lock(&self.repo), path, blob, &self.limits)? {
                    FileText::TooLarge(_) | FileText::Binary => Vec::new(),
                    FileText::Text(text) => {
                        lock(&self.extractor).symbols(path, Language::Python, &text)?
                    }
                };
                let symbols = Arc::new(symbols);
                lock(&self.python_symbols).insert(key, symbols.clone());
                symbols
            }
        };
        Ok(Arc::new(
            api.apply(symbols.as_ref().clone())
                .into_iter()
                .map(|s| (s.name, s.kind.as_str().to_string(), s.hash))
                .collect(),
        ))
    }

    /// The imports and `__all__` of the Python file at `path` at HEAD, read once per checker.
    fn python_module_facts(&self, path: &str) -> Option<Arc<code::PythonModuleFacts>> {
        let blob = *self.blobs.get(path)?;
        let repo = lock(&self.repo);
        let mut extractor = lock(&self.extractor);
        lock(&self.outside).python_facts(&repo, &mut extractor, path, blob)
    }

    /// The module facts of the Rust file at `path` at HEAD, read once per checker.
    fn rust_module_facts(&self, path: &str) -> Option<Arc<code::RustModuleFacts>> {
        let blob = *self.blobs.get(path)?;
        let repo = lock(&self.repo);
        let mut extractor = lock(&self.extractor);
        lock(&self.outside).rust_facts(&repo, &mut extractor, path, blob)
    }
}

/// The files at HEAD, for the TypeScript public API of a file: read once per checker, within
/// its budget of files outside the feature.
struct HeadScripts<'c> {
    checker: &'c DriftChecker,
}

impl code::TsFiles for HeadScripts<'_> {
    fn exists(&mut self, path: &str) -> bool {
        self.checker.blobs.contains_key(path)
    }

    fn manifest(&mut self, path: &str) -> Option<String> {
        let blob = *self.checker.blobs.get(path)?;
        let repo = lock(&self.checker.repo);
        lock(&self.checker.outside).package_manifest(&repo, path, blob)
    }

    fn facts(&mut self, path: &str) -> Option<Arc<code::TsModuleFacts>> {
        let blob = *self.checker.blobs.get(path)?;
        let repo = lock(&self.checker.repo);
        let mut extractor = lock(&self.checker.extractor);
        lock(&self.checker.outside).typescript_facts(&repo, &mut extractor, path, blob)
    }
}

fn is_script(path: &str) -> bool {
    matches!(
        Language::from_path(path),
        Some(Language::TypeScript | Language::Tsx)
    )
}

/// A script, or a file that says which of a package's scripts are public.
fn is_script_or_package(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    is_script(path) || matches!(name, "package.json" | "tsconfig.json")
}

/// A poisoned lock only means another check panicked; the data (a cache) is still usable.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
