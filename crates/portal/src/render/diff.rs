//! A line diff between two versions of an article, as an HTML table: one row per line with
//! its old and new line numbers, a sign and the escaped text; unchanged stretches are cut to
//! [`CONTEXT_LINES`] around each change, a row marking each cut.

use std::time::Duration;

use similar::{ChangeTag, TextDiff};

use super::escape::escape;
use super::html::sanitise;
use super::max_article_bytes;

/// Unchanged lines shown around each change.
const CONTEXT_LINES: usize = 3;
/// Myers' algorithm is quadratic in the worst case; past this it settles for a coarser diff.
const DIFF_TIMEOUT: Duration = Duration::from_millis(500);

/// The line diff from `old` to `new` as sanitised HTML (a `<table class="diff">`, rows
/// classed `diff-added`, `diff-removed`, `diff-context`). Texts larger than an article may
/// be are not compared.
pub fn diff(old: &str, new: &str) -> String {
    let limit = max_article_bytes();
    if old.len() > limit || new.len() > limit {
        return sanitise(&format!(
            "<p class=\"render-error\">These versions are larger than {limit} bytes and are not compared.</p>"
        ));
    }
    let diff = TextDiff::configure()
        .timeout(DIFF_TIMEOUT)
        .diff_lines(old, new);
    let mut html = String::from(
        "<table class=\"diff\" tabindex=\"0\"><thead><tr><th class=\"diff-old\">Old</th><th class=\"diff-new\">New</th><th class=\"diff-sign\"></th><th class=\"diff-text\">Line</th></tr></thead>\n",
    );
    let groups = diff.grouped_ops(CONTEXT_LINES);
    if groups.is_empty() {
        html.push_str("<tbody><tr class=\"diff-context\"><td class=\"diff-old\"></td><td class=\"diff-new\"></td><td class=\"diff-sign\"></td><td class=\"diff-text\">The versions are the same.</td></tr></tbody>\n");
    }
    for (index, group) in groups.iter().enumerate() {
        html.push_str("<tbody>\n");
        if index > 0 {
            html.push_str("<tr class=\"diff-hunk\"><td class=\"diff-old\">…</td><td class=\"diff-new\">…</td><td class=\"diff-sign\"></td><td class=\"diff-text\"></td></tr>\n");
        }
        for op in group {
            for change in diff.iter_changes(op) {
                let (class, sign) = match change.tag() {
                    ChangeTag::Insert => ("diff-added", "+"),
                    ChangeTag::Delete => ("diff-removed", "-"),
                    ChangeTag::Equal => ("diff-context", ""),
                };
                let number = |n: Option<usize>| n.map(|n| (n + 1).to_string()).unwrap_or_default();
                let text = change.value().trim_end_matches(['\n', '\r']);
                html.push_str(&format!(
                    "<tr class=\"{class}\"><td class=\"diff-old\">{}</td><td class=\"diff-new\">{}</td><td class=\"diff-sign\">{sign}</td><td class=\"diff-text\"><code>{}</code></td></tr>\n",
                    number(change.old_index()),
                    number(change.new_index()),
                    escape(text)
                ));
            }
        }
        html.push_str("</tbody>\n");
    }
    html.push_str("</table>");
    sanitise(&html)
}

#[cfg(test)]
mod tests {
    use super::diff;

    #[test]
    fn changed_lines_are_marked_with_their_numbers_and_escaped() {
        let old = "a\nb\n<script>x</script>\nd\n";
        let new = "a\nB\n<script>x</script>\nd\ne\n";
        let html = diff(old, new);
        assert!(html.contains("<tr class=\"diff-removed\"><td class=\"diff-old\">2</td><td class=\"diff-new\"></td><td class=\"diff-sign\">-</td><td class=\"diff-text\"><code>b</code></td></tr>"), "{html}");
        assert!(html.contains("<tr class=\"diff-added\"><td class=\"diff-old\"></td><td class=\"diff-new\">2</td><td class=\"diff-sign\">+</td><td class=\"diff-text\"><code>B</code></td></tr>"), "{html}");
        assert!(html.contains("<td class=\"diff-new\">5</td><td class=\"diff-sign\">+</td><td class=\"diff-text\"><code>e</code>"), "{html}");
        assert!(html.contains("&lt;script&gt;x&lt;/script&gt;"), "{html}");
        assert!(!html.contains("<script"));
    }

    #[test]
    fn long_unchanged_stretches_are_cut() {
        let old: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let new = old
            .replace("line 10\n", "ten\n")
            .replace("line 90\n", "ninety\n");
        let html = diff(&old, &new);
        assert_eq!(html.matches("diff-hunk").count(), 1, "{html}");
        assert!(!html.contains("line 50"));
        assert!(html.contains("line 7<") && html.contains("line 13<"));
        assert!(diff("same\n", "same\n").contains("The versions are the same."));
    }
}
