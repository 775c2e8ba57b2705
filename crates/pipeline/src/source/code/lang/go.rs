//! Go, as pkg.go.dev shows it: exported identifiers of a package, methods of exported types,
//! `iota` constants with their values, doc comments; and `ExampleX` functions of test files,
//! which become the examples of the symbol they name.

use tree_sitter::Node;

use super::common::*;
use crate::source::code::comments::{self, Example};
use crate::source::code::symbol::{Symbol, SymbolKind};
use crate::source::code::tree::{Declaration, Place, Source};

fn is_exported(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

/// Go: exported functions, methods of exported types, exported types with their exported
/// fields and interface methods, and exported constants and variables declared at package
/// level (one declaration per name of `const A, B = …`).
pub(crate) fn go<'t>(
    def: Node<'t>,
    place: &Place<'_, 't>,
    src: &Source,
    out: &mut Vec<Declaration<'t>>,
) {
    let name_kind = match def.kind() {
        "const_declaration" => {
            if place.kind_up(0) == "source_file" {
                go_constants(def, place, src, out);
            }
            return;
        }
        "field_declaration" => {
            go_fields(def, place, src, out);
            return;
        }
        "function_declaration" | "var_spec" => "identifier",
        "method_declaration" | "method_elem" => "field_identifier",
        "type_spec" | "type_alias" => "type_identifier",
        _ => return,
    };
    let mut cursor = def.walk();
    let names: Vec<Node> = def
        .children_by_field_name("name", &mut cursor)
        .filter(|n| n.kind() == name_kind)
        .collect();
    out.extend(
        names
            .into_iter()
            .filter_map(|name| go_declaration(def, name, place, src)),
    );
}

pub(crate) fn go_doc(node: Node, leading: &[Node], src: &Source) -> Vec<String> {
    // A comment on the line of the code before it (`A = 1 // the first`) is that code's,
    // never the doc of what follows.
    let own: Vec<Node> = leading
        .iter()
        .copied()
        .filter(|c| !is_line_comment_of_previous(*c))
        .collect();
    let comments: Vec<&str> = preceding_comments(node, &own, src, true)
        .into_iter()
        .filter(|c| !is_directive(c))
        .collect();
    let mut lines = comment_lines(&comments);
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    lines
}

/// Whether a comment ends the line of the code right before it, as `// Invalid UUID` does in
/// `Invalid = Variant(iota) // Invalid UUID`.
fn is_line_comment_of_previous(comment: Node) -> bool {
    comment.kind().contains("comment")
        && comment.prev_sibling().is_some_and(|before| {
            !before.kind().contains("comment")
                && before.end_position().row == comment.start_position().row
        })
}

/// The comment that ends the line a spec ends on (`Nil UUID // empty UUID, all zeros`), as
/// `go doc` shows it beside that name: its doc when it has none above it.
fn line_comment(spec: Node, src: &Source) -> Vec<String> {
    let Some(next) = spec.next_sibling() else {
        return Vec::new();
    };
    if !next.kind().contains("comment") || next.start_position().row != spec.end_position().row {
        return Vec::new();
    }
    comment_lines(&[src.of(next)])
}

