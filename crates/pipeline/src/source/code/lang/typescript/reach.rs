//! Which TypeScript and JavaScript declarations a package's users reach, as TypeDoc shows
//! them: the package's entry points (see `package`) are its modules, named by the package
//! (`ky`) or its subpath (`ky/retry`); what an entry file exports, in place or through
//! `export … from`, `export *` and imported bindings exported again, followed from file to
//! file, is documented in that module under the name it is exported as (`default` for a
//! default export); `export * as ns` makes a namespace `ky.ns`. A file of such a package that
//! no entry point reaches is not documented; a package without entry points keeps each
//! file's own exports, as TypeDoc does with every file given as an entry point.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use super::exports::{TsLink, TsModuleFacts};
use super::inherit::inherit_members;
use super::package::{PackageJson, TsConfig, join, relative, source_of};
use crate::source::code::symbol::Symbol;

/// The files and links visited from one package's entry points; a package past it is
/// documented as far as it got.
const MAX_REACH_STEPS: usize = 20_000;
const MAX_REACH_LINKS: usize = 400_000;

/// How deep `export * as a` namespaces nest (`pkg.a.b.c.d`).
const MAX_NAMESPACE_DEPTH: usize = 4;

/// How many folders up from a file its `package.json` is looked for.
const MAX_PACKAGE_DEPTH: usize = 32;

/// What the public API is computed from: the repository's files, read by the caller (which
/// bounds and records the reads).
pub(crate) trait TsFiles {
    /// Whether the repository has a regular file at `path`.
    fn exists(&mut self, path: &str) -> bool;
    /// The text of a `package.json` or `tsconfig.json` at `path`.
    fn manifest(&mut self, path: &str) -> Option<String>;
    /// What the script at `path` exports.
    fn facts(&mut self, path: &str) -> Option<Arc<TsModuleFacts>>;
}

/// A module as TypeDoc names it: an entry point, or a namespace one exports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TsModule {
    /// What symbols of the module carry as their `module`: the entry file (or a namespace's
    /// file), made unique with `#name` when another module has it.
    pub key: String,
    /// `ky`, `@scope/pkg/utils`, `ky.ns`.
    pub name: String,
    /// The file the key names.
    pub file: String,
}

pub(crate) struct TsPublicApi {
    pub symbols: Vec<Symbol>,
    pub modules: Vec<TsModule>,
    /// Files read of packages with entry points that are no module of their own: their
    /// symbols are shown in the modules that export them, or not at all.
    pub inner_files: Vec<String>,
    /// The folders of the packages whose entry points were followed, sorted.
    pub packages: Vec<String>,
}

/// Which exports of a file a module shows.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Pick {
    /// All of them, under their own names; `default` too when `default` is set.
    All { default: bool },
    /// One, `name`, shown as `public`.
    One { name: String, public: String },
}

/// What one package's entry points reach.
#[derive(Default)]
struct Reached {
    modules: Vec<TsModule>,
    /// By file: the modules it is shown in (indexes in `modules`) and what of it.
    picks: HashMap<String, Vec<(usize, Pick)>>,
}

