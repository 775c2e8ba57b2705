//! Python, as Sphinx autodoc shows it: module-level functions, classes and constants, the
//! members of classes, docstrings (attribute docstrings and `#:` comments too), decorators;
//! what a module imports and lists in `__all__` (`module`), and which symbols of private
//! modules a package re-exports and where (`reach`).

pub(crate) mod docs_order;
mod inherit;
mod module;
pub(crate) mod reach;

pub(crate) use module::{PythonModuleFacts, python_module_facts};
pub(crate) use reach::{PythonApi, uses_autodoc};

use tree_sitter::Node;

use super::common::*;
use crate::source::code::symbol::SymbolKind;
use crate::source::code::tree::{Declaration, Place, Source};

/// What a Python decorator names: `property` for `@property`, `functools.cache` for
/// `@functools.cache(maxsize=1)`.
fn decorator_name<'s>(decorator: Node, src: &Source<'s>) -> &'s str {
    let text = src.of(decorator).trim_start_matches('@');
    text.split(['(', ' ', '\n']).next().unwrap_or("").trim()
}

/// Python: module-level functions, classes and constants; the methods (with `__init__` as
/// the constructor), properties and attributes of module-level classes; decorators kept.
pub(crate) fn python<'t>(
    def: Node<'t>,
    place: &Place<'_, 't>,
    src: &Source,
    out: &mut Vec<Declaration<'t>>,
) {
    if def.kind() == "expression_statement" {
        if let Some(string) = def.named_child(0).filter(|s| s.kind() == "string") {
            attribute_docstring(def, string, src, out);
            return;
        }
        out.extend(python_assignment(def, place, src));
        return;
    }
    out.extend(python_definition(def, place, src));
    // The attributes an `__init__` documents are shown, also when the constructor itself is
    // not (`:meta private:`).
    if let Some(class) = constructor_class(def, place, src) {
        instance_attributes(def, &class, src, out);
    }
}

/// The public module-level class whose `__init__` `def` is.
fn constructor_class(def: Node, place: &Place, src: &Source) -> Option<String> {
    if def.kind() != "function_definition"
        || name_of(def, &["identifier"]).map(|n| src.of(n)) != Some("__init__")
    {
        return None;
    }
    let container = usize::from(place.kind_up(0) == "decorated_definition");
    if place.kind_up(container) != "block" {
        return None;
    }
    python_class(place, container + 1, src)
}

/// At most this many statements of an `__init__` are read for its documented attributes.
const MAX_INIT_STATEMENTS: usize = 1_000;

/// The instance attributes a constructor documents, as Sphinx's autodoc reads them:
/// `self.name = …` (or `self.name: type = …`) at the top level of `__init__`, right under a
/// `#:` comment or above an attribute docstring. Undocumented ones are left out, as autodoc
/// leaves them out.
fn instance_attributes<'t>(
    init: Node<'t>,
    class: &str,
    src: &Source,
    out: &mut Vec<Declaration<'t>>,
) {
    let Some(body) = init.child_by_field_name("body") else {
        return;
    };
    // Comments above the body's first statement are the definition's children, not the
    // body's.
    let mut comments: Vec<Node<'t>> = {
        let mut cursor = init.walk();
        init.children(&mut cursor)
            .filter(|c| c.kind() == "comment" && c.start_byte() < body.start_byte())
            .collect()
    };
    let mut cursor = body.walk();
    let statements: Vec<Node<'t>> = body
        .children(&mut cursor)
        .take(MAX_INIT_STATEMENTS)
        .collect();
    let mut previous_end_row = None;
    for (i, statement) in statements.iter().enumerate() {
        if statement.kind() == "comment" {
            if previous_end_row != Some(statement.start_position().row) {
                comments.push(*statement);
            }
            continue;
        }
        previous_end_row = Some(statement.end_position().row);
        let leading = std::mem::take(&mut comments);
        let Some((name, annotation)) = self_assignment(*statement, src) else {
            continue;
        };
        if name.starts_with('_') || out.iter().any(|d| d.name == format!("{class}.{name}")) {
            continue;
        }
        // `#:` lines right above, without a blank line between.
        let mut doc_comments: Vec<Node> = Vec::new();
        let mut next_row = statement.start_position().row;
        for comment in leading.iter().rev() {
            if comment.end_position().row + 1 != next_row || !src.of(*comment).starts_with("#:") {
                break;
            }
            next_row = comment.start_position().row;
            doc_comments.insert(0, *comment);
        }
        let mut doc: Vec<String> = doc_comments
            .iter()
            .map(|c| {
                let text = src.of(*c).trim_start_matches("#:");
                text.strip_prefix(' ')
                    .unwrap_or(text)
                    .trim_end()
                    .to_string()
            })
            .collect();
        if doc.is_empty()
            && let Some(string) = statements
                .get(i + 1)
                .filter(|n| n.kind() == "expression_statement")
                .and_then(|n| n.named_child(0))
                .filter(|n| n.kind() == "string")
        {
            doc = docstring_lines(src.of(string));
        }
        if doc.is_empty() {
            continue;
        }
        out.push(Declaration {
            requires: None,
            kind: SymbolKind::Field,
            name: format!("{class}.{name}"),
            signature: bounded(&match annotation {
                Some(ty) => format!("{name}: {ty}"),
                None => name.to_string(),
            }),
            doc,
            node: *statement,
            hash_end: statement.end_byte(),
            parent: Some(class.to_string()),
            stub: false,
        });
    }
}

