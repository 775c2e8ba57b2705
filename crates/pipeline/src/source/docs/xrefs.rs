//! Cross-references of a Sphinx or MyST site (`{doc}`/`:doc:` to a page, `{ref}`/`:ref:` to
//! a labelled section) as links to what they name, titled as the site titles it.
//!
//! A document is read alone (`super::markup`), so a role becomes a link to
//! `xref:doc:TARGET` or `xref:ref:LABEL` (`?` after the kind when the role gave no text of its
//! own) and each document notes its labels (`(label)=` or `.. _label:` over a heading). Once
//! every document is read, `super::cross_refs` points each link at the page or section.

use std::sync::LazyLock;

use regex::Regex;

use super::fences::{Fences, atx_heading};

/// Labels read from one document.
const MAX_LABELS: usize = 2_000;

/// What a `{doc}` or `{ref}` role shows before its target is known: a link to be resolved.
/// `content` is the role's text: `target`, or `Text <target>`.
pub(crate) fn role_link(kind: &str, content: &str) -> String {
    let content = content.trim();
    let (text, target) = match content.strip_suffix('>').and_then(|c| c.rsplit_once('<')) {
        Some((text, target)) if !text.trim().is_empty() => (Some(text.trim()), target.trim()),
        Some((_, target)) => (None, target.trim()),
        None => (None, content),
    };
    // A destination holds no spaces or parentheses; such a target is only text.
    if target.is_empty() || target.contains([' ', '(', ')', '[', ']']) {
        return escape(text.unwrap_or(target));
    }
    let shown = text.unwrap_or(target);
    let untitled = if text.is_none() { "?" } else { "" };
    format!("[{}](xref:{kind}{untitled}:{target})", escape(shown))
}

/// The labels of a document's sections: `(label)=` (MyST) or `.. _label:` (reStructuredText)
/// over a heading, with the heading's text.
pub(crate) fn labels(text: &str) -> Vec<(String, String)> {
    use super::frameworks::MYST_LABEL as MYST;
    static REST: LazyLock<Regex> =
        LazyLock::new(|| crate::builtin::regex(r"^\.\.\s+_([\w.:-][\w .:-]{0,199}):\s*$"));
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut fence = Fences::default();
    for (i, line) in lines.iter().enumerate() {
        if fence.is_code(line) || out.len() >= MAX_LABELS {
            continue;
        }
        let Some(label) = MYST
            .captures(line)
            .or_else(|| REST.captures(line))
            .and_then(|c| c.get(1))
        else {
            continue;
        };
        // The heading under it, past blank lines and further labels: ATX, or a title line
        // over an underline.
        let mut next = lines[i + 1..]
            .iter()
            .enumerate()
            .skip_while(|(_, l)| l.trim().is_empty() || MYST.is_match(l) || REST.is_match(l));
        let Some((at, first)) = next.next() else {
            continue;
        };
        let heading = match atx_heading(first) {
            Some((_, title)) => Some(title.trim().to_string()),
            None => lines
                .get(i + 1 + at + 1)
                .filter(|under| is_underline(under))
                .map(|_| first.trim().to_string()),
        };
        if let Some(heading) = heading.filter(|h| !h.is_empty()) {
            out.push((label.as_str().to_lowercase(), heading));
        }
    }
    out
}

fn is_underline(line: &str) -> bool {
    let trimmed = line.trim_end();
    trimmed.len() >= 3
        && trimmed
            .chars()
            .next()
            .is_some_and(|c| "=-~^\"'`#*+.:_".contains(c) && trimmed.chars().all(|d| d == c))
}

pub(super) fn escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('[', "\\[")
        .replace(']', "\\]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_name_the_heading_under_them() {
        let found = labels(
            "(first-steps)=\n\n## First Steps!\n\n```\n(not)=\n# x\n```\n\n.. _adapting:\n\nAdapting\n========\n",
        );
        assert_eq!(
            found,
            [
                ("first-steps".to_string(), "First Steps!".to_string()),
                ("adapting".to_string(), "Adapting".to_string())
            ]
        );
    }
}
