//! Part of stage `extract`: TypeScript and JavaScript as TypeDoc documents a package, from
//! its entry points, with the package's README as TypeDoc's index page.

use domain::{LogLevel, LogStage};
use git2::{Repository, Tree};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use crate::log::LogSink;
use crate::source::code::{
    self, Extractor, Language, ModuleDoc, OutsideFiles, Symbol, TsFiles, TsModuleFacts,
};
use crate::source::docs::{self, Prose};
use crate::source::files::{self, RepoFile};
use crate::source::repository;

/// What the extract stage has read so far, and what this part of it changes.
pub(super) struct TsParts<'a> {
    /// The feature's files read as code, and its prose.
    pub code: &'a [RepoFile],
    pub prose: &'a [Prose],
    pub symbols: &'a mut Vec<Symbol>,
    pub module_docs: &'a mut BTreeMap<String, ModuleDoc>,
    /// The READMEs of the packages, when the feature's prose does not hold them.
    pub package_readmes: &'a mut Vec<Prose>,
}

/// TypeScript and JavaScript as TypeDoc documents a package: from its entry points, each a
/// module named by the package (see `source::code::typescript_public_api`).
pub(super) fn typescript_public_api(
    repo: &Repository,
    tree: &Tree,
    out: TsParts<'_>,
    exports: HashMap<String, Arc<TsModuleFacts>>,
    outside: &mut OutsideFiles,
    extractor: &mut Extractor,
    log: &mut dyn LogSink,
) {
    if exports.is_empty() {
        return;
    }
    let scripts: Vec<String> = out
        .code
        .iter()
        .filter(|f| exports.contains_key(&f.path))
        .map(|f| f.path.clone())
        .collect();
    let mut files = RepoScripts {
        repo,
        tree,
        exports,
        outside,
        extractor,
    };
    let before: BTreeSet<String> = out.symbols.iter().map(|s| s.path.clone()).collect();
    let api = code::typescript_public_api(
        std::mem::take(out.symbols),
        scripts.iter().map(String::as_str),
        &mut files,
    );
    *out.symbols = api.symbols;
    for dir in &api.packages {
        if let Some(readme) = package_readme(files.repo, files.tree, dir, out.prose, files.outside)
        {
            out.package_readmes.push(readme);
        }
    }
    for file in &api.inner_files {
        out.module_docs.remove(file);
    }
    for module in api.modules {
        let doc = out.module_docs.entry(module.key).or_default();
        doc.language =
            Language::from_path(&module.file).map_or("typescript", |l| l.fence_for(&module.file));
        doc.package = Some(module.name);
    }
    let after: BTreeSet<&str> = out.symbols.iter().map(|s| s.path.as_str()).collect();
    let unreached: Vec<&String> = before
        .iter()
        .filter(|p| !after.contains(p.as_str()))
        .collect();
    if !unreached.is_empty() {
        log.log(
            LogLevel::Info,
            LogStage::Extract,
            "left out scripts whose exports no entry point of their package exports",
            json!({
                "files": unreached.len(),
                "examples": unreached.iter().take(20).collect::<Vec<_>>(),
            }),
        );
    }
}

/// The README of the package in folder `dir` (`""` for the repository root), read when the
/// feature's prose does not hold it already.
fn package_readme(
    repo: &Repository,
    tree: &Tree,
    dir: &str,
    prose: &[Prose],
    outside: &mut OutsideFiles,
) -> Option<Prose> {
    let folder = if dir.is_empty() {
        tree.clone()
    } else {
        tree.get_path(std::path::Path::new(dir))
            .ok()?
            .to_object(repo)
            .ok()?
            .into_tree()
            .ok()?
    };
    let name = folder
        .iter()
        .filter_map(|entry| entry.name().ok().map(str::to_string))
        .filter(|name| files::is_readme(name) && files::is_markdown(name))
        .min_by_key(|name| (name.len(), name.clone()))?;
    let path = if dir.is_empty() {
        name
    } else {
        format!("{dir}/{name}")
    };
    if prose.iter().any(|doc| doc.path == path) {
        return None;
    }
    let blob = repository::regular_file(tree, &path)?;
    let text = outside.package_manifest(repo, &path, blob)?;
    Some(docs::prose(&path, &text))
}

/// The repository's files at the run's commit, for the TypeScript public API: the feature's
/// scripts as already read, the others (and package manifests) read once within the budget
/// of files outside the feature.
struct RepoScripts<'a, 'r> {
    repo: &'r Repository,
    tree: &'r Tree<'r>,
    exports: HashMap<String, Arc<TsModuleFacts>>,
    outside: &'a mut OutsideFiles,
    extractor: &'a mut Extractor,
}

impl TsFiles for RepoScripts<'_, '_> {
    fn exists(&mut self, path: &str) -> bool {
        repository::regular_file(self.tree, path).is_some()
    }

    fn manifest(&mut self, path: &str) -> Option<String> {
        let blob = repository::regular_file(self.tree, path)?;
        self.outside.package_manifest(self.repo, path, blob)
    }

    fn facts(&mut self, path: &str) -> Option<Arc<TsModuleFacts>> {
        if let Some(found) = self.exports.get(path) {
            return Some(found.clone());
        }
        let blob = repository::regular_file(self.tree, path)?;
        self.outside
            .typescript_facts(self.repo, self.extractor, path, blob)
    }
}
