//! Rust, as rustdoc shows it: public items, their signatures (private fields as
//! `/* private fields */`), `macro_rules!` rules, `///` docs, `#[doc(hidden)]` and
//! `#[cfg(test)]` left out; and a file's `mod` declarations and `pub use` re-exports.

use tree_sitter::Node;

use super::reach::{ModDecl, RustModuleFacts, expand_use};
use crate::source::code::lang::common::*;
use crate::source::code::symbol::SymbolKind;
use crate::source::code::tree::{Declaration, Place, Source};

/// The `mod` declarations and `pub use` re-exports at the top level of a Rust file.
pub(crate) fn rust_module_facts(root: Node, src: &Source) -> RustModuleFacts {
    let mut facts = RustModuleFacts::default();
    let mut attributes: Vec<Node> = Vec::new();
    let mut cursor = root.walk();
    for item in root.children(&mut cursor) {
        match item.kind() {
            "attribute_item" => {
                attributes.push(item);
                continue;
            }
            kind if kind.contains("comment") => continue,
            "mod_item" => {
                if let Some(name) = item.child_by_field_name("name") {
                    facts.mods.push(ModDecl {
                        name: src.of(name).to_string(),
                        public: is_pub(item, src),
                        hidden: rust_hidden(&attributes, src),
                        requires: crate::source::code::lang::rust::cfg::requires(
                            attributes.iter().map(|a| src.of(*a)),
                        ),
                    });
                }
            }
            "use_declaration" if is_pub(item, src) && !rust_hidden(&attributes, src) => {
                if let Some(argument) = item.child_by_field_name("argument") {
                    facts.reexports.extend(expand_use(src.of(argument)));
                }
            }
            _ => {}
        }
        attributes.clear();
    }
    facts
}

/// Whether a Rust item is out of the public API by its attributes: `#[doc(hidden)]` (rustdoc
/// leaves it out) or `#[cfg(test)]` (compiled for tests only).
pub(crate) fn rust_hidden(leading: &[Node], src: &Source) -> bool {
    leading
        .iter()
        .filter(|a| a.kind() == "attribute_item")
        .any(|a| {
            let text: String = src.of(*a).split_whitespace().collect();
            text.contains("doc(hidden)")
                || text.contains("cfg(test)")
                || text.contains("cfg(all(test,")
        })
}

/// Most `mod` blocks one item is nested in that are read for its module path.
const MAX_INLINE_DEPTH: usize = 16;

/// The module file an item of a public inline module (`pub mod sync { … }` in `src/lib.rs`)
/// is documented under: the file its module would have (`src/sync.rs`), as rustdoc gives
/// `once_cell::sync::OnceCell` and `once_cell::unsync::OnceCell` pages of their own. `None`
/// outside inline modules, and inside a private one (its items are shown where a `pub use`
/// re-exports them, in the file's module).
pub(crate) fn rust_inline_module(path: &str, node: Node, src: &Source) -> Option<String> {
    let mut names = Vec::new();
    let mut at = node.parent();
    while let Some(n) = at {
        if n.kind() == "mod_item" {
            if !is_pub(n, src) || names.len() >= MAX_INLINE_DEPTH {
                return None;
            }
            names.push(src.of(n.child_by_field_name("name")?).to_string());
        }
        at = n.parent();
    }
    if names.is_empty() {
        return None;
    }
    names.reverse();
    super::reach::module_file(path, &names)
}

/// Whether `node` starts with the `pub` visibility (not `pub(crate)`).
pub(crate) fn is_pub(node: Node, src: &Source) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .find(|c| !c.is_extra())
        .is_some_and(|c| c.kind() == "visibility_modifier" && src.of(c).trim() == "pub")
}

/// The outer doc comments (`///`, `/** */`) and `#[doc = "…"]` attributes right before a
/// Rust item, in order, as rustdoc joins them. Ordinary comments among them are skipped, as
/// rustdoc skips them (`/// Doc.` then `// note` then the item documents the item). A
/// `#[doc = include_str!(…)]` names a file this per-file reading cannot open: left out.
fn rust_doc(leading: &[Node], src: &Source) -> Vec<String> {
    let mut lines = Vec::new();
    for node in leading {
        let text = src.of(*node).trim();
        if node.kind() == "attribute_item" {
            if let Some(doc) = doc_attribute(text) {
                lines.extend(
                    doc.lines()
                        .map(|l| l.strip_prefix(' ').unwrap_or(l).trim_end().to_string()),
                );
            }
            continue;
        }
        if (text.starts_with("///") && !text.starts_with("////"))
            || (text.starts_with("/**") && !text.starts_with("/***"))
        {
            lines.extend(comment_lines(&[text]));
        }
    }
    lines
}

