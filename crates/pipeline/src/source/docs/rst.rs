//! A reStructuredText page of a Sphinx site read into Markdown, as far as a reader needs it:
//! over- and underlined headings (levels in the order the page first uses each style),
//! paragraphs, bullet lists, `::` literal blocks and `.. code-block:: lang` (also `code`,
//! `sourcecode`, `doctest`, `testcode`) as fences, admonitions as `:::note`/`:::warning`,
//! ``code`` and `` `text <url>`_ `` links. Every other directive and comment is dropped with
//! its indented body. Roles (``:func:`x` ``) are left to [`super::markup`].
//!
//! One pass over the lines; admonitions nest at most [`MAX_DEPTH`] deep.

use std::sync::LazyLock;

use regex::Regex;

const MAX_DEPTH: usize = 4;
/// Heading styles told apart; deeper ones share the last level.
const MAX_LEVELS: usize = 6;

const CODE_DIRECTIVES: &[&str] = &["code-block", "code", "sourcecode", "doctest", "testcode"];

pub(crate) fn to_markdown(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut styles: Vec<(char, bool)> = Vec::new();
    let mut out = Vec::with_capacity(lines.len());
    block(&lines, 0, &mut styles, &mut out);
    out.join("\n")
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// A line of one repeated punctuation character, as headings are adorned.
fn adornment(line: &str) -> Option<char> {
    let trimmed = line.trim_end();
    let ch = trimmed.chars().next()?;
    (trimmed.len() >= 3
        && !line.starts_with(' ')
        && "=-~^\"'*+#`:._".contains(ch)
        && trimmed.chars().all(|c| c == ch))
    .then_some(ch)
}

/// The indented body that starts at `from`: its lines (blank lines inside kept), dedented,
/// and where it ends.
fn indented<'a>(lines: &[&'a str], from: usize, parent: usize) -> (Vec<&'a str>, usize) {
    let mut end = from;
    let mut last_text = from;
    while end < lines.len() {
        let line = lines[end];
        if line.trim().is_empty() {
            end += 1;
            continue;
        }
        if indent_of(line) <= parent {
            break;
        }
        end += 1;
        last_text = end;
    }
    let body = &lines[from..last_text];
    let width = body
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| indent_of(l))
        .min()
        .unwrap_or(0);
    let body = body
        .iter()
        .map(|l| l.get(width..).unwrap_or("").trim_end())
        .collect();
    (body, last_text)
}

fn fence(out: &mut Vec<String>, language: &str, body: &[&str]) {
    let body: Vec<&str> = body
        .iter()
        .copied()
        .skip_while(|l| l.trim().is_empty())
        .collect();
    if body.is_empty() {
        return;
    }
    let run = body
        .iter()
        .flat_map(|l| l.split(|c| c != '`'))
        .map(str::len)
        .max()
        .unwrap_or(0);
    let ticks = "`".repeat(run.max(2) + 1);
    out.push(String::new());
    out.push(format!("{ticks}{language}"));
    out.extend(body.iter().map(|l| l.to_string()));
    out.push(ticks);
    out.push(String::new());
}

fn block(lines: &[&str], depth: usize, styles: &mut Vec<(char, bool)>, out: &mut Vec<String>) {
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        // A heading: text under an adornment, optionally over one too.
        let over = adornment(line);
        if let (Some(ch), Some(text), Some(under)) = (over, lines.get(i + 1), lines.get(i + 2))
            && !text.trim().is_empty()
            && adornment(under) == Some(ch)
        {
            out.push(heading(styles, (ch, true), text.trim()));
            i += 3;
            continue;
        }
        if let Some(under) = lines.get(i + 1).and_then(|l| adornment(l)) {
            let text = line.trim();
            if !text.is_empty()
                && !line.starts_with(' ')
                && adornment(line).is_none()
                && lines[i + 1].trim_end().len() >= text.chars().count().min(3)
            {
                out.push(heading(styles, (under, false), text));
                i += 2;
                continue;
            }
        }
        if over.is_some() {
            i += 1;
            continue;
        }
        if let Some(found) = DIRECTIVE.captures(line) {
            let name = found.get(1).map_or("", |m| m.as_str()).to_ascii_lowercase();
            let argument = found.get(2).map_or("", |m| m.as_str()).trim();
            let (body, end) = indented(lines, i + 1, indent_of(line));
            i = end.max(i + 1);
            let body: Vec<&str> = body
                .into_iter()
                .skip_while(|l| l.trim().is_empty() || OPTION.is_match(l))
                .collect();
            if CODE_DIRECTIVES.contains(&name.as_str()) {
                let language = match argument.split_whitespace().next() {
                    Some(language) if name != "doctest" => language,
                    _ if name == "doctest" => "pycon",
                    _ => "",
                };
                fence(out, language, &body);
            } else if let Some(kind) = admonition(&name).filter(|_| depth < MAX_DEPTH) {
                out.push(String::new());
                out.push(format!(":::{kind}"));
                if !argument.is_empty() {
                    out.push(inline(argument));
                    out.push(String::new());
                }
                block(&body, depth + 1, styles, out);
                out.push(":::".into());
                out.push(String::new());
            }
            continue;
        }
        if line.trim_start().starts_with("..") && COMMENT.is_match(line) {
            let (_, end) = indented(lines, i + 1, indent_of(line));
            i = end.max(i + 1);
            continue;
        }
        let trimmed = line.trim_end();
        if trimmed.ends_with("::") && !trimmed.trim_start().starts_with("..") {
            // A literal block follows: `text::` shows `text:`, a bare `::` nothing.
            let shown = trimmed.trim_end_matches(':');
            if !shown.trim().is_empty() {
                out.push(inline(&format!("{shown}:")));
            }
            let (body, end) = indented(lines, i + 1, indent_of(line));
            i = end.max(i + 1);
            fence(out, "", &body);
            continue;
        }
        out.push(inline(&ENUMERATED.replace(line, "${1}1. ")));
        i += 1;
    }
}

