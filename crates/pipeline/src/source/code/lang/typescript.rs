//! TypeScript and JavaScript, as TypeDoc shows them: what a module exports, the public
//! members of exported classes and interfaces, JSDoc comments.

use tree_sitter::Node;

use super::common::*;
use crate::source::code::symbol::SymbolKind;
use crate::source::code::tree::{Declaration, Place, Source};

/// TypeScript and JavaScript: what an `export` declares, and the public members of exported
/// classes and interfaces.
pub(crate) fn typescript<'t>(
    def: Node<'t>,
    place: &Place<'_, 't>,
    src: &Source,
) -> Option<Declaration<'t>> {
    if matches!(
        def.kind(),
        "method_definition"
            | "method_signature"
            | "abstract_method_signature"
            | "public_field_definition"
            | "property_signature"
    ) {
        return typescript_member(def, place, src);
    }
    // The export statement is the parent, or the grandparent of a `const` declarator.
    let (export_up, declaration) = if def.kind() == "variable_declarator" {
        if place.kind_up(0) != "lexical_declaration" {
            return None;
        }
        (1, place.up(0)?.node)
    } else {
        (0, def)
    };
    let export = place.up(export_up)?;
    if export.node.kind() != "export_statement"
        || export.node.child_by_field_name("declaration") != Some(declaration)
    {
        return None;
    }
    let name = if def.kind() == "variable_declarator" {
        name_of(def, &["identifier"])?
    } else {
        def.child_by_field_name("name").filter(|n| n.is_named())?
    };
    let base = src.of(name).to_string();
    let from = export.node.start_byte();
    let whole = |trim: char| {
        clean(def, from, def.end_byte(), src)
            .trim_end_matches(trim)
            .to_string()
    };
    let mut stub = false;
    let (kind, signature, hash_end) = match def.kind() {
        "function_declaration" | "generator_function_declaration" => {
            (SymbolKind::Function, header(def, from, src), def.end_byte())
        }
        "function_signature" => {
            stub = true;
            (SymbolKind::Function, whole(';'), def.end_byte())
        }
        "class_declaration" | "abstract_class_declaration" => {
            (SymbolKind::Class, header(def, from, src), body_start(def))
        }
        // Members are listed one by one under the interface.
        "interface_declaration" => (
            SymbolKind::Interface,
            header(def, from, src),
            def.end_byte(),
        ),
        "enum_declaration" => (SymbolKind::Enum, whole(';'), def.end_byte()),
        "type_alias_declaration" => (SymbolKind::Type, bounded(&whole(';')), def.end_byte()),
        "variable_declarator" => {
            let keyword = declaration
                .child_by_field_name("kind")
                .map_or("const", |k| src.of(k));
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
                "export {keyword} {}",
                bounded(&clean(def, def.start_byte(), end, src))
            );
            if signature.ends_with("=>") || signature.ends_with('=') {
                signature.push_str(" …");
            }
            (kind, signature, def.end_byte())
        }
        _ => return None,
    };
    Some(Declaration {
        requires: None,
        kind,
        name: base,
        signature,
        doc: jsdoc(export.node, &export.leading, src),
        node: def,
        hash_end,
        parent: None,
        stub,
    })
}

/// The exported class or interface whose body holds a member, by name.
fn typescript_owner(place: &Place, src: &Source) -> Option<String> {
    let owner = place.up(1)?.node;
    let body_kind = place.kind_up(0);
    let fits = matches!(
        (body_kind, owner.kind()),
        (
            "class_body",
            "class_declaration" | "abstract_class_declaration"
        ) | ("interface_body", "interface_declaration")
    );
    if !fits || place.kind_up(2) != "export_statement" {
        return None;
    }
    owner
        .child_by_field_name("name")
        .map(|n| src.of(n).to_string())
}

/// A public member of an exported class or interface: methods (overload signatures and the
/// `get`/`set` pair of an accessor merged later by name), the constructor, properties.
fn typescript_member<'t>(
    def: Node<'t>,
    place: &Place<'_, 't>,
    src: &Source,
) -> Option<Declaration<'t>> {
    let owner = typescript_owner(place, src)?;
    // `#private` names are another node kind; `_name` is private by convention.
    let base = src
        .of(name_of(def, &["property_identifier", "string", "number"])?)
        .to_string();
    if base.starts_with('_') {
        return None;
    }
    let mut cursor = def.walk();
    let mut accessor = None;
    for child in def.children(&mut cursor) {
        match child.kind() {
            "accessibility_modifier" if matches!(src.of(child), "private" | "protected") => {
                return None;
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
    Some(Declaration {
        requires: None,
        kind,
        name: format!("{owner}.{base}"),
        signature: signature.trim_end_matches([';', ',']).trim().to_string(),
        doc: jsdoc(def, place.leading, src),
        node: def,
        hash_end: def.end_byte(),
        parent: Some(owner),
        stub,
    })
}

/// The last `/** … */` comment before `node`, blank lines or not, as TypeScript and TypeDoc
/// attach it; a file's own comment (`@packageDocumentation`, `@module`, `@file`, `@license`)
/// documents the file, not the declaration after it.
pub(crate) fn jsdoc(node: Node, leading: &[Node], src: &Source) -> Vec<String> {
    let comments = preceding_comments(node, leading, src, false);
    match comments.last() {
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
