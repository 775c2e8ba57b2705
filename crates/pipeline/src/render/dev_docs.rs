//! The developer docs' layout, as rustdoc, pkg.go.dev and TypeDoc lay an API out: one
//! section per module (a Go package's folder, else a file) with its overview; in it each
//! type with its members beneath it, then free functions, constants and variables. Every
//! section and symbol has an anchor made from its qualified name, unique in the article.
//! An API too large for one article is shortened step by step ([`shorten`]).

mod readme;
mod shorten;

pub(crate) use readme::without_overview_repeats;
pub(crate) use shorten::{Level, Shortened, shorten, shorten_symbol};

use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};

use super::doc_links::{self, DocLinks};
use crate::source::code::{DocComment, Example, ModuleDoc, Symbol, SymbolKind};

#[derive(Debug, Serialize)]
pub(crate) struct ModuleView<'a> {
    /// The file, or a Go package's folder (`.` for the repository root).
    pub path: String,
    /// As the language names it: `crate_name::module`, `package.module`, `package name`.
    pub name: String,
    pub language: &'static str,
    pub anchor: String,
    pub overview: String,
    pub examples: Vec<Example>,
    /// The module its users import all of its names from, when that is another (Python:
    /// `itsdangerous` for `itsdangerous.signer`): said once for the module, not under
    /// each name, as `from humanize import ordinal`.
    pub import: Option<String>,
    /// Its place as the project's own docs order the modules (Python), before the others.
    #[serde(skip)]
    pub rank: Option<usize>,
    /// Its symbols, members included.
    pub symbol_count: usize,
    /// Rust `#[macro_export]` macros, listed first as rustdoc lists them.
    pub macros: Vec<SymbolView<'a>>,
    pub types: Vec<TypeView<'a>>,
    pub functions: Vec<SymbolView<'a>>,
    pub constants: Vec<SymbolView<'a>>,
    pub variables: Vec<SymbolView<'a>>,
    /// The order of the kinds' sections, as the language's tool shows them ([`Order`]).
    pub sections: &'static [&'static str],
}

#[derive(Debug, Serialize)]
pub(crate) struct TypeView<'a> {
    #[serde(flatten)]
    pub symbol: SymbolView<'a>,
    /// Fields, struct and interface members, class attributes, enum variants.
    pub fields: Vec<SymbolView<'a>>,
    /// Its constants: Rust associated constants, Go constants of the type.
    pub constants: Vec<SymbolView<'a>>,
    pub constructors: Vec<SymbolView<'a>>,
    pub properties: Vec<SymbolView<'a>>,
    pub methods: Vec<SymbolView<'a>>,
    /// Associated types, and members of other kinds.
    pub associated: Vec<SymbolView<'a>>,
    /// The traits it implements (Rust), as rustdoc's "Trait Implementations".
    pub implementations: Vec<SymbolView<'a>>,
}

#[derive(Debug, Serialize)]
pub(crate) struct SymbolView<'a> {
    #[serde(flatten)]
    pub symbol: &'a Symbol,
    /// The name within its type (`parse` of `Parser::parse`), else the name.
    pub short_name: &'a str,
    /// The signature on one line, for lists of fields.
    pub inline: String,
    pub anchor: String,
    /// The declaration on the repository's web host at the run's commit, when it is known.
    pub url: Option<String>,
    /// Python: how the package's users import it when a module nearer the package root
    /// re-exports it (`from itsdangerous import Signer`).
    pub import: Option<String>,
    /// The whole doc comment, its links resolved to the article's anchors.
    pub details: DocComment,
    /// Its text's first paragraph, and the paragraphs after it: a field's list item shows
    /// the first on its line, the others beneath it.
    pub lead: String,
    pub more: String,
}