/// The text of `#[doc = "…"]` (plain or raw string literal), escapes undone.
fn doc_attribute(attribute: &str) -> Option<String> {
    let inner = attribute.strip_prefix("#[")?.strip_suffix(']')?.trim();
    let value = inner
        .strip_prefix("doc")?
        .trim_start()
        .strip_prefix('=')?
        .trim();
    if let Some(raw) = value.strip_prefix('r') {
        let hashes = raw.chars().take_while(|c| *c == '#').count();
        let body = raw[hashes..].strip_prefix('"')?;
        let close = format!("\"{}", "#".repeat(hashes));
        return body.strip_suffix(close.as_str()).map(str::to_string);
    }
    let body = value.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('\n') => {
                // A line continuation: the newline and the next line's indentation go.
                let rest: String = chars.clone().collect();
                let skipped = rest.len() - rest.trim_start().len();
                for _ in 0..rest[..skipped].chars().count() {
                    chars.next();
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    Some(out)
}

/// The traits `#[derive(…)]` implements for the type `name`, listed with its trait
/// implementations as rustdoc lists them (`impl Clone for Op`, "Derived.").
pub(crate) fn rust_derives<'t>(
    def: Node<'t>,
    name: &str,
    place: &Place<'_, 't>,
    src: &Source,
) -> Vec<Declaration<'t>> {
    let mut out = Vec::new();
    for attribute in place
        .leading
        .iter()
        .filter(|a| a.kind() == "attribute_item")
    {
        let text: String = src.of(*attribute).split_whitespace().collect();
        let Some(list) = text
            .strip_prefix("#[derive(")
            .and_then(|t| t.strip_suffix(")]"))
        else {
            continue;
        };
        for tr in list
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .take(64)
        {
            if !tr
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == ':')
            {
                continue;
            }
            out.push(Declaration {
                requires: None,
                kind: SymbolKind::Implementation,
                name: format!("{name}::impl {tr}"),
                signature: format!("impl {tr} for {name}"),
                doc: vec!["Derived.".to_string()],
                // The type's line; its identity is its name (a derive added or removed is a
                // symbol added or removed).
                node: def,
                hash_end: def.start_byte(),
                parent: Some(name.to_string()),
                stub: false,
            });
        }
    }
    out
}

/// `impl Trait for Type`: a trait implementation listed under the type, as rustdoc's
/// "Trait Implementations" (the render layer drops one whose type the article does not
/// show). Its signature is the `impl` line, `where` clause included.
fn rust_trait_impl<'t>(
    def: Node<'t>,
    place: &Place<'_, 't>,
    src: &Source,
) -> Option<Declaration<'t>> {
    let tr = def.child_by_field_name("trait")?;
    let ty = def.child_by_field_name("type")?;
    let owner = src.of(ty.child_by_field_name("type").unwrap_or(ty));
    if !owner.chars().all(|c| c.is_alphanumeric() || c == '_') {
        // `impl<T> Trait for &T`, `for [T]`, `for (A, B)`: not a type of the crate's.
        return None;
    }
    let signature = header(def, def.start_byte(), src);
    // rustfmt ends a `where` clause's last bound with a comma.
    let signature = signature.trim_end().trim_end_matches(',');
    Some(Declaration {
        requires: None,
        kind: SymbolKind::Implementation,
        name: format!("{owner}::impl {}", src.of(tr)),
        signature: bounded(signature),
        doc: comment_lines(&preceding_comments(def, place.leading, src, true)),
        node: def,
        hash_end: body_start(def),
        parent: Some(owner.to_string()),
        stub: false,
    })
}

