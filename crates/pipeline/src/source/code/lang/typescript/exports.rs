//! What a TypeScript or JavaScript file exports, read from its top-level statements: the
//! names it gives its own declarations (`export function f`, `export { a as b }`,
//! `export default a`), and what it passes on from other files (`export … from`,
//! `export *`, `export * as ns`, and an imported binding exported again).

use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use crate::source::code::tree::Source;

/// A file's re-exports are bounded: a real module has a few dozen, a generated barrel file a
/// few thousand; past this many the rest are not followed.
const MAX_LINKS: usize = 4_096;

/// What a file exports, by name, as its importers see it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TsModuleFacts {
    /// The names under which it exports declarations of its own (`default` for its default
    /// export).
    pub own: HashSet<String>,
    /// What it exports from other files, in file order.
    pub links: Vec<TsLink>,
}

/// One export of something another file declares; `from` is the module specifier as
/// written (`./x.js`, `lodash`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum TsLink {
    /// `export { name as public } from 'from'`, or `import { name as local } from 'from'`
    /// then `export { local as public }` (`name` is `default` for a default import).
    Named {
        from: String,
        name: String,
        public: String,
    },
    /// `export * from 'from'`: every name but `default`.
    Star { from: String },
    /// `export * as public from 'from'`, or `import * as local from 'from'` then
    /// `export { local as public }`: the file's exports as one namespace.
    Namespace { from: String, public: String },
}

/// An imported binding: the specifier and the name imported (`*` for a namespace import).
type Imports<'s> = HashMap<&'s str, (String, String)>;

/// What `root`, a file's syntax tree, exports.
pub(crate) fn typescript_module_facts(root: Node, src: &Source) -> TsModuleFacts {
    let imports = imports(root, src);
    let mut facts = TsModuleFacts::default();
    let link = |facts: &mut TsModuleFacts, link: TsLink| {
        if facts.links.len() < MAX_LINKS {
            facts.links.push(link);
        }
    };
    let mut cursor = root.walk();
    for statement in root.children(&mut cursor) {
        if statement.kind() != "export_statement" {
            continue;
        }
        let from = statement
            .child_by_field_name("source")
            .map(|s| unquote(src.of(s)));
        let default = is_default(statement);
        if let Some(from) = from {
            match clause(statement) {
                Some(clause) if clause.kind() == "export_clause" => {
                    for (name, public) in specifiers(clause, src) {
                        let link_to = TsLink::Named {
                            from: from.clone(),
                            name: name.to_string(),
                            public: public.to_string(),
                        };
                        link(&mut facts, link_to);
                    }
                }
                Some(clause) if clause.kind() == "namespace_export" => {
                    if let Some(public) = clause.named_child(0) {
                        let public = unquote(src.of(public));
                        link(&mut facts, TsLink::Namespace { from, public });
                    }
                }
                _ => link(&mut facts, TsLink::Star { from }),
            }
            continue;
        }
        if let Some(declaration) = statement.child_by_field_name("declaration") {
            for name in declared_names(declaration, src) {
                facts
                    .own
                    .insert(if default { "default".into() } else { name });
            }
            continue;
        }
        if let Some(value) = statement.child_by_field_name("value") {
            match imports
                .get(src.of(value))
                .filter(|_| value.kind() == "identifier")
            {
                Some((from, name)) => {
                    let exported = imported(from, name, "default");
                    link(&mut facts, exported);
                }
                None => {
                    facts.own.insert("default".into());
                }
            }
            continue;
        }
        if let Some(clause) = clause(statement).filter(|c| c.kind() == "export_clause") {
            for (local, public) in specifiers(clause, src) {
                match imports.get(local) {
                    Some((from, name)) => link(&mut facts, imported(from, name, public)),
                    None => {
                        facts.own.insert(public.to_string());
                    }
                }
            }
        }
    }
    facts
}