/// The TypeScript and JavaScript `symbols` as TypeDoc documents them (others are returned
/// as they are): moved to the module of each entry point that exports them, renamed to the
/// name it exports them under, left out when none does; members follow their type. `files`
/// are the scripts read.
pub(crate) fn typescript_public_api<'p>(
    symbols: Vec<Symbol>,
    files: impl IntoIterator<Item = &'p str>,
    repo: &mut dyn TsFiles,
) -> TsPublicApi {
    let mut packages: HashMap<String, Option<String>> = HashMap::new();
    let mut reached: HashMap<String, Option<Reached>> = HashMap::new();
    let mut package_of = |path: &str, repo: &mut dyn TsFiles| -> Option<String> {
        let dir = package_dir(path, repo, &mut packages)?;
        let found = reached
            .entry(dir.clone())
            .or_insert_with(|| reach_package(&dir, repo));
        found.as_ref().map(|_| dir)
    };
    let mut file_package: HashMap<String, Option<String>> = HashMap::new();
    let mut inner_files = Vec::new();
    for file in files {
        if !is_script(file) || file_package.contains_key(file) {
            continue;
        }
        let dir = package_of(file, repo);
        file_package.insert(file.to_string(), dir);
    }
    for symbol in &symbols {
        if is_script(&symbol.path) && !file_package.contains_key(&symbol.path) {
            let dir = package_of(&symbol.path, repo);
            file_package.insert(symbol.path.clone(), dir);
        }
    }
    let mut modules: Vec<TsModule> = Vec::new();
    let mut keys: HashSet<&str> = HashSet::new();
    for found in reached.values().flatten() {
        for module in &found.modules {
            if keys.insert(&module.key) {
                modules.push(module.clone());
            }
        }
    }
    for (file, dir) in &file_package {
        if dir.is_some() && !keys.contains(file.as_str()) {
            inner_files.push(file.clone());
        }
    }
    inner_files.sort();
    // Each type's homes (module key, name), for its members.
    let mut moved: HashMap<(String, String), Vec<(String, String)>> = HashMap::new();
    let mut out = Vec::with_capacity(symbols.len());
    let mut members = Vec::new();
    let mut signatures: HashMap<(String, String), String> = HashMap::new();
    for symbol in symbols {
        let found = file_package
            .get(&symbol.path)
            .and_then(Option::as_ref)
            .and_then(|dir| reached.get(dir))
            .and_then(Option::as_ref);
        let Some(found) = found else {
            out.push(symbol);
            continue;
        };
        if symbol.parent.is_some() {
            members.push(symbol);
            continue;
        }
        signatures.insert(
            (symbol.path.clone(), symbol.name.clone()),
            symbol.signature.clone(),
        );
        let mut homes: Vec<(String, String)> = Vec::new();
        for (module, pick) in found.picks.get(&symbol.path).into_iter().flatten() {
            let public = match pick {
                Pick::All { default } if *default || symbol.name != "default" => {
                    symbol.name.clone()
                }
                Pick::One { name, public } if *name == symbol.name => public.clone(),
                // A declaration of a namespace exported by name: `util.x` as `u.x`.
                Pick::One { name, public } => match symbol
                    .name
                    .strip_prefix(name.as_str())
                    .filter(|rest| rest.starts_with('.'))
                {
                    Some(rest) => format!("{public}{rest}"),
                    None => continue,
                },
                _ => continue,
            };
            let home = (found.modules[*module].key.clone(), public);
            if !homes.contains(&home) {
                homes.push(home);
            }
        }
        for (module, name) in &homes {
            let mut shown = symbol.clone();
            shown.module.clone_from(module);
            shown.name.clone_from(name);
            out.push(shown);
        }
        moved
            .entry((symbol.path.clone(), symbol.name.clone()))
            .or_default()
            .extend(homes);
    }
    let mut own: HashMap<(String, String), HashSet<String>> = HashMap::new();
    let mut orphans = Vec::new();
    for member in members {
        let parent = member.parent.clone().unwrap_or_default();
        let key = (member.path.clone(), parent.clone());
        let Some(homes) = moved.get(&key).filter(|h| !h.is_empty()) else {
            orphans.push(member);
            continue;
        };
        if let Some(rest) = member.name.strip_prefix(&parent) {
            own.entry(key).or_default().insert(rest.to_string());
        }
        for (module, name) in homes {
            let mut shown = member.clone();
            shown.module.clone_from(module);
            if let Some(rest) = member.name.strip_prefix(&parent) {
                shown.name = format!("{name}{rest}");
            }
            shown.parent = Some(name.clone());
            out.push(shown);
        }
    }
    inherit_members(&signatures, &moved, &own, &orphans, &mut out);
    name_default_exports(&mut out);
    let mut packages: Vec<String> = reached
        .iter()
        .filter(|(_, found)| found.is_some())
        .map(|(dir, _)| dir.clone())
        .collect();
    packages.sort();
    TsPublicApi {
        symbols: out,
        modules,
        inner_files,
        packages,
    }
}

