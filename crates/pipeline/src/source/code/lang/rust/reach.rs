//! Which Rust items a crate's users can reach, as rustdoc shows them: items of private modules
//! appear where a public ancestor re-exports them with `pub use` (under the `as` name), and
//! the crate's `Cargo.toml` names the crate and the features docs.rs builds with.

use std::collections::HashMap;
use std::sync::Arc;

use super::cfg::{self, DocsFeatures, Requires};
use crate::source::code::symbol::{Symbol, SymbolKind};

/// What a Rust file says about its child modules, at its top level: its `mod` declarations
/// and its `pub use` re-exports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RustModuleFacts {
    pub mods: Vec<ModDecl>,
    pub reexports: Vec<ReExport>,
}

/// `mod name;` or `mod name { … }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ModDecl {
    pub name: String,
    /// Declared `pub` (not `pub(crate)`).
    pub public: bool,
    /// `#[doc(hidden)]` or `#[cfg(test)]`.
    pub hidden: bool,
    /// The crate features the module is compiled with only (see `cfg`).
    pub requires: Option<Requires>,
}

/// One name of a `pub use`: the path as written, its last segment the name or `*`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ReExport {
    pub path: Vec<String>,
    pub alias: Option<String>,
}

/// The source folder (through `src/`) and module path of a Rust file of a crate:
/// `src/kv/value.rs` → (`src/`, [kv, value]); `None` outside `src/` and for binaries.
fn rust_module_path(path: &str) -> Option<(String, Vec<String>)> {
    let at = if path.starts_with("src/") {
        0
    } else {
        path.rfind("/src/")? + 1
    };
    let (src_dir, rest) = path.split_at(at + 4);
    let rest = rest.strip_suffix(".rs")?;
    if rest.starts_with("bin/") || matches!(rest, "main" | "build") {
        return None;
    }
    let mut segments: Vec<String> = rest.split('/').map(str::to_string).collect();
    if segments.len() == 1 && segments[0] == "lib" {
        segments.clear();
    } else if segments.last().is_some_and(|s| s == "mod") {
        segments.pop();
    }
    Some((src_dir.to_string(), segments))
}

/// The file of the module `inner` (its path below the module of the Rust file at `path`):
/// `src/lib.rs` and [sync] give `src/sync.rs`, `src/a/mod.rs` and [b] give `src/a/b.rs`.
pub(crate) fn module_file(path: &str, inner: &[String]) -> Option<String> {
    let (src_dir, mut segments) = rust_module_path(path)?;
    segments.extend(inner.iter().cloned());
    Some(format!("{src_dir}{}.rs", segments.join("/")))
}

/// The crate root of the Rust file at `path` (`src/lib.rs` of its crate), where
/// `#[macro_export]` macros live whatever file defines them.
pub(crate) fn rust_crate_root(path: &str) -> Option<String> {
    rust_module_path(path).map(|(src_dir, _)| format!("{src_dir}lib.rs"))
}

/// The `Cargo.toml` of the crate the Rust file at `path` belongs to.
pub(crate) fn rust_manifest(path: &str) -> Option<String> {
    rust_module_path(path).map(|(src_dir, _)| {
        let crate_dir = src_dir.strip_suffix("src/").unwrap_or("");
        format!("{crate_dir}Cargo.toml")
    })
}

/// What the docs take from a crate's `Cargo.toml`, parsed once.
#[derive(Clone, Debug)]
pub(crate) struct CrateManifest {
    /// The name its paths start with (`log::kv`): its `[package]` name with `-` as `_`.
    pub name: Option<String>,
    /// The features docs.rs builds it with; `None` without a `[package]`.
    pub docs_rs: Option<DocsFeatures>,
}

impl CrateManifest {
    /// `None` when the text is no TOML.
    pub fn parse(manifest: &str) -> Option<Self> {
        let table: toml::Table = toml::from_str(manifest).ok()?;
        let name = table
            .get("package")
            .and_then(|p| p.get("name"))
            .and_then(toml::Value::as_str)
            .map(|name| name.replace('-', "_"));
        Some(Self {
            name,
            docs_rs: DocsFeatures::of_table(&table),
        })
    }
}

/// The files a module can be in: `a/b.rs` or `a/b/mod.rs`; the crate root `lib.rs`.
fn module_files(src_dir: &str, segments: &[String]) -> Vec<String> {
    if segments.is_empty() {
        return vec![format!("{src_dir}lib.rs")];
    }
    let joined = segments.join("/");
    vec![
        format!("{src_dir}{joined}.rs"),
        format!("{src_dir}{joined}/mod.rs"),
    ]
}

