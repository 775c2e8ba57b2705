//! TypeScript and JavaScript declarations, as TypeDoc shows them: what a module exports
//! (in place, by an `export { … }` list or as its default), the public members of exported
//! classes and interfaces, JSDoc comments. Signatures start at the declaration, without
//! `export`, `default` or `declare`.

use tree_sitter::Node;

use super::exports::{is_default, local_exports};
use crate::source::code::lang::common::*;
use crate::source::code::symbol::SymbolKind;
use crate::source::code::tree::{Declaration, Place, Source};

/// TypeScript and JavaScript: what the file exports, and the public members of exported
/// classes and interfaces; pushed to `out`, one declaration per name it is exported under.
pub(crate) fn typescript<'t>(
    def: Node<'t>,
    place: &Place<'_, 't>,
    src: &Source,
    out: &mut Vec<Declaration<'t>>,
) {
    match def.kind() {
        "method_definition"
        | "method_signature"
        | "abstract_method_signature"
        | "public_field_definition"
        | "property_signature" => typescript_members(def, place, src, out),
        "export_statement" => default_value(def, place, src, out),
        _ => typescript_declaration(def, place, src, out),
    }
}

/// A declaration the file exports: in an `export` statement (`export function f`,
/// `export default class C`, `export declare const c`), or at the top level with an
/// `export { … }` list or `export default name` naming it.
fn typescript_declaration<'t>(
    def: Node<'t>,
    place: &Place<'_, 't>,
    src: &Source,
    out: &mut Vec<Declaration<'t>>,
) {
    // The statement is the parent, or the grandparent of a `const` declarator.
    let (at, declaration) = if def.kind() == "variable_declarator" {
        match place.up(0) {
            Some(frame)
                if matches!(
                    frame.node.kind(),
                    "lexical_declaration" | "variable_declaration"
                ) =>
            {
                (1, frame.node)
            }
            _ => return,
        }
    } else {
        (0, def)
    };
    let name = if def.kind() == "variable_declarator" {
        name_of(def, &["identifier"])
    } else {
        def.child_by_field_name("name").filter(|n| n.is_named())
    };
    let Some(name) = name else {
        return;
    };
    let base = src.of(name);
    let whole = |trim: char| {
        clean(def, def.start_byte(), def.end_byte(), src)
            .trim_end_matches(trim)
            .to_string()
    };
    let mut stub = false;
    let (kind, signature, hash_end) = match def.kind() {
        "function_declaration" | "generator_function_declaration" => (
            SymbolKind::Function,
            header(def, def.start_byte(), src),
            def.end_byte(),
        ),
        "function_signature" => {
            stub = true;
            (SymbolKind::Function, whole(';'), def.end_byte())
        }
        "class_declaration" | "abstract_class_declaration" => (
            SymbolKind::Class,
            header(def, def.start_byte(), src),
            body_start(def),
        ),
        // Members are listed one by one under the interface; its call and construct
        // signatures, which have no name, in its declaration.
        "interface_declaration" => (
            SymbolKind::Interface,
            bounded_type(&interface_signature(def, src)),
            def.end_byte(),
        ),
        "enum_declaration" => (SymbolKind::Enum, whole(';'), def.end_byte()),
        // An object type's properties are listed one by one under the alias, as TypeDoc's
        // "Type declaration": the signature shows `{ … }` for it.
        "type_alias_declaration" => (
            SymbolKind::Type,
            bounded_type(&alias_signature(def, src)),
            def.end_byte(),
        ),
        "variable_declarator" => {
            let keyword = match declaration.kind() {
                "variable_declaration" => "var",
                _ => declaration
                    .child_by_field_name("kind")
                    .map_or("const", |k| src.of(k)),
            };
            let value = def.child_by_field_name("value");
            let is_function = value.is_some_and(|v| {
                matches!(
                    v.kind(),
                    "arrow_function" | "function_expression" | "function"
                )
            });
            let kind = if is_function {
                SymbolKind::Function
            } else if keyword == "const" {
                SymbolKind::Constant
            } else {
                SymbolKind::Variable
            };
            let end = match value {
                Some(v) if is_function => body_start(v),
                _ => def.end_byte(),
            };
            let mut signature = format!(
                "{keyword} {}",
                bounded(&clean(def, def.start_byte(), end, src))
            );
            if signature.ends_with("=>") || signature.ends_with('=') {
                signature.push_str(" …");
            }
            (kind, signature, def.end_byte())
        }
        _ => return,
    };
    let Some(exported) = exported_as(declaration, base, place, at, src) else {
        return;
    };
    let doc = jsdoc(exported.statement, exported.leading, src);
    for name in exported.names {
        out.push(Declaration {
            requires: None,
            kind,
            name,
            signature: signature.clone(),
            doc: doc.clone(),
            node: def,
            hash_end,
            parent: None,
            stub,
        });
    }
}