/// Rust items outside function bodies and blocks (the walk never enters those), the public
/// fields of public structs and the variants of public enums.
pub(crate) fn rust<'t>(
    def: Node<'t>,
    place: &Place<'_, 't>,
    src: &Source,
) -> Option<Declaration<'t>> {
    if rust_hidden(place.leading, src) {
        return None;
    }
    match def.kind() {
        "field_declaration" | "enum_variant" => return rust_member(def, place, src),
        "macro_definition" => return rust_macro(def, place, src),
        "macro_invocation" => return super::nested_macro::rust_nested_macro(def, place, src),
        // `wrapper![ … ];` at item level parses as a statement.
        "expression_statement" => {
            let invocation = def
                .named_child(0)
                .filter(|c| c.kind() == "macro_invocation")?;
            return super::nested_macro::rust_nested_macro(invocation, place, src);
        }
        "impl_item" => return rust_trait_impl(def, place, src),
        _ => {}
    }
    let name_kind = match def.kind() {
        "function_item" | "function_signature_item" | "const_item" | "static_item" => "identifier",
        "struct_item" | "union_item" | "enum_item" | "trait_item" | "type_item" => {
            "type_identifier"
        }
        _ => return None,
    };
    let name = name_of(def, &[name_kind])?;
    let base = src.of(name).to_string();
    // Methods and associated constants live in the declaration list of an `impl` or a
    // `trait`.
    let owner = place
        .up(1)
        .filter(|_| place.kind_up(0) == "declaration_list")
        .map(|g| g.node)
        .filter(|g| g.kind() == "impl_item" || g.kind() == "trait_item");
    let owner_name = |owner: Node| -> Option<String> {
        if owner.kind() == "trait_item" {
            return owner
                .child_by_field_name("name")
                .map(|n| src.of(n).to_string());
        }
        let ty = owner.child_by_field_name("type")?;
        let ty = ty.child_by_field_name("type").unwrap_or(ty);
        Some(src.of(ty).to_string())
    };
    let (kind, qualified, parent) = match (def.kind(), owner) {
        (item, Some(owner)) => {
            if owner.kind() == "trait_item" {
                if !is_pub(owner, src) {
                    return None;
                }
            } else if owner.child_by_field_name("trait").is_some() || !is_pub(def, src) {
                // Items of trait impls are documented by the trait.
                return None;
            }
            let kind = match item {
                "function_item" | "function_signature_item" => SymbolKind::Method,
                "const_item" => SymbolKind::Constant,
                "type_item" => SymbolKind::Type,
                _ => return None,
            };
            let owner = owner_name(owner)?;
            (kind, format!("{owner}::{base}"), Some(owner))
        }
        ("function_signature_item", None) => return None,
        (kind, None) => {
            if !is_pub(def, src) {
                return None;
            }
            let kind = match kind {
                "function_item" => SymbolKind::Function,
                "struct_item" | "union_item" => SymbolKind::Struct,
                "enum_item" => SymbolKind::Enum,
                "trait_item" => SymbolKind::Trait,
                "type_item" => SymbolKind::Type,
                "const_item" | "static_item" => SymbolKind::Constant,
                _ => return None,
            };
            (kind, base, None)
        }
    };
    let signature = match def.kind() {
        "function_item" | "function_signature_item" | "trait_item" => {
            header(def, def.start_byte(), src)
                .trim_end_matches(';')
                .trim()
                .to_string()
        }
        "struct_item" | "union_item" => rust_struct_signature(def, src),
        "const_item" | "static_item" => bounded(&clean(def, def.start_byte(), def.end_byte(), src)),
        _ => clean(def, def.start_byte(), def.end_byte(), src),
    };
    // rustdoc shows `#[non_exhaustive]` above the declaration: it tells users they cannot
    // build or match the type exhaustively.
    let non_exhaustive = place.leading.iter().any(|a| {
        a.kind() == "attribute_item"
            && src.of(*a).split_whitespace().collect::<String>() == "#[non_exhaustive]"
    });
    let signature = if non_exhaustive {
        format!("#[non_exhaustive]\n{signature}")
    } else {
        signature
    };
    let hash_end = if kind == SymbolKind::Trait {
        body_start(def)
    } else {
        def.end_byte()
    };
    Some(Declaration {
        requires: None,
        kind,
        name: qualified,
        signature,
        doc: rust_doc(place.leading, src),
        node: def,
        hash_end,
        parent,
        stub: false,
    })
}