/// A default export is shown under the name it declares (`export default class PQueue` is
/// `PQueue`, its methods `PQueue.add`), as its users name it; `default` when it declares
/// none, or when its module also exports another symbol under that name. A declaration its
/// module exports both by its name and as the default (`export const defu = …; export
/// default defu`) is shown once, under its name, marked as the default export too.
fn name_default_exports(symbols: &mut Vec<Symbol>) {
    let taken: HashMap<(String, String), (String, usize)> = symbols
        .iter()
        .map(|s| ((s.module.clone(), s.name.clone()), (s.path.clone(), s.line)))
        .collect();
    // (path, module) of each renamed default export, and its new name.
    let mut renamed: HashMap<(String, String), String> = HashMap::new();
    // (module, name) of each declaration that is its module's default export too.
    let mut both: HashSet<(String, String)> = HashSet::new();
    for symbol in symbols.iter_mut() {
        if symbol.name != "default" || symbol.parent.is_some() {
            continue;
        }
        let Some(declared) = declared_name(&symbol.signature) else {
            continue;
        };
        let key = (symbol.module.clone(), declared.to_string());
        if let Some(place) = taken.get(&key) {
            if *place == (symbol.path.clone(), symbol.line) {
                both.insert(key);
            }
            continue;
        }
        symbol.name = declared.to_string();
        // Its users import it as the default, under a name of their choosing.
        symbol.reexport = Some((symbol.module.clone(), "default".into()));
        renamed.insert(
            (symbol.path.clone(), symbol.module.clone()),
            symbol.name.clone(),
        );
    }
    if !both.is_empty() {
        let same = |s: &Symbol| {
            declared_name(&s.signature)
                .is_some_and(|declared| both.contains(&(s.module.clone(), declared.to_string())))
        };
        // The `default` copies (and their members) go; the named one says it is both.
        let copies: HashSet<(String, String)> = symbols
            .iter()
            .filter(|s| s.name == "default" && s.parent.is_none() && same(s))
            .map(|s| (s.path.clone(), s.module.clone()))
            .collect();
        symbols.retain(|s| {
            let top = s.name == "default" && s.parent.is_none() && same(s);
            let member = s.parent.as_deref() == Some("default")
                && copies.contains(&(s.path.clone(), s.module.clone()));
            !(top || member)
        });
        for symbol in symbols.iter_mut() {
            if symbol.parent.is_none()
                && both.contains(&(symbol.module.clone(), symbol.name.clone()))
            {
                symbol.reexport = Some((symbol.module.clone(), "default".into()));
            }
        }
    }
    for member in symbols.iter_mut() {
        if member.parent.as_deref() != Some("default") {
            continue;
        }
        if let Some(name) = renamed.get(&(member.path.clone(), member.module.clone())) {
            if let Some(rest) = member.name.strip_prefix("default") {
                member.name = format!("{name}{rest}");
            }
            member.parent = Some(name.clone());
        }
    }
}

/// The name a declaration's signature gives it: `PQueue` of `class PQueue<T> extends E`,
/// `beta` of `function beta(): void`, `ky` of `const ky = …`; `None` for an anonymous one
/// (`class {`, `function (x)`, an expression).
fn declared_name(signature: &str) -> Option<&str> {
    const KEYWORDS: &[&str] = &[
        "export",
        "default",
        "declare",
        "abstract",
        "async",
        "class",
        "function",
        "function*",
        "const",
        "let",
        "var",
        "interface",
        "enum",
        "type",
        "namespace",
    ];
    let mut rest = signature.trim_start();
    let mut keyword = false;
    while let Some(word) = rest
        .split_whitespace()
        .next()
        .filter(|w| KEYWORDS.contains(w))
    {
        keyword = true;
        rest = rest[word.len()..].trim_start();
    }
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(rest.len());
    let name = &rest[..end];
    (keyword && !name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit())).then_some(name)
}

/// Whether `path` is a script TypeDoc reads.
fn is_script(path: &str) -> bool {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    matches!(
        ext,
        "ts" | "tsx" | "mts" | "cts" | "js" | "jsx" | "mjs" | "cjs"
    )
}

/// The folder of the package `path` belongs to: the nearest folder above it whose
/// `package.json` names a package or its entry points (one that only sets options, such as
/// `{"type": "module"}`, is passed). `packages` caches each folder's answer.
fn package_dir(
    path: &str,
    repo: &mut dyn TsFiles,
    packages: &mut HashMap<String, Option<String>>,
) -> Option<String> {
    let mut dir = path.rsplit_once('/').map_or("", |(d, _)| d).to_string();
    let mut passed: Vec<String> = Vec::new();
    let mut found = None;
    for _ in 0..MAX_PACKAGE_DEPTH {
        if let Some(known) = packages.get(&dir) {
            found = known.clone();
            break;
        }
        let manifest = join(&dir, "package.json");
        let names = repo.exists(&manifest)
            && repo
                .manifest(&manifest)
                .and_then(|text| PackageJson::parse(&text))
                .is_some_and(|p| p.name.is_some() || !p.entries.is_empty());
        passed.push(dir.clone());
        if names {
            found = Some(dir.clone());
            break;
        }
        match dir.rsplit_once('/') {
            Some((up, _)) => dir = up.to_string(),
            None if !dir.is_empty() => dir = String::new(),
            None => break,
        }
    }
    for dir in passed {
        packages.insert(dir, found.clone());
    }
    found
}