/// A directive comment, which `go doc` leaves out of the doc (go/ast's `isDirective`):
/// `//go:generate …`, `//nolint:errcheck // why`, `//line …`, `//export f`, `//extern f`.
fn is_directive(comment: &str) -> bool {
    let Some(rest) = comment.strip_prefix("//") else {
        return false;
    };
    if ["line ", "extern ", "export "]
        .iter()
        .any(|p| rest.starts_with(p))
    {
        return true;
    }
    let word = rest
        .bytes()
        .take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        .count();
    word > 0
        && rest.as_bytes().get(word) == Some(&b':')
        && rest
            .as_bytes()
            .get(word + 1)
            .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

fn go_declaration<'t>(
    def: Node<'t>,
    name: Node<'t>,
    place: &Place<'_, 't>,
    src: &Source,
) -> Option<Declaration<'t>> {
    let base = src.of(name).to_string();
    if !is_exported(&base) {
        return None;
    }
    let simple = |kind, name, signature, parent| Declaration {
        requires: None,
        kind,
        name,
        signature,
        doc: go_doc(def, place.leading, src),
        node: def,
        hash_end: def.end_byte(),
        parent,
        stub: false,
    };
    match def.kind() {
        // A function that returns a type of the package is listed under it (`NewX`).
        "function_declaration" => {
            let constructs = constructed_type(def, src);
            Some(simple(
                if constructs.is_some() {
                    SymbolKind::Constructor
                } else {
                    SymbolKind::Function
                },
                base,
                header(def, def.start_byte(), src),
                constructs,
            ))
        }
        "method_declaration" => {
            let receiver = def
                .child_by_field_name("receiver")
                .and_then(|r| r.named_child(0))
                .and_then(|p| p.child_by_field_name("type"))
                .map(|t| receiver_type(t, src))
                .unwrap_or_default();
            // Methods of unexported types are not part of the package's API.
            if !receiver.is_empty() && !is_exported(&receiver) {
                return None;
            }
            let (name, parent) = if receiver.is_empty() {
                (base, None)
            } else {
                (format!("{receiver}.{base}"), Some(receiver))
            };
            Some(simple(
                SymbolKind::Method,
                name,
                header(def, def.start_byte(), src),
                parent,
            ))
        }
        "method_elem" => {
            let owner = go_type_owner(place, 1, src)?;
            Some(simple(
                SymbolKind::Method,
                format!("{owner}.{base}"),
                clean(def, def.start_byte(), def.end_byte(), src),
                Some(owner),
            ))
        }
        spec_kind => {
            let (kind, keyword) = match spec_kind {
                "type_spec" | "type_alias" => {
                    if place.kind_up(0) != "type_declaration" || place.kind_up(1) != "source_file" {
                        return None;
                    }
                    let kind = match def.child_by_field_name("type").map(|t| t.kind()) {
                        Some("struct_type") => SymbolKind::Struct,
                        Some("interface_type") => SymbolKind::Interface,
                        _ => SymbolKind::Type,
                    };
                    (kind, "type")
                }
                "var_spec" => {
                    let at_top = match place.kind_up(0) {
                        "var_declaration" => place.kind_up(1) == "source_file",
                        "var_spec_list" => place.kind_up(2) == "source_file",
                        _ => false,
                    };
                    if !at_top {
                        return None;
                    }
                    (SymbolKind::Variable, "var")
                }
                _ => return None,
            };
            let signature = match kind {
                SymbolKind::Struct | SymbolKind::Interface => go_type_signature(def, src),
                SymbolKind::Variable => bounded(&go_spec_unaligned(def, src)),
                _ => clean(def, def.start_byte(), def.end_byte(), src),
            };
            let mut doc = go_doc(def, place.leading, src);
            if doc.is_empty() && kind == SymbolKind::Variable {
                doc = line_comment(def, src);
            }
            // A lone spec in a declaration (`type T struct{}`) takes the declaration's doc.
            let declaration = place.up(0)?;
            if doc.is_empty() && declaration.node.named_child_count() == 1 {
                doc = go_doc(declaration.node, &declaration.leading, src);
            }
            if doc.is_empty() && place.kind_up(0) == "var_spec_list" {
                let declaration = place.up(1)?;
                doc = go_doc(declaration.node, &declaration.leading, src);
            }
            Some(Declaration {
                doc,
                ..simple(kind, base, format!("{keyword} {signature}"), None)
            })
        }
    }
}

