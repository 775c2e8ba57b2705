//! The order of a Python package's modules as the project's own API docs give it: the
//! package root first, then each module where the docs site (its toctree or nav, read by
//! `source::docs::site_order`) first documents something of it (`.. automodule::`,
//! `.. autoclass::`, `.. autofunction::` and the other autodoc directives, MyST's
//! ```` ```{autoclass} ````, mkdocstrings' `::: pkg.module`), then the modules its
//! `__init__` re-exports from, in its import order, then the others by name. A package
//! without API pages keeps its `__init__`'s order, so its helpers never come first only
//! because their names sort first.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::module::PythonModuleFacts;

/// Objects read from the docs' pages at most.
const MAX_DOCUMENTED: usize = 5_000;

/// The dotted names the docs `pages` (their texts, in the site's order) document, in order:
/// the targets of autodoc directives and mkdocstrings identifiers, a name without a module
/// taken in the `.. currentmodule::` / `.. module::` the page set.
pub(crate) fn documented_names<'t>(pages: impl Iterator<Item = &'t str>) -> Vec<String> {
    static DIRECTIVE: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(
            r"^\s*(?:\.\.\s+(?:py:)?([a-z]+)::|(?:```+|:::+)\{(?:py:)?([a-z]+)\})\s*([A-Za-z_][\w.]*)",
        )
    });
    static MKDOCSTRINGS: LazyLock<Regex> =
        LazyLock::new(|| crate::builtin::regex(r"^:::\s+([A-Za-z_][\w.]*)\s*$"));
    let mut out = Vec::new();
    for text in pages {
        let mut current = String::new();
        for line in text.lines() {
            if out.len() >= MAX_DOCUMENTED {
                return out;
            }
            if let Some(c) = MKDOCSTRINGS.captures(line) {
                out.push(c[1].to_string());
                continue;
            }
            let Some(c) = DIRECTIVE.captures(line) else {
                continue;
            };
            let directive = c.get(1).or_else(|| c.get(2)).map_or("", |m| m.as_str());
            let name = c[3].to_string();
            match directive {
                "module" | "currentmodule" => {
                    current = name.clone();
                    if directive == "module" {
                        out.push(name);
                    }
                }
                d if d.starts_with("auto")
                    || matches!(d, "class" | "function" | "exception" | "data" | "method") =>
                {
                    if d == "automodule" || current.is_empty() || name.starts_with(&current) {
                        out.push(name);
                    } else {
                        out.push(format!("{current}.{name}"));
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// A module of the article: its file and its dotted name.
pub(crate) struct PyModule<'a> {
    pub path: &'a str,
    pub dotted: &'a str,
    /// The top-level names documented under it.
    pub names: Vec<&'a str>,
}

/// The place of each module (by file) in the article, as the module doc describes: the
/// package roots first, then `documented` (the docs' order), then what the root's
/// `__init__` (`root_init`) imports from, then by name (left to the caller: no rank).
pub(crate) fn module_ranks(
    modules: &[PyModule],
    documented: &[String],
    root_init: Option<(&str, &PythonModuleFacts)>,
) -> HashMap<String, usize> {
    let mut ranks: HashMap<String, usize> = HashMap::new();
    let mut next = 0;
    let mut place = |path: &str, ranks: &mut HashMap<String, usize>| {
        if !ranks.contains_key(path) {
            ranks.insert(path.to_string(), next);
            next += 1;
        }
    };
    let depth = |m: &PyModule| m.dotted.matches('.').count();
    // The package roots: the outermost `__init__` modules.
    let is_init =
        |m: &PyModule| m.path.ends_with("__init__.py") || m.path.ends_with("__init__.pyi");
    let top = modules
        .iter()
        .filter(|m| is_init(m))
        .map(depth)
        .min()
        .unwrap_or(0);
    let mut roots: Vec<&PyModule> = modules
        .iter()
        .filter(|m| is_init(m) && depth(m) == top)
        .collect();
    roots.sort_by_key(|m| m.dotted);
    for root in &roots {
        place(root.path, &mut ranks);
    }
    let by_dotted: HashMap<&str, &PyModule> = modules.iter().map(|m| (m.dotted, m)).collect();
    for name in documented {
        if let Some(module) = documenting(modules, &by_dotted, name) {
            place(module.path, &mut ranks);
        }
    }
    if let Some((root, facts)) = root_init {
        for import in &facts.imports {
            if import.level != 1 || import.module.is_empty() {
                continue;
            }
            let dotted = format!("{root}.{}", import.module.join("."));
            if let Some(module) = by_dotted.get(dotted.as_str()) {
                place(module.path, &mut ranks);
            } else if let Some(name) = import.bound() {
                // A private module's name is documented in a public one.
                if let Some(module) = modules
                    .iter()
                    .find(|m| depth(m) > top && m.names.contains(&name))
                {
                    place(module.path, &mut ranks);
                }
            }
        }
    }
    ranks
}

/// The module that shows the documented `name`: the module of that name, else the one whose
/// dotted name prefixes it and that holds its first part, else the one module that holds its
/// last part under the same package.
fn documenting<'m>(
    modules: &'m [PyModule],
    by_dotted: &HashMap<&str, &'m PyModule>,
    name: &str,
) -> Option<&'m PyModule<'m>> {
    if let Some(m) = by_dotted.get(name) {
        return Some(m);
    }
    let mut prefix = name;
    while let Some((head, _)) = prefix.rsplit_once('.') {
        if let Some(m) = by_dotted.get(head) {
            let rest = &name[head.len() + 1..];
            let first = rest.split('.').next().unwrap_or(rest);
            if m.names.contains(&first) {
                return Some(m);
            }
            // `pkg.Name` documents what `pkg` re-exports from where it is shown.
            let within: Vec<&PyModule> = modules
                .iter()
                .filter(|o| o.dotted.starts_with(head) && o.names.contains(&first))
                .collect();
            if let [only] = within.as_slice() {
                return Some(only);
            }
            return None;
        }
        prefix = head;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::code::lang::python::module::PyImport;

    #[test]
    fn autodoc_and_mkdocstrings_names_in_page_order() {
        let pages = [
            "Serializer\n==========\n\n.. module:: pkg\n\n.. autoclass:: Serializer\n    :members:\n",
            "Signer\n======\n\n.. autoclass:: pkg.signer.Signer\n",
            "# Number\n\n::: pkg.number\n",
            "```{autofunction} pkg.helpers.want_bytes\n```\n",
        ];
        assert_eq!(
            documented_names(pages.iter().copied()),
            [
                "pkg",
                "pkg.Serializer",
                "pkg.signer.Signer",
                "pkg.number",
                "pkg.helpers.want_bytes"
            ]
        );
    }

    #[test]
    fn root_first_then_the_docs_order_then_the_init_imports() {
        let module = |path, dotted, names| PyModule {
            path,
            dotted,
            names,
        };
        let modules = [
            module("pkg/encoding.py", "pkg.encoding", vec!["want_bytes"]),
            module("pkg/exc.py", "pkg.exc", vec!["BadData"]),
            module("pkg/__init__.py", "pkg", vec![]),
            module("pkg/serializer.py", "pkg.serializer", vec!["Serializer"]),
            module("pkg/signer.py", "pkg.signer", vec!["Signer"]),
        ];
        let import = |module: &str, name: &str| PyImport {
            level: 1,
            module: vec![module.to_string()],
            name: Some(name.to_string()),
            alias: None,
        };
        let init = PythonModuleFacts {
            imports: vec![
                import("encoding", "want_bytes"),
                import("exc", "BadData"),
                import("signer", "Signer"),
            ],
            all: None,
            defined: Vec::new(),
        };
        let documented = ["pkg.Serializer".to_string(), "pkg.signer.Signer".into()];
        let ranks = module_ranks(&modules, &documented, Some(("pkg", &init)));
        let mut order: Vec<(&usize, &String)> = ranks.iter().map(|(p, r)| (r, p)).collect();
        order.sort();
        let order: Vec<&str> = order.iter().map(|(_, p)| p.as_str()).collect();
        assert_eq!(
            order,
            [
                "pkg/__init__.py",
                "pkg/serializer.py",
                "pkg/signer.py",
                "pkg/encoding.py",
                "pkg/exc.py"
            ]
        );
        // Without docs, the `__init__`'s order.
        let ranks = module_ranks(&modules, &[], Some(("pkg", &init)));
        assert_eq!(ranks["pkg/encoding.py"], 1);
        assert_eq!(ranks["pkg/signer.py"], 3);
        assert!(!ranks.contains_key("pkg/serializer.py"));
    }
}
