//! What a Python class inherits, as Sphinx autodoc and pydoc show it:
//! - a member without a docstring of its own shows the docstring of the member it overrides
//!   (autodoc's default `autodoc_inherit_docstrings`, `inspect.getdoc`);
//! - a class whose base is not documented anywhere (`_Base`, or a base class of a private
//!   module that no public module re-exports) shows the members it inherits from that base,
//!   its constructor first among them: the base has no page a reader could follow, and
//!   `help()` and autodoc's class signature show the inherited `__init__`.

use std::collections::{HashMap, HashSet};

use crate::source::code::lang::common::base_type_names;
use crate::source::code::symbol::{Symbol, SymbolKind};

/// How many bases up a class's members are looked for.
const MAX_BASE_DEPTH: usize = 8;
/// Bases read in one class's chain, however wide its hierarchy.
const MAX_BASES: usize = 64;

/// A class as the source names it: (the file defining it, its name there).
type Class = (String, String);

/// The members defined in each class of the Python files read, by (file, class).
pub(super) struct Members<'s> {
    by_class: HashMap<Class, Vec<&'s Symbol>>,
    signatures: HashMap<Class, &'s str>,
}

impl<'s> Members<'s> {
    pub(super) fn new(symbols: &'s [Symbol]) -> Self {
        let mut by_class: HashMap<Class, Vec<&Symbol>> = HashMap::new();
        let mut signatures = HashMap::new();
        for symbol in symbols.iter().filter(|s| s.language == "python") {
            match &symbol.parent {
                Some(parent) => by_class
                    .entry((symbol.path.clone(), parent.clone()))
                    .or_default()
                    .push(symbol),
                None if symbol.kind == SymbolKind::Class => {
                    signatures.insert(
                        (symbol.path.clone(), symbol.name.clone()),
                        symbol.signature.as_str(),
                    );
                }
                None => {}
            }
        }
        Self {
            by_class,
            signatures,
        }
    }

    /// The classes a class derives from, nearest first, each resolved to the file that
    /// defines it: the class's own file when it defines that name, else the one file of the
    /// read files that does (an ambiguous name is not followed).
    fn bases(&self, class: &Class, signature: &str) -> Vec<Class> {
        let mut out: Vec<Class> = Vec::new();
        let mut seen: HashSet<Class> = HashSet::from([class.clone()]);
        let mut queue: Vec<(Class, String, usize)> = vec![(class.clone(), signature.into(), 0)];
        while let Some((at, signature, depth)) = queue.pop() {
            if depth >= MAX_BASE_DEPTH || out.len() >= MAX_BASES {
                break;
            }
            let mut next = Vec::new();
            for name in base_names(&signature) {
                let Some(base) = self.resolve(&at.0, &name) else {
                    continue;
                };
                if seen.insert(base.clone()) {
                    out.push(base.clone());
                    let signature = self.signatures.get(&base).copied().unwrap_or("");
                    next.push((base, signature.to_string(), depth + 1));
                }
            }
            // Depth first, left to right: the method resolution order of plain hierarchies.
            next.reverse();
            queue.extend(next);
        }
        out
    }

    fn resolve(&self, file: &str, name: &str) -> Option<Class> {
        let local = (file.to_string(), name.to_string());
        let known = |c: &Class| self.by_class.contains_key(c) || self.signatures.contains_key(c);
        if known(&local) {
            return Some(local);
        }
        let mut found = self
            .by_class
            .keys()
            .chain(self.signatures.keys())
            .filter(|(_, n)| n == name)
            .map(|(f, _)| f.as_str())
            .collect::<Vec<_>>();
        found.sort_unstable();
        found.dedup();
        match found.as_slice() {
            [only] => Some((only.to_string(), name.to_string())),
            _ => None,
        }
    }
}

