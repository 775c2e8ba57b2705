//! Which Python symbols a package's users reach, and under which module, as they import them
//! and as Sphinx autodoc shows the package: modules whose dotted path has a `_`-prefixed part
//! are private, and their classes and functions are documented where a public module
//! re-exports them (`from ._core import Foo`, `from ._core import Foo as Bar`,
//! `from pkg._impl import *`), followed from package to sub-package to private module.
//!
//! What a module makes public:
//! - with `__all__`, exactly the names it lists, wherever they are bound from (autodoc
//!   documents imported members that `__all__` names);
//! - without, the names it defines that do not start with `_`, the public names of the
//!   modules it star-imports (their `__all__`, else theirs by these same rules), the names
//!   it imports as themselves (`from .x import A as A`, the explicit re-export of typing
//!   tools), and, in a package's `__init__.py` (the package's face, what `from pkg import X`
//!   reads) that does not mark its re-exports that way, every name it imports explicitly.
//!   Elsewhere an explicit import is an implementation detail (PEP 8; autodoc and pydoc
//!   leave imported names out without `__all__`; in a stub, PEP 484).
//!
//! A symbol is documented once: in its own module when that module is public and makes it
//! public, else in the public module closest to the package root that re-exports it (under
//! the name it is re-exported as). Its `path` and `line` stay those of the file defining it
//! ("Defined in"), its `module` becomes the public module's file. Members go with their class.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::inherit::{Members, Placed, inherit};
use super::module::{PyImport, PythonModuleFacts};
use crate::source::code::symbol::{Symbol, SymbolKind};
use crate::source::files::is_python_private;

/// How many modules a name is followed through (`pkg` → `pkg.sub` → `pkg.sub._impl`).
const MAX_LOOKUP_DEPTH: usize = 16;
/// Lookups of a name in a module, and star imports looked into, in one resolution; past it,
/// names are not followed (a repository that makes more is not a package anyone imports).
const MAX_LOOKUPS: usize = 200_000;
/// Folders walked up from a file to its package root.
const MAX_PACKAGE_DEPTH: usize = 32;

/// A name as defined: (the file defining it, its name there).
type Origin = (String, String);

/// A module's public names, each with what it names (`None`: nothing in the repository).
type Exports = Arc<Vec<(String, Option<Origin>)>>;

/// Reads a module file's facts; `None` when there is no such file (or it cannot be read).
pub(crate) type PythonFacts<'a> = dyn FnMut(&str) -> Option<Arc<PythonModuleFacts>> + 'a;

/// Where the Python symbols of a set of files are documented.
pub(crate) struct PythonApi {
    /// The files placed; symbols of other files pass through unchanged.
    files: HashSet<String>,
    /// Each public (file, name) defined in them: its module and name in the docs.
    placed: HashMap<Origin, (String, String)>,
    /// The same, for the names a module lists in its `__all__` only: a module-level variable
    /// (`frozen = partial(define, frozen=True)`) is API when listed, as autodoc shows it.
    listed: HashMap<Origin, (String, String)>,
    /// The files whose module is not shown: no section of their own.
    private: Vec<String>,
    /// Each placed (file, name) that a public module nearer the package root re-exports
    /// too: that module and the name there (what `from pkg import Name` reads).
    shortcut: HashMap<Origin, (String, String)>,
    /// Each placed (file, name) that an `__all__` also lists under another name: those
    /// modules and names, documented as aliases of it.
    aliases: HashMap<Origin, Vec<(String, String)>>,
    /// The project documents its API with Sphinx autodoc ([`uses_autodoc`]), which shows
    /// module data only when documented or listed in `__all__`; else pydoc's rule shows
    /// every constant.
    autodoc: bool,
    /// The `__all__` of each module shown that has one, in its order.
    all_order: HashMap<String, Vec<String>>,
}

/// Where a project keeps its Sphinx configuration (`conf.py`).
const SPHINX_DIRS: &[&str] = &["docs", "doc", "docs/source", "doc/source"];

/// Whether the repository's docs are built by Sphinx (a `conf.py` in a docs folder, by
/// `exists`), whose autodoc then decides what module data is shown.
pub(crate) fn uses_autodoc(exists: impl Fn(&str) -> bool) -> bool {
    SPHINX_DIRS
        .iter()
        .any(|dir| exists(&format!("{dir}/conf.py")))
}