/// `name` and its annotation, of a statement `self.name = …` or `self.name: type = …`.
fn self_assignment<'s>(statement: Node, src: &Source<'s>) -> Option<(&'s str, Option<&'s str>)> {
    let assignment = statement
        .named_child(0)
        .filter(|a| statement.kind() == "expression_statement" && a.kind() == "assignment")?;
    let left = assignment
        .child_by_field_name("left")
        .filter(|l| l.kind() == "attribute")?;
    let object = left.child_by_field_name("object")?;
    if object.kind() != "identifier" || src.of(object) != "self" {
        return None;
    }
    let name = src.of(left.child_by_field_name("attribute")?);
    let annotation = assignment
        .child_by_field_name("type")
        .map(|t| src.of(t).trim());
    Some((name, annotation))
}

/// A string right under an attribute or constant documents it (Sphinx's attribute
/// docstrings).
fn attribute_docstring(stmt: Node, string: Node, src: &Source, out: &mut [Declaration]) {
    if let Some(last) = out.last_mut()
        && matches!(
            last.kind,
            SymbolKind::Field | SymbolKind::Constant | SymbolKind::Variable
        )
        && last.doc.is_empty()
        && last.node.end_position().row + 1 == stmt.start_position().row
    {
        last.doc = docstring_lines(src.of(string));
    }
}

fn python_definition<'t>(
    def: Node<'t>,
    place: &Place<'_, 't>,
    src: &Source,
) -> Option<Declaration<'t>> {
    if !matches!(def.kind(), "function_definition" | "class_definition") {
        return None;
    }
    let base = src.of(name_of(def, &["identifier"])?).to_string();
    let is_constructor = base == "__init__";
    let doc = def
        .child_by_field_name("body")
        .and_then(|body| body.named_child(0))
        .filter(|first| first.kind() == "expression_statement")
        .and_then(|stmt| stmt.named_child(0))
        .filter(|s| s.kind() == "string")
        .map(|s| docstring_lines(src.of(s)))
        .unwrap_or_default();
    let meta = sphinx_meta(&doc);
    // A special method (`__call__`) with a docstring of its own is shown, as pydoc shows it
    // and as projects ask autodoc to (`:special-members:`); other `_` names are private.
    let special = is_special(&base) && doc.iter().any(|l| !l.trim().is_empty());
    match meta {
        Some(Meta::Private) => return None,
        Some(Meta::Public) => {}
        None if base.starts_with('_') && !is_constructor && !special => return None,
        None => {}
    }
    // How many levels up the definition's container is (past a decorated_definition).
    let decorated = place
        .up(0)
        .filter(|f| f.node.kind() == "decorated_definition");
    let container = usize::from(decorated.is_some());
    let decorators: Vec<&str> = decorated
        .map(|f| {
            let mut cursor = f.node.walk();
            f.node
                .children(&mut cursor)
                .filter(|c| c.kind() == "decorator")
                .map(|d| decorator_name(d, src))
                .collect()
        })
        .unwrap_or_default();
    let has = |names: &[&str]| decorators.iter().any(|d| names.contains(d));
    // The setter and deleter of a property are the property's: one entry.
    if decorators
        .iter()
        .any(|d| *d == format!("{base}.setter") || *d == format!("{base}.deleter"))
    {
        return None;
    }
    let (mut kind, qualified, parent) = match place.kind_up(container) {
        "module" => {
            if is_constructor || (is_special(&base) && meta.is_none()) {
                return None;
            }
            let kind = if def.kind() == "class_definition" {
                SymbolKind::Class
            } else {
                SymbolKind::Function
            };
            (kind, base.clone(), None)
        }
        "block" => {
            if def.kind() != "function_definition" {
                return None;
            }
            let class_name = python_class(place, container + 1, src)?;
            let kind = if is_constructor {
                SymbolKind::Constructor
            } else {
                SymbolKind::Method
            };
            (kind, format!("{class_name}.{base}"), Some(class_name))
        }
        _ => return None,
    };
    let from = decorated.map_or(def.start_byte(), |f| f.node.start_byte());
    let mut signature = header(def, from, src)
        .trim_end_matches(':')
        .trim()
        .to_string();
    let property = [
        "property",
        "cached_property",
        "functools.cached_property",
        "abc.abstractproperty",
        "abstractproperty",
    ];
    if kind == SymbolKind::Method && has(&property) {
        // A property reads as an attribute: `name: type`, its other decorators above.
        kind = SymbolKind::Property;
        let annotation = def
            .child_by_field_name("return_type")
            .map(|t| format!(": {}", src.of(t).trim()))
            .unwrap_or_default();
        let mut lines: Vec<String> = decorated
            .map(|f| {
                let mut cursor = f.node.walk();
                f.node
                    .children(&mut cursor)
                    .filter(|c| c.kind() == "decorator")
                    .filter(|d| !property.contains(&decorator_name(*d, src)))
                    .map(|d| clean(d, d.start_byte(), d.end_byte(), src))
                    .collect()
            })
            .unwrap_or_default();
        lines.push(format!("{base}{annotation}"));
        signature = lines.join("\n");
    }
    let hash_end = if kind == SymbolKind::Class {
        body_start(def)
    } else {
        def.end_byte()
    };
    Some(Declaration {
        requires: None,
        kind,
        name: qualified,
        signature,
        doc,
        node: def,
        hash_end,
        parent,
        stub: has(&["overload", "typing.overload", "typing_extensions.overload"]),
    })
}

