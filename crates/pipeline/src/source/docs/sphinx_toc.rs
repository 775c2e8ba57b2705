//! A Sphinx site's order: its index's `toctree` (MyST fences or reStructuredText), each page
//! followed by the pages of its own `toctree`, read as text.

use super::fences::{closes_fence, opens_fence};
use super::site_config::join;

/// The pages of a Sphinx site from its index's `toctree`, each followed by the pages of its
/// own `toctree` (a section's index listing its pages), depth first, up to [`MAX_TOCTREE_DEPTH`]
/// levels; every page once.
pub(super) fn sphinx_pages(
    read: &dyn Fn(&str) -> Option<String>,
    text: &str,
    index: &str,
    pages: &[&str],
) -> Vec<String> {
    fn visit(
        read: &dyn Fn(&str) -> Option<String>,
        text: &str,
        page: &str,
        pages: &[&str],
        depth: usize,
        out: &mut Vec<String>,
    ) {
        for entry in toctree_entries(text, page, pages) {
            if out.len() >= MAX_TOCTREE_PAGES || out.contains(&entry) {
                continue;
            }
            out.push(entry.clone());
            if depth < MAX_TOCTREE_DEPTH
                && let Some(text) = read(&entry)
            {
                visit(read, &text, &entry, pages, depth + 1, out);
            }
        }
    }
    let mut out = vec![index.to_string()];
    visit(read, text, index, pages, 1, &mut out);
    out
}

/// Levels of nested `toctree`s followed.
const MAX_TOCTREE_DEPTH: usize = 4;
/// Pages of a Sphinx site read from its `toctree`s, at most.
const MAX_TOCTREE_PAGES: usize = 2_000;
/// Entries of one `toctree` read, at most.
const MAX_TOCTREE_ENTRIES: usize = 500;

/// A Sphinx index and its `toctree` entries (MyST fences or reStructuredText), in order.
fn toctree_entries(text: &str, index: &str, pages: &[&str]) -> Vec<String> {
    let dir = index.rsplit_once('/').map_or("", |(d, _)| d);
    let mut order: Vec<String> = Vec::new();
    let mut in_tree: Option<(bool, Option<(char, usize)>)> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        match &in_tree {
            None => {
                if trimmed == ".. toctree::" {
                    in_tree = Some((true, None));
                } else if let Some((ch, len, info)) = opens_fence(line)
                    && info.trim().starts_with("{toctree}")
                {
                    in_tree = Some((false, Some((ch, len))));
                }
                continue;
            }
            Some((rst, fence)) => {
                let ended = match fence {
                    Some((ch, len)) => closes_fence(line, *ch, *len),
                    None => *rst && !trimmed.is_empty() && !line.starts_with([' ', '\t']),
                };
                if ended {
                    in_tree = None;
                    continue;
                }
            }
        }
        if trimmed.is_empty()
            || trimmed.starts_with(':')
            || trimmed == "---"
            || trimmed.contains("://")
        {
            continue;
        }
        // `Title <path>` or `path`.
        let entry = match trimmed.strip_suffix('>').and_then(|t| t.rsplit_once('<')) {
            Some((_, target)) => target.trim(),
            None => trimmed,
        };
        if entry.contains(':') && !entry.contains('/') {
            continue;
        }
        let base = join(dir, entry.trim_start_matches('/'));
        let found = [".md", ".rst", ".ipynb", "/index.md", "/index.rst"]
            .iter()
            .map(|ext| format!("{base}{ext}"))
            .find(|p| pages.contains(&p.as_str()))
            .unwrap_or_else(|| format!("{base}.md"));
        order.push(found);
        if order.len() >= MAX_TOCTREE_ENTRIES {
            break;
        }
    }
    order
}