/// The modules of `symbols`, sorted by their name as the language writes it (a crate or
/// package before its modules, `log` before `log::kv`, as docs.rs lists them; Go packages by
/// folder, see [`order_key`]; ties by path);
/// `docs` by module path; `link` makes the URL of a (path, line).
pub(crate) fn modules<'a>(
    symbols: &'a [Symbol],
    docs: &BTreeMap<String, ModuleDoc>,
    link: &dyn Fn(&str, usize) -> Option<String>,
) -> Vec<ModuleView<'a>> {
    let mut by_module: BTreeMap<&str, Vec<&'a Symbol>> = BTreeMap::new();
    for symbol in symbols {
        by_module.entry(&symbol.module).or_default().push(symbol);
    }
    // A module without public symbols is listed when it documents itself.
    for (module, doc) in docs {
        if !doc.overview.is_empty() {
            by_module.entry(module).or_default();
        }
    }
    let mut anchors = Anchors::default();
    let mut out = Vec::with_capacity(by_module.len());
    for (module, mut members) in by_module {
        let doc = docs.get(module).cloned().unwrap_or_default();
        let package = doc.package.clone();
        let language = members.first().map_or(doc.language, |s| s.language);
        let order = Order::of(language);
        members.sort_by(|a, b| order.compare_items(a, b));
        let module_anchor = anchors.unique(&slug(if module.is_empty() { "root" } else { module }));
        let mut view = |symbol: &'a Symbol| SymbolView {
            short_name: short_name(symbol),
            inline: symbol
                .signature
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
            anchor: anchors.unique(&format!("{module_anchor}-{}", slug(&symbol.name))),
            url: link(&symbol.path, symbol.line),
            import: import_line(symbol, package.as_deref()),
            details: DocComment::default(),
            lead: String::new(),
            more: String::new(),
            symbol,
        };
        let mut types: Vec<TypeView<'a>> = Vec::new();
        let mut macros = Vec::new();
        let mut functions = Vec::new();
        let mut constants = Vec::new();
        let mut variables = Vec::new();
        for symbol in members
            .iter()
            .filter(|s| s.kind.is_type() && s.parent.is_none())
        {
            types.push(TypeView {
                symbol: view(symbol),
                fields: Vec::new(),
                constants: Vec::new(),
                constructors: Vec::new(),
                properties: Vec::new(),
                methods: Vec::new(),
                associated: Vec::new(),
                implementations: Vec::new(),
            });
        }
        let type_index: HashMap<&'a str, usize> = types
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let symbol: &'a Symbol = t.symbol.symbol;
                (symbol.name.as_str(), i)
            })
            .collect();
        for symbol in members
            .iter()
            .filter(|s| !(s.kind.is_type() && s.parent.is_none()))
        {
            let owner = symbol
                .parent
                .as_deref()
                .and_then(|p| type_index.get(p).copied());
            let member = view(symbol);
            match (owner, symbol.kind) {
                (Some(at), SymbolKind::Field) => types[at].fields.push(member),
                (Some(at), SymbolKind::Constant) => types[at].constants.push(member),
                (Some(at), SymbolKind::Implementation) => {
                    types[at].implementations.push(member);
                }
                // An implementation for a type the article does not show.
                (None, SymbolKind::Implementation) => {}
                (Some(at), SymbolKind::Constructor) => types[at].constructors.push(member),
                (Some(at), SymbolKind::Property) => types[at].properties.push(member),
                (Some(at), SymbolKind::Method) => types[at].methods.push(member),
                (Some(at), _) => types[at].associated.push(member),
                // Members whose type is defined elsewhere (a Rust `impl` in another file)
                // are listed with the functions under their qualified name.
                (None, SymbolKind::Macro) => macros.push(member),
                (None, SymbolKind::Constant) => constants.push(member),
                (None, SymbolKind::Variable) => variables.push(member),
                (None, _) => functions.push(member),
            }
        }
        // `go doc` shows a package's `const` and `var` blocks in source order, each name
        // where its block declares it.
        if language == "go" {
            for list in [&mut constants, &mut variables] {
                list.sort_by_key(|v: &SymbolView| (v.symbol.path.as_str(), v.symbol.line));
            }
        }
        for ty in &mut types {
            // Fields read in declaration order, as the type declares them; the other members
            // in the order the language's tool lists them.
            ty.fields
                .sort_by_key(|f| (f.symbol.path.as_str(), f.symbol.line));
            // A type's constants as declared, as `go doc` shows a `const` block.
            ty.constants
                .sort_by_key(|f| (f.symbol.path.as_str(), f.symbol.line));
            // rustdoc lists a type's trait implementations by trait.
            ty.implementations
                .sort_by(|a, b| Order::compare(true, a.symbol, b.symbol));
            for list in [
                &mut ty.constructors,
                &mut ty.properties,
                &mut ty.methods,
                &mut ty.associated,
            ] {
                list.sort_by(|a, b| order.compare_members(a.symbol, b.symbol));
            }
        }
        let empty = macros.is_empty()
            && types.is_empty()
            && functions.is_empty()
            && constants.is_empty()
            && variables.is_empty();
        if empty && doc.overview.trim().is_empty() && doc.examples.is_empty() {
            // Only members of types shown elsewhere, or not shown (a trait implemented for a
            // private type): no section of its own.
            continue;
        }
        // When every name of the module is imported from the same place, that is said once.
        let mut import = None;
        {
            let mut tops = macros
                .iter_mut()
                .chain(types.iter_mut().map(|t| &mut t.symbol))
                .chain(functions.iter_mut())
                .chain(constants.iter_mut())
                .chain(variables.iter_mut());
            let first = tops.next();
            if let Some(first) = first
                && let Some(line) = first.import.clone()
                && let Some((from, _)) = line.rsplit_once(" import ")
                && first.symbol.language == "python"
            {
                let mut rest: Vec<&mut SymbolView> = tops.collect();
                let same = rest.iter().all(|v| {
                    v.import
                        .as_deref()
                        .and_then(|l| l.rsplit_once(" import "))
                        .is_some_and(|(f, _)| f == from)
                });
                if same && !rest.is_empty() {
                    import = Some(line.clone());
                    first.import = None;
                    for v in rest.iter_mut() {
                        v.import = None;
                    }
                }
            }
        }
        out.push(ModuleView {
            import,
            name: module_name(module, language, doc.package.as_deref()),
            path: if module.is_empty() {
                ".".into()
            } else {
                defining_file(module, language, &members)
            },
            language,
            anchor: module_anchor,
            overview: doc.overview,
            examples: doc.examples,
            rank: doc.rank,
            symbol_count: members.len(),
            macros,
            types,
            functions,
            constants,
            variables,
            sections: order.sections,
        });
    }
    // Modules the project's own docs order come first, in that order.
    out.sort_by(|a, b| {
        (a.rank.is_none(), a.rank)
            .cmp(&(b.rank.is_none(), b.rank))
            .then_with(|| order_key(a).cmp(order_key(b)))
            .then_with(|| a.path.cmp(&b.path))
    });
    resolve_doc_links(&mut out);
    out
}

