//! Stage `extract`: the feature's files read for their public symbols and their prose, Rust
//! module files outside the feature read for visibility, and the steps' captures looked up.

use domain::{LogLevel, LogStage};
use git2::{Repository, Tree};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use super::collect::Collected;
use super::request::RunRequest;
use super::resolve::Resolved;
use crate::error::PipelineError;
use crate::log::LogSink;
use crate::source::code::{
    self, CrateManifest, Extractor, FileText, GoExample, Language, ModuleDoc, OutsideFiles,
    PythonApi, PythonModuleFacts, RustModuleFacts, Symbol, SymbolKind, TsModuleFacts,
};
use crate::source::docs::{self, Prose, SiteOrder};
use crate::source::files::{self, RepoFile};
use crate::source::manifest::Feature;
use crate::source::repository;

pub(super) struct Extracted {
    pub code: Vec<RepoFile>,
    /// Rust module files outside the feature read for the visibility of its items.
    pub module_files: Vec<(String, git2::Oid)>,
    pub prose_files: Vec<RepoFile>,
    pub symbols: Vec<Symbol>,
    pub prose: Vec<Prose>,
    /// The READMEs of the TypeScript packages whose entry points the feature's code is in,
    /// when they are outside the feature: TypeDoc's index page, for the developer docs.
    pub package_readmes: Vec<Prose>,
    /// The order the project's docs site gives its pages, when it has a site.
    pub site: Option<SiteOrder>,
    /// Markdown files that are no prose of the feature (see `source::files::project_document`), and why.
    pub prose_left_out: Vec<(String, &'static str)>,
    /// Overviews and package examples, by module (a Go package's folder, else a file).
    pub module_docs: BTreeMap<String, ModuleDoc>,
    pub skipped: usize,
    /// Test files, Go `internal/` packages and private Python modules: not API, left out of
    /// the developer docs (their own sections).
    pub test_files: usize,
    pub internal_files: usize,
    /// Examples, benchmarks, mocks, scripts, hooks and build helpers: no API either.
    pub non_api_files: usize,
    /// Each manifest step's capture.
    pub captures: Vec<Capture>,
    /// Every manifest step has a capture file at the commit.
    pub grounded: bool,
    /// Where the feature's code crossed `max_feature_symbols`, when it did: its code is then
    /// left out (no symbols, no module docs) and only the surfaces that need none are written.
    pub symbols_past_limit: Option<String>,
}

impl Extracted {
    /// The failure of a surface that needs the symbols, when the code crossed the cap.
    pub fn symbols_error(&self, limits: &crate::limits::Limits) -> Option<PipelineError> {
        let detail = self.symbols_past_limit.as_ref()?;
        Some(PipelineError::LimitExceeded {
            what: "the number of symbols extracted from the feature".into(),
            limit: "max_feature_symbols",
            value: limits.max_feature_symbols as u64,
            detail: detail.clone(),
        })
    }