/// How a module is declared by its parent. Declarations under different `cfg`s that
/// disagree count as private: its items are then shown where they are re-exported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Link {
    Public,
    Private,
    Hidden,
    /// Not found (`#[path]`, a parent outside the repository): taken as declared.
    Unknown,
}

/// Where a Rust file's public items are documented.
enum Reach {
    /// Every module from the crate root down to the file is `pub`: in place.
    Public,
    /// A module on the way is `#[doc(hidden)]` or `#[cfg(test)]`: nowhere.
    Hidden,
    /// Behind a private module: where a public ancestor re-exports them, by name (`*` for
    /// a glob): (the ancestor's file, the name it shows).
    ReExported(HashMap<String, (String, Option<String>)>),
}

/// The Rust symbols rustdoc would show, as it shows them: items of a module that is
/// private (or hidden) somewhere between the crate root and their file are left out,
/// unless a public ancestor module re-exports them with `pub use`; those move to that
/// module (under the alias a `pub use … as` gives), their members with them.
/// `#[macro_export]` macros are exported from the crate root whatever module defines them.
/// `facts` reads a file's module facts (`None`: no such file). `files` are the Rust files
/// read; the second list holds those whose module is not public (no section of their own).
pub(crate) fn rust_public_api<'p>(
    symbols: Vec<Symbol>,
    files: impl IntoIterator<Item = &'p str>,
    facts: &mut dyn FnMut(&str) -> Option<Arc<RustModuleFacts>>,
) -> (Vec<Symbol>, Vec<String>) {
    let mut reach: HashMap<String, Reach> = HashMap::new();
    // The features the modules from the crate root down to a file are compiled with only.
    let mut gates: HashMap<String, Requires> = HashMap::new();
    let mut resolved = HashMap::new();
    for path in files {
        if !reach.contains_key(path) {
            let mut gate = None;
            let found = rust_reach(path, facts, &mut resolved, &mut gate);
            reach.insert(path.to_string(), found);
            if let Some(gate) = gate {
                gates.insert(path.to_string(), gate);
            }
        }
    }
    let private_modules = reach
        .iter()
        .filter(|(_, r)| !matches!(r, Reach::Public))
        .map(|(path, _)| path.clone())
        .collect();
    let symbols = symbols.into_iter().map(|mut symbol| {
        if let Some(gate) = gates.get(&symbol.path) {
            symbol.requires = cfg::both(symbol.requires.take(), gate);
        }
        symbol
    });
    // Each type's new home and name, for its members.
    let mut moved: HashMap<(String, String), Option<(String, String)>> = HashMap::new();
    // Where each crate's types are shown, by (source folder, declared name): an `impl` in
    // another file of the crate adds to the type there, as rustdoc shows it.
    let mut shown_types: HashMap<(String, String), Vec<(String, String)>> = HashMap::new();
    let crate_of = |path: &str| rust_module_path(path).map(|(src_dir, _)| src_dir);
    let mut note_type = |symbol: &Symbol, declared: &str| {
        if let (true, None, Some(krate)) = (
            symbol.kind.is_type(),
            symbol.parent.as_ref(),
            crate_of(&symbol.path),
        ) {
            shown_types
                .entry((krate, declared.to_string()))
                .or_default()
                .push((symbol.module.clone(), symbol.name.clone()));
        }
    };
    let mut out = Vec::with_capacity(symbols.len());
    let mut members = Vec::new();
    for mut symbol in symbols {
        let Some(reach) = reach.get(&symbol.path) else {
            out.push(symbol);
            continue;
        };
        if symbol.kind == SymbolKind::Macro || matches!(reach, Reach::Public) {
            note_type(&symbol, &symbol.name);
            out.push(symbol);
            continue;
        }
        if symbol.parent.is_some() {
            members.push(symbol);
            continue;
        }
        let home = match reach {
            Reach::ReExported(names) => names
                .get(&symbol.name)
                .or_else(|| names.get("*"))
                .map(|(file, alias)| (file.clone(), alias.clone())),
            _ => None,
        };
        let key = (symbol.path.clone(), symbol.name.clone());
        match home {
            Some((file, alias)) => {
                symbol.module = file;
                if let Some(alias) = alias {
                    symbol.name = alias;
                }
                moved.insert(
                    key.clone(),
                    Some((symbol.module.clone(), symbol.name.clone())),
                );
                note_type(&symbol, &key.1);
                out.push(symbol);
            }
            None => {
                moved.insert(key, None);
            }
        }
    }
    for mut member in members {
        let parent = member.parent.clone().unwrap_or_default();
        let home = match moved.get(&(member.path.clone(), parent.clone())) {
            // A type of the same file: the member goes where it goes.
            Some(found) => Some(found.clone()),
            // An `impl` in a private module of a type the crate shows once, elsewhere.
            None => crate_of(&member.path)
                .and_then(|krate| shown_types.get(&(krate, parent.clone())))
                .filter(|homes| homes.len() == 1)
                .map(|homes| homes.first().cloned()),
        };
        match home {
            Some(Some((module, name))) => {
                member.module = module.clone();
                if let Some(rest) = member.name.strip_prefix(&parent) {
                    member.name = format!("{name}{rest}");
                }
                member.parent = Some(name.clone());
                out.push(member);
            }
            Some(None) => {}
            // An `impl` of a type defined elsewhere: its methods are that type's API.
            None => out.push(member),
        }
    }
    macro_aliases(&mut out, facts);
    (out, private_modules)
}