impl PythonApi {
    /// Resolves the re-exports of the Python `files` (a feature's) and of the package
    /// `__init__` files above them, read through `facts`. `own` tells whether a private file
    /// is inside the feature's own private part (a run on `pkg/_impl/`): when no public module
    /// re-exports anything of such files, the feature is documented as autodoc documents a
    /// module it is pointed at, its public names in place (what a reader of that private
    /// folder asked for); when public modules do re-export from them, only what they
    /// re-export is shown, under them, as a run on the whole package would show it.
    pub fn new(files: &[&str], own: &dyn Fn(&str) -> bool, facts: &mut PythonFacts) -> Self {
        let mut resolver = Resolver::new(facts);
        let feature: HashSet<String> = files.iter().map(|f| f.to_string()).collect();
        let mut modules: Vec<String> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        for file in files {
            if seen.insert(file.to_string()) {
                modules.push(file.to_string());
            }
            for init in resolver.package_inits(file).iter() {
                if seen.insert(init.clone()) {
                    modules.push(init.clone());
                }
            }
        }
        let public = |m: &str| !is_python_private(m);
        let mut all_order = HashMap::new();
        // Every public name of a module that could be shown, by what it names: (module,
        // name, whether the module's `__all__` lists it).
        let mut homes: HashMap<Origin, Vec<(String, String, bool)>> = HashMap::new();
        for module in &modules {
            if !public(module) && !own(module) {
                continue;
            }
            let found = resolver.module(module);
            let listed = found.as_ref().is_some_and(|m| m.all.is_some());
            if let Some(all) = found.as_ref().and_then(|m| m.facts.all.clone()) {
                all_order.insert(module.clone(), all);
            }
            for (name, origin) in resolver.exports(module, 0).iter() {
                let Some(origin) = origin else { continue };
                if feature.contains(&origin.0) {
                    homes.entry(origin.clone()).or_default().push((
                        module.clone(),
                        name.clone(),
                        listed,
                    ));
                }
            }
        }
        let reexported_from_outside = homes
            .iter()
            .any(|(origin, at)| own(&origin.0) && at.iter().any(|(m, _, _)| public(m)));
        let visible = |m: &str| public(m) || (!reexported_from_outside && own(m));
        let mut placed = HashMap::new();
        let mut listed = HashMap::new();
        let mut shortcut = HashMap::new();
        let mut aliases: HashMap<Origin, Vec<(String, String)>> = HashMap::new();
        for (origin, at) in homes {
            let shown: Vec<&(String, String, bool)> =
                at.iter().filter(|(m, _, _)| visible(m)).collect();
            if let Some(home) = home(&origin, shown.iter().copied()) {
                // Under its own name before an alias (`import x as y`) of the same module.
                if let Some(nearest) = shown.iter().filter(|(m, _, _)| public(m)).min_by(|a, b| {
                    module_depth(&a.0)
                        .cmp(&module_depth(&b.0))
                        .then((a.1 != origin.1).cmp(&(b.1 != origin.1)))
                        .then(a.cmp(b))
                }) && module_depth(&nearest.0) < module_depth(&home.0)
                {
                    shortcut.insert(origin.clone(), (nearest.0.clone(), nearest.1.clone()));
                }
                placed.insert(origin.clone(), home);
            }
            if let Some(home) = home(&origin, shown.iter().copied()) {
                // Each other name an `__all__` lists for it is an alias
                // (`from .wait import wait_random_exponential as wait_full_jitter`).
                for (module, name, in_all) in &shown {
                    if *in_all && *name != home.1 && public(module) {
                        aliases
                            .entry(origin.clone())
                            .or_default()
                            .push((module.clone(), name.clone()));
                    }
                }
            }
            if let Some(home) = home(&origin, shown.iter().copied().filter(|c| c.2)) {
                listed.insert(origin, home);
            }
        }
        let private = files
            .iter()
            .filter(|f| !visible(f))
            .map(|f| f.to_string())
            .collect();
        Self {
            files: feature,
            placed,
            listed,
            private,
            shortcut,
            aliases,
            autodoc: false,
            all_order,
        }
    }

