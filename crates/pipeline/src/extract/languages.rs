//! Per-language knowledge: which declarations are public, what their signature is, and where
//! their doc comment lives.

use tree_sitter::Node;

use super::{Declaration, Source, SymbolKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Language {
    Rust = 0,
    Python = 1,
    TypeScript = 2,
    Tsx = 3,
    Go = 4,
}

impl Language {
    pub const COUNT: usize = 5;

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

    /// Finds candidate declarations: `@def` the declaration, `@name` its name.
    pub fn query(self) -> &'static str {
        match self {
            Language::Rust => RUST_QUERY,
            Language::Python => PYTHON_QUERY,
            Language::TypeScript | Language::Tsx => TYPESCRIPT_QUERY,
            Language::Go => GO_QUERY,
        }
    }
}

const RUST_QUERY: &str = r#"
(function_item name: (identifier) @name) @def
(function_signature_item name: (identifier) @name) @def
(struct_item name: (type_identifier) @name) @def
(enum_item name: (type_identifier) @name) @def
(union_item name: (type_identifier) @name) @def
(trait_item name: (type_identifier) @name) @def
(type_item name: (type_identifier) @name) @def
(const_item name: (identifier) @name) @def
(static_item name: (identifier) @name) @def
"#;

const PYTHON_QUERY: &str = r#"
(function_definition name: (identifier) @name) @def
(class_definition name: (identifier) @name) @def
(module (expression_statement (assignment left: (identifier) @name)) @def)
"#;

const TYPESCRIPT_QUERY: &str = r#"
(export_statement declaration: (function_declaration name: (_) @name) @def)
(export_statement declaration: (generator_function_declaration name: (_) @name) @def)
(export_statement declaration: (function_signature name: (_) @name) @def)
(export_statement declaration: (class_declaration name: (_) @name) @def)
(export_statement declaration: (abstract_class_declaration name: (_) @name) @def)
(export_statement declaration: (interface_declaration name: (_) @name) @def)
(export_statement declaration: (type_alias_declaration name: (_) @name) @def)
(export_statement declaration: (enum_declaration name: (_) @name) @def)
(export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @def))
(method_definition name: (property_identifier) @name) @def
"#;

const GO_QUERY: &str = r#"
(function_declaration name: (identifier) @name) @def
(method_declaration name: (field_identifier) @name) @def
(type_spec name: (type_identifier) @name) @def
(type_alias name: (type_identifier) @name) @def
(const_spec name: (identifier) @name) @def
(var_spec name: (identifier) @name) @def
"#;

pub(crate) fn describe<'t>(
    language: Language,
    def: Node<'t>,
    name: Node<'t>,
    src: &Source,
) -> Option<Declaration<'t>> {
    match language {
        Language::Rust => rust(def, name, src),
        Language::Python => python(def, name, src),
        Language::TypeScript | Language::Tsx => typescript(def, name, src),
        Language::Go => go(def, name, src),
    }
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

fn has_ancestor(node: Node, kinds: &[&str]) -> bool {
    let mut current = node.parent();
    while let Some(n) = current {
        if kinds.contains(&n.kind()) {
            return true;
        }
        current = n.parent();
    }
    false
}

/// The comments right before `node` (skipping Rust attributes), nearest last, each with the
/// row it ends on. Stops at a blank line when `adjacent` is set.
fn preceding_comments<'a>(node: Node, src: &'a Source, adjacent: bool) -> Vec<&'a str> {
    let mut found = Vec::new();
    let mut row = node.start_position().row;
    let mut current = node.prev_sibling();
    while let Some(sibling) = current {
        let kind = sibling.kind();
        if kind == "attribute_item" || kind == "decorator" {
            row = sibling.start_position().row;
            current = sibling.prev_sibling();
            continue;
        }
        if !kind.contains("comment") {
            break;
        }
        if adjacent && sibling.end_position().row + 1 < row {
            break;
        }
        found.push(src.text.get(sibling.byte_range()).unwrap_or(""));
        row = sibling.start_position().row;
        current = sibling.prev_sibling();
    }
    found.reverse();
    found
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