/// The order in which each language's own documentation tool lists a module's items and a
/// type's members:
/// - rustdoc: macros, types, functions, constants, statics, each kind by name; a type's
///   methods as its `impl` blocks declare them;
/// - `go doc` (pkg.go.dev): constants, variables, functions, types, each by name, members too
///   but a type's constants, shown as their `const` block declares them;
/// - TypeDoc: types (enumerations, classes, interfaces, then type aliases, as its groups
///   come), variables, functions, each by name, members too;
/// - Python (pdoc, and Sphinx with `autodoc_member_order = "bysource"`): classes, functions,
///   module data, each as the source declares it, members too.
#[derive(Clone, Copy)]
struct Order {
    /// Items of a section by kind first, as rustdoc lists Structs before Enums, Traits and
    /// Type Aliases, and TypeDoc its Classes before Interfaces and Type Aliases.
    items_by_kind: bool,
    typedoc: bool,
    items_by_name: bool,
    members_by_name: bool,
    /// The kinds' sections of a module, by their field names in [`ModuleView`].
    sections: &'static [&'static str],
}

impl Order {
    fn of(language: &str) -> Order {
        let (items_by_name, members_by_name, sections): (bool, bool, &'static [&'static str]) =
            match language {
                "rust" => (
                    true,
                    false,
                    &["macros", "types", "functions", "constants", "variables"],
                ),
                "go" => (
                    true,
                    true,
                    &["macros", "constants", "variables", "functions", "types"],
                ),
                "python" => (
                    false,
                    false,
                    &["macros", "types", "functions", "constants", "variables"],
                ),
                _ => (
                    true,
                    true,
                    &["macros", "types", "constants", "variables", "functions"],
                ),
            };
        Order {
            items_by_kind: !matches!(language, "go" | "python"),
            typedoc: !matches!(language, "rust" | "go" | "python"),
            items_by_name,
            members_by_name,
            sections,
        }
    }

    /// rustdoc's order of item kinds on a module page.
    fn rustdoc_rank(kind: SymbolKind) -> usize {
        match kind {
            SymbolKind::Module => 0,
            SymbolKind::Macro => 1,
            SymbolKind::Struct => 2,
            SymbolKind::Enum => 3,
            SymbolKind::Constant => 4,
            SymbolKind::Variable => 5,
            SymbolKind::Trait => 6,
            SymbolKind::Function => 7,
            SymbolKind::Type => 8,
            _ => 9,
        }
    }

    /// TypeDoc's order of its groups on a module page.
    fn typedoc_rank(kind: SymbolKind) -> usize {
        match kind {
            SymbolKind::Module => 0,
            SymbolKind::Enum => 1,
            SymbolKind::Class => 2,
            SymbolKind::Interface => 3,
            SymbolKind::Type => 4,
            SymbolKind::Variable | SymbolKind::Constant => 5,
            SymbolKind::Function => 6,
            _ => 7,
        }
    }

    fn compare(by_name: bool, a: &Symbol, b: &Symbol) -> std::cmp::Ordering {
        let name = || a.name.cmp(&b.name);
        // The source's order: a module's `__all__` for the names it lists (before the
        // others), then files.
        let place = || {
            let listed = match (a.listed_at, b.listed_at) {
                (Some(x), Some(y)) => x.cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            };
            listed
                .then_with(|| a.path.cmp(&b.path))
                .then(a.line.cmp(&b.line))
        };
        if by_name {
            name().then_with(place)
        } else {
            place().then_with(name)
        }
    }

    fn compare_items(self, a: &Symbol, b: &Symbol) -> std::cmp::Ordering {
        // Members (listed under their types later) after the items, so that the order is
        // total.
        let rank = |s: &Symbol| {
            if s.parent.is_none() && self.typedoc {
                Order::typedoc_rank(s.kind)
            } else if s.parent.is_none() {
                Order::rustdoc_rank(s.kind)
            } else {
                usize::MAX
            }
        };
        let kind = if self.items_by_kind {
            rank(a).cmp(&rank(b))
        } else {
            std::cmp::Ordering::Equal
        };
        kind.then_with(|| Order::compare(self.items_by_name, a, b))
    }

    fn compare_members(self, a: &Symbol, b: &Symbol) -> std::cmp::Ordering {
        Order::compare(self.members_by_name, a, b)
    }
}

