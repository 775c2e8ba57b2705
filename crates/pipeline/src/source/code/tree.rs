//! What a language module is handed while the walk goes down a file's syntax tree: the node's
//! place (its ancestors and leading comments), the file's text, and the declaration it
//! returns.

use tree_sitter::Node;

use super::lang::rust::{Gate, Requires};
use super::symbol::SymbolKind;

/// A node on the walk's way down.
pub(crate) struct Frame<'t> {
    pub node: Node<'t>,
    /// The comment and attribute siblings right before it, in file order.
    pub leading: Vec<Node<'t>>,
    /// Rust: the `cfg` gates of this node and of every ancestor (see `cfg`).
    pub gate: Gate,
}

/// Where the walk found a node.
pub(crate) struct Place<'a, 't> {
    /// Its ancestors, the root first.
    pub(crate) ancestors: &'a [Frame<'t>],
    /// The comment and attribute siblings right before it, in file order.
    pub leading: &'a [Node<'t>],
}

impl<'a, 't> Place<'a, 't> {
    /// The ancestor `up` levels above the node: 0 is its parent.
    pub fn up(&self, up: usize) -> Option<&'a Frame<'t>> {
        let index = self.ancestors.len().checked_sub(up + 1)?;
        self.ancestors.get(index)
    }

    /// The kind of that ancestor; empty above the root.
    pub fn kind_up(&self, up: usize) -> &'t str {
        self.up(up).map_or("", |frame| frame.node.kind())
    }
}

/// The text of the file being read.
pub(crate) struct Source<'a> {
    pub text: &'a str,
    /// Rust: the modules `pub use` lines of the file reach into, found on first use.
    pub(crate) reexported: std::cell::OnceCell<std::collections::HashSet<&'a str>>,
    /// TypeScript: the top-level declarations the file exports by name (`export { a as b }`,
    /// `export default a`), with the names they are exported under, found on first use.
    pub(crate) exported_locals: std::cell::OnceCell<std::collections::HashMap<String, Vec<String>>>,
}

impl<'a> Source<'a> {
    pub fn new(text: &'a str) -> Self {
        Self {
            text,
            reexported: std::cell::OnceCell::new(),
            exported_locals: std::cell::OnceCell::new(),
        }
    }

    /// Whether a `pub use` line of the file names something inside its module `name`
    /// (`pub use self::inner::X`, `pub use inner::*`): the file is scanned once, however many
    /// modules ask.
    pub fn reexports_from(&self, name: &str) -> bool {
        self.reexported
            .get_or_init(|| {
                let mut found = std::collections::HashSet::new();
                for line in self.text.lines() {
                    let Some(path) = line.trim_start().strip_prefix("pub use ") else {
                        continue;
                    };
                    let path = path.trim_start();
                    if let Some((first, _)) = path.split_once("::") {
                        found.insert(first);
                    }
                    for (at, _) in path.match_indices("self::") {
                        let rest = &path[at + "self::".len()..];
                        if let Some((module, _)) = rest.split_once("::") {
                            found.insert(module);
                        }
                    }
                }
                found
            })
            .contains(name)
    }

    pub fn of(&self, node: Node) -> &'a str {
        self.text.get(node.byte_range()).unwrap_or("")
    }

    pub fn between(&self, start: usize, end: usize) -> &'a str {
        self.text.get(start..end).unwrap_or("")
    }
}

/// What a language module found about one declaration.
pub(crate) struct Declaration<'tree> {
    pub kind: SymbolKind,
    pub name: String,
    pub signature: String,
    /// Doc comment lines without their markers.
    pub doc: Vec<String>,
    /// The type a member belongs to.
    pub parent: Option<String>,
    /// A signature without a body (an overload).
    pub stub: bool,
    /// The tokens of this node, up to `hash_end` (a byte offset), make the symbol's hash.
    pub node: Node<'tree>,
    pub hash_end: usize,
    /// Rust: the crate features it is compiled with only (set by [`super::walk::declarations`]).
    pub requires: Option<Requires>,
}