/// A docstring's Sphinx `:meta private:` / `:meta public:` field, which overrides whether
/// autodoc takes a member for private by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Meta {
    Private,
    Public,
}

fn sphinx_meta(doc: &[String]) -> Option<Meta> {
    doc.iter().find_map(|line| {
        let field = line.trim().strip_prefix(":meta")?.trim();
        match field.trim_end_matches(':').trim() {
            "private" => Some(Meta::Private),
            "public" => Some(Meta::Public),
            _ => None,
        }
    })
}

/// A special ("dunder") name other than `__init__`: `__call__`, `__iter__`.
fn is_special(name: &str) -> bool {
    name.len() > 4 && name.starts_with("__") && name.ends_with("__") && name != "__init__"
}

/// The name of the module-level class whose body is `up` levels above (the class
/// definition itself), when it is one. A private class's (`_Base`) members are read too:
/// they are what a public class deriving from it shows (`inherit`), never shown as its own.
fn python_class(place: &Place, up: usize, src: &Source) -> Option<String> {
    let class = place
        .up(up)
        .map(|f| f.node)
        .filter(|c| c.kind() == "class_definition")?;
    let class_container = up + 1 + usize::from(place.kind_up(up + 1) == "decorated_definition");
    let class_name = class.child_by_field_name("name").map(|n| src.of(n))?;
    if place.kind_up(class_container) != "module" {
        return None;
    }
    Some(class_name.to_string())
}

/// `NAME = value` at module level (a constant when the name is in capitals, else a variable,
/// shown only when an `__all__` lists it), or a public attribute of a module-level class
/// (`name: type = default`, dataclass fields).
fn python_assignment<'t>(
    def: Node<'t>,
    place: &Place<'_, 't>,
    src: &Source,
) -> Option<Declaration<'t>> {
    let assignment = def.named_child(0).filter(|a| a.kind() == "assignment")?;
    let name = assignment
        .child_by_field_name("left")
        .filter(|n| n.kind() == "identifier")?;
    let base = src.of(name).to_string();
    // `TYPE_CHECKING = False` is the typing idiom for imports only a type checker reads.
    // A special name (`__version__`) is data autodoc shows when `__all__` lists it.
    let special = is_special(&base) && base != "__all__";
    if (base.starts_with('_') && !special) || base == "TYPE_CHECKING" {
        return None;
    }
    let (kind, qualified, parent) = match place.kind_up(0) {
        "module" => {
            let constant = base
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                && base.chars().any(|c| c.is_ascii_uppercase());
            // Other module-level names are data autodoc shows when `__all__` lists them
            // (`reach` keeps those only).
            let kind = if constant && !special {
                SymbolKind::Constant
            } else {
                SymbolKind::Variable
            };
            (kind, base, None)
        }
        "block" if !special => {
            let class = python_class(place, 1, src)?;
            (SymbolKind::Field, format!("{class}.{base}"), Some(class))
        }
        _ => return None,
    };
    let comments = preceding_comments(def, place.leading, src, true);
    Some(Declaration {
        requires: None,
        kind,
        name: qualified,
        signature: bounded(&clean(def, def.start_byte(), def.end_byte(), src)),
        doc: comment_lines(&comments)
            .into_iter()
            .map(|l| l.strip_prefix(':').unwrap_or(&l).trim().to_string())
            .collect(),
        node: def,
        hash_end: def.end_byte(),
        parent,
        stub: false,
    })
}

pub(crate) fn docstring_lines(literal: &str) -> Vec<String> {
    let text = literal.trim_start_matches(|c: char| "rRuUbBfF".contains(c));
    let text = ["\"\"\"", "'''", "\"", "'"]
        .iter()
        .find_map(|q| text.strip_prefix(q).and_then(|t| t.strip_suffix(q)))
        .unwrap_or(text);
    let lines: Vec<&str> = text.lines().collect();
    // The first line sits right after the quotes; the others share the body's indentation.
    let rest = crate::source::code::comments::dedent(lines.get(1..).unwrap_or_default());
    let mut out = vec![lines.first().map_or("", |l| l.trim()).to_string()];
    out.extend(rest.lines().map(str::to_string));
    out
}