/// The local declarations a file exports by name rather than in place (`export { a as b }`,
/// `export default a`): each local name with the names it is exported under.
pub(crate) fn local_exports(root: Node, src: &Source) -> HashMap<String, Vec<String>> {
    let imports = imports(root, src);
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    let mut cursor = root.walk();
    for statement in root.children(&mut cursor) {
        if statement.kind() != "export_statement"
            || statement.child_by_field_name("source").is_some()
        {
            continue;
        }
        // `export = name` (a CommonJS module's declaration file): `name` is what the module
        // is, documented under its own name as TypeDoc does.
        if let Some(assigned) = export_assignment(statement) {
            let local = src.of(assigned);
            if !imports.contains_key(local) {
                let names = out.entry(local.to_string()).or_default();
                if !names.iter().any(|n| n == local) {
                    names.push(local.to_string());
                }
            }
            continue;
        }
        if let Some(value) = statement.child_by_field_name("value") {
            if value.kind() == "identifier" && !imports.contains_key(src.of(value)) {
                out.entry(src.of(value).to_string())
                    .or_default()
                    .push("default".into());
            }
            continue;
        }
        if let Some(clause) = clause(statement).filter(|c| c.kind() == "export_clause") {
            for (local, public) in specifiers(clause, src) {
                if !imports.contains_key(local) {
                    let names = out.entry(local.to_string()).or_default();
                    if !names.iter().any(|n| n == public) {
                        names.push(public.to_string());
                    }
                }
            }
        }
    }
    out
}

/// The identifier of an `export = name;` statement.
pub(crate) fn export_assignment(statement: Node) -> Option<Node> {
    let mut cursor = statement.walk();
    let mut children = statement.children(&mut cursor);
    children.find(|c| c.kind() == "=")?;
    children
        .find(|c| c.is_named())
        .filter(|c| c.kind() == "identifier")
}

/// Whether an `export` statement exports its declaration or value as the default.
pub(crate) fn is_default(statement: Node) -> bool {
    let mut cursor = statement.walk();
    statement
        .children(&mut cursor)
        .any(|c| c.kind() == "default")
}

fn imported(from: &str, name: &str, public: &str) -> TsLink {
    if name == "*" {
        TsLink::Namespace {
            from: from.to_string(),
            public: public.to_string(),
        }
    } else {
        TsLink::Named {
            from: from.to_string(),
            name: name.to_string(),
            public: public.to_string(),
        }
    }
}

