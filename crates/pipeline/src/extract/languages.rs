//! Per-language knowledge: which declarations are public, what their signature is, and where
//! their doc comment lives.

use tree_sitter::Node;

use super::public::{ModDecl, RustModuleFacts, expand_use};
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

    /// The info string of code fences for the file at `path`: plain JavaScript is shown as
    /// JavaScript, though it is parsed with the TypeScript grammar.
    pub fn fence_for(self, path: &str) -> &'static str {
        let ext = path
            .rsplit_once('.')
            .map_or("", |(_, e)| e)
            .to_ascii_lowercase();
        match ext.as_str() {
            "js" | "mjs" | "cjs" => "javascript",
            "jsx" => "jsx",
            _ => self.fence(),
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
                "struct_item",
                "union_item",
                "field_declaration_list",
                "enum_item",
                "enum_variant_list",
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
                "interface_declaration",
                "interface_body",
                "ERROR",
            ],
            // A `const` block is read whole where it is declared: its specs inherit the
            // type and value of the ones before them (`iota`).
            Language::Go => &[
                "source_file",
                "var_declaration",
                "var_spec_list",
                "type_declaration",
                "type_spec",
                "struct_type",
                "field_declaration_list",
                "interface_type",
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
        Language::Python => python(def, place, src, out),
        Language::TypeScript | Language::Tsx => out.extend(typescript(def, place, src)),
        Language::Go => go(def, place, src, out),
    }
}

/// The child in `def`'s `name` field, when it is of one of `kinds`.
fn name_of<'t>(def: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    def.child_by_field_name("name")
        .filter(|n| kinds.contains(&n.kind()))
}

/// `def`'s text from `from` up to its body (or all of it when it has none), without
/// comments.
fn header(def: Node, from: usize, src: &Source) -> String {
    clean(def, from, body_start(def), src)
}

/// The text of `node` from `start` to `end` without the comments in it (a trailing
/// `# type: ignore` or `// nolint`, doc comments of fields): a signature shows code only.
/// Lines that held nothing but a comment go; trailing spaces go.
pub(crate) fn clean(node: Node, start: usize, end: usize, src: &Source) -> String {
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.end_byte() <= start || n.start_byte() >= end {
            continue;
        }
        let kind = n.kind();
        if kind.contains("comment") {
            cuts.push((n.start_byte(), n.end_byte()));
            continue;
        }
        if kind.contains("string") || n.child_count() == 0 {
            continue;
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    cuts.sort_unstable();
    // Continuation lines lose the indentation the declaration itself has in the file.
    let line_start = src.between(0, start).rfind('\n').map_or(0, |i| i + 1);
    let before = src.between(line_start, start);
    let column = before.len() - before.trim_start().len();
    let mut out = String::new();
    let mut offset = start;
    let mut next_cut = 0;
    for (index, line) in src.between(start, end).split_inclusive('\n').enumerate() {
        let (line_start, line_end) = (offset, offset + line.len());
        offset = line_end;
        let mut kept = String::new();
        let mut pos = line_start;
        while next_cut < cuts.len() && cuts[next_cut].1 <= pos {
            next_cut += 1;
        }
        let mut cut = next_cut;
        while pos < line_end {
            match cuts.get(cut) {
                Some(&(from, to)) if from < line_end => {
                    if from > pos {
                        kept.push_str(src.between(pos, from));
                    }
                    pos = pos.max(to.min(line_end));
                    if to > line_end {
                        break;
                    }
                    cut += 1;
                }
                _ => {
                    kept.push_str(src.between(pos, line_end));
                    pos = line_end;
                }
            }
        }
        let mut kept = kept.trim_end();
        if kept.trim().is_empty() && !line.trim().is_empty() {
            continue;
        }
        if index > 0 {
            let indent = kept.len() - kept.trim_start().len();
            kept = &kept[indent.min(column)..];
        }
        out.push_str(kept);
        out.push('\n');
    }
    out.trim().to_string()
}

/// Lines and characters of a value shown in a signature (a constant's, a field's default):
/// enough to read it, never a whole generated table.
const MAX_VALUE_LINES: usize = 12;
const MAX_VALUE_CHARS: usize = 800;

/// `text` cut to [`MAX_VALUE_LINES`] and [`MAX_VALUE_CHARS`], with `…` where it was cut.
fn bounded(text: &str) -> String {
    let mut lines = text.lines();
    let kept: Vec<&str> = lines.by_ref().take(MAX_VALUE_LINES).collect();
    let mut out = truncate(&kept.join("\n"), MAX_VALUE_CHARS);
    if lines.next().is_some() && !out.ends_with('…') {
        out.push_str("\n…");
    }
    out
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
                lines.push(without_one_space(line));
            }
        } else {
            for line in comment.lines() {
                let line = line.trim();
                let line = line
                    .strip_prefix("///")
                    .or_else(|| line.strip_prefix("//"))
                    .or_else(|| line.strip_prefix('#'))
                    .unwrap_or(line);
                lines.push(without_one_space(line));
            }
        }
    }
    lines
}