fn heading(styles: &mut Vec<(char, bool)>, style: (char, bool), text: &str) -> String {
    let level = match styles.iter().position(|s| *s == style) {
        Some(at) => at + 1,
        None => {
            if styles.len() < MAX_LEVELS {
                styles.push(style);
            }
            styles.len()
        }
    };
    format!("{} {}", "#".repeat(level.min(MAX_LEVELS)), inline(text))
}

fn admonition(name: &str) -> Option<&'static str> {
    Some(match name {
        "note" | "important" | "seealso" | "admonition" | "versionadded" | "versionchanged" => {
            "note"
        }
        "tip" | "hint" => "tip",
        "warning" | "caution" | "danger" | "attention" | "error" | "deprecated" => "warning",
        _ => return None,
    })
}

/// Inline markup: ``code`` as `code`, `` `text <url>`_ `` as a link, `` `text`_ `` as text.
fn inline(line: &str) -> String {
    let line = LITERAL.replace_all(line, "`$1`");
    let line = LINK.replace_all(&line, "[$1]($2)");
    NAMED.replace_all(&line, "$1").into_owned()
}

static DIRECTIVE: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r"^\s*\.\.\s+([\w:.-]{1,80})::(?:\s+(.*))?$"));
static COMMENT: LazyLock<Regex> = LazyLock::new(|| crate::builtin::regex(r"^\s*\.\.(\s.*)?$"));
static OPTION: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r"^\s*:[A-Za-z][\w-]*:(\s.*)?$"));
static ENUMERATED: LazyLock<Regex> = LazyLock::new(|| crate::builtin::regex(r"^(\s*)#\.\s"));
static LITERAL: LazyLock<Regex> = LazyLock::new(|| crate::builtin::regex(r"``([^`\n]{1,500}?)``"));
static LINK: LazyLock<Regex> = LazyLock::new(|| {
    crate::builtin::regex(r"(?:^|\B)`([^`<\n]{1,300}?)\s*<(https?://[^>\s]{1,500})>`__?")
});
static NAMED: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r"(?:^|\B)`([^`<\n]{1,300})`__?\b?"));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sphinx_page_reads_as_markdown() {
        let page = "=========\nMarkupSafe\n=========\n\n.. module:: markupsafe\n\nMarkupSafe escapes ``<``. See :func:`escape` and `Jinja <https://jinja.pal>`_.\n\n.. code-block:: python\n    :emphasize-lines: 1\n\n    from markupsafe import escape\n    escape(\"<\")\n\nInstalling\n----------\n\n.. code-block:: text\n\n    pip install -U MarkupSafe\n\n* one\n* two\n\n#. first\n\nAn example::\n\n    >>> 1\n    1\n\n.. note::\n\n    Careful.\n\n.. toctree::\n    escaping\n\nUsage\n~~~~~\n\nText.\n";
        assert_eq!(
            to_markdown(page),
            "# MarkupSafe\n\n\nMarkupSafe escapes `<`. See :func:`escape` and [Jinja](https://jinja.pal).\n\n\n```python\nfrom markupsafe import escape\nescape(\"<\")\n```\n\n\n## Installing\n\n\n```text\npip install -U MarkupSafe\n```\n\n\n* one\n* two\n\n1. first\n\nAn example:\n\n```\n>>> 1\n1\n```\n\n\n\n:::note\nCareful.\n:::\n\n\n\n### Usage\n\nText."
        );
    }

    #[test]
    fn hostile_pages_stay_bounded() {
        let _ = to_markdown(&".. note::\n".repeat(5_000));
        let _ = to_markdown(&"=\n".repeat(10_000));
        let _ = to_markdown(&"`".repeat(100_000));
        let _ = to_markdown("x::");
    }
}