/// A crate root's `pub use anyhow as format_err;` of one of its exported macros makes a
/// second macro of that name: an entry that says whose alias it is (rustdoc lists it with the
/// crate's macros; its users call `format_err!` as they call `anyhow!`).
fn macro_aliases(
    out: &mut Vec<Symbol>,
    facts: &mut dyn FnMut(&str) -> Option<Arc<RustModuleFacts>>,
) {
    let mut roots: Vec<String> = out
        .iter()
        .filter(|s| s.kind == SymbolKind::Macro && s.parent.is_none())
        .map(|s| s.module.clone())
        .collect();
    roots.sort();
    roots.dedup();
    let mut added = Vec::new();
    for root in roots {
        let Some(root_facts) = facts(&root) else {
            continue;
        };
        for reexport in &root_facts.reexports {
            let Some(alias) = &reexport.alias else {
                continue;
            };
            let name = match reexport.path.as_slice() {
                [name] => name,
                [first, name] if first == "crate" || first == "self" => name,
                _ => continue,
            };
            // Macro symbols carry the `!` they are invoked with.
            let (bang, alias_bang) = (format!("{name}!"), format!("{alias}!"));
            let top = |s: &&Symbol| s.module == root && s.parent.is_none();
            if out.iter().filter(top).any(|s| s.name == alias_bang) {
                continue;
            }
            let Some(original) = out
                .iter()
                .filter(top)
                .find(|s| s.kind == SymbolKind::Macro && s.name == bang)
            else {
                continue;
            };
            let mut entry = original.clone();
            entry.name = alias_bang;
            entry.signature = format!("pub use {name} as {alias};");
            entry.doc = format!("An alias of `{name}!`.");
            entry.comment = Default::default();
            entry.comment.text = format!("An alias of [`{name}!`](doc:{name}!).");
            entry.examples.clear();
            added.push(entry);
        }
    }
    out.extend(added);
}

/// A module file's re-exports resolved, by the module they name: (name, alias) in file order.
type Resolved = HashMap<Vec<String>, Vec<(String, Option<String>)>>;

/// Where the file's items are shown; `gate` gets the features its modules need (the gates of
/// every module declaration from the crate root down, when its declarations agree on one).
fn rust_reach(
    path: &str,
    facts: &mut dyn FnMut(&str) -> Option<Arc<RustModuleFacts>>,
    resolved: &mut HashMap<String, Arc<Resolved>>,
    gate: &mut Option<Requires>,
) -> Reach {
    let Some((src_dir, segments)) = rust_module_path(path) else {
        return Reach::Public;
    };
    // The files of the ancestors, the root first.
    let mut ancestors: Vec<String> = Vec::new();
    let mut first_private = None;
    for depth in 0..segments.len() {
        let parent = module_files(&src_dir, &segments[..depth])
            .into_iter()
            .find_map(|file| facts(&file).map(|f| (file, f)));
        let Some((file, parent_facts)) = parent else {
            return Reach::Public;
        };
        let decls: Vec<&ModDecl> = parent_facts
            .mods
            .iter()
            .filter(|m| m.name == segments[depth])
            .collect();
        let shown: Vec<&&ModDecl> = decls.iter().filter(|m| !m.hidden).collect();
        if let Some(first) = shown.first()
            && let Some(needs) = &first.requires
            && shown.iter().all(|m| m.requires == first.requires)
        {
            *gate = cfg::both(gate.take(), needs);
        }
        let link = if decls.is_empty() {
            Link::Unknown
        } else if decls.iter().all(|m| m.hidden) {
            Link::Hidden
        } else if decls.iter().filter(|m| !m.hidden).all(|m| m.public) {
            Link::Public
        } else {
            Link::Private
        };
        resolved
            .entry(file.clone())
            .or_insert_with(|| Arc::new(resolve_reexports(&segments[..depth], &parent_facts)));
        ancestors.push(file);
        match link {
            Link::Hidden => return Reach::Hidden,
            Link::Private if first_private.is_none() => first_private = Some(depth),
            _ => {}
        }
    }
    let Some(private_at) = first_private else {
        return Reach::Public;
    };
    // Public ancestors are the root down to the module declaring the private one; the first
    // to re-export a name is where it is shown.
    let mut names = HashMap::new();
    for file in ancestors.iter().take(private_at + 1) {
        let Some(found) = resolved.get(file).and_then(|r| r.get(segments.as_slice())) else {
            continue;
        };
        for (name, alias) in found {
            names
                .entry(name.clone())
                .or_insert_with(|| (file.clone(), alias.clone()));
        }
    }
    Reach::ReExported(names)
}