/// What the entry points of the package in `dir` reach; `None` when it has none that maps to
/// a file of the repository.
fn reach_package(dir: &str, repo: &mut dyn TsFiles) -> Option<Reached> {
    let package = PackageJson::parse(&repo.manifest(&join(dir, "package.json"))?)?;
    let tsconfig = repo
        .manifest(&join(dir, "tsconfig.json"))
        .map(|text| TsConfig::parse(&text))
        .unwrap_or_default();
    let base = package.name.clone().unwrap_or_else(|| {
        match dir.rsplit('/').next().filter(|d| !d.is_empty()) {
            Some(folder) => folder.to_string(),
            None => "package".into(),
        }
    });
    let mut entries = package.entries;
    // The main entry point first: a file two subpaths name is documented under the first.
    entries.sort_by_key(|(subpath, _)| subpath != ".");
    let mut reached = Reached::default();
    let mut work: VecDeque<(String, usize, Pick, usize)> = VecDeque::new();
    for (subpath, targets) in entries {
        // The first of its targets that is no other entry's module: a subpath whose types
        // are the main entry's (`clsx/lite` typed by `clsx.d.mts`) is its own script.
        let file = targets.iter().find_map(|target| {
            let mut exists = |p: &str| repo.exists(p) && is_script(p);
            source_of(dir, target, &tsconfig, &mut exists)
                .filter(|file| !reached.modules.iter().any(|m| m.file == *file))
        });
        let Some(file) = file else {
            continue;
        };
        let name = match subpath.strip_prefix("./") {
            Some(rest) => format!("{base}/{rest}"),
            None => base.clone(),
        };
        work.push_back((
            file.clone(),
            reached.modules.len(),
            Pick::All { default: true },
            0,
        ));
        reached.modules.push(TsModule {
            key: file.clone(),
            name,
            file,
        });
    }
    if reached.modules.is_empty() {
        return None;
    }
    let mut seen: HashSet<(String, usize, Pick)> = HashSet::new();
    let mut steps = 0usize;
    let mut links = 0usize;
    while let Some((file, module, pick, depth)) = work.pop_front() {
        if !seen.insert((file.clone(), module, pick.clone())) {
            continue;
        }
        steps += 1;
        if steps > MAX_REACH_STEPS || links > MAX_REACH_LINKS {
            break;
        }
        reached
            .picks
            .entry(file.clone())
            .or_default()
            .push((module, pick.clone()));
        let Some(facts) = repo.facts(&file) else {
            continue;
        };
        for link in &facts.links {
            links += 1;
            let Some((from, next)) = follow(link, &pick, &facts) else {
                continue;
            };
            let Some(target) = resolve(&file, from, repo) else {
                continue;
            };
            let public = match next {
                Next::Same(next) => {
                    work.push_back((target, module, next, depth));
                    continue;
                }
                Next::Namespace(public) => public,
            };
            // A namespace: a module of its own, named after the one exporting it.
            if depth >= MAX_NAMESPACE_DEPTH {
                continue;
            }
            let name = format!("{}.{public}", reached.modules[module].name);
            // One namespace per file and module: `export { z }` and `export default z` of
            // one `import * as z` are one namespace, as TypeDoc shows the second as a
            // reference to the first.
            let prefix = format!("{}.", reached.modules[module].name);
            let same = reached.modules.iter().position(|m| {
                m.name == name
                    || (m.file == target
                        && m.name
                            .strip_prefix(&prefix)
                            .is_some_and(|rest| !rest.contains(['.', '/'])))
            });
            let index = match same {
                Some(index) => index,
                None => {
                    let key = if reached.modules.iter().any(|m| m.key == target) {
                        format!("{target}#{public}")
                    } else {
                        target.clone()
                    };
                    reached.modules.push(TsModule {
                        key,
                        name,
                        file: target.clone(),
                    });
                    reached.modules.len() - 1
                }
            };
            work.push_back((target, index, Pick::All { default: false }, depth + 1));
        }
    }
    Some(reached)
}