/// Where a module is listed: by its name, as docs.rs lists a crate before its modules; a Go
/// package by its import path (its folder), as pkg.go.dev lists a module's packages, so
/// that the module's root package comes first, before the packages under it.
fn order_key<'m>(module: &'m ModuleView) -> &'m str {
    match (module.language, module.path.as_str()) {
        ("go", ".") => "",
        ("go", path) => path,
        _ => &module.name,
    }
}

/// Every symbol view of `modules`, with the name of its module.
fn symbol_views<'m, 'a>(
    modules: &'m mut [ModuleView<'a>],
) -> impl Iterator<Item = (&'m str, &'m mut SymbolView<'a>)> {
    modules.iter_mut().flat_map(|m| {
        let name = m.name.as_str();
        m.macros
            .iter_mut()
            .chain(m.types.iter_mut().flat_map(|t| {
                std::iter::once(&mut t.symbol)
                    .chain(t.fields.iter_mut())
                    .chain(t.constants.iter_mut())
                    .chain(t.constructors.iter_mut())
                    .chain(t.properties.iter_mut())
                    .chain(t.methods.iter_mut())
                    .chain(t.associated.iter_mut())
                    .chain(t.implementations.iter_mut())
            }))
            .chain(m.functions.iter_mut())
            .chain(m.constants.iter_mut())
            .chain(m.variables.iter_mut())
            .map(move |s| (name, s))
    })
}