/// The re-exports of the file of `module`, resolved from the crate root and grouped by the
/// module they name: computed once per file, however many files below it ask.
fn resolve_reexports(module: &[String], facts: &RustModuleFacts) -> Resolved {
    let mut out: Resolved = HashMap::new();
    for reexport in &facts.reexports {
        let Some(mut target) = resolve_use(module, facts, &reexport.path) else {
            continue;
        };
        let Some(name) = target.pop() else {
            continue;
        };
        out.entry(target)
            .or_default()
            .push((name, reexport.alias.clone()));
    }
    out
}

/// The absolute path (from the crate root) a `use` path names from `module`; `None` for
/// another crate's.
fn resolve_use(module: &[String], facts: &RustModuleFacts, path: &[String]) -> Option<Vec<String>> {
    let (first, rest) = path.split_first()?;
    let mut base: Vec<String> = match first.as_str() {
        "crate" => Vec::new(),
        "self" => module.to_vec(),
        "super" => {
            let mut base = module.to_vec();
            base.pop()?;
            base
        }
        name if facts.mods.iter().any(|m| m.name == name) => {
            let mut base = module.to_vec();
            base.push(name.to_string());
            base
        }
        _ => return None,
    };
    let mut rest = rest.iter().peekable();
    while rest.peek().is_some_and(|s| *s == "super") {
        base.pop()?;
        rest.next();
    }
    base.extend(rest.cloned());
    Some(base)
}

/// The names a `pub use` brings in, brace groups expanded: `self::a::{B, c::D as E}` →
/// `self::a::B`, `self::a::c::D` as `E`.
pub(crate) fn expand_use(tree: &str) -> Vec<ReExport> {
    let compact: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    expand_into(&compact, &[], &mut out, 0);
    out
}

fn expand_into(text: &str, prefix: &[String], out: &mut Vec<ReExport>, depth: usize) {
    // Deeper brace groups than any real `use` are skipped, never recursed into.
    if depth > 8 {
        return;
    }
    for item in split_top_level(text) {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        if let Some(open) = item.find('{') {
            let head = item[..open].trim().trim_end_matches("::");
            let inner = item[open + 1..].trim_end().strip_suffix('}').unwrap_or("");
            let mut path = prefix.to_vec();
            path.extend(segments(head));
            expand_into(inner, &path, out, depth + 1);
            continue;
        }
        let (path, alias) = match item.split_once(" as ") {
            Some((path, alias)) => (path.trim(), Some(alias.trim().to_string())),
            None => (item, None),
        };
        let mut full = prefix.to_vec();
        full.extend(segments(path));
        // `use a::b::{self}` names the module `b` itself.
        if full.last().is_some_and(|s| s == "self") {
            full.pop();
        }
        if !full.is_empty() && alias.as_deref() != Some("_") {
            out.push(ReExport { path: full, alias });
        }
    }
}

