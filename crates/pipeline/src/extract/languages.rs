//! Per-language knowledge: which declarations are public, what their signature is, and where
//! their doc comment lives.

use tree_sitter::Node;

use super::{Declaration, Place, Source, SymbolKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Language {
    Rust = 0,
    Python = 1,
    TypeScript = 2,
    Tsx = 3,
    Go = 4,
}

impl Language {
    pub fn from_path(path: &str) -> Option<Self> {
        let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
        Some(match ext.as_str() {
            "rs" => Language::Rust,
            "py" | "pyi" => Language::Python,
            "ts" | "mts" | "cts" | "js" | "mjs" | "cjs" => Language::TypeScript,
            "tsx" | "jsx" => Language::Tsx,
            "go" => Language::Go,
            _ => return None,
        })
    }

    pub fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::Rust => tree_sitter_rust::LANGUAGE.into(),
            Language::Python => tree_sitter_python::LANGUAGE.into(),
            Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Language::Go => tree_sitter_go::LANGUAGE.into(),
        }
    }

    /// The info string of code fences for this language.
    pub fn fence(self) -> &'static str {
        match self {
            Language::Rust => "rust",
            Language::Python => "python",
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
            Language::Go => "go",
        }
    }

    /// Whether declarations this language documents can sit under a node of `kind`: the
    /// walk descends only into these, never into function bodies or expressions, so its work
    /// stays proportional to the file's outline.
    pub fn holds_declarations(self, kind: &str) -> bool {
        let kinds: &[&str] = match self {
            Language::Rust => &[
                "source_file",
                "mod_item",
                "declaration_list",
                "impl_item",
                "trait_item",
                "foreign_mod_item",
                "ERROR",
            ],
            Language::Python => &[
                "module",
                "decorated_definition",
                "class_definition",
                "block",
            ],
            Language::TypeScript | Language::Tsx => &[
                "program",
                "export_statement",
                "ambient_declaration",
                "internal_module",
                "module",
                "statement_block",
                "expression_statement",
                "lexical_declaration",
                "class_declaration",
                "abstract_class_declaration",
                "class_body",
                "ERROR",
            ],
            Language::Go => &[
                "source_file",
                "const_declaration",
                "var_declaration",
                "type_declaration",
                "ERROR",
            ],
        };
        kinds.contains(&kind)
    }
}

/// The declarations `def` makes that the articles document (none when it is private, local
/// or not a declaration), pushed to `out`.
pub(crate) fn describe<'t>(
    language: Language,
    def: Node<'t>,
    place: &Place<'_, 't>,
    src: &Source,
    out: &mut Vec<Declaration<'t>>,
) {
    match language {
        Language::Rust => out.extend(rust(def, place, src)),
        Language::Python => out.extend(python(def, place, src)),
        Language::TypeScript | Language::Tsx => out.extend(typescript(def, place, src)),
        Language::Go => go(def, place, src, out),
    }
}

/// The child in `def`'s `name` field, when it is of one of `kinds`.
fn name_of<'t>(def: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    def.child_by_field_name("name")
        .filter(|n| kinds.contains(&n.kind()))
}

/// `def`'s text up to its body (or all of it when it has none), trimmed.
fn header(def: Node, from: usize, src: &Source) -> String {
    let end = def
        .child_by_field_name("body")
        .map_or(def.end_byte(), |b| b.start_byte());
    src.between(from, end).trim().to_string()
}

fn body_start(def: Node) -> usize {
    def.child_by_field_name("body")
        .map_or(def.end_byte(), |b| b.start_byte())
}

/// The comments in `leading` (the comment and attribute siblings right before `node`),
/// attributes skipped, in file order. Stops at a blank line when `adjacent` is set.
fn preceding_comments<'a>(
    node: Node,
    leading: &[Node],
    src: &Source<'a>,
    adjacent: bool,
) -> Vec<&'a str> {
    let mut found = Vec::new();
    let mut row = node.start_position().row;
    for sibling in leading.iter().rev() {
        if is_attribute(sibling.kind()) {
            row = sibling.start_position().row;
            continue;
        }
        if adjacent && sibling.end_position().row + 1 < row {
            break;
        }
        found.push(src.text.get(sibling.byte_range()).unwrap_or(""));
        row = sibling.start_position().row;
    }
    found.reverse();
    found
}

/// Attributes and decorators stand between a declaration and its doc comment.
pub(crate) fn is_attribute(kind: &str) -> bool {
    kind == "attribute_item" || kind == "decorator"
}

