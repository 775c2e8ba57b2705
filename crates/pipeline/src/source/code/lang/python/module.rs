//! What a Python file says about its namespace at its top level, read from the syntax tree:
//! the names it imports from other modules (`from .x import A as B`, `from pkg.x import *`),
//! its `__all__`, and the names it defines. `reach` follows these from module to module.

use tree_sitter::Node;

use crate::source::code::tree::Source;

/// Imports read from one file; a file with more is generated, and the rest are ignored.
const MAX_IMPORTS: usize = 4_096;
/// Names of `__all__` read from one file.
const MAX_ALL_NAMES: usize = 16_384;
/// Top-level names one file defines that are read.
const MAX_DEFINED: usize = 16_384;
/// How deep `if` / `try` blocks at the top level are read into.
const MAX_BLOCK_DEPTH: usize = 4;

/// What a Python file binds at its top level.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PythonModuleFacts {
    /// `from … import …` statements, one entry per name, in file order (those in top-level
    /// `if` / `try` blocks too, except under `if TYPE_CHECKING:`).
    pub imports: Vec<PyImport>,
    /// The names of `__all__` when the file sets it to strings we can read (a list or tuple,
    /// `+`, `+=`, `.extend`, `.append`); `None` without one, or when it is computed.
    pub all: Option<Vec<String>>,
    /// Names the file defines directly at its top level: classes, functions, assignments.
    pub defined: Vec<String>,
}

/// One name of a `from … import …` statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PyImport {
    /// The leading dots: 0 for an absolute import, 1 for `from .x`, 2 for `from ..x`.
    pub level: usize,
    /// The module after the dots (`pkg.x` → [pkg, x]; empty for `from . import x`).
    pub module: Vec<String>,
    /// The name imported; `None` for `*`.
    pub name: Option<String>,
    /// The name it is bound to when another (`import A as B`).
    pub alias: Option<String>,
}

impl PyImport {
    /// The name this import binds in the importing module; `None` for `*`.
    pub fn bound(&self) -> Option<&str> {
        self.alias.as_deref().or(self.name.as_deref())
    }
}

/// The top-level imports, `__all__` and definitions of a Python module.
pub(crate) fn python_module_facts(root: Node, src: &Source) -> PythonModuleFacts {
    let mut facts = PythonModuleFacts::default();
    let mut all = AllState::Absent;
    read_block(root, src, 0, &mut facts, &mut all);
    facts.all = match all {
        AllState::Read(names) => Some(names),
        AllState::Absent | AllState::Unreadable => None,
    };
    facts
}

/// What was read of `__all__` so far.
enum AllState {
    Absent,
    Read(Vec<String>),
    /// Set to something other than strings: the module's names decide, as if it had none.
    Unreadable,
}