/// The type a function constructs, as `go/doc` (and so pkg.go.dev) groups functions under
/// types: its results name exactly one exported type of the package (not imported, not a
/// type parameter), maybe through a pointer, a slice, an array or type arguments:
/// `func NewX() *X`, `func Parse(s string) (X, error)`, `func All() []*X`. Whether the
/// package declares it is known only once all its files are read
/// ([`go_members_of_declared_types`]).
fn constructed_type(def: Node, src: &Source) -> Option<String> {
    let result = def.child_by_field_name("result")?;
    let type_parameters: Vec<&str> = def
        .child_by_field_name("type_parameters")
        .map(|list| {
            let mut cursor = list.walk();
            list.named_children(&mut cursor)
                .flat_map(|p| {
                    let mut names = p.walk();
                    p.children_by_field_name("name", &mut names)
                        .map(|n| src.of(n))
                        .collect::<Vec<_>>()
                })
                .collect()
        })
        .unwrap_or_default();
    let types: Vec<Node> = if result.kind() == "parameter_list" {
        let mut cursor = result.walk();
        result
            .named_children(&mut cursor)
            .filter_map(|field| field.child_by_field_name("type"))
            .collect()
    } else {
        vec![result]
    };
    let mut found = None;
    for ty in types {
        let ty = match ty.kind() {
            "slice_type" | "array_type" => match ty.child_by_field_name("element") {
                Some(element) => element,
                None => continue,
            },
            _ => ty,
        };
        let Some(name) = base_type_name(ty, src) else {
            continue;
        };
        if !is_exported(name) || type_parameters.contains(&name) {
            continue;
        }
        if found.is_some() {
            return None;
        }
        found = Some(name.to_string());
    }
    found
}

/// The name of the type a type expression is made from, as `go/doc`'s `baseTypeName`:
/// `X` for `X`, `*X`, `X[T]`, `(X)`; `None` for an imported `pkg.X` and type literals. A loop:
/// pointers nest as deep as the file has stars.
fn base_type_name<'s>(mut ty: Node, src: &Source<'s>) -> Option<&'s str> {
    loop {
        match ty.kind() {
            "type_identifier" => return Some(src.of(ty)),
            "pointer_type" | "parenthesized_type" => ty = ty.named_child(0)?,
            "generic_type" => ty = ty.child_by_field_name("type")?,
            _ => return None,
        }
    }
}

/// Constructors and typed constants whose type the package does not declare among
/// `symbols` (a type of a file outside the feature, or of another package) are listed on
/// their own again: plain functions, package constants.
pub(crate) fn go_members_of_declared_types(symbols: &mut [Symbol]) {
    let types: std::collections::HashSet<(String, String)> = symbols
        .iter()
        .filter(|s| s.language == "go" && s.kind.is_type() && s.parent.is_none())
        .map(|s| (s.module.clone(), s.name.clone()))
        .collect();
    for symbol in symbols.iter_mut() {
        let member = matches!(symbol.kind, SymbolKind::Constructor | SymbolKind::Constant);
        if symbol.language != "go" || !member {
            continue;
        }
        let declared = symbol
            .parent
            .as_ref()
            .is_some_and(|t| types.contains(&(symbol.module.clone(), t.clone())));
        if !declared {
            if symbol.kind == SymbolKind::Constructor {
                symbol.kind = SymbolKind::Function;
            }
            symbol.parent = None;
        }
    }
}

/// A `var` spec without the padding gofmt aligns the names, types and `=` of a block
/// with: `NameSpaceDNS  = MustParse(…)` is shown as `NameSpaceDNS = MustParse(…)`.
fn go_spec_unaligned(def: Node, src: &Source) -> String {
    let single_spaced = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    match def.child_by_field_name("value") {
        Some(value) => {
            let head = clean(def, def.start_byte(), value.start_byte(), src);
            let head = head.trim_end().trim_end_matches('=');
            let value = clean(def, value.start_byte(), def.end_byte(), src);
            format!("{} = {value}", single_spaced(head))
        }
        None => {
            let whole = clean(def, def.start_byte(), def.end_byte(), src);
            if whole.contains('\n') {
                whole
            } else {
                single_spaced(&whole)
            }
        }
    }
}

/// The exported type whose `struct`/`interface` body is `up` levels above a member.
fn go_type_owner(place: &Place, up: usize, src: &Source) -> Option<String> {
    let spec = place.up(up)?;
    if spec.node.kind() != "type_spec"
        || place.kind_up(up + 1) != "type_declaration"
        || place.kind_up(up + 2) != "source_file"
    {
        return None;
    }
    let name = src.of(spec.node.child_by_field_name("name")?).to_string();
    is_exported(&name).then_some(name)
}