/// `export default <expression>`: a function or class without a name, or a value, documented
/// as `default` as TypeDoc does. `export default name` documents `name`'s declaration instead
/// (see [`typescript_declaration`]).
fn default_value<'t>(
    statement: Node<'t>,
    place: &Place<'_, 't>,
    src: &Source,
    out: &mut Vec<Declaration<'t>>,
) {
    let Some(value) = statement.child_by_field_name("value") else {
        return;
    };
    if !is_default(statement) {
        return;
    }
    let (kind, signature, hash_end) = match value.kind() {
        "identifier" => return,
        "function_expression" | "function" | "generator_function" => (
            SymbolKind::Function,
            header(value, value.start_byte(), src),
            value.end_byte(),
        ),
        "arrow_function" => {
            let mut signature = header(value, value.start_byte(), src);
            if signature.ends_with("=>") {
                signature.push_str(" …");
            }
            (SymbolKind::Function, signature, value.end_byte())
        }
        "class" => (
            SymbolKind::Class,
            header(value, value.start_byte(), src),
            body_start(value),
        ),
        _ => (
            SymbolKind::Variable,
            bounded(&format!(
                "default = {}",
                clean(value, value.start_byte(), value.end_byte(), src)
            )),
            value.end_byte(),
        ),
    };
    out.push(Declaration {
        requires: None,
        kind,
        name: "default".into(),
        signature,
        doc: jsdoc(statement, place.leading, src),
        node: value,
        hash_end,
        parent: None,
        stub: false,
    });
}

/// How the file exports a declaration: under which names, and the statement whose JSDoc
/// documents it (with its leading comments).
struct Exported<'a, 't> {
    names: Vec<String>,
    statement: Node<'t>,
    leading: &'a [Node<'t>],
}

/// The names under which the file exports `declaration` (named `name`), whose parent is
/// `place.up(at)`: its own in an `export` statement, `default` in `export default`, those of
/// `export { … }` lists and `export default name` for a top-level declaration (plain or
/// `declare`d); in a namespace, qualified by the namespace's names (`util.assertEqual`),
/// every declaration of a `declare namespace` being exported. `None` when it is not exported.
fn exported_as<'a, 't>(
    declaration: Node<'t>,
    name: &str,
    place: &Place<'a, 't>,
    at: usize,
    src: &Source,
) -> Option<Exported<'a, 't>> {
    let leading = match at.checked_sub(1) {
        None => place.leading,
        Some(below) => &place.up(below)?.leading,
    };
    let parent = place.up(at)?;
    // Also exported by name (`export { ZodType as Schema }`), when at the top level.
    let listed = |names: &mut Vec<String>, statement_at: usize| {
        if place.kind_up(statement_at) != "program" {
            return;
        }
        let Some(root) = place.ancestors.first().map(|f| f.node) else {
            return;
        };
        let locals = src.exported_locals.get_or_init(|| local_exports(root, src));
        for also in locals.get(name).into_iter().flatten() {
            if !names.contains(also) {
                names.push(also.clone());
            }
        }
    };
    let (mut names, statement, leading, block_at) = match parent.node.kind() {
        "export_statement" => {
            let in_place = parent.node.child_by_field_name("declaration") == Some(declaration);
            let as_value = parent.node.child_by_field_name("value") == Some(declaration);
            if !in_place && !as_value {
                return None;
            }
            let default = as_value || is_default(parent.node);
            let mut names = vec![if default { "default" } else { name }.to_string()];
            listed(&mut names, at + 1);
            (names, parent.node, &parent.leading[..], at + 1)
        }
        "ambient_declaration" => {
            let outer = place.up(at + 1)?;
            match outer.node.kind() {
                "export_statement" => {
                    let mut names = vec![name.to_string()];
                    listed(&mut names, at + 2);
                    (names, outer.node, &outer.leading[..], at + 2)
                }
                "program" => {
                    let mut names = Vec::new();
                    listed(&mut names, at + 1);
                    (names, parent.node, &parent.leading[..], at + 1)
                }
                "statement_block" if in_declared_namespace(place, at + 1) => (
                    vec![name.to_string()],
                    parent.node,
                    &parent.leading[..],
                    at + 1,
                ),
                _ => return None,
            }
        }
        "program" => {
            let mut names = Vec::new();
            listed(&mut names, at);
            (names, declaration, leading, at)
        }
        "statement_block" if in_declared_namespace(place, at) => {
            (vec![name.to_string()], declaration, leading, at)
        }
        _ => return None,
    };
    if names.is_empty() {
        return None;
    }
    // In a namespace: `ns.name`, once per name the namespace is exported under.
    if place.kind_up(block_at) == "statement_block"
        && place.kind_up(block_at + 1) == "internal_module"
    {
        let namespace = place.up(block_at + 1)?.node;
        let namespace_name = src.of(namespace.child_by_field_name("name")?);
        let outer = exported_as(namespace, namespace_name, place, block_at + 2, src)?;
        names = outer
            .names
            .iter()
            .flat_map(|ns| names.iter().map(move |n| format!("{ns}.{n}")))
            .collect();
    }
    Some(Exported {
        names,
        statement,
        leading,
    })
}