/// What a module showing `pick` of a file shows of the file `link` names.
enum Next {
    /// In the same module.
    Same(Pick),
    /// All of it, as a namespace of that name.
    Namespace(String),
}

/// The specifier `link` names and what of it is shown, when `pick` takes any of it.
fn follow<'l>(link: &'l TsLink, pick: &Pick, facts: &TsModuleFacts) -> Option<(&'l str, Next)> {
    match (link, pick) {
        (TsLink::Named { from, name, public }, Pick::All { default }) => {
            (public != "default" || *default).then(|| {
                let next = Pick::One {
                    name: name.clone(),
                    public: public.clone(),
                };
                (from.as_str(), Next::Same(next))
            })
        }
        (
            TsLink::Named { from, name, public },
            Pick::One {
                name: wanted,
                public: shown,
            },
        ) => (public == wanted).then(|| {
            let next = Pick::One {
                name: name.clone(),
                public: shown.clone(),
            };
            (from.as_str(), Next::Same(next))
        }),
        (TsLink::Star { from }, Pick::All { .. }) => {
            Some((from.as_str(), Next::Same(Pick::All { default: false })))
        }
        // A name the file declares itself hides the same name of `export *`.
        (TsLink::Star { from }, Pick::One { name, .. }) => (name != "default"
            && !facts.own.contains(name))
        .then(|| (from.as_str(), Next::Same(pick.clone()))),
        (TsLink::Namespace { from, public }, Pick::All { .. }) => {
            Some((from.as_str(), Next::Namespace(public.clone())))
        }
        (
            TsLink::Namespace { from, public },
            Pick::One {
                name,
                public: shown,
            },
        ) => (name == public).then(|| (from.as_str(), Next::Namespace(shown.clone()))),
    }
}

/// The file a relative module specifier of `file` names, as TypeScript resolves it:
/// `./x.js` is `x.ts` (or `x.d.ts` beside `x.js`), `./x` is `x.ts`, `x.js` or
/// `x/index.ts`. Packages (`lodash`) are not followed.
fn resolve(file: &str, specifier: &str, repo: &mut dyn TsFiles) -> Option<String> {
    if !(specifier.starts_with("./")
        || specifier.starts_with("../")
        || matches!(specifier, "." | ".."))
    {
        return None;
    }
    let dir = file.rsplit_once('/').map_or("", |(d, _)| d);
    let joined = relative(&join(dir, specifier))?;
    let (stem, extensions): (&str, &[&str]) = if let Some(stem) = joined.strip_suffix(".js") {
        (stem, &[".ts", ".tsx", ".d.ts", ".js", ".jsx"])
    } else if let Some(stem) = joined.strip_suffix(".jsx") {
        (stem, &[".tsx", ".d.ts", ".jsx"])
    } else if let Some(stem) = joined.strip_suffix(".mjs") {
        (stem, &[".mts", ".d.mts", ".mjs"])
    } else if let Some(stem) = joined.strip_suffix(".cjs") {
        (stem, &[".cts", ".d.cts", ".cjs"])
    } else if is_script(&joined) {
        (joined.as_str(), &[""])
    } else {
        (joined.as_str(), &[])
    };
    for ext in extensions {
        let path = format!("{stem}{ext}");
        if repo.exists(&path) {
            return Some(path);
        }
    }
    const ANY: &[&str] = &[
        ".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs",
    ];
    for candidate in [joined.clone(), join(&joined, "index")] {
        for ext in ANY {
            let path = format!("{candidate}{ext}");
            if repo.exists(&path) {
                return Some(path);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::declared_name;

    #[test]
    fn the_name_a_default_export_declares() {
        for (signature, name) in [
            ("class PQueue<T> extends EventEmitter<E>", Some("PQueue")),
            ("abstract class Base", Some("Base")),
            (
                "async function run(times: number): Promise<void>",
                Some("run"),
            ),
            ("function* ids()", Some("ids")),
            ("const ky = (url: string) => …", Some("ky")),
            ("declare let $kleur: Kleur", Some("$kleur")),
            ("class {", None),
            ("function (x: number)", None),
            ("function(x: number)", None),
            ("() => void", None),
            ("const type = 1", None),
        ] {
            assert_eq!(declared_name(signature), name, "{signature}");
        }
    }
}