/// The name of an embedded field: its type's name without package or pointer.
fn embedded_name<'s>(field: Node, src: &Source<'s>) -> Option<&'s str> {
    let ty = field.child_by_field_name("type")?;
    let text = src.of(ty).trim_start_matches('*');
    let text = text.split('[').next().unwrap_or(text);
    Some(text.rsplit('.').next().unwrap_or(text))
}

/// The exported fields of a struct of an exported type, one per name; an embedded field
/// is named by its type.
fn go_fields<'t>(
    def: Node<'t>,
    place: &Place<'_, 't>,
    src: &Source,
    out: &mut Vec<Declaration<'t>>,
) {
    if place.kind_up(0) != "field_declaration_list" || place.kind_up(1) != "struct_type" {
        return;
    }
    let Some(owner) = go_type_owner(place, 2, src) else {
        return;
    };
    let mut cursor = def.walk();
    let mut names: Vec<&str> = def
        .children_by_field_name("name", &mut cursor)
        .map(|n| src.of(n))
        .collect();
    if names.is_empty() {
        names.extend(embedded_name(def, src));
    }
    let signature = clean(def, def.start_byte(), def.end_byte(), src);
    for name in names.into_iter().filter(|n| is_exported(n)) {
        out.push(Declaration {
            requires: None,
            kind: SymbolKind::Field,
            name: format!("{owner}.{name}"),
            signature: signature.clone(),
            doc: go_doc(def, place.leading, src),
            node: def,
            hash_end: def.end_byte(),
            parent: Some(owner.clone()),
            stub: false,
        });
    }
}

/// A struct or interface as pkg.go.dev shows it: exported fields and methods, the others
/// replaced by one line saying so.
fn go_type_signature(def: Node, src: &Source) -> String {
    let Some(ty) = def.child_by_field_name("type") else {
        return clean(def, def.start_byte(), def.end_byte(), src);
    };
    let (body, marker) = match ty.kind() {
        "struct_type" => (
            ty.named_children(&mut ty.walk())
                .find(|c| c.kind() == "field_declaration_list"),
            "// contains filtered or unexported fields",
        ),
        _ => (Some(ty), "// contains filtered or unexported methods"),
    };
    let Some(body) = body else {
        return clean(def, def.start_byte(), def.end_byte(), src);
    };
    let open = src
        .between(body.start_byte(), body.end_byte())
        .find('{')
        .map_or(body.start_byte(), |i| body.start_byte() + i + 1);
    let head = clean(def, def.start_byte(), open, src);
    let mut shown = Vec::new();
    let mut hidden = false;
    let mut cursor = body.walk();
    for member in body.named_children(&mut cursor) {
        let exported = match member.kind() {
            "field_declaration" => {
                let mut names = member.walk();
                let named: Vec<&str> = member
                    .children_by_field_name("name", &mut names)
                    .map(|n| src.of(n))
                    .collect();
                if named.is_empty() {
                    embedded_name(member, src).is_some_and(is_exported)
                } else {
                    named.iter().any(|n| is_exported(n))
                }
            }
            "method_elem" => member
                .child_by_field_name("name")
                .is_some_and(|n| is_exported(src.of(n))),
            // Type constraints (`~int | ~string`) and embedded interfaces.
            "type_elem" => true,
            _ => continue,
        };
        if exported {
            shown.push(format!(
                "\t{}",
                clean(member, member.start_byte(), member.end_byte(), src)
            ));
        } else {
            hidden = true;
        }
    }
    if hidden {
        shown.push(format!("\t{marker}"));
    }
    if shown.is_empty() {
        return format!("{head}}}");
    }
    format!("{head}\n{}\n}}", shown.join("\n"))
}