/// A struct as rustdoc shows it: its public fields, the others replaced by one
/// `/* private fields */`.
fn rust_struct_signature(def: Node, src: &Source) -> String {
    let Some(body) = def.child_by_field_name("body") else {
        return clean(def, def.start_byte(), def.end_byte(), src);
    };
    let head = clean(def, def.start_byte(), body.start_byte(), src);
    let mut shown = Vec::new();
    let mut private = false;
    let mut cursor = body.walk();
    if body.kind() == "ordered_field_declaration_list" {
        // `(pub A, B)`: a visibility modifier precedes the type it applies to.
        let mut public_next = false;
        for child in body.named_children(&mut cursor) {
            match child.kind() {
                "visibility_modifier" => public_next = src.of(child).trim() == "pub",
                "attribute_item" => {}
                kind if kind.contains("comment") => {}
                _ => {
                    if public_next {
                        shown.push(format!("pub {}", src.of(child).trim()));
                    } else {
                        private = true;
                    }
                    public_next = false;
                }
            }
        }
        if private {
            shown.push("/* private fields */".to_string());
        }
        let tail = clean(def, body.end_byte(), def.end_byte(), src);
        return format!("{head}({}){tail}", shown.join(", "));
    }
    for field in body.named_children(&mut cursor) {
        if field.kind() != "field_declaration" {
            continue;
        }
        if is_pub(field, src) {
            shown.push(format!(
                "    {},",
                clean(field, field.start_byte(), field.end_byte(), src)
            ));
        } else {
            private = true;
        }
    }
    if private {
        shown.push("    /* private fields */".to_string());
    }
    if shown.is_empty() {
        return format!("{head} {{}}");
    }
    format!("{head} {{\n{}\n}}", shown.join("\n"))
}

/// A `#[macro_export]` `macro_rules!` macro, shown as rustdoc shows one: each rule's
/// pattern with its expansion elided. Its name carries the `!` it is invoked with.
fn rust_macro<'t>(def: Node<'t>, place: &Place<'_, 't>, src: &Source) -> Option<Declaration<'t>> {
    let exported = place.leading.iter().any(|a| {
        a.kind() == "attribute_item" && {
            let text: String = src.of(*a).split_whitespace().collect();
            text.starts_with("#[macro_export")
        }
    });
    if !exported {
        return None;
    }
    let name = src.of(def.child_by_field_name("name")?);
    let mut cursor = def.walk();
    let rules: Vec<String> = def
        .named_children(&mut cursor)
        .filter(|rule| rule.kind() == "macro_rule")
        .filter_map(|rule| rule.child_by_field_name("left"))
        .map(|pattern| {
            let pattern = clean(pattern, pattern.start_byte(), pattern.end_byte(), src);
            let pattern = pattern.split_whitespace().collect::<Vec<_>>().join(" ");
            format!("    {pattern} => {{ ... }};")
        })
        .collect();
    let signature = if rules.is_empty() {
        format!("macro_rules! {name}")
    } else {
        bounded(&format!("macro_rules! {name} {{\n{}\n}}", rules.join("\n")))
    };
    Some(Declaration {
        requires: None,
        kind: SymbolKind::Macro,
        name: format!("{name}!"),
        signature,
        doc: rust_doc(place.leading, src),
        node: def,
        hash_end: def.end_byte(),
        parent: None,
        stub: false,
    })
}

/// A public field of a public struct, or a variant of a public enum.
fn rust_member<'t>(def: Node<'t>, place: &Place<'_, 't>, src: &Source) -> Option<Declaration<'t>> {
    let owner = place.up(1)?.node;
    let expected_owner = match def.kind() {
        "field_declaration" => matches!(owner.kind(), "struct_item" | "union_item"),
        _ => owner.kind() == "enum_item",
    };
    if !expected_owner || !is_pub(owner, src) {
        return None;
    }
    if def.kind() == "field_declaration" && !is_pub(def, src) {
        return None;
    }
    let name = def.child_by_field_name("name")?;
    let owner_name = src.of(owner.child_by_field_name("name")?).to_string();
    Some(Declaration {
        requires: None,
        kind: SymbolKind::Field,
        name: format!("{owner_name}::{}", src.of(name)),
        signature: clean(def, def.start_byte(), def.end_byte(), src),
        doc: rust_doc(place.leading, src),
        node: def,
        hash_end: def.end_byte(),
        parent: Some(owner_name),
        stub: false,
    })
}

#[cfg(test)]
mod tests {
    use super::doc_attribute;

    #[test]
    fn doc_attributes_read_as_doc_lines() {
        assert_eq!(
            doc_attribute(r#"#[doc = " A \"key\"."]"#).as_deref(),
            Some(r#" A "key"."#)
        );
        assert_eq!(
            doc_attribute(r##"#[doc = r#"Raw "text"."#]"##).as_deref(),
            Some(r#"Raw "text"."#)
        );
        assert_eq!(
            doc_attribute(r#"#[doc = include_str!("../README.md")]"#),
            None
        );
        assert_eq!(doc_attribute("#[doc(hidden)]"), None);
        assert_eq!(doc_attribute(r#"#[derive(Debug)]"#), None);
    }
}