/// The names in a class signature's base list: `class A(_Base, pkg.Mixin[T], metaclass=M)`
/// gives `_Base` and `Mixin`.
fn base_names(signature: &str) -> Vec<String> {
    let Some((_, list)) = signature.split_once('(') else {
        return Vec::new();
    };
    let end = list.rfind(')').unwrap_or(list.len());
    base_type_names(&list[..end])
}

/// Whether a symbol has no doc of its own.
fn undocumented(symbol: &Symbol) -> bool {
    symbol.doc.is_empty() && symbol.comment.text.trim().is_empty()
}

/// The member name of `Class.member`.
fn member_name(symbol: &Symbol) -> &str {
    symbol.name.rsplit('.').next().unwrap_or(&symbol.name)
}

/// A documented class as placed: its file and name in the source, and its module and name
/// in the docs.
pub(super) struct Placed {
    pub class: Class,
    pub module: String,
    pub name: String,
}

/// Adds to `out` (the documented symbols) what each documented class in `classes` inherits,
/// by the rules of the module doc; `documented` tells whether a class is shown itself.
pub(super) fn inherit(
    members: &Members,
    classes: &[Placed],
    documented: &dyn Fn(&Class) -> bool,
    out: &mut Vec<Symbol>,
) {
    let mut added = Vec::new();
    // The undocumented Python members of each class, by (file, class, module): read once,
    // not once per class.
    let mut undocumented_members: HashMap<(&str, &str, &str), Vec<usize>> = HashMap::new();
    for (at, symbol) in out.iter().enumerate() {
        if symbol.language == "python"
            && undocumented(symbol)
            && let Some(parent) = symbol.parent.as_deref()
        {
            undocumented_members
                .entry((symbol.path.as_str(), parent, symbol.module.as_str()))
                .or_default()
                .push(at);
        }
    }
    let mut docs: Vec<(usize, &Symbol)> = Vec::new();
    for placed in classes {
        let Some(signature) = members.signatures.get(&placed.class) else {
            continue;
        };
        let bases = members.bases(&placed.class, signature);
        if bases.is_empty() {
            continue;
        }
        let base_members = |name: &str| {
            bases
                .iter()
                .filter_map(|b| members.by_class.get(b))
                .flatten()
                .find(|m| member_name(m) == name && !undocumented(m))
                .copied()
        };
        // Its own members without a docstring take the overridden member's.
        let mut own: HashSet<String> = HashSet::new();
        if let Some(defined) = members.by_class.get(&placed.class) {
            own.extend(defined.iter().map(|m| member_name(m).to_string()));
        }
        let key = (
            placed.class.0.as_str(),
            placed.name.as_str(),
            placed.module.as_str(),
        );
        for &at in undocumented_members.get(&key).into_iter().flatten() {
            if let Some(base) = base_members(member_name(&out[at])) {
                docs.push((at, base));
            }
        }
        // The members of bases no one documents, nearest base first.
        for base in bases.iter().filter(|b| !documented(b)) {
            for member in members.by_class.get(base).into_iter().flatten() {
                let name = member_name(member).to_string();
                if !own.insert(name.clone()) {
                    continue;
                }
                let mut symbol = (*member).clone();
                symbol.module = placed.module.clone();
                symbol.parent = Some(placed.name.clone());
                symbol.name = format!("{}.{name}", placed.name);
                added.push(symbol);
            }
        }
    }
    drop(undocumented_members);
    for (at, base) in docs {
        out[at].doc = base.doc.clone();
        out[at].comment = base.comment.clone();
    }
    // Constructors first, as the class's signature shows them.
    added.sort_by_key(|s| s.kind != SymbolKind::Constructor);
    out.extend(added);
}

#[cfg(test)]
mod tests {
    use super::base_names;

    #[test]
    fn base_names_skip_keywords_and_generics() {
        assert_eq!(
            base_names("class A(_Base, pkg.Mixin[T, U], metaclass=Meta)"),
            ["_Base", "Mixin"]
        );
        assert!(base_names("class A").is_empty());
        assert!(base_names("class A(*bases)").is_empty());
    }
}