    /// The same, with module data shown as Sphinx autodoc shows it when `autodoc` is set.
    pub fn with_autodoc(mut self, autodoc: bool) -> Self {
        self.autodoc = autodoc;
        self
    }

    /// `symbols` as documented: those of the placed files moved to their public module and
    /// name (members with their class), or left out when no public module shows them.
    pub fn apply(&self, symbols: Vec<Symbol>) -> Vec<Symbol> {
        let autodoc = self.autodoc;
        let mut out = Vec::with_capacity(symbols.len());
        let mut classes = Vec::new();
        for mut symbol in symbols.iter().cloned() {
            if symbol.language != "python" || !self.files.contains(&symbol.path) {
                // A member of a private class is only ever shown as inherited.
                if symbol.language != "python"
                    || !symbol.parent.as_ref().is_some_and(|p| p.starts_with('_'))
                {
                    out.push(symbol);
                }
                continue;
            }
            let key = (
                symbol.path.clone(),
                symbol.parent.clone().unwrap_or_else(|| symbol.name.clone()),
            );
            // Under autodoc, an undocumented `ANY_ID = 0` or `F = TypeVar("F")` is not API.
            let undocumented = autodoc && symbol.doc.is_empty() && symbol.comment.text.is_empty();
            let placed = match symbol.kind {
                SymbolKind::Variable => &self.listed,
                SymbolKind::Constant if symbol.parent.is_none() && undocumented => &self.listed,
                _ => &self.placed,
            };
            let Some((module, name)) = placed.get(&key) else {
                continue;
            };
            symbol.module = module.clone();
            match symbol.parent.take() {
                Some(parent) => {
                    if let Some(rest) = symbol.name.strip_prefix(parent.as_str()) {
                        symbol.name = format!("{name}{rest}");
                    }
                    symbol.parent = Some(name.clone());
                }
                None => {
                    if symbol.kind == SymbolKind::Class {
                        classes.push(Placed {
                            class: (symbol.path.clone(), symbol.name.clone()),
                            module: module.clone(),
                            name: name.clone(),
                        });
                    }
                    symbol.listed_at = self
                        .all_order
                        .get(module)
                        .and_then(|all| all.iter().position(|n| n == name));
                    symbol.reexport = self.shortcut.get(&key).cloned();
                    if symbol.name != *name {
                        symbol.signature = renamed(&symbol.signature, &symbol.name, name);
                    }
                    symbol.name = name.clone();
                    for (module, alias) in self.aliases.get(&key).into_iter().flatten() {
                        let mut entry = alias_of(&symbol, alias);
                        entry.listed_at = self
                            .all_order
                            .get(module)
                            .and_then(|all| all.iter().position(|n| n == alias));
                        entry.module = module.clone();
                        out.push(entry);
                    }
                }
            }
            out.push(symbol);
        }
        let members = Members::new(&symbols);
        let documented = |class: &(String, String)| self.placed.contains_key(class);
        inherit(&members, &classes, &documented, &mut out);
        out
    }

    /// Each public module of the files read whose `__all__` lists names that are all
    /// documented elsewhere (`stamina.typing` re-exporting `RetryHook` of
    /// `stamina.instrumentation`), with those names: autodoc gives it a page of its own, so
    /// the article gives it a section that says what it holds.
    pub fn reexport_only_modules(&self, symbols: &[Symbol]) -> Vec<(String, Vec<String>)> {
        let mut found: Vec<(String, Vec<String>)> = self
            .all_order
            .iter()
            .filter(|(module, all)| {
                self.files.contains(*module)
                    && !all.is_empty()
                    && !self.private.contains(module)
                    && !symbols.iter().any(|s| s.module == **module)
            })
            .map(|(module, all)| (module.clone(), all.clone()))
            .collect();
        found.sort();
        found
    }

    /// The files read whose module is not shown (private), to list no section for.
    pub fn private_modules(&self) -> &[String] {
        &self.private
    }
}