/// The file's imported bindings, by local name.
fn imports<'s>(root: Node, src: &Source<'s>) -> Imports<'s> {
    let mut out = Imports::new();
    let mut cursor = root.walk();
    for statement in root.children(&mut cursor) {
        if statement.kind() != "import_statement" {
            continue;
        }
        let Some(from) = statement.child_by_field_name("source") else {
            continue;
        };
        let from = unquote(src.of(from));
        let mut clauses = statement.walk();
        for clause in statement
            .named_children(&mut clauses)
            .filter(|c| c.kind() == "import_clause")
        {
            let mut parts = clause.walk();
            for part in clause.named_children(&mut parts) {
                match part.kind() {
                    "identifier" => {
                        out.insert(src.of(part), (from.clone(), "default".into()));
                    }
                    "namespace_import" => {
                        if let Some(local) = part.named_child(0) {
                            out.insert(src.of(local), (from.clone(), "*".into()));
                        }
                    }
                    "named_imports" => {
                        let mut specs = part.walk();
                        for spec in part
                            .named_children(&mut specs)
                            .filter(|s| s.kind() == "import_specifier")
                        {
                            let Some(name) = spec.child_by_field_name("name") else {
                                continue;
                            };
                            let local = spec.child_by_field_name("alias").unwrap_or(name);
                            out.insert(src.of(local), (from.clone(), unquote(src.of(name))));
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

/// The `export_clause` or `namespace_export` of an export statement.
fn clause(statement: Node) -> Option<Node> {
    let mut cursor = statement.walk();
    statement
        .named_children(&mut cursor)
        .find(|c| matches!(c.kind(), "export_clause" | "namespace_export"))
}

/// The (name, exported name) pairs of an `export { a, b as c }` clause.
fn specifiers<'s>(clause: Node, src: &Source<'s>) -> Vec<(&'s str, &'s str)> {
    let mut cursor = clause.walk();
    clause
        .named_children(&mut cursor)
        .filter(|s| s.kind() == "export_specifier")
        .filter_map(|spec| {
            let name = spec.child_by_field_name("name")?;
            let public = spec.child_by_field_name("alias").unwrap_or(name);
            Some((unquote_str(src.of(name)), unquote_str(src.of(public))))
        })
        .collect()
}

/// The names a declaration in an `export` statement declares: one per declarator of
/// `const a = 1, b = 2`; destructuring patterns declare none we show.
fn declared_names(declaration: Node, src: &Source) -> Vec<String> {
    let declaration = match declaration.kind() {
        "ambient_declaration" => match declaration.named_child(0) {
            Some(inner) => inner,
            None => return Vec::new(),
        },
        _ => declaration,
    };
    match declaration.kind() {
        "lexical_declaration" | "variable_declaration" => {
            let mut cursor = declaration.walk();
            declaration
                .named_children(&mut cursor)
                .filter(|d| d.kind() == "variable_declarator")
                .filter_map(|d| d.child_by_field_name("name"))
                .filter(|n| n.kind() == "identifier")
                .map(|n| src.of(n).to_string())
                .collect()
        }
        _ => declaration
            .child_by_field_name("name")
            .map(|n| unquote(src.of(n)))
            .into_iter()
            .collect(),
    }
}

fn unquote(text: &str) -> String {
    unquote_str(text).to_string()
}

/// A string literal's content (`'./x'` → `./x`); other text as it is.
fn unquote_str(text: &str) -> &str {
    let text = text.trim();
    for quote in ['"', '\'', '`'] {
        if let Some(inner) = text.strip_prefix(quote).and_then(|t| t.strip_suffix(quote)) {
            return inner;
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (TsModuleFacts, HashMap<String, Vec<String>>) {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into())
            .unwrap();
        let tree = parser.parse(text, None).unwrap();
        let src = Source::new(text);
        (
            typescript_module_facts(tree.root_node(), &src),
            local_exports(tree.root_node(), &src),
        )
    }

    #[test]
    fn every_export_form_is_read() {
        let (facts, locals) = read(
            "import ky from './ky.js';\nimport { a as b } from './a';\nimport * as all from './all';\n\
             const local = 1;\nfunction helper() {}\n\
             export default ky;\nexport { b as c, all, local, helper as aid };\n\
             export { x, y as z } from './x';\nexport type { T } from './t';\n\
             export * from './star';\nexport * as ns from './ns';\n\
             export function f() {}\nexport declare const g: number, h: string;\n",
        );
        let mut own: Vec<&str> = facts.own.iter().map(String::as_str).collect();
        own.sort();
        assert_eq!(own, ["aid", "f", "g", "h", "local"]);
        let named = |from: &str, name: &str, public: &str| TsLink::Named {
            from: from.into(),
            name: name.into(),
            public: public.into(),
        };
        assert_eq!(
            facts.links,
            [
                named("./ky.js", "default", "default"),
                named("./a", "a", "c"),
                TsLink::Namespace {
                    from: "./all".into(),
                    public: "all".into()
                },
                named("./x", "x", "x"),
                named("./x", "y", "z"),
                named("./t", "T", "T"),
                TsLink::Star {
                    from: "./star".into()
                },
                TsLink::Namespace {
                    from: "./ns".into(),
                    public: "ns".into()
                },
            ]
        );
        assert_eq!(locals.get("helper"), Some(&vec!["aid".to_string()]));
        assert_eq!(locals.get("local"), Some(&vec!["local".to_string()]));
        assert_eq!(locals.get("ky"), None, "an import is another file's");
    }

    #[test]
    fn a_default_export_is_named_default() {
        let (facts, locals) = read("const ky = 1;\nexport default ky;\n");
        assert!(facts.own.contains("default"));
        assert_eq!(locals.get("ky"), Some(&vec!["default".to_string()]));
        let (facts, _) = read("export default function foo() {}\n");
        assert_eq!(facts.own.iter().collect::<Vec<_>>(), ["default"]);
        let (facts, _) = read("export default class {}\n");
        assert_eq!(facts.own.iter().collect::<Vec<_>>(), ["default"]);
    }
}