/// The exported constants of a `const` declaration. A spec without type and value repeats
/// the previous one's (Go's implicit repetition), so `B` of `A Kind = iota; B` is shown as
/// `const B Kind = 1`: its type and its value with `iota` evaluated.
fn go_constants<'t>(
    decl: Node<'t>,
    place: &Place<'_, 't>,
    src: &Source,
    out: &mut Vec<Declaration<'t>>,
) {
    let mut leading: Vec<Node<'t>> = Vec::new();
    let mut iota = 0usize;
    let mut inherited: (Option<String>, Option<String>) = (None, None);
    let mut cursor = decl.walk();
    for spec in decl.children(&mut cursor) {
        if spec.kind().contains("comment") {
            leading.push(spec);
            continue;
        }
        if spec.kind() != "const_spec" {
            continue;
        }
        let ty = spec
            .child_by_field_name("type")
            .map(|t| src.of(t).to_string());
        let value = spec
            .child_by_field_name("value")
            .map(|v| clean(v, v.start_byte(), v.end_byte(), src));
        if ty.is_some() || value.is_some() {
            inherited = (ty, value);
        }
        let mut names = spec.walk();
        let idents: Vec<Node> = spec
            .children_by_field_name("name", &mut names)
            .filter(|n| n.kind() == "identifier")
            .collect();
        // A spec without a comment of its own takes the block's, as `go doc` documents a
        // `const ( … )` group by the comment above it (a `var` block's specs do the same).
        let mut doc = go_doc(spec, &leading, src);
        if doc.is_empty() {
            doc = line_comment(spec, src);
        }
        if doc.is_empty() {
            doc = go_doc(decl, place.leading, src);
        }
        for name in idents {
            let base = src.of(name);
            if !is_exported(base) {
                continue;
            }
            let mut signature = if idents_len(spec) > 1 {
                format!(
                    "const {}",
                    clean(spec, spec.start_byte(), spec.end_byte(), src)
                )
            } else {
                let ty = inherited
                    .0
                    .as_deref()
                    .map(|t| format!(" {t}"))
                    .unwrap_or_default();
                let value = inherited
                    .1
                    .as_deref()
                    .map(|v| format!(" = {}", evaluate(&with_iota(v, iota))))
                    .unwrap_or_default();
                format!("const {base}{ty}{value}")
            };
            signature = bounded(&signature);
            // `go doc` lists a constant of a type the package declares under that type
            // ([`go_members_of_declared_types`] checks that it does).
            let of_type = inherited
                .0
                .as_deref()
                .filter(|t| is_exported(t) && t.chars().all(|c| c.is_alphanumeric() || c == '_'))
                .map(str::to_string);
            out.push(Declaration {
                requires: None,
                kind: SymbolKind::Constant,
                name: base.to_string(),
                signature,
                doc: doc.clone(),
                node: spec,
                hash_end: spec.end_byte(),
                parent: of_type,
                stub: false,
            });
        }
        leading.clear();
        iota += 1;
    }
}

fn idents_len(spec: Node) -> usize {
    let mut cursor = spec.walk();
    spec.children_by_field_name("name", &mut cursor).count()
}

/// `a op b` of two integers computed (`iota - 1`, `1 << iota` once `iota` is known), any
/// other expression as written.
fn evaluate(expression: &str) -> String {
    let parts: Vec<&str> = expression.split_whitespace().collect();
    if let [a, op, b] = parts.as_slice()
        && let (Ok(a), Ok(b)) = (a.parse::<i64>(), b.parse::<i64>())
    {
        let value = match *op {
            "+" => a.checked_add(b),
            "-" => a.checked_sub(b),
            "*" => a.checked_mul(b),
            "<<" => u32::try_from(b)
                .ok()
                .and_then(|b| a.checked_shl(b))
                .filter(|_| b < 63),
            _ => None,
        };
        if let Some(value) = value {
            return value.to_string();
        }
    }
    expression.to_string()
}