/// An entry for `alias`, another name of a top-level `symbol`, as autodoc documents a name
/// bound to an object documented elsewhere: "Alias of `original`."
fn alias_of(symbol: &Symbol, alias: &str) -> Symbol {
    let mut entry = symbol.clone();
    entry.signature = format!("{alias} = {}", symbol.name);
    entry.name = alias.to_string();
    entry.doc = format!("Alias of `{}`.", symbol.name);
    entry.comment = Default::default();
    entry.comment.text = format!("Alias of [`{0}`](doc:{0}).", symbol.name);
    entry.examples.clear();
    entry.reexport = None;
    entry.listed_at = None;
    entry
}

/// Where a name defined as `origin` is documented among the `candidates` that show it: in
/// its own module when that shows it, else in the one nearest the package root.
fn home<'c>(
    origin: &Origin,
    candidates: impl Iterator<Item = &'c (String, String, bool)> + Clone,
) -> Option<(String, String)> {
    if candidates
        .clone()
        .any(|(m, n, _)| *m == origin.0 && *n == origin.1)
    {
        return Some(origin.clone());
    }
    candidates
        .min_by(|a, b| {
            module_depth(&a.0)
                .cmp(&module_depth(&b.0))
                .then_with(|| a.0.cmp(&b.0))
                .then_with(|| a.1.cmp(&b.1))
        })
        .map(|(m, n, _)| (m.clone(), n.clone()))
}