/// Fills each view's `details`: its doc comment with links to other symbols pointing at
/// their anchors in this article (or at the language's public docs).
fn resolve_doc_links(modules: &mut [ModuleView]) {
    let mut links = DocLinks::default();
    for module in modules.iter() {
        if module.language == "rust"
            && let Some(krate) = module.name.split("::").next()
        {
            links.add_crate(krate);
        }
    }
    for (module, view) in symbol_views(modules) {
        links.add(module, &view.symbol.name, &view.anchor);
    }
    for module in modules.iter_mut() {
        let from = doc_links::From {
            module: &module.name,
            parent: None,
            language: module.language,
        };
        module.overview = links.resolve(&module.overview, &from);
    }
    for (module, view) in symbol_views(modules) {
        // A type's own comment names its members as its members' comments do.
        let parent = match &view.symbol.parent {
            Some(parent) => Some(parent.as_str()),
            None if view.symbol.kind.is_type() => Some(view.symbol.name.as_str()),
            None => None,
        };
        let from = doc_links::From {
            module,
            parent,
            language: view.symbol.language,
        };
        view.details = links.comment(&view.symbol.comment, &from);
        let (lead, more) = first_paragraph(&view.details.text);
        view.lead = lead.to_string();
        view.more = more.to_string();
    }
}

/// How users import a symbol that its module re-exports nearer the package root (Python:
/// `from itsdangerous import Signer`) or also exports as its default (TypeScript:
/// `import defu from "defu"`, with the module's package name).
fn import_line(symbol: &Symbol, package: Option<&str>) -> Option<String> {
    let (module, name) = symbol.reexport.as_ref()?;
    match symbol.language {
        "python" => Some(format!(
            "from {} import {name}",
            module_name(module, "python", None)
        )),
        _ if name == "default" => {
            let package = package?;
            Some(format!("import {} from \"{package}\"", symbol.name))
        }
        _ => None,
    }
}

/// The first paragraph of Markdown `text` and the rest; none when it opens with a code
/// block or a list, which cannot stand on a list item's line.
fn first_paragraph(text: &str) -> (&str, &str) {
    let text = text.trim();
    let opens_block = text.starts_with("```")
        || text.starts_with("~~~")
        || text.starts_with("- ")
        || text.starts_with("* ")
        || text.starts_with("    ");
    if opens_block {
        return ("", text);
    }
    match text.split_once("\n\n") {
        Some((first, _)) if first.contains("```") => ("", text),
        Some((first, rest)) => (first, rest.trim()),
        None => (text, ""),
    }
}

fn short_name(symbol: &Symbol) -> &str {
    match &symbol.parent {
        Some(parent) => symbol
            .name
            .strip_prefix(parent.as_str())
            .filter(|rest| rest.starts_with([':', '.']))
            .map(|rest| rest.trim_start_matches([':', '.']))
            .filter(|rest| !rest.is_empty())
            .unwrap_or(&symbol.name),
        None => &symbol.name,
    }
}