/// Whether the statement block `place.up(at)` is the body of a namespace declared with
/// `declare` whose declarations are all exported: as TypeScript reads it, when none of them
/// says `export` (then only those that do are).
fn in_declared_namespace(place: &Place, at: usize) -> bool {
    let Some(block) = place.up(at).map(|f| f.node) else {
        return false;
    };
    if place.kind_up(at + 1) != "internal_module"
        || !(at + 2..place.ancestors.len()).any(|up| place.kind_up(up) == "ambient_declaration")
    {
        return false;
    }
    let mut cursor = block.walk();
    !block
        .named_children(&mut cursor)
        .take(MAX_NAMESPACE_STATEMENTS)
        .any(|statement| statement.kind() == "export_statement")
}

/// The statements of a `declare namespace` read for an `export`: a namespace written by hand
/// has far fewer; past these, the rest are taken as having none.
const MAX_NAMESPACE_STATEMENTS: usize = 4_096;

/// `interface X` with, when it has some, its call and construct signatures (`(x: T): U`,
/// `new (x: T): U`), which make it callable: `interface X { (x: T): U; }`.
fn interface_signature(def: Node, src: &Source) -> String {
    let head = header(def, def.start_byte(), src);
    let Some(body) = def.child_by_field_name("body") else {
        return head;
    };
    let mut cursor = body.walk();
    let calls: Vec<String> = body
        .named_children(&mut cursor)
        .filter(|c| matches!(c.kind(), "call_signature" | "construct_signature"))
        .map(|c| {
            let text = clean(c, c.start_byte(), c.end_byte(), src);
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            format!("  {};", text.replace("( ", "(").replace(" )", ")"))
        })
        .collect();
    if calls.is_empty() {
        return head;
    }
    format!(
        "{} {{\n{}\n}}",
        head.trim_end_matches(['{', ' ']),
        calls.join("\n")
    )
}