    /// Past `max_feature_symbols`: the code read so far is dropped and no more is read (time
    /// and memory stay bounded), the prose is kept.
    fn leave_code_out(&mut self, detail: String) {
        self.symbols_past_limit = Some(detail);
        self.symbols = Vec::new();
        self.code = Vec::new();
        self.module_docs = BTreeMap::new();
    }
}

pub(super) fn extract(
    repo: &Repository,
    resolved: &Resolved,
    collected: &Collected,
    req: &RunRequest,
    log: &mut dyn LogSink,
) -> Result<Extracted, PipelineError> {
    let Resolved { tree, feature, .. } = resolved;
    let extracted = extract_files(
        repo,
        tree,
        &collected.files,
        &feature.id,
        &feature.paths,
        req.limits,
        log,
    )?;
    let captures = captures(tree, feature);
    let grounded = !feature.steps.is_empty() && captures.iter().all(|c| c.blob.is_some());
    log.log(
        LogLevel::Info,
        LogStage::Extract,
        "extracted symbols and prose",
        json!({
            "source_files": extracted.code.len(),
            "symbols": extracted.symbols.len(),
            "symbols_by_kind": count_by(extracted.symbols.iter().map(|s| s.kind.as_str())),
            "symbols_by_language": count_by(extracted.symbols.iter().map(|s| s.language)),
            "prose_files": extracted.prose.len(),
            "prose_left_out": extracted.prose_left_out.len(),
            "docs_site": extracted.site.as_ref().map(|s| s.kind),
            "skipped_files": extracted.skipped,
            "test_files": extracted.test_files,
            "internal_files": extracted.internal_files,
            "non_api_files": extracted.non_api_files,
            "steps": feature.steps.len(),
            "captures_found": captures.iter().filter(|c| c.blob.is_some()).count(),
            "capture_grounded": grounded,
        }),
    );

    let dropped: BTreeMap<&str, &[String]> = extracted
        .prose
        .iter()
        .filter(|doc| !doc.dropped.is_empty())
        .take(20)
        .map(|doc| (doc.path.as_str(), doc.dropped.as_slice()))
        .collect();
    if !dropped.is_empty() {
        log.log(
            LogLevel::Info,
            LogStage::Extract,
            "left out directives of the docs site that only its build can resolve (eval-rst, toctree, autodoc…)",
            json!({ "directives_by_file": dropped }),
        );
    }
    if let Some(e) = extracted.symbols_error(req.limits) {
        log.log(
            LogLevel::Warn,
            LogStage::Extract,
            "left the feature's code out: only the articles that need no symbols are written",
            json!({ "error": e.to_string(), "prose_files": extracted.prose.len() }),
        );
    }
    if !extracted.prose_left_out.is_empty() {
        let mut by_reason: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (path, why) in &extracted.prose_left_out {
            by_reason.entry(why).or_default().push(path);
        }
        for paths in by_reason.values_mut() {
            paths.truncate(20);
        }
        log.log(
            LogLevel::Info,
            LogStage::Extract,
            "left Markdown files out of the prose: documents about the project, translations, design records",
            json!({ "files": extracted.prose_left_out.len(), "by_reason": by_reason }),
        );
    }
    Ok(Extracted {
        captures,
        grounded,
        ..extracted
    })
}

fn extract_files(
    repo: &Repository,
    tree: &Tree,
    files: &[RepoFile],
    feature_id: &str,
    feature_paths: &[String],
    limits: &crate::limits::Limits,
    log: &mut dyn LogSink,
) -> Result<Extracted, PipelineError> {
    let mut extractor = Extractor::new(limits);
    let mut out = Extracted {
        code: Vec::new(),
        module_files: Vec::new(),
        prose_files: Vec::new(),
        symbols: Vec::new(),
        prose: Vec::new(),
        package_readmes: Vec::new(),
        site: None,
        prose_left_out: Vec::new(),
        module_docs: BTreeMap::new(),
        skipped: 0,
        test_files: 0,
        internal_files: 0,
        non_api_files: 0,
        captures: Vec::new(),
        grounded: false,
        symbols_past_limit: None,
    };
    let mut go_examples: Vec<GoExample> = Vec::new();
    let translations = docs::translations(
        files
            .iter()
            .map(|f| f.path.as_str())
            .filter(|p| files::is_markdown(p)),
    );
    // The `mod` declarations and `pub use`s of each Rust file read (`None`: no such file).
    let mut rust_modules: HashMap<String, Option<Arc<RustModuleFacts>>> = HashMap::new();
    // The imports and `__all__` of each Python file read, likewise.
    let mut python_modules: HashMap<String, Option<Arc<PythonModuleFacts>>> = HashMap::new();
    // Python symbols held until `python_reach` says which are shown.
    let mut held_symbols = 0usize;
    let scopes = || std::iter::once(feature_id).chain(feature_paths.iter().map(String::as_str));
    // What each TypeScript or JavaScript file read exports.
    let mut typescript_exports: HashMap<String, Arc<TsModuleFacts>> = HashMap::new();
    let paths: HashSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    // A Sphinx site's reStructuredText pages are its prose too.
    let sphinx = paths.iter().any(|p| files::is_sphinx_config(p));
    for file in files {
        let language = Language::from_path(&file.path);
        let markdown = files::is_markdown(&file.path) || sphinx && files::is_rst(&file.path);
        if language.is_none() && !markdown {
            out.skipped += 1;
            continue;
        }
        if language.is_none() {
            let why = if translations.contains(&file.path) {
                Some("a translation of a document in its primary language")
            } else {
                files::project_document(&file.path, feature_id, feature_paths)
            };
            if let Some(why) = why {
                out.prose_left_out.push((file.path.clone(), why));
                continue;
            }
        }
        // Go test files are read for their examples only.
        let test = language.is_some() && files::is_test_file(&file.path);
        if test && language != Some(Language::Go) {
            out.test_files += 1;
            continue;
        }
        if language.is_some() && scopes().all(|scope| files::is_non_api(&file.path, scope)) {
            out.non_api_files += 1;
            continue;
        }
        // Python's private modules are read: what their package re-exports is its API (see
        // `python_reach`).
        if language.is_some()
            && language != Some(Language::Python)
            && scopes().all(|scope| files::is_hidden_internal(&file.path, scope))
        {
            out.internal_files += 1;
            continue;
        }
        // The `.d.ts` beside a `.js` file is what TypeDoc documents: the same API, typed.
        if language.is_some() && files::has_declaration_file(&file.path, |p| paths.contains(p)) {
            out.skipped += 1;
            continue;
        }
        if language == Some(Language::Python)
            && files::has_runtime_module(&file.path, |p| paths.contains(p))
        {
            out.skipped += 1;
            continue;
        }
        // Past the symbol cap no more code is read; the docs still are.
        if language.is_some() && out.symbols_past_limit.is_some() {
            out.skipped += 1;
            continue;
        }
        let text = match code::read_text(repo, &file.path, file.blob, limits)? {
            FileText::Text(text) => text,
            // One oversized file (a bundle, generated code) is left out, not fatal: the
            // feature's totals are bounded by collect.
            FileText::TooLarge(bytes) => {
                out.skipped += 1;
                log.log(
                    LogLevel::Warn,
                    LogStage::Extract,
                    "skipped a file larger than max_file_bytes",
                    json!({
                        "path": file.path,
                        "bytes": bytes,
                        "max_file_bytes": limits.max_file_bytes,
                    }),
                );
                continue;
            }
            FileText::Binary => {
                out.skipped += 1;
                log.log(
                    LogLevel::Warn,
                    LogStage::Extract,
                    "skipped a binary file",
                    json!({ "path": file.path }),
                );
                continue;
            }
        };
        if language.is_some()
            && files::is_non_api_source(&file.path, &text)
            && scopes().all(|scope| scope.trim_matches('/') != file.path)
        {
            out.non_api_files += 1;
            continue;
        }
        if files::is_generated_script(&file.path, &text) {
            out.skipped += 1;
            log.log(
                LogLevel::Info,
                LogStage::Extract,
                "skipped a generated or minified script",
                json!({ "path": file.path }),
            );
            continue;
        }
        match language {
            Some(language) => {
                // One file past a per-file bound (nesting, parse time) is left out, said in
                // the log; it does not cost the feature its docs.
                let mut outline = match extractor.outline(&file.path, language, &text) {
                    Ok(outline) => outline,
                    Err(e @ PipelineError::LimitExceeded { .. }) => {
                        out.skipped += 1;
                        log.log(
                            LogLevel::Warn,
                            LogStage::Extract,
                            "skipped a source file past a limit",
                            json!({ "path": file.path, "error": e.to_string() }),
                        );
                        continue;
                    }
                    Err(e) => return Err(e),
                };
                if language == Language::Rust {
                    let facts = Arc::new(std::mem::take(&mut outline.rust_modules));
                    rust_modules.insert(file.path.clone(), Some(facts));
                }
                if let Some(facts) = outline.python_module.take() {
                    python_modules.insert(file.path.clone(), Some(Arc::new(facts)));
                }
                if matches!(language, Language::TypeScript | Language::Tsx) {
                    let facts = Arc::new(std::mem::take(&mut outline.typescript_exports));
                    typescript_exports.insert(file.path.clone(), facts);
                }
                let dir = file.path.rsplit_once('/').map_or("", |(d, _)| d);
                if test {
                    out.test_files += 1;
                    go_examples.extend(outline.go_examples.into_iter().map(|(name, example)| {
                        GoExample {
                            dir: dir.to_string(),
                            name,
                            example,
                        }
                    }));
                    continue;
                }
                let module = if language == Language::Go {
                    dir
                } else {
                    file.path.as_str()
                };
                let doc = out.module_docs.entry(module.to_string()).or_default();
                doc.language = language.fence_for(&file.path);
                // A Go package documents itself in one file, by convention `doc.go`.
                if !outline.overview.is_empty()
                    && (doc.overview.is_empty() || file.path.rsplit('/').next() == Some("doc.go"))
                {
                    doc.overview = outline.overview;
                }
                if doc.package.is_none() {
                    doc.package = outline.package;
                }
                if language == Language::Python {
                    // What `python_reach` may leave out (a private module's symbols, module
                    // variables no `__all__` lists) counts against the feature's cap once
                    // placed, and has a cap of its own until then, past which (a vendored
                    // library) it is left out.
                    let private = files::is_python_private(&file.path);
                    let held = |s: &Symbol| private || s.kind == SymbolKind::Variable;
                    let count = outline.symbols.iter().filter(|s| held(s)).count();
                    if held_symbols + count > limits.max_feature_symbols {
                        log.log(
                            LogLevel::Warn,
                            LogStage::Extract,
                            "left out symbols of a Python module that only re-exports would show: past max_feature_symbols of them",
                            json!({ "path": file.path }),
                        );
                        outline.symbols.retain(|s| !held(s));
                    } else {
                        held_symbols += count;
                    }
                }
                out.symbols.extend(outline.symbols);
                if out.symbols.len() - held_symbols > limits.max_feature_symbols {
                    out.leave_code_out(format!("feature '{feature_id}', crossed at {}", file.path));
                    rust_modules.clear();
                    python_modules.clear();
                    typescript_exports.clear();
                    go_examples.clear();
                    continue;
                }
                out.code.push(file.clone());
            }
            None => {
                // What the page includes from other files, as the site's build would.
                let read_included = |path: &str| {
                    let entry = tree.get_path(std::path::Path::new(path)).ok()?;
                    if entry.filemode() == 0o120000 || entry.kind() != Some(git2::ObjectType::Blob)
                    {
                        return None;
                    }
                    match code::read_text(repo, path, entry.id(), limits).ok()? {
                        FileText::Text(text) => Some(text),
                        _ => None,
                    }
                };
                let text = docs::expand_includes(&file.path, &text, &read_included);
                let text = docs::substitute(&file.path, &text, &read_included);
                out.prose.push(docs::prose(&file.path, &text));
                out.prose_files.push(file.clone());
            }
        }
    }
    // A page's `{doc}`/`{ref}` roles link to the pages and sections the others hold.
    docs::resolve_cross_references(&mut out.prose);
    // Modules outside the feature read for what is public (within a budget of their own).
    let mut outside = OutsideFiles::new(limits);
    if !python_modules.is_empty() {
        let own = |path: &str| {
            files::is_python_private(path)
                && scopes().any(|scope| !files::is_hidden_internal(path, scope))
        };
        let mut facts = |path: &str| -> Option<Arc<PythonModuleFacts>> {
            if let Some(found) = python_modules.get(path) {
                return found.clone();
            }
            let found = repository::regular_file(tree, path)
                .and_then(|blob| outside.python_facts(repo, &mut extractor, path, blob));
            python_modules.insert(path.to_string(), found.clone());
            found
        };
        let autodoc = code::uses_autodoc(|p| repository::regular_file(tree, p).is_some());
        python_reach(&mut out, &own, &mut facts, autodoc);
        if out.symbols.len() > limits.max_feature_symbols {
            out.leave_code_out(format!(
                "feature '{feature_id}', with the re-exports of its Python packages"
            ));
            rust_modules.clear();
            typescript_exports.clear();
            go_examples.clear();
        }
    }
    if !rust_modules.is_empty() {
        // Which Rust modules are public is said by their parents, read from the commit when
        // they are outside the feature.
        let mut facts = |path: &str| -> Option<Arc<RustModuleFacts>> {
            if let Some(found) = rust_modules.get(path) {
                return found.clone();
            }
            let found = repository::regular_file(tree, path)
                .and_then(|blob| outside.rust_facts(repo, &mut extractor, path, blob));
            rust_modules.insert(path.to_string(), found.clone());
            found
        };
        let read: Vec<String> = out
            .code
            .iter()
            .filter(|f| Language::from_path(&f.path) == Some(Language::Rust))
            .map(|f| f.path.clone())
            .collect();
        let (symbols, private_modules) = code::rust_public_api(
            std::mem::take(&mut out.symbols),
            read.iter().map(String::as_str),
            &mut facts,
        );
        out.symbols = symbols;
        for module in private_modules {
            out.module_docs.remove(&module);
        }
        // Each crate's `Cargo.toml`, read and parsed once for both of its uses below.
        let mut manifests: HashMap<String, Option<Arc<CrateManifest>>> = HashMap::new();
        let mut manifest_of = |path: &str| -> Option<Arc<CrateManifest>> {
            let manifest = code::rust_manifest(path)?;
            manifests
                .entry(manifest)
                .or_insert_with_key(|manifest| {
                    let blob = repository::regular_file(tree, manifest)?;
                    CrateManifest::parse(&outside.text(repo, manifest, blob)?).map(Arc::new)
                })
                .clone()
        };
        // Items behind features docs.rs does not build the crate with are not in its docs.
        out.symbols.retain(|symbol| {
            let Some(requires) = &symbol.requires else {
                return true;
            };
            manifest_of(&symbol.path)
                .is_none_or(|m| m.docs_rs.as_ref().is_none_or(|d| d.shows(requires)))
        });
        // Rust paths start with the crate's name, as rustdoc shows them.
        let modules: BTreeSet<String> = out
            .symbols
            .iter()
            .filter(|s| s.language == "rust")
            .map(|s| s.module.clone())
            .chain(
                out.module_docs
                    .iter()
                    .filter(|(_, d)| d.language == "rust")
                    .map(|(m, _)| m.clone()),
            )
            .collect();
        for module in modules {
            if code::rust_manifest(&module).is_none() {
                continue;
            }
            let name = manifest_of(&module).and_then(|m| m.name.clone());
            let doc = out.module_docs.entry(module).or_default();
            doc.language = "rust";
            doc.package = name;
        }
    }
    let parts = super::typescript::TsParts {
        code: &out.code,
        prose: &out.prose,
        symbols: &mut out.symbols,
        module_docs: &mut out.module_docs,
        package_readmes: &mut out.package_readmes,
    };
    super::typescript::typescript_public_api(
        repo,
        tree,
        parts,
        typescript_exports,
        &mut outside,
        &mut extractor,
        log,
    );
    outside.finish()?;
    out.module_files = outside.modules().to_vec();
    // The docs site's order, else paths with their numbers compared as numbers.
    let pages: Vec<&str> = out.prose.iter().map(|d| d.path.as_str()).collect();
    let read = |path: &str| match repository::regular_file(tree, path)
        .map(|blob| code::read_text(repo, path, blob, limits))
    {
        Some(Ok(FileText::Text(text))) => Some(text),
        _ => None,
    };
    out.site = docs::site_order(read, &pages);
    let site = out.site.take().unwrap_or_default();
    out.prose.sort_by(|a, b| site.compare(&a.path, &b.path));
    out.prose_files
        .sort_by(|a, b| site.compare(&a.path, &b.path));
    // A book's table of contents (`SUMMARY.md` beside its pages) is its navigation, not a
    // page of it.
    if site.kind == "mdBook" {
        let is_toc = |path: &str| {
            let dir = path.strip_suffix("SUMMARY.md");
            dir.is_some_and(|dir| {
                (dir.is_empty() || dir.ends_with('/'))
                    && site.rank.keys().any(|page| page.starts_with(dir))
            })
        };
        out.prose.retain(|d| !is_toc(&d.path));
        out.prose_files.retain(|f| !is_toc(&f.path));
    }
    site.retitle(&mut out.prose);
    docs::distinct_titles(&mut out.prose);
    out.site = (!site.rank.is_empty()).then_some(site);
    python_module_order(repo, tree, limits, &mut out, &python_modules);
    code::go_members_of_declared_types(&mut out.symbols);
    for (dir, example) in code::attach_go_examples(&mut out.symbols, go_examples) {
        if let Some(doc) = out.module_docs.get_mut(&dir) {
            doc.examples.push(example);
        }
    }
    Ok(out)
}

/// Python as its users import it: symbols of private modules are shown where a public module
/// re-exports them (see `PythonApi`), their modules get no section of their own.
fn python_reach(
    out: &mut Extracted,
    own: &dyn Fn(&str) -> bool,
    facts: &mut dyn FnMut(&str) -> Option<Arc<PythonModuleFacts>>,
    autodoc: bool,
) {
    let read: Vec<&str> = out
        .code
        .iter()
        .filter(|f| Language::from_path(&f.path) == Some(Language::Python))
        .map(|f| f.path.as_str())
        .collect();
    let api = PythonApi::new(&read, own, facts).with_autodoc(autodoc);
    out.symbols = api.apply(std::mem::take(&mut out.symbols));
    for (module, names) in api.reexport_only_modules(&out.symbols) {
        if let Some(doc) = out.module_docs.get_mut(&module)
            && doc.overview.trim().is_empty()
        {
            let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
            doc.overview = format!(
                "It re-exports {}, documented in another section of this page.",
                names.join(", ")
            );
        }
    }
    for module in api.private_modules() {
        out.module_docs.remove(module);
        out.internal_files += 1;
    }
}

/// Pages of a docs folder read for the API's order, and entries of it visited, at most.
const MAX_DOC_PAGES: usize = 300;
const MAX_DOC_ENTRIES: usize = 5_000;

/// Python modules in the order the project's own API docs give them, else its package's
/// `__init__` (`code::python_docs_order`): each module's `rank`.
fn python_module_order(
    repo: &Repository,
    tree: &Tree,
    limits: &crate::limits::Limits,
    out: &mut Extracted,
    facts: &HashMap<String, Option<Arc<PythonModuleFacts>>>,
) {
    use crate::source::code::python_docs_order::{PyModule, documented_names, module_ranks};
    let mut names: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for symbol in out
        .symbols
        .iter()
        .filter(|s| s.language == "python" && s.parent.is_none())
    {
        names.entry(&symbol.module).or_default().push(&symbol.name);
    }
    // A module that only documents itself (a package's `__init__`) has its place too.
    for (path, doc) in &out.module_docs {
        if doc.language == "python" && !doc.overview.trim().is_empty() {
            names.entry(path).or_default();
        }
    }
    if names.len() < 2 {
        return;
    }
    let dotted: Vec<(String, &str, Vec<&str>)> = names
        .into_iter()
        .map(|(path, names)| {
            let dotted = crate::render::dev_docs::module_name(path, "python", None);
            (dotted, path, names)
        })
        .collect();
    let modules: Vec<PyModule> = dotted
        .iter()
        .map(|(dotted, path, names)| PyModule {
            path,
            dotted,
            names: names.clone(),
        })
        .collect();
    let read = |path: &str| match repository::regular_file(tree, path)
        .map(|blob| code::read_text(repo, path, blob, limits))
    {
        Some(Ok(FileText::Text(text))) => Some(text),
        _ => None,
    };
    let mut pages: Vec<String> = Vec::new();
    let mut visited = 0usize;
    for dir in ["docs", "doc"] {
        let Ok(entry) = tree.get_path(std::path::Path::new(dir)) else {
            continue;
        };
        let Ok(folder) = entry.to_object(repo).and_then(|o| o.peel_to_tree()) else {
            continue;
        };
        let _ = folder.walk(git2::TreeWalkMode::PreOrder, |root, e| {
            visited += 1;
            if visited > MAX_DOC_ENTRIES || pages.len() >= MAX_DOC_PAGES {
                return git2::TreeWalkResult::Abort;
            }
            if let Ok(name) = e.name()
                && e.kind() == Some(git2::ObjectType::Blob)
                && (name.ends_with(".rst") || name.ends_with(".md"))
            {
                pages.push(format!("{dir}/{root}{name}"));
            }
            git2::TreeWalkResult::Ok
        });
    }
    let refs: Vec<&str> = pages.iter().map(String::as_str).collect();
    let site = docs::site_order(read, &refs).unwrap_or_default();
    pages.sort_by(|a, b| site.compare(a, b));
    let texts: Vec<String> = pages.iter().filter_map(|p| read(p)).collect();
    let documented = documented_names(texts.iter().map(String::as_str));
    let root = modules
        .iter()
        .min_by_key(|m| (m.dotted.matches('.').count(), m.dotted))
        .filter(|m| m.path.ends_with("__init__.py"));
    let root_init = root.and_then(|m| {
        let facts = facts.get(m.path)?.as_deref()?;
        Some((m.dotted, facts))
    });
    let ranks = module_ranks(&modules, &documented, root_init);
    for (path, rank) in ranks {
        out.module_docs.entry(path).or_default().rank = Some(rank);
    }
}

pub(super) struct Capture {
    pub path: Option<String>,
    pub blob: Option<git2::Oid>,
}

/// Each step's capture, and its blob when it exists as a regular file at the commit.
fn captures(tree: &Tree, feature: &Feature) -> Vec<Capture> {
    feature
        .steps
        .iter()
        .map(|step| {
            let path = feature.capture_path(step);
            let blob = path
                .as_deref()
                .and_then(|p| repository::regular_file(tree, p));
            Capture { path, blob }
        })
        .collect()
}

fn count_by<'a>(items: impl Iterator<Item = &'a str>) -> BTreeMap<&'a str, usize> {
    let mut counts = BTreeMap::new();
    for item in items {
        *counts.entry(item).or_insert(0) += 1;
    }
    counts
}