fn rust<'t>(def: Node<'t>, name: Node<'t>, src: &Source) -> Option<Declaration<'t>> {
    if has_ancestor(def, &["function_item", "block"]) {
        return None;
    }
    let is_pub = |node: Node| {
        let mut cursor = node.walk();
        node.children(&mut cursor)
            .any(|c| c.kind() == "visibility_modifier" && src.of(c).trim() == "pub")
    };
    let base = src.of(name).to_string();
    // Methods live in the declaration list of an `impl` or a `trait`.
    let owner = def
        .parent()
        .filter(|p| p.kind() == "declaration_list")
        .and_then(|p| p.parent())
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
    let mut comments: Vec<&str> = preceding_comments(def, src, false)
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

fn python<'t>(def: Node<'t>, name: Node<'t>, src: &Source) -> Option<Declaration<'t>> {
    let base = src.of(name).to_string();
    if base.starts_with('_') {
        return None;
    }
    let anchor = def
        .parent()
        .filter(|p| p.kind() == "decorated_definition")
        .unwrap_or(def);
    let container = anchor.parent()?;
    if def.kind() == "expression_statement" {
        let constant = base
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            && base.chars().any(|c| c.is_ascii_uppercase());
        if !constant {
            return None;
        }
        let text = src.of(def);
        let first_line = text.lines().next().unwrap_or("").trim();
        let comments = preceding_comments(def, src, true);
        return Some(Declaration {
            kind: SymbolKind::Constant,
            name: base,
            signature: truncate(first_line, 160),
            doc: comment_lines(&comments),
            node: def,
            hash_end: def.end_byte(),
        });
    }
    let (kind, qualified) = match container.kind() {
        "module" => (
            if def.kind() == "class_definition" {
                SymbolKind::Class
            } else {
                SymbolKind::Function
            },
            base,
        ),
        "block" => {
            let class = container
                .parent()
                .filter(|c| c.kind() == "class_definition")?;
            if def.kind() != "function_definition" {
                return None;
            }
            let class_anchor = class
                .parent()
                .filter(|p| p.kind() == "decorated_definition")
                .unwrap_or(class);
            let class_name = class.child_by_field_name("name").map(|n| src.of(n))?;
            if class_name.starts_with('_') || class_anchor.parent()?.kind() != "module" {
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

fn docstring_lines(literal: &str) -> Vec<String> {
    let text = literal.trim_start_matches(|c: char| "rRuUbBfF".contains(c));
    let text = ["\"\"\"", "'''", "\"", "'"]
        .iter()
        .find_map(|q| text.strip_prefix(q).and_then(|t| t.strip_suffix(q)))
        .unwrap_or(text);
    text.lines().map(|l| l.trim().to_string()).collect()
}

fn typescript<'t>(def: Node<'t>, name: Node<'t>, src: &Source) -> Option<Declaration<'t>> {
    let base = src.of(name).to_string();
    if def.kind() == "method_definition" {
        let class = def
            .parent()
            .filter(|p| p.kind() == "class_body")?
            .parent()?;
        if !matches!(
            class.kind(),
            "class_declaration" | "abstract_class_declaration"
        ) || class.parent()?.kind() != "export_statement"
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
        return Some(Declaration {
            kind: SymbolKind::Method,
            name: format!("{class_name}.{base}"),
            signature: header(def, def.start_byte(), src),
            doc: jsdoc(def, src),
            node: def,
            hash_end: def.end_byte(),
        });
    }
    let export = if def.kind() == "variable_declarator" {
        def.parent()?.parent()?
    } else {
        def.parent()?
    };
    if export.kind() != "export_statement" {
        return None;
    }
    let from = export.start_byte();
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
            let declaration = def.parent()?;
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
        doc: jsdoc(export, src),
        node: def,
        hash_end,
    })
}

/// The `/** … */` comment right before `node`.
fn jsdoc(node: Node, src: &Source) -> Vec<String> {
    let comments = preceding_comments(node, src, true);
    match comments.last() {
        Some(last) if last.starts_with("/**") => comment_lines(&[last]),
        _ => Vec::new(),
    }
}

fn go<'t>(def: Node<'t>, name: Node<'t>, src: &Source) -> Option<Declaration<'t>> {
    let base = src.of(name).to_string();
    if !base.chars().next().is_some_and(char::is_uppercase) {
        return None;
    }
    let doc_of = |node: Node| comment_lines(&preceding_comments(node, src, true));
    match def.kind() {
        "function_declaration" => Some(Declaration {
            kind: SymbolKind::Function,
            name: base,
            signature: header(def, def.start_byte(), src),
            doc: doc_of(def),
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
                doc: doc_of(def),
                node: def,
                hash_end: def.end_byte(),
            })
        }
        spec_kind => {
            let declaration = def.parent()?;
            if declaration.parent()?.kind() != "source_file" {
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
            let mut doc = doc_of(def);
            if doc.is_empty() && declaration.named_child_count() == 1 {
                doc = doc_of(declaration);
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

fn receiver_type(node: Node, src: &Source) -> String {
    match node.kind() {
        "pointer_type" => node
            .named_child(0)
            .map(|n| receiver_type(n, src))
            .unwrap_or_default(),
        "generic_type" => node
            .child_by_field_name("type")
            .map(|n| src.of(n).to_string())
            .unwrap_or_default(),
        _ => src.of(node).to_string(),
    }
}

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let cut: String = text.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}