/// Whether the walk stays out of `node`, a container of declarations. Rust: an item hidden
/// by its attributes (`#[cfg(test)]`, `#[doc(hidden)]`: see [`rust_hidden`]), and a private
/// inline module (`mod inner { … }`) unless the file re-exports from it with `pub use`:
/// rustdoc shows neither.
pub(crate) fn is_hidden_container(
    language: Language,
    node: Node,
    leading: &[Node],
    src: &Source,
) -> bool {
    if language != Language::Rust {
        return false;
    }
    if rust_hidden(leading, src) {
        return true;
    }
    node.kind() == "mod_item"
        && !is_pub(node, src)
        && node
            .child_by_field_name("name")
            .is_none_or(|name| !src.reexports_from(src.of(name)))
}

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
                        requires: super::cfg::requires(attributes.iter().map(|a| src.of(*a))),
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

/// Whether `node` starts with the `pub` visibility (not `pub(crate)`).
fn is_pub(node: Node, src: &Source) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .find(|c| !c.is_extra())
        .is_some_and(|c| c.kind() == "visibility_modifier" && src.of(c).trim() == "pub")
}

/// The outer doc comments (`///`, `/** */`) right before a Rust item.
/// Ordinary comments among them are skipped, as rustdoc skips them (`/// Doc.` then
/// `// note` then the item documents the item).
fn rust_doc(def: Node, leading: &[Node], src: &Source) -> Vec<String> {
    let comments: Vec<&str> = preceding_comments(def, leading, src, false)
        .into_iter()
        .filter(|c| {
            (c.starts_with("///") && !c.starts_with("////"))
                || (c.starts_with("/**") && !c.starts_with("/***"))
        })
        .collect();
    comment_lines(&comments)
}

/// A comment line without the space after its marker; the rest of its indentation is kept
/// for the code examples it may hold.
fn without_one_space(line: &str) -> String {
    line.strip_prefix(' ')
        .unwrap_or(line)
        .trim_end()
        .to_string()
}

/// Rust items outside function bodies and blocks (the walk never enters those), the public
/// fields of public structs and the variants of public enums.
fn rust<'t>(def: Node<'t>, place: &Place<'_, 't>, src: &Source) -> Option<Declaration<'t>> {
    if rust_hidden(place.leading, src) {
        return None;
    }
    match def.kind() {
        "field_declaration" | "enum_variant" => return rust_member(def, place, src),
        "macro_definition" => return rust_macro(def, place, src),
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
        doc: rust_doc(def, place.leading, src),
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
        doc: rust_doc(def, place.leading, src),
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
        doc: rust_doc(def, place.leading, src),
        node: def,
        hash_end: def.end_byte(),
        parent: Some(owner_name),
        stub: false,
    })
}

/// What a Python decorator names: `property` for `@property`, `functools.cache` for
/// `@functools.cache(maxsize=1)`.
fn decorator_name<'s>(decorator: Node, src: &Source<'s>) -> &'s str {
    let text = src.of(decorator).trim_start_matches('@');
    text.split(['(', ' ', '\n']).next().unwrap_or("").trim()
}

