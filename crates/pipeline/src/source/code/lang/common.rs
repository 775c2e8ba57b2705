//! What every language module uses: names, headers and signatures read from the syntax tree
//! without comments, bounded values, and comment lines.

use tree_sitter::Node;

use crate::source::code::tree::Source;

/// The child in `def`'s `name` field, when it is of one of `kinds`.
pub(crate) fn name_of<'t>(def: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    def.child_by_field_name("name")
        .filter(|n| kinds.contains(&n.kind()))
}

/// `def`'s text from `from` up to its body (or all of it when it has none), without
/// comments.
pub(crate) fn header(def: Node, from: usize, src: &Source) -> String {
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
pub(crate) const MAX_VALUE_CHARS: usize = 800;

/// A type's declaration (a TypeScript type alias or interface) is shown whole, as TypeDoc
/// shows it, within these bounds.
const MAX_TYPE_LINES: usize = 150;
const MAX_TYPE_CHARS: usize = 8_000;

/// `text` cut to [`MAX_VALUE_LINES`] and [`MAX_VALUE_CHARS`], with `…` where it was cut.
pub(crate) fn bounded(text: &str) -> String {
    bounded_to(text, MAX_VALUE_LINES, MAX_VALUE_CHARS)
}

/// A type's declaration, cut only past [`MAX_TYPE_LINES`] or [`MAX_TYPE_CHARS`].
pub(crate) fn bounded_type(text: &str) -> String {
    bounded_to(text, MAX_TYPE_LINES, MAX_TYPE_CHARS)
}

fn bounded_to(text: &str, max_lines: usize, max_chars: usize) -> String {
    let mut lines = text.lines();
    let kept: Vec<&str> = lines.by_ref().take(max_lines).collect();
    let mut out = truncate(&kept.join("\n"), max_chars);
    if lines.next().is_some() && !out.ends_with('…') {
        out.push_str("\n…");
    }
    out
}

pub(crate) fn body_start(def: Node) -> usize {
    def.child_by_field_name("body")
        .map_or(def.end_byte(), |b| b.start_byte())
}

/// The comments in `leading` (the comment and attribute siblings right before `node`),
/// attributes skipped, in file order. Stops at a blank line when `adjacent` is set.
pub(crate) fn preceding_comments<'a>(
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
pub(crate) fn comment_lines(comments: &[&str]) -> Vec<String> {
    let mut lines = Vec::new();
    for comment in comments {
        let comment = comment.trim();
        if let Some(block) = comment.strip_prefix("/*") {
            let block = block.trim_start_matches('*').trim_end_matches("*/");
            let starred = block
                .lines()
                .skip(1)
                .filter(|l| !l.trim().is_empty())
                .all(|l| l.trim_start().starts_with('*'));
            if starred {
                for line in block.lines() {
                    let line = line.trim();
                    let line = line.strip_prefix('*').unwrap_or(line);
                    lines.push(without_one_space(line));
                }
            } else {
                // A block without stars (a Go package comment in `/* … */`): its lines as
                // written, less the indentation they share, so that indented code stays code.
                let rest: Vec<&str> = block.lines().skip(1).collect();
                let indent = rest
                    .iter()
                    .filter(|l| !l.trim().is_empty())
                    .map(|l| l.len() - l.trim_start().len())
                    .min()
                    .unwrap_or(0);
                if let Some(first) = block.lines().next().map(str::trim)
                    && !first.is_empty()
                {
                    lines.push(first.to_string());
                }
                for line in rest {
                    lines.push(
                        line.get(indent..)
                            .unwrap_or(line.trim_start())
                            .trim_end()
                            .to_string(),
                    );
                }
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

pub(crate) fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let cut: String = text.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

/// A comment line without the space after its marker; the rest of its indentation is kept
/// for the code examples it may hold.
fn without_one_space(line: &str) -> String {
    line.strip_prefix(' ')
        .unwrap_or(line)
        .trim_end()
        .to_string()
}

/// The class names a base list names, in order: `_Base, pkg.Mixin[T], metaclass=M` (Python)
/// or `KyOptions, Omit<RequestInit, 'headers'>` (TypeScript) gives `_Base`, `Mixin` or
/// `KyOptions`, `Omit`: split at the commas outside brackets, each without its type
/// arguments and module path; keyword arguments and unpacked lists are no base.
pub(crate) fn base_type_names(list: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for c in list.chars() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        if depth == 0 && !matches!(c, ')' | ']' | '}' | '>') {
            current.push(c);
        }
    }
    parts.push(current);
    parts
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.contains('=') && !p.starts_with('*'))
        .filter_map(|p| {
            let last = p.rsplit('.').next().unwrap_or(p).trim();
            (!last.is_empty()
                && last
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '$'))
            .then(|| last.to_string())
        })
        .collect()
}