/// Removes comment markers: `///`, `//`, `#`, `/** … */` and the leading `*` of block lines.
fn comment_lines(comments: &[&str]) -> Vec<String> {
    let mut lines = Vec::new();
    for comment in comments {
        let comment = comment.trim();
        if let Some(block) = comment.strip_prefix("/*") {
            let block = block.trim_start_matches('*').trim_end_matches("*/");
            for line in block.lines() {
                let line = line.trim();
                let line = line.strip_prefix('*').unwrap_or(line);
                lines.push(line.trim().to_string());
            }
        } else {
            for line in comment.lines() {
                let line = line.trim();
                let line = line
                    .strip_prefix("///")
                    .or_else(|| line.strip_prefix("//"))
                    .or_else(|| line.strip_prefix('#'))
                    .unwrap_or(line);
                lines.push(line.trim().to_string());
            }
        }
    }
    lines
}

/// Rust items outside function bodies and blocks (the walk never enters those).
fn rust<'t>(def: Node<'t>, place: &Place<'_, 't>, src: &Source) -> Option<Declaration<'t>> {
    let name_kind = match def.kind() {
        "function_item" | "function_signature_item" | "const_item" | "static_item" => "identifier",
        "struct_item" | "union_item" | "enum_item" | "trait_item" | "type_item" => {
            "type_identifier"
        }
        _ => return None,
    };
    let name = name_of(def, &[name_kind])?;
    // The visibility comes first in every item the grammar knows.
    let is_pub = |node: Node| {
        let mut cursor = node.walk();
        node.children(&mut cursor)
            .find(|c| !c.is_extra())
            .is_some_and(|c| c.kind() == "visibility_modifier" && src.of(c).trim() == "pub")
    };
    let base = src.of(name).to_string();
    // Methods live in the declaration list of an `impl` or a `trait`.
    let owner = place
        .up(1)
        .filter(|_| place.kind_up(0) == "declaration_list")
        .map(|g| g.node)
        .filter(|g| g.kind() == "impl_item" || g.kind() == "trait_item");
    let (kind, qualified) = match (def.kind(), owner) {
        ("function_item" | "function_signature_item", Some(owner))
            if owner.kind() == "trait_item" =>
        {
            if !is_pub(owner) {
                return None;
            }
            let trait_name = owner.child_by_field_name("name").map(|n| src.of(n))?;
            (SymbolKind::Method, format!("{trait_name}::{base}"))
        }
        ("function_item", Some(owner)) => {
            // Methods of trait impls are documented by the trait.
            if owner.child_by_field_name("trait").is_some() || !is_pub(def) {
                return None;
            }
            let ty = owner.child_by_field_name("type")?;
            let ty = ty.child_by_field_name("type").unwrap_or(ty);
            (SymbolKind::Method, format!("{}::{base}", src.of(ty)))
        }
        ("function_signature_item", _) => return None,
        (kind, _) => {
            if !is_pub(def) {
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
            (kind, base)
        }
    };
    let signature = match kind {
        SymbolKind::Function | SymbolKind::Method | SymbolKind::Trait => {
            header(def, def.start_byte(), src)
                .trim_end_matches(';')
                .trim()
                .to_string()
        }
        _ => src.of(def).trim().to_string(),
    };
    let mut comments: Vec<&str> = preceding_comments(def, place.leading, src, false)
        .into_iter()
        .rev()
        .take_while(|c| {
            (c.starts_with("///") && !c.starts_with("////"))
                || (c.starts_with("/**") && !c.starts_with("/***"))
        })
        .collect();
    comments.reverse();
    let hash_end = if kind == SymbolKind::Trait {
        body_start(def)
    } else {
        def.end_byte()
    };
    Some(Declaration {
        kind,
        name: qualified,
        signature,
        doc: comment_lines(&comments),
        node: def,
        hash_end,
    })
}