/// `value` with the word `iota` replaced by its value in this spec.
fn with_iota(value: &str, iota: usize) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find("iota") {
        let before = rest[..at].chars().next_back();
        let after = rest[at + 4..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        out.push_str(&rest[..at]);
        if word(before) || word(after) {
            out.push_str("iota");
        } else {
            out.push_str(&iota.to_string());
        }
        rest = &rest[at + 4..];
    }
    out.push_str(rest);
    out
}
/// The type a method's receiver names: `T` for `*T`, `T[K]` and `*T[K]`. A loop rather than
/// recursion: pointer types nest as deep as the file has stars.
fn receiver_type(mut node: Node, src: &Source) -> String {
    loop {
        match node.kind() {
            "pointer_type" => match node.named_child(0) {
                Some(inner) => node = inner,
                None => return String::new(),
            },
            "generic_type" => {
                return node
                    .child_by_field_name("type")
                    .map(|n| src.of(n).to_string())
                    .unwrap_or_default();
            }
            _ => return src.of(node).to_string(),
        }
    }
}

/// The body of a Go example function, without its braces, as pkg.go.dev shows it.
pub(crate) fn go_example_body(node: Node, src: &Source) -> Example {
    let body = node
        .child_by_field_name("body")
        .map(|b| src.of(b))
        .unwrap_or("");
    let inner = body
        .strip_prefix('{')
        .and_then(|b| b.strip_suffix('}'))
        .unwrap_or(body);
    let lines: Vec<&str> = inner.lines().collect();
    Example {
        language: "go".into(),
        code: comments::dedent(&lines).trim_matches('\n').to_string(),
        label: String::new(),
    }
}

/// A Go `ExampleX` function of a test file.
pub(crate) struct GoExample {
    /// The folder of its package.
    pub dir: String,
    /// The function's name.
    pub name: String,
    pub example: Example,
}

/// What a Go example documents: `Example` the package (empty), `ExampleF` → `F`,
/// `ExampleT_M` → `T.M`, each with an optional `_suffix` that starts with a lower-case letter.
fn go_example_target(name: &str) -> Option<(String, String)> {
    let rest = name.strip_prefix("Example")?;
    if rest
        .chars()
        .next()
        .is_some_and(|c| !c.is_uppercase() && c != '_')
    {
        return None;
    }
    let mut parts: Vec<&str> = rest.split('_').collect();
    let mut suffix = String::new();
    if parts.len() > 1
        && parts
            .last()
            .and_then(|s| s.chars().next())
            .is_some_and(|c| c.is_lowercase())
    {
        suffix = parts.pop().unwrap_or_default().to_string();
    }
    let target = match parts.as_slice() {
        [""] => String::new(),
        [symbol] => (*symbol).to_string(),
        [ty, method] => format!("{ty}.{method}"),
        _ => return None,
    };
    Some((target, suffix))
}

/// Puts each Go example under the symbol it names in the same folder; returns the examples
/// of packages (`func Example()`), by folder.
pub(crate) fn attach_go_examples(
    symbols: &mut [Symbol],
    examples: Vec<GoExample>,
) -> Vec<(String, Example)> {
    let mut package_examples = Vec::new();
    for found in examples {
        let Some((target, suffix)) = go_example_target(&found.name) else {
            continue;
        };
        let mut example = found.example;
        example.label = suffix;
        if target.is_empty() {
            package_examples.push((found.dir, example));
            continue;
        }
        if let Some(symbol) = symbols
            .iter_mut()
            .find(|s| s.language == "go" && s.module == found.dir && s.name == target)
        {
            symbol.examples.push(example);
        }
    }
    package_examples
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_example_names() {
        assert_eq!(
            go_example_target("Example"),
            Some((String::new(), String::new()))
        );
        assert_eq!(
            go_example_target("ExampleParse"),
            Some(("Parse".into(), String::new()))
        );
        assert_eq!(
            go_example_target("ExampleReader_Read_second"),
            Some(("Reader.Read".into(), "second".into()))
        );
        assert_eq!(
            go_example_target("ExampleParse_json"),
            Some(("Parse".into(), "json".into()))
        );
        assert_eq!(go_example_target("Examples"), None);
        assert_eq!(go_example_target("TestX"), None);
    }
}