fn read_block(
    block: Node,
    src: &Source,
    depth: usize,
    facts: &mut PythonModuleFacts,
    all: &mut AllState,
) {
    let mut cursor = block.walk();
    for statement in block.named_children(&mut cursor) {
        match statement.kind() {
            "import_from_statement" => read_import(statement, src, facts),
            "import_statement" if depth == 0 => {
                // `import a.b` binds `a`; `import a.b as c` binds `c`: modules, not symbols.
                let mut names = statement.walk();
                for name in statement.children_by_field_name("name", &mut names) {
                    let bound = match name.kind() {
                        "aliased_import" => name.child_by_field_name("alias").map(|a| src.of(a)),
                        _ => src.of(name).split('.').next(),
                    };
                    if let Some(bound) = bound {
                        define(facts, bound);
                    }
                }
            }
            "class_definition" | "function_definition" if depth == 0 => {
                if let Some(name) = statement.child_by_field_name("name") {
                    define(facts, src.of(name));
                }
            }
            "decorated_definition" if depth == 0 => {
                if let Some(name) = statement
                    .child_by_field_name("definition")
                    .and_then(|d| d.child_by_field_name("name"))
                {
                    define(facts, src.of(name));
                }
            }
            "expression_statement" => {
                if let Some(expression) = statement.named_child(0) {
                    read_expression(expression, src, depth, facts, all);
                }
            }
            "if_statement" if depth < MAX_BLOCK_DEPTH => {
                let condition = statement
                    .child_by_field_name("condition")
                    .map_or("", |c| src.of(c));
                // Imports for type checkers only are no names of the module at run time.
                let type_checking = condition.trim_start_matches("typing.") == "TYPE_CHECKING";
                if !type_checking && let Some(body) = statement.child_by_field_name("consequence") {
                    read_block(body, src, depth + 1, facts, all);
                }
                let mut alternatives = statement.walk();
                for alternative in
                    statement.children_by_field_name("alternative", &mut alternatives)
                {
                    let body = alternative
                        .child_by_field_name("consequence")
                        .or_else(|| alternative.child_by_field_name("body"));
                    if let Some(body) = body {
                        read_block(body, src, depth + 1, facts, all);
                    }
                }
            }
            "try_statement" if depth < MAX_BLOCK_DEPTH => {
                let mut parts = statement.walk();
                for part in statement.named_children(&mut parts) {
                    match part.kind() {
                        "block" => read_block(part, src, depth + 1, facts, all),
                        "except_clause" | "else_clause" | "finally_clause" => {
                            let mut inner = part.walk();
                            let body = part
                                .named_children(&mut inner)
                                .find(|c| c.kind() == "block");
                            if let Some(body) = body {
                                read_block(body, src, depth + 1, facts, all);
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
}

fn define(facts: &mut PythonModuleFacts, name: &str) {
    if facts.defined.len() < MAX_DEFINED && !name.is_empty() {
        facts.defined.push(name.to_string());
    }
}

/// `from X import a, b as c` / `from X import *` / `from . import x`.
fn read_import(statement: Node, src: &Source, facts: &mut PythonModuleFacts) {
    let Some(module) = statement.child_by_field_name("module_name") else {
        return;
    };
    let (level, dotted) = match module.kind() {
        "relative_import" => {
            let mut cursor = module.walk();
            let mut level = 0;
            let mut dotted = "";
            for part in module.named_children(&mut cursor) {
                match part.kind() {
                    "import_prefix" => level = src.of(part).chars().filter(|c| *c == '.').count(),
                    "dotted_name" => dotted = src.of(part),
                    _ => {}
                }
            }
            (level, dotted)
        }
        _ => (0, src.of(module)),
    };
    let module: Vec<String> = dotted
        .split('.')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    let mut push = |name: Option<String>, alias: Option<String>| {
        if facts.imports.len() < MAX_IMPORTS {
            facts.imports.push(PyImport {
                level,
                module: module.clone(),
                name,
                alias,
            });
        }
    };
    let mut cursor = statement.walk();
    if statement
        .named_children(&mut cursor)
        .any(|c| c.kind() == "wildcard_import")
    {
        push(None, None);
        return;
    }
    let mut names = statement.walk();
    for name in statement.children_by_field_name("name", &mut names) {
        match name.kind() {
            "aliased_import" => {
                let original = name.child_by_field_name("name").map(|n| src.of(n));
                let alias = name.child_by_field_name("alias").map(|a| src.of(a));
                if let (Some(original), Some(alias)) = (original, alias) {
                    push(Some(original.to_string()), Some(alias.to_string()));
                }
            }
            _ => push(Some(src.of(name).to_string()), None),
        }
    }
}

/// An assignment at the top level (a definition, or `__all__ = …`), `__all__ += …`,
/// `__all__.extend(…)` / `__all__.append(…)`.
fn read_expression(
    expression: Node,
    src: &Source,
    depth: usize,
    facts: &mut PythonModuleFacts,
    all: &mut AllState,
) {
    match expression.kind() {
        "assignment" => {
            let Some(left) = expression.child_by_field_name("left") else {
                return;
            };
            if src.of(left) == "__all__" {
                *all = match expression
                    .child_by_field_name("right")
                    .and_then(|r| strings(r, src))
                {
                    Some(names) => AllState::Read(names),
                    None => AllState::Unreadable,
                };
                return;
            }
            if depth > 0 {
                return;
            }
            match left.kind() {
                "identifier" => define(facts, src.of(left)),
                "pattern_list" | "tuple_pattern" => {
                    let mut cursor = left.walk();
                    for name in left.named_children(&mut cursor) {
                        if name.kind() == "identifier" {
                            define(facts, src.of(name));
                        }
                    }
                }
                _ => {}
            }
        }
        "augmented_assignment" => {
            let is_all = expression
                .child_by_field_name("left")
                .is_some_and(|l| src.of(l) == "__all__");
            if is_all {
                let added = expression
                    .child_by_field_name("right")
                    .and_then(|r| strings(r, src));
                extend_all(all, added);
            }
        }
        "call" => {
            let Some(function) = expression.child_by_field_name("function") else {
                return;
            };
            let method = match src.of(function) {
                "__all__.extend" => "extend",
                "__all__.append" => "append",
                _ => return,
            };
            let argument = expression
                .child_by_field_name("arguments")
                .and_then(|a| a.named_child(0));
            let added = argument.and_then(|a| match method {
                "append" => string(a, src).map(|s| vec![s]),
                _ => strings(a, src),
            });
            extend_all(all, added);
        }
        _ => {}
    }
}

fn extend_all(all: &mut AllState, added: Option<Vec<String>>) {
    match (std::mem::replace(all, AllState::Unreadable), added) {
        (AllState::Read(mut names), Some(added)) => {
            names.extend(added);
            names.truncate(MAX_ALL_NAMES);
            *all = AllState::Read(names);
        }
        // Extending an `__all__` we could not read, or by what we cannot read.
        _ => *all = AllState::Unreadable,
    }
}

/// The strings of a list or tuple of string literals, or of a `+` of such; `None` when it
/// holds anything else.
fn strings(node: Node, src: &Source) -> Option<Vec<String>> {
    match node.kind() {
        "list" | "tuple" | "parenthesized_expression" => {
            let mut out = Vec::new();
            let mut cursor = node.walk();
            for item in node.named_children(&mut cursor) {
                if item.kind().contains("comment") {
                    continue;
                }
                if node.kind() == "parenthesized_expression" {
                    return strings(item, src);
                }
                out.push(string(item, src)?);
                if out.len() >= MAX_ALL_NAMES {
                    break;
                }
            }
            Some(out)
        }
        "binary_operator" => {
            let operator = node.child_by_field_name("operator").map(|o| src.of(o));
            if operator != Some("+") {
                return None;
            }
            let mut left = strings(node.child_by_field_name("left")?, src)?;
            left.extend(strings(node.child_by_field_name("right")?, src)?);
            left.truncate(MAX_ALL_NAMES);
            Some(left)
        }
        _ => None,
    }
}

/// The text of a plain string literal (`"Foo"`, `'Foo'`); `None` for an f-string or anything
/// else.
fn string(node: Node, src: &Source) -> Option<String> {
    if node.kind() != "string" {
        return None;
    }
    let text = src.of(node);
    let text = text.strip_prefix(['u', 'U']).unwrap_or(text);
    ["\"", "'"]
        .iter()
        .find_map(|q| text.strip_prefix(q).and_then(|t| t.strip_suffix(q)))
        .filter(|name| name.chars().all(|c| c.is_alphanumeric() || c == '_') && !name.is_empty())
        .map(str::to_string)
}