/// Python: module-level functions, classes and constants; the methods (with `__init__` as
/// the constructor), properties and attributes of module-level classes; decorators kept.
fn python<'t>(def: Node<'t>, place: &Place<'_, 't>, src: &Source, out: &mut Vec<Declaration<'t>>) {
    if def.kind() == "expression_statement" {
        if let Some(string) = def.named_child(0).filter(|s| s.kind() == "string") {
            attribute_docstring(def, string, src, out);
            return;
        }
        out.extend(python_assignment(def, place, src));
        return;
    }
    out.extend(python_definition(def, place, src));
}

/// A string right under an attribute or constant documents it (Sphinx's attribute
/// docstrings).
fn attribute_docstring(stmt: Node, string: Node, src: &Source, out: &mut [Declaration]) {
    if let Some(last) = out.last_mut()
        && matches!(last.kind, SymbolKind::Field | SymbolKind::Constant)
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
    if base.starts_with('_') && !is_constructor {
        return None;
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
            if is_constructor {
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

/// The name of the public module-level class whose body is `up` levels above (the class
/// definition itself), when it is one.
fn python_class(place: &Place, up: usize, src: &Source) -> Option<String> {
    let class = place
        .up(up)
        .map(|f| f.node)
        .filter(|c| c.kind() == "class_definition")?;
    let class_container = up + 1 + usize::from(place.kind_up(up + 1) == "decorated_definition");
    let class_name = class.child_by_field_name("name").map(|n| src.of(n))?;
    if class_name.starts_with('_') || place.kind_up(class_container) != "module" {
        return None;
    }
    Some(class_name.to_string())
}

/// `NAME = value` at module level (the name in capitals), or a public attribute of a
/// module-level class (`name: type = default`, dataclass fields).
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
    if base.starts_with('_') {
        return None;
    }
    let (kind, qualified, parent) = match place.kind_up(0) {
        "module" => {
            let constant = base
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                && base.chars().any(|c| c.is_ascii_uppercase());
            if !constant {
                return None;
            }
            (SymbolKind::Constant, base, None)
        }
        "block" => {
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

fn docstring_lines(literal: &str) -> Vec<String> {
    let text = literal.trim_start_matches(|c: char| "rRuUbBfF".contains(c));
    let text = ["\"\"\"", "'''", "\"", "'"]
        .iter()
        .find_map(|q| text.strip_prefix(q).and_then(|t| t.strip_suffix(q)))
        .unwrap_or(text);
    let lines: Vec<&str> = text.lines().collect();
    // The first line sits right after the quotes; the others share the body's indentation.
    let rest = super::docs::dedent(lines.get(1..).unwrap_or_default());
    let mut out = vec![lines.first().map_or("", |l| l.trim()).to_string()];
    out.extend(rest.lines().map(str::to_string));
    out
}

/// TypeScript and JavaScript: what an `export` declares, and the public members of exported
/// classes and interfaces.
fn typescript<'t>(def: Node<'t>, place: &Place<'_, 't>, src: &Source) -> Option<Declaration<'t>> {
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

/// The `/** … */` comment right before `node`.
fn jsdoc(node: Node, leading: &[Node], src: &Source) -> Vec<String> {
    let comments = preceding_comments(node, leading, src, true);
    match comments.last() {
        Some(last) if last.starts_with("/**") => comment_lines(&[last]),
        _ => Vec::new(),
    }
}

fn is_exported(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

/// Go: exported functions, methods of exported types, exported types with their exported
/// fields and interface methods, and exported constants and variables declared at package
/// level (one declaration per name of `const A, B = …`).
fn go<'t>(def: Node<'t>, place: &Place<'_, 't>, src: &Source, out: &mut Vec<Declaration<'t>>) {
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

fn go_doc(node: Node, leading: &[Node], src: &Source) -> Vec<String> {
    comment_lines(&preceding_comments(node, leading, src, true))
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
        "function_declaration" => Some(simple(
            SymbolKind::Function,
            base,
            header(def, def.start_byte(), src),
            None,
        )),
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
    let specs = decl.named_child_count();
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
        let mut doc = go_doc(spec, &leading, src);
        if doc.is_empty() && specs == 1 {
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
            out.push(Declaration {
                requires: None,
                kind: SymbolKind::Constant,
                name: base.to_string(),
                signature,
                doc: doc.clone(),
                node: spec,
                hash_end: spec.end_byte(),
                parent: None,
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

/// A file's own documentation and, for Go, its package name: Rust `//!` comments, a Python
/// module docstring, a Go package comment, a TypeScript JSDoc that says it documents the
/// file (`@packageDocumentation`, `@module`, `@file`, `@fileoverview`) or is followed by a
/// blank line. Only the comments at the top of the file are read.
pub(crate) fn file_overview(
    language: Language,
    root: Node,
    src: &Source,
) -> (Vec<String>, Option<String>) {
    let mut cursor = root.walk();
    let mut comments: Vec<Node> = Vec::new();
    let mut package = None;
    let mut doc = Vec::new();
    let mut first_code_row = usize::MAX;
    for child in root.children(&mut cursor) {
        let kind = child.kind();
        if kind.contains("comment") {
            comments.push(child);
            continue;
        }
        first_code_row = child.start_position().row;
        match language {
            Language::Rust if kind == "inner_attribute_item" => continue,
            Language::Python => {
                if let Some(string) = child
                    .named_child(0)
                    .filter(|s| kind == "expression_statement" && s.kind() == "string")
                {
                    doc = docstring_lines(src.of(string));
                }
            }
            Language::Go if kind == "package_clause" => {
                package = child.named_child(0).map(|n| src.of(n).to_string());
                doc = go_doc(child, &comments, src);
            }
            _ => {}
        }
        break;
    }
    match language {
        Language::Rust => {
            let inner: Vec<&str> = comments
                .iter()
                .map(|c| src.of(*c))
                .filter(|c| c.starts_with("//!") || c.starts_with("/*!"))
                .collect();
            doc = inner
                .iter()
                .flat_map(|c| {
                    c.lines().map(|l| {
                        let l = l.trim_start();
                        let l = l
                            .strip_prefix("//!")
                            .or_else(|| l.strip_prefix("/*!"))
                            .unwrap_or(l);
                        let l = l.strip_suffix("*/").unwrap_or(l);
                        l.strip_prefix(' ').unwrap_or(l).trim_end().to_string()
                    })
                })
                .collect();
        }
        Language::TypeScript | Language::Tsx => {
            let file_doc = comments.iter().enumerate().find(|(i, c)| {
                let text = src.of(**c);
                let tagged = ["@packageDocumentation", "@module", "@file", "@fileoverview"]
                    .iter()
                    .any(|t| text.contains(t));
                let next_row = comments
                    .get(i + 1)
                    .map_or(first_code_row, |n| n.start_position().row);
                text.starts_with("/**") && (tagged || next_row > c.end_position().row + 1)
            });
            if let Some((_, c)) = file_doc {
                doc = comment_lines(&[src.of(*c)])
                    .into_iter()
                    .filter(|l| !l.starts_with("@packageDocumentation"))
                    .collect();
            }
        }
        _ => {}
    }
    (doc, package)
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

/// A comment on the line where a declaration ends documents it when it has no doc of its
/// own: Go's `Field int // doc`, Python's `name = 1  #: doc`.
pub(crate) fn trailing_comment(
    language: Language,
    comment: Node,
    src: &Source,
    found: &mut [Declaration],
) {
    let Some(last) = found.last_mut() else {
        return;
    };
    if !last.doc.is_empty() || last.node.end_position().row != comment.start_position().row {
        return;
    }
    let text = src.of(comment);
    let documents = match language {
        Language::Go => matches!(last.kind, SymbolKind::Field | SymbolKind::Constant),
        Language::Python => text.starts_with("#:"),
        _ => false,
    };
    if documents {
        last.doc = comment_lines(&[text])
            .into_iter()
            .map(|l| l.strip_prefix(':').unwrap_or(&l).trim().to_string())
            .collect();
    }
}