/// A signature under the name it is re-exported as, as `help()` and autodoc show the object
/// at its new name: `def helper(x)` imported `as make` reads `def make(x)`.
fn renamed(signature: &str, old: &str, new: &str) -> String {
    for keyword in ["def ", "class "] {
        let Some(at) = signature
            .match_indices(&format!("{keyword}{old}"))
            .map(|(at, _)| at)
            .find(|at| {
                let end = at + keyword.len() + old.len();
                let line_start = signature[..*at].rfind('\n').map_or(0, |i| i + 1);
                let before = signature[line_start..*at].trim();
                (before.is_empty() || before == "async")
                    && !signature[end..]
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
        else {
            continue;
        };
        let start = at + keyword.len();
        return format!(
            "{}{new}{}",
            &signature[..start],
            &signature[start + old.len()..]
        );
    }
    signature.to_string()
}

/// How far a module is from its package root, by its file: `pkg/__init__.py` before
/// `pkg/sub/__init__.py` and `pkg/api.py`.
fn module_depth(path: &str) -> usize {
    let parts = path.split('/').count();
    let init = path
        .rsplit('/')
        .next()
        .is_some_and(|f| f.starts_with("__init__."));
    parts - usize::from(init)
}

/// A module's facts with its bindings indexed by name.
struct Module {
    facts: Arc<PythonModuleFacts>,
    defined: HashSet<String>,
    all: Option<HashSet<String>>,
    /// The explicit imports binding each name, in file order (a `try` / `except` pair binds
    /// one name twice; the first that resolves wins).
    bound: HashMap<String, Vec<usize>>,
    stars: Vec<usize>,
    /// A package's `__init__.py`: its explicit imports are re-exports, unless it marks
    /// them (`marks_reexports`).
    init: bool,
    /// Some of its imports are written `from .x import A as A`, the explicit re-export of
    /// typing tools: the others are implementation details (pyright's rule for typed
    /// packages; anyio imports its lazy-import helpers plainly, its API `as` itself).
    marks_reexports: bool,
}

struct Resolver<'f, 'a> {
    facts: &'f mut PythonFacts<'a>,
    modules: HashMap<String, Option<Arc<Module>>>,
    /// Each module's public names and what they name; `None` while being computed (a cycle).
    exports: HashMap<String, Option<Exports>>,
    lookups: HashMap<(String, String), Option<Origin>>,
    /// (file, name) pairs being looked up, for cycles.
    open: HashSet<(String, String)>,
    /// Lookups and star imports followed, against [`MAX_LOOKUPS`].
    work: usize,
    /// The file each import reads from, by (importing file, import index).
    targets: HashMap<(String, usize), Option<String>>,
    /// The package `__init__` files above a folder, nearest first.
    inits: HashMap<String, Arc<Vec<String>>>,
}

impl<'f, 'a> Resolver<'f, 'a> {
    fn new(facts: &'f mut PythonFacts<'a>) -> Self {
        Self {
            facts,
            modules: HashMap::new(),
            exports: HashMap::new(),
            lookups: HashMap::new(),
            open: HashSet::new(),
            work: 0,
            targets: HashMap::new(),
            inits: HashMap::new(),
        }
    }

    fn module(&mut self, path: &str) -> Option<Arc<Module>> {
        if let Some(found) = self.modules.get(path) {
            return found.clone();
        }
        let found = (self.facts)(path).map(|facts| {
            let mut bound: HashMap<String, Vec<usize>> = HashMap::new();
            let mut stars = Vec::new();
            for (i, import) in facts.imports.iter().enumerate() {
                match import.bound() {
                    Some(name) => bound.entry(name.to_string()).or_default().push(i),
                    None => stars.push(i),
                }
            }
            Arc::new(Module {
                defined: facts.defined.iter().cloned().collect(),
                all: facts.all.as_ref().map(|all| all.iter().cloned().collect()),
                bound,
                stars,
                // A stub's imports re-export nothing unless `as` themselves (PEP 484).
                init: path.rsplit('/').next() == Some("__init__.py"),
                marks_reexports: facts
                    .imports
                    .iter()
                    .any(|i| i.alias.is_some() && i.alias == i.name),
                facts,
            })
        });
        self.modules.insert(path.to_string(), found.clone());
        found
    }

    /// The module file of a package folder or module path: `a/b.py`, `a/b/__init__.py`,
    /// or their stubs.
    fn module_file(&mut self, base: &str) -> Option<String> {
        if base.is_empty() {
            return None;
        }
        let candidates = [
            format!("{base}.py"),
            format!("{base}/__init__.py"),
            format!("{base}.pyi"),
            format!("{base}/__init__.pyi"),
        ];
        candidates.into_iter().find(|c| self.module(c).is_some())
    }

    /// The `__init__` files of the packages holding `file`, nearest first, up to the first
    /// folder that is no package.
    fn package_inits(&mut self, file: &str) -> Arc<Vec<String>> {
        let dir = parent(file).to_string();
        if let Some(found) = self.inits.get(&dir) {
            return found.clone();
        }
        let mut found = Vec::new();
        let mut at = dir.clone();
        for _ in 0..MAX_PACKAGE_DEPTH {
            if at.is_empty() {
                break;
            }
            let init = ["__init__.py", "__init__.pyi"]
                .into_iter()
                .map(|init| join(&at, init))
                .find(|init| self.module(init).is_some());
            match init {
                Some(init) => found.push(init),
                None => break,
            }
            at = parent(&at).to_string();
        }
        let found = Arc::new(found);
        self.inits.insert(dir, found.clone());
        found
    }

    /// The file the `index`th import of `file` reads from, resolved once.
    fn target(&mut self, file: &str, index: usize, import: &PyImport) -> Option<String> {
        let key = (file.to_string(), index);
        if let Some(found) = self.targets.get(&key) {
            return found.clone();
        }
        let found = self.resolve_target(file, import);
        self.targets.insert(key, found.clone());
        found
    }

    /// The file an import of `file` reads from; `None` outside the repository.
    fn resolve_target(&mut self, file: &str, import: &PyImport) -> Option<String> {
        let relative = import.module.join("/");
        if import.level > 0 {
            let mut base = parent(file);
            for _ in 1..import.level {
                if base.is_empty() {
                    return None;
                }
                base = parent(base);
            }
            // `from . import x`: the package itself (x is one of its names, or a submodule).
            if relative.is_empty() {
                return ["__init__.py", "__init__.pyi"]
                    .into_iter()
                    .map(|init| join(base, init))
                    .find(|c| self.module(c).is_some());
            }
            let base = join(base, &relative);
            return self.module_file(&base);
        }
        // An absolute import names a module from a folder on `sys.path`: the one above the
        // file's top package, else the repository root or `src/`.
        let inits = self.package_inits(file);
        let top = inits
            .last()
            .map_or(parent(file), |init| parent(parent(init)));
        let roots = [top.to_string(), String::new(), "src".to_string()];
        let mut tried = HashSet::new();
        for root in roots {
            if tried.insert(root.clone())
                && let Some(found) = self.module_file(&join(&root, &relative))
            {
                return Some(found);
            }
        }
        None
    }

    /// What `name` in the module `file` is bound to, followed to its definition; `None` when
    /// it is bound outside the repository, to a module, or not at all.
    fn lookup(&mut self, file: &str, name: &str, depth: usize) -> Option<Origin> {
        let key = (file.to_string(), name.to_string());
        if let Some(found) = self.lookups.get(&key) {
            return found.clone();
        }
        if depth > MAX_LOOKUP_DEPTH || self.work >= MAX_LOOKUPS || !self.open.insert(key.clone()) {
            return None;
        }
        self.work += 1;
        let found = self.lookup_uncached(file, name, depth);
        self.open.remove(&key);
        self.lookups.insert(key, found.clone());
        found
    }

    fn lookup_uncached(&mut self, file: &str, name: &str, depth: usize) -> Option<Origin> {
        let module = self.module(file)?;
        if module.defined.contains(name) {
            return Some((file.to_string(), name.to_string()));
        }
        for &i in module.bound.get(name).map_or(&[][..], Vec::as_slice) {
            let import = &module.facts.imports[i];
            let Some(original) = import.name.as_deref() else {
                continue;
            };
            let Some(target) = self.target(file, i, import) else {
                continue;
            };
            if let Some(found) = self.lookup(&target, original, depth + 1) {
                return Some(found);
            }
        }
        // `from m import *` binds m's `__all__`, else its names without `_`.
        for &i in &module.stars {
            self.work += 1;
            if self.work >= MAX_LOOKUPS {
                break;
            }
            let import = &module.facts.imports[i];
            let Some(target) = self.target(file, i, import) else {
                continue;
            };
            let Some(source) = self.module(&target) else {
                continue;
            };
            let brought = match &source.all {
                Some(all) => all.contains(name),
                None => !name.starts_with('_'),
            };
            if brought && let Some(found) = self.lookup(&target, name, depth + 1) {
                return Some(found);
            }
        }
        None
    }

    /// The names `file` makes public (see the module documentation) and what each names.
    fn exports(&mut self, file: &str, depth: usize) -> Exports {
        if let Some(found) = self.exports.get(file) {
            return found.clone().unwrap_or_default();
        }
        if depth > MAX_LOOKUP_DEPTH {
            return Arc::default();
        }
        self.exports.insert(file.to_string(), None);
        let names = match self.module(file) {
            Some(module) => self.public_names(file, &module, depth),
            None => Vec::new(),
        };
        let mut out = Vec::with_capacity(names.len());
        for name in names {
            let origin = self.lookup(file, &name, depth);
            out.push((name, origin));
        }
        let out = Arc::new(out);
        self.exports.insert(file.to_string(), Some(out.clone()));
        out
    }

    fn public_names(&mut self, file: &str, module: &Module, depth: usize) -> Vec<String> {
        let mut seen = HashSet::new();
        let mut names = Vec::new();
        let mut add = |name: &str, names: &mut Vec<String>| {
            if seen.insert(name.to_string()) {
                names.push(name.to_string());
            }
        };
        if let Some(all) = &module.facts.all {
            for name in all {
                add(name, &mut names);
            }
            return names;
        }
        for name in &module.facts.defined {
            if !name.starts_with('_') {
                add(name, &mut names);
            }
        }
        for import in &module.facts.imports {
            let Some(bound) = import.bound() else {
                continue;
            };
            let as_itself = import.alias.is_some() && import.alias == import.name;
            let reexport = as_itself || (module.init && !module.marks_reexports);
            if reexport && !bound.starts_with('_') {
                add(bound, &mut names);
            }
        }
        for &i in &module.stars {
            let import = &module.facts.imports[i];
            let Some(target) = self.target(file, i, import) else {
                continue;
            };
            for (name, _) in self.exports(&target, depth + 1).iter() {
                if !name.starts_with('_') {
                    add(name, &mut names);
                }
            }
        }
        names
    }
}

/// The folder of a path (`""` at the root).
fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

fn join(dir: &str, rest: &str) -> String {
    match (dir.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_string(),
        (_, true) => dir.to_string(),
        _ => format!("{dir}/{rest}"),
    }
}

#[cfg(test)]
#[path = "reach_tests.rs"]
mod tests;