/// Python: module-level functions, classes and constants, and the methods of module-level
/// classes.
fn python<'t>(def: Node<'t>, place: &Place<'_, 't>, src: &Source) -> Option<Declaration<'t>> {
    if def.kind() == "expression_statement" {
        return python_constant(def, place, src);
    }
    if !matches!(def.kind(), "function_definition" | "class_definition") {
        return None;
    }
    let base = src.of(name_of(def, &["identifier"])?).to_string();
    if base.starts_with('_') {
        return None;
    }
    // How many levels up the definition's container is (past a decorated_definition).
    let container = usize::from(place.kind_up(0) == "decorated_definition");
    let (kind, qualified) = match place.kind_up(container) {
        "module" => (
            if def.kind() == "class_definition" {
                SymbolKind::Class
            } else {
                SymbolKind::Function
            },
            base,
        ),
        "block" => {
            let class = place
                .up(container + 1)
                .map(|f| f.node)
                .filter(|c| c.kind() == "class_definition")?;
            if def.kind() != "function_definition" {
                return None;
            }
            let class_container =
                container + 2 + usize::from(place.kind_up(container + 2) == "decorated_definition");
            let class_name = class.child_by_field_name("name").map(|n| src.of(n))?;
            if class_name.starts_with('_') || place.kind_up(class_container) != "module" {
                return None;
            }
            (SymbolKind::Method, format!("{class_name}.{base}"))
        }
        _ => return None,
    };
    let signature = header(def, def.start_byte(), src)
        .trim_end_matches(':')
        .trim()
        .to_string();
    let doc = def
        .child_by_field_name("body")
        .and_then(|body| body.named_child(0))
        .filter(|first| first.kind() == "expression_statement")
        .and_then(|stmt| stmt.named_child(0))
        .filter(|s| s.kind() == "string")
        .map(|s| docstring_lines(src.of(s)))
        .unwrap_or_default();
    let hash_end = if kind == SymbolKind::Class {
        body_start(def)
    } else {
        def.end_byte()
    };
    Some(Declaration {
        kind,
        name: qualified,
        signature,
        doc,
        node: def,
        hash_end,
    })
}

/// `NAME = value` at module level, the name in capitals.
fn python_constant<'t>(
    def: Node<'t>,
    place: &Place<'_, 't>,
    src: &Source,
) -> Option<Declaration<'t>> {
    if place.kind_up(0) != "module" {
        return None;
    }
    let assignment = def.named_child(0).filter(|a| a.kind() == "assignment")?;
    let name = assignment
        .child_by_field_name("left")
        .filter(|n| n.kind() == "identifier")?;
    let base = src.of(name).to_string();
    let constant = !base.starts_with('_')
        && base
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && base.chars().any(|c| c.is_ascii_uppercase());
    if !constant {
        return None;
    }
    let text = src.of(def);
    let first_line = text.lines().next().unwrap_or("").trim();
    let comments = preceding_comments(def, place.leading, src, true);
    Some(Declaration {
        kind: SymbolKind::Constant,
        name: base,
        signature: truncate(first_line, 160),
        doc: comment_lines(&comments),
        node: def,
        hash_end: def.end_byte(),
    })
}

fn docstring_lines(literal: &str) -> Vec<String> {
    let text = literal.trim_start_matches(|c: char| "rRuUbBfF".contains(c));
    let text = ["\"\"\"", "'''", "\"", "'"]
        .iter()
        .find_map(|q| text.strip_prefix(q).and_then(|t| t.strip_suffix(q)))
        .unwrap_or(text);
    text.lines().map(|l| l.trim().to_string()).collect()
}

/// TypeScript and JavaScript: what an `export` declares, and the public methods of exported
/// classes.
fn typescript<'t>(def: Node<'t>, place: &Place<'_, 't>, src: &Source) -> Option<Declaration<'t>> {
    if def.kind() == "method_definition" {
        return typescript_method(def, place, src);
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
        src.between(from, def.end_byte())
            .trim()
            .trim_end_matches(trim)
            .to_string()
    };
    let (kind, signature, hash_end) = match def.kind() {
        "function_declaration" | "generator_function_declaration" => {
            (SymbolKind::Function, header(def, from, src), def.end_byte())
        }
        "function_signature" => (SymbolKind::Function, whole(';'), def.end_byte()),
        "class_declaration" | "abstract_class_declaration" => {
            (SymbolKind::Class, header(def, from, src), body_start(def))
        }
        "interface_declaration" => (SymbolKind::Interface, whole(';'), def.end_byte()),
        "enum_declaration" => (SymbolKind::Enum, whole(';'), def.end_byte()),
        "type_alias_declaration" => (SymbolKind::Type, whole(';'), def.end_byte()),
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
                Some(v) => {
                    let text = src.of(v);
                    if text.len() <= 80 && !text.contains('\n') {
                        v.end_byte()
                    } else {
                        v.start_byte()
                    }
                }
                None => def.end_byte(),
            };
            let mut signature = format!(
                "export {keyword} {}",
                src.between(def.start_byte(), end).trim()
            );
            if signature.ends_with('=') {
                signature.push_str(" …");
            }
            (kind, signature, def.end_byte())
        }
        _ => return None,
    };
    Some(Declaration {
        kind,
        name: base,
        signature,
        doc: jsdoc(export.node, &export.leading, src),
        node: def,
        hash_end,
    })
}