fn segments(path: &str) -> impl Iterator<Item = String> + '_ {
    path.split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// `text` split at the commas outside braces.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pub_use_trees_are_expanded() {
        let found = expand_use("self::value::{ToValue, Value as V, inner::{self, X}}");
        let paths: Vec<(String, Option<String>)> = found
            .into_iter()
            .map(|r| (r.path.join("::"), r.alias))
            .collect();
        assert_eq!(
            paths,
            [
                ("self::value::ToValue".to_string(), None),
                ("self::value::Value".to_string(), Some("V".to_string())),
                ("self::value::inner".to_string(), None),
                ("self::value::inner::X".to_string(), None),
            ]
        );
    }

    fn symbol(path: &str, name: &str, kind: SymbolKind, parent: Option<&str>) -> Symbol {
        Symbol {
            path: path.into(),
            language: "rust",
            kind,
            name: name.into(),
            parent: parent.map(str::to_string),
            module: path.into(),
            signature: String::new(),
            doc: String::new(),
            comment: Default::default(),
            examples: Vec::new(),
            line: 1,
            hash: String::new(),
            requires: None,
            reexport: None,
            listed_at: None,
        }
    }

    #[test]
    fn rust_items_of_private_modules_show_where_they_are_reexported() {
        let mut files: HashMap<&str, RustModuleFacts> = HashMap::new();
        let module = |name: &str, public: bool, hidden: bool| ModDecl {
            name: name.into(),
            public,
            hidden,
            requires: None,
        };
        let reexport = |path: &str, alias: Option<&str>| ReExport {
            path: path.split("::").map(str::to_string).collect(),
            alias: alias.map(str::to_string),
        };
        files.insert(
            "src/lib.rs",
            RustModuleFacts {
                mods: vec![
                    module("kv", true, false),
                    module("macros", false, false),
                    module("__private_api", true, true),
                ],
                reexports: vec![],
            },
        );
        files.insert(
            "src/kv/mod.rs",
            RustModuleFacts {
                mods: vec![
                    module("error", false, false),
                    module("source", false, false),
                    module("source", true, false),
                ],
                reexports: vec![
                    reexport("self::error::Error", None),
                    reexport("source::Source", Some("Src")),
                ],
            },
        );
        let symbols = vec![
            symbol("src/kv/error.rs", "Error", SymbolKind::Struct, None),
            symbol(
                "src/kv/error.rs",
                "Error::msg",
                SymbolKind::Method,
                Some("Error"),
            ),
            symbol("src/kv/error.rs", "Unexported", SymbolKind::Struct, None),
            symbol(
                "src/kv/error.rs",
                "Unexported::f",
                SymbolKind::Method,
                Some("Unexported"),
            ),
            symbol("src/kv/source.rs", "Source", SymbolKind::Trait, None),
            symbol(
                "src/kv/source.rs",
                "Source::get",
                SymbolKind::Method,
                Some("Source"),
            ),
            symbol("src/kv/mod.rs", "Visible", SymbolKind::Struct, None),
            symbol("src/__private_api.rs", "Key", SymbolKind::Type, None),
            symbol("src/macros.rs", "info!", SymbolKind::Macro, None),
        ];
        let paths = [
            "src/kv/error.rs",
            "src/kv/source.rs",
            "src/kv/mod.rs",
            "src/__private_api.rs",
            "src/macros.rs",
        ];
        let mut facts = |path: &str| files.get(path).cloned().map(Arc::new);
        let (shown, mut private) = rust_public_api(symbols, paths, &mut facts);
        let shown: Vec<(&str, &str, Option<&str>)> = shown
            .iter()
            .map(|s| (s.module.as_str(), s.name.as_str(), s.parent.as_deref()))
            .collect();
        assert_eq!(
            shown,
            [
                ("src/kv/mod.rs", "Error", None),
                ("src/kv/mod.rs", "Src", None),
                ("src/kv/mod.rs", "Visible", None),
                ("src/macros.rs", "info!", None),
                ("src/kv/mod.rs", "Error::msg", Some("Error")),
                ("src/kv/mod.rs", "Src::get", Some("Src")),
            ]
        );
        private.sort();
        assert_eq!(
            private,
            [
                "src/__private_api.rs",
                "src/kv/error.rs",
                "src/kv/source.rs",
                "src/macros.rs"
            ]
        );
    }

    #[test]
    fn rust_crate_paths() {
        assert_eq!(
            rust_crate_root("src/kv/value.rs").as_deref(),
            Some("src/lib.rs")
        );
        assert_eq!(
            rust_crate_root("crates/x/src/a/mod.rs").as_deref(),
            Some("crates/x/src/lib.rs")
        );
        assert_eq!(rust_crate_root("build.rs"), None);
        assert_eq!(
            rust_manifest("crates/x/src/lib.rs").as_deref(),
            Some("crates/x/Cargo.toml")
        );
        assert_eq!(rust_manifest("src/lib.rs").as_deref(), Some("Cargo.toml"));
        let name = |text: &str| CrateManifest::parse(text).and_then(|m| m.name);
        assert_eq!(
            name("[package]\nname = \"git-cliff-core\"\n").as_deref(),
            Some("git_cliff_core")
        );
        assert_eq!(name("[workspace]\n"), None);
    }
}