/// A type alias's declaration with the object types it is made of (`{ a: A; … }` directly
/// or in an intersection) shown as `{ … }`: their properties are listed as its members.
fn alias_signature(def: Node, src: &Source) -> String {
    let value = def.child_by_field_name("value");
    let objects: Vec<Node> = match value {
        Some(v) if v.kind() == "object_type" => vec![v],
        Some(v) if v.kind() == "intersection_type" => {
            let mut cursor = v.walk();
            v.named_children(&mut cursor)
                .filter(|c| c.kind() == "object_type" && c.named_child_count() > 0)
                .collect()
        }
        _ => Vec::new(),
    };
    // Only an object type whose members are listed is elided: an index signature or a
    // mapped type (`{ [key in K]: V }`) has none, and is shown as it is.
    let objects: Vec<Node> = objects
        .into_iter()
        .filter(|o| {
            let mut cursor = o.walk();
            o.named_children(&mut cursor)
                .any(|m| matches!(m.kind(), "property_signature" | "method_signature"))
        })
        .collect();
    if objects.is_empty() {
        return clean(def, def.start_byte(), def.end_byte(), src)
            .trim_end_matches(';')
            .to_string();
    }
    let mut out = String::new();
    let mut at = def.start_byte();
    for object in &objects {
        out.push_str(&clean(def, at, object.start_byte(), src));
        out.push_str(" { … } ");
        at = object.end_byte();
    }
    out.push_str(&clean(def, at, def.end_byte(), src));
    let out = out.trim_end().trim_end_matches(';').to_string();
    // `clean` reads the part from `at` as whole lines; what it adds at a cut is spaces.
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The names the class, interface or object type alias whose body holds a member is
/// exported under.
fn typescript_owners(place: &Place, src: &Source) -> Vec<String> {
    // An object type of a type alias, maybe one part of an intersection.
    let alias_at = match (place.kind_up(0), place.kind_up(1), place.kind_up(2)) {
        ("object_type", "type_alias_declaration", _) => Some(1),
        ("object_type", "intersection_type", "type_alias_declaration") => Some(2),
        _ => None,
    };
    if let Some(at) = alias_at {
        let Some(alias) = place.up(at).map(|f| f.node) else {
            return Vec::new();
        };
        let Some(name) = alias.child_by_field_name("name").map(|n| src.of(n)) else {
            return Vec::new();
        };
        return exported_as(alias, name, place, at + 1, src).map_or_else(Vec::new, |e| e.names);
    }
    let Some(owner) = place.up(1).map(|f| f.node) else {
        return Vec::new();
    };
    let fits = matches!(
        (place.kind_up(0), owner.kind()),
        (
            "class_body",
            "class_declaration" | "abstract_class_declaration" | "class"
        ) | ("interface_body", "interface_declaration")
    );
    if !fits {
        return Vec::new();
    }
    let name = owner
        .child_by_field_name("name")
        .map_or("default", |n| src.of(n));
    exported_as(owner, name, place, 2, src).map_or_else(Vec::new, |e| e.names)
}

/// The public members of an exported class or interface: methods (overload signatures and
/// the `get`/`set` pair of an accessor merged later by name), the constructor, properties;
/// once per name the type is exported under.
fn typescript_members<'t>(
    def: Node<'t>,
    place: &Place<'_, 't>,
    src: &Source,
    out: &mut Vec<Declaration<'t>>,
) {
    let owners = typescript_owners(place, src);
    if owners.is_empty() {
        return;
    }
    // `#private` names are another node kind. TypeDoc shows `_name` members, which are
    // public to TypeScript.
    let Some(name) = name_of(def, &["property_identifier", "string", "number"]) else {
        return;
    };
    let base = src.of(name);
    let mut cursor = def.walk();
    let mut accessor = None;
    for child in def.children(&mut cursor) {
        match child.kind() {
            "accessibility_modifier" if matches!(src.of(child), "private" | "protected") => {
                return;
            }
            "get" | "set" => accessor = Some(child.kind()),
            _ => {}
        }
    }
    let in_class = place.kind_up(0) == "class_body";
    let (kind, stub) = match def.kind() {
        "public_field_definition" | "property_signature" => (SymbolKind::Field, false),
        _ if base == "constructor" && in_class => (SymbolKind::Constructor, false),
        _ if accessor.is_some() => (SymbolKind::Property, false),
        // In a class, a signature without a body is an overload of the method that follows.
        "method_signature" => (SymbolKind::Method, in_class),
        _ => (SymbolKind::Method, false),
    };
    let signature = match kind {
        SymbolKind::Field => bounded(&clean(def, def.start_byte(), def.end_byte(), src)),
        _ => header(def, def.start_byte(), src),
    };
    let signature = signature.trim_end_matches([';', ',']).trim().to_string();
    let doc = jsdoc(def, place.leading, src);
    for owner in owners {
        out.push(Declaration {
            requires: None,
            kind,
            name: format!("{owner}.{base}"),
            signature: signature.clone(),
            doc: doc.clone(),
            node: def,
            hash_end: def.end_byte(),
            parent: Some(owner),
            stub,
        });
    }
}

/// The last `/** … */` comment before `node`, blank lines or not, as TypeScript and TypeDoc
/// attach it; a file's own comment (`@packageDocumentation`, `@module`, `@file`, `@license`)
/// documents the file, not the declaration after it.
pub(crate) fn jsdoc(node: Node, leading: &[Node], src: &Source) -> Vec<String> {
    let comments = preceding_comments(node, leading, src, false);
    // Ordinary comments between the JSDoc and the declaration (`// eslint-disable-next-line`)
    // do not detach it: TypeScript reads the last `/** */` of the leading comments.
    let doc = comments
        .iter()
        .rev()
        .find(|c| c.starts_with("/**") || !(c.starts_with("//") || c.starts_with("/*")));
    match doc {
        Some(last)
            if last.starts_with("/**")
                && ![
                    "@packageDocumentation",
                    "@module",
                    "@file",
                    "@fileoverview",
                    "@license",
                ]
                .iter()
                .any(|tag| last.contains(tag)) =>
        {
            comment_lines(&[last])
        }
        _ => Vec::new(),
    }
}