fn typescript_method<'t>(
    def: Node<'t>,
    place: &Place<'_, 't>,
    src: &Source,
) -> Option<Declaration<'t>> {
    let base = src.of(name_of(def, &["property_identifier"])?).to_string();
    let class = place
        .up(1)
        .filter(|_| place.kind_up(0) == "class_body")?
        .node;
    if !matches!(
        class.kind(),
        "class_declaration" | "abstract_class_declaration"
    ) || place.kind_up(2) != "export_statement"
        || base.starts_with('_')
    {
        return None;
    }
    let mut cursor = def.walk();
    let hidden = def.children(&mut cursor).any(|c| {
        c.kind() == "accessibility_modifier" && matches!(src.of(c), "private" | "protected")
    });
    if hidden {
        return None;
    }
    let class_name = class.child_by_field_name("name").map(|n| src.of(n))?;
    Some(Declaration {
        kind: SymbolKind::Method,
        name: format!("{class_name}.{base}"),
        signature: header(def, def.start_byte(), src),
        doc: jsdoc(def, place.leading, src),
        node: def,
        hash_end: def.end_byte(),
    })
}

/// The `/** … */` comment right before `node`.
fn jsdoc(node: Node, leading: &[Node], src: &Source) -> Vec<String> {
    let comments = preceding_comments(node, leading, src, true);
    match comments.last() {
        Some(last) if last.starts_with("/**") => comment_lines(&[last]),
        _ => Vec::new(),
    }
}

/// Go: exported functions and methods, and exported types, constants and variables declared
/// at package level (one declaration per name of `const A, B = …`).
fn go<'t>(def: Node<'t>, place: &Place<'_, 't>, src: &Source, out: &mut Vec<Declaration<'t>>) {
    let name_kind = match def.kind() {
        "function_declaration" | "const_spec" | "var_spec" => "identifier",
        "method_declaration" => "field_identifier",
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

fn go_declaration<'t>(
    def: Node<'t>,
    name: Node<'t>,
    place: &Place<'_, 't>,
    src: &Source,
) -> Option<Declaration<'t>> {
    let base = src.of(name).to_string();
    if !base.chars().next().is_some_and(char::is_uppercase) {
        return None;
    }
    let doc_of =
        |node: Node, leading: &[Node]| comment_lines(&preceding_comments(node, leading, src, true));
    match def.kind() {
        "function_declaration" => Some(Declaration {
            kind: SymbolKind::Function,
            name: base,
            signature: header(def, def.start_byte(), src),
            doc: doc_of(def, place.leading),
            node: def,
            hash_end: def.end_byte(),
        }),
        "method_declaration" => {
            let receiver = def
                .child_by_field_name("receiver")
                .and_then(|r| r.named_child(0))
                .and_then(|p| p.child_by_field_name("type"))
                .map(|t| receiver_type(t, src))
                .unwrap_or_default();
            let name = if receiver.is_empty() {
                base
            } else {
                format!("{receiver}.{base}")
            };
            Some(Declaration {
                kind: SymbolKind::Method,
                name,
                signature: header(def, def.start_byte(), src),
                doc: doc_of(def, place.leading),
                node: def,
                hash_end: def.end_byte(),
            })
        }
        spec_kind => {
            let declaration = place.up(0)?;
            if place.kind_up(1) != "source_file" {
                return None;
            }
            let (kind, keyword) = match spec_kind {
                "type_spec" | "type_alias" => {
                    let kind = match def.child_by_field_name("type").map(|t| t.kind()) {
                        Some("struct_type") => SymbolKind::Struct,
                        Some("interface_type") => SymbolKind::Interface,
                        _ => SymbolKind::Type,
                    };
                    (kind, "type")
                }
                "const_spec" => (SymbolKind::Constant, "const"),
                "var_spec" => (SymbolKind::Variable, "var"),
                _ => return None,
            };
            let text = src.of(def).trim();
            let signature = if kind == SymbolKind::Constant || kind == SymbolKind::Variable {
                truncate(text.lines().next().unwrap_or(""), 160)
            } else {
                text.to_string()
            };
            let mut doc = doc_of(def, place.leading);
            if doc.is_empty() && declaration.node.named_child_count() == 1 {
                doc = doc_of(declaration.node, &declaration.leading);
            }
            Some(Declaration {
                kind,
                name: base,
                signature: format!("{keyword} {signature}"),
                doc,
                node: def,
                hash_end: def.end_byte(),
            })
        }
    }
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

pub(crate) fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let cut: String = text.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}
