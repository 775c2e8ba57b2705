//! One walk down a file's syntax tree that finds every declaration worth documenting, and the
//! token hash that tells drift whether a declaration changed.

use sha2::{Digest, Sha256};
use std::time::Instant;
use tree_sitter::Node;

use super::lang::rust::Gate;
use super::lang::{self, Language};
use super::tree::{Declaration, Frame, Place, Source};

/// How many nodes the walk visits between two looks at the clock.
const NODES_PER_CLOCK_CHECK: usize = 1024;

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Every declaration of the tree worth documenting, or `None` past the deadline.
///
/// One pass of a tree cursor, carrying the ancestors and the comments seen so far: tree-sitter
/// queries and `Node::parent`/`prev_sibling` cost time in the number of siblings, which made a
/// file of 128 K unclosed brackets (one node with 128 K children) take minutes.
pub(crate) fn declarations<'t>(
    root: Node<'t>,
    language: Language,
    src: &Source,
    deadline: Instant,
) -> Option<Vec<Declaration<'t>>> {
    let mut found = Vec::new();
    let mut cursor = root.walk();
    let mut ancestors: Vec<Frame<'t>> = Vec::new();
    let mut leading: Vec<Node<'t>> = Vec::new();
    let mut visited = 0usize;
    // The row where the previous sibling ended: a comment that starts on it trails that
    // sibling (`Field int // doc`) and is no doc of the next one.
    let mut previous_end_row: Option<usize> = None;
    loop {
        visited += 1;
        if visited.is_multiple_of(NODES_PER_CLOCK_CHECK) && Instant::now() >= deadline {
            return None;
        }
        let node = cursor.node();
        let kind = node.kind();
        if kind.contains("comment") || lang::common::is_attribute(kind) {
            if kind.contains("comment") && previous_end_row == Some(node.start_position().row) {
                lang::trailing_comment(language, node, src, &mut found);
            } else {
                leading.push(node);
            }
        } else {
            let place = Place {
                ancestors: &ancestors,
                leading: &leading,
            };
            let before = found.len();
            lang::describe(language, node, &place, src, &mut found);
            // Rust: the gates of the node, with those of its ancestors; read only for a
            // declaration or a container (each attribute once).
            let holds = language.holds_declarations(kind);
            let gate = (language == Language::Rust && (found.len() > before || holds)).then(|| {
                let enclosing = ancestors.last().map(|f| f.gate.clone()).unwrap_or_default();
                enclosing.and(&Gate::of(
                    leading
                        .iter()
                        .filter(|n| n.kind() == "attribute_item")
                        .map(|n| src.of(*n)),
                ))
            });
            if let Some(gate) = &gate {
                let requires = gate.requires();
                for declaration in &mut found[before..] {
                    declaration.requires.clone_from(&requires);
                }
            }
            if language.holds_declarations(kind)
                && !lang::is_hidden_container(language, node, &leading, src)
                && cursor.goto_first_child()
            {
                ancestors.push(Frame {
                    node,
                    leading: std::mem::take(&mut leading),
                    gate: gate.unwrap_or_default(),
                });
                previous_end_row = None;
                continue;
            }
            leading.clear();
            previous_end_row = Some(node.end_position().row);
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return Some(found);
            }
            previous_end_row = Some(cursor.node().end_position().row);
            ancestors.pop();
            leading.clear();
        }
    }
}

pub(crate) fn token_hash(decl: &Declaration, src: &Source) -> String {
    let mut hasher = Sha256::new();
    hasher.update(decl.kind.as_str());
    hasher.update([0]);
    hasher.update(&decl.name);
    hasher.update([0]);
    let mut stack = vec![decl.node];
    while let Some(node) = stack.pop() {
        if node.start_byte() >= decl.hash_end {
            continue;
        }
        let kind = node.kind();
        if kind.contains("comment") {
            continue;
        }
        if node.child_count() == 0 || kind.contains("string") || kind.ends_with("_literal") {
            hasher.update(src.of(node));
            hasher.update([0x1f]);
            continue;
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    hasher.update([0]);
    for word in decl.doc.iter().flat_map(|l| l.split_whitespace()) {
        hasher.update(word);
        hasher.update([0x1f]);
    }
    hex(&hasher.finalize()[..16])
}