/// How the language names a module at `path`.
/// The file a module is written in: its own, or for a Rust inline module (`pub mod sync
/// { … }`, documented under the file it would have) the one file its items are in.
fn defining_file(module: &str, language: &str, members: &[&Symbol]) -> String {
    if language != "rust" || members.iter().any(|s| s.path == module) {
        return module.to_string();
    }
    match members.first() {
        Some(first) if members.iter().all(|s| s.path == first.path) => first.path.clone(),
        _ => module.to_string(),
    }
}

pub(crate) fn module_name(path: &str, language: &str, package: Option<&str>) -> String {
    let without = |ext: &str| path.strip_suffix(ext).unwrap_or(path).to_string();
    match language {
        "go" => match package {
            Some(package) => format!("package {package}"),
            None => path.to_string(),
        },
        "rust" => {
            let (krate, rest) = match path.rsplit_once("src/") {
                Some((before, rest)) => (before.trim_end_matches('/'), rest),
                None => return path.to_string(),
            };
            let krate = krate.rsplit('/').next().unwrap_or("");
            let krate = match package {
                Some(name) => name,
                None if krate.is_empty() => "crate",
                None => krate,
            };
            let mut parts: Vec<String> = vec![krate.replace('-', "_")];
            let rest = rest.strip_suffix(".rs").unwrap_or(rest);
            for part in rest.split('/') {
                if !matches!(part, "lib" | "main" | "mod") {
                    parts.push(part.to_string());
                }
            }
            parts.join("::")
        }
        "python" => {
            let stem = without(".pyi");
            let stem = stem.strip_suffix(".py").unwrap_or(&stem);
            let stem = stem.strip_prefix("src/").unwrap_or(stem);
            let stem = stem.strip_suffix("/__init__").unwrap_or(stem);
            stem.replace('/', ".")
        }
        // TypeDoc names a module by its package (or subpath) entry point, when it has one.
        "typescript" | "javascript" | "tsx" | "jsx" => package.unwrap_or(path).to_string(),
        _ => path.to_string(),
    }
}

/// An id made of ASCII letters, digits, `_` and `-`: what follows `#` in a link without
/// escaping, and what every site generator keeps as written.
fn slug(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let trimmed = out.trim_matches('-');
    if trimmed.is_empty() {
        "symbol".into()
    } else {
        trimmed.to_string()
    }
}

/// Anchors handed out in one article: a repeated one gets `-2`, `-3`, … in the order the
/// article lists them, which is sorted and so the same from run to run.
#[derive(Default)]
struct Anchors {
    used: HashSet<String>,
}

impl Anchors {
    fn unique(&mut self, base: &str) -> String {
        let mut candidate = base.to_string();
        let mut n = 2;
        while !self.used.insert(candidate.clone()) {
            candidate = format!("{base}-{n}");
            n += 1;
        }
        candidate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names_per_language() {
        assert_eq!(
            module_name("crates/git-cliff-core/src/changelog.rs", "rust", None),
            "git_cliff_core::changelog"
        );
        assert_eq!(module_name("src/lib.rs", "rust", None), "crate");
        assert_eq!(module_name("src/a/mod.rs", "rust", None), "crate::a");
        assert_eq!(module_name("src/kv/mod.rs", "rust", Some("log")), "log::kv");
        assert_eq!(module_name("src/pkg/__init__.py", "python", None), "pkg");
        assert_eq!(module_name("pkg/cli.py", "python", None), "pkg.cli");
        assert_eq!(module_name("x/y", "go", Some("y")), "package y");
        assert_eq!(module_name("src/a.ts", "typescript", None), "src/a.ts");
        assert_eq!(module_name("src/index.ts", "typescript", Some("ky")), "ky");
    }

    #[test]
    fn anchors_are_slugs_and_unique() {
        assert_eq!(slug("src/a.rs-Parser::parse"), "src-a-rs-Parser-parse");
        assert_eq!(slug("<>"), "symbol");
        let mut anchors = Anchors::default();
        assert_eq!(anchors.unique("a"), "a");
        assert_eq!(anchors.unique("a"), "a-2");
        assert_eq!(anchors.unique("a"), "a-3");
    }
}
