//! A reStructuredText page of a Sphinx site read into Markdown, as far as a reader needs it:
//! over- and underlined headings (levels in the order the page first uses each style),
//! paragraphs, bullet lists, `::` literal blocks and `.. code-block:: lang` (also `code`,
//! `sourcecode`, `doctest`, `testcode`) as fences, admonitions as `:::note`/`:::warning`,
//! ``code`` and `` `text <url>`_ `` links (also when the link is broken over two lines),
//! simple tables (`===== =====` rules) as Markdown tables (a list of `first: rest` when the
//! table has no header), footnotes' text as a paragraph where it is written and their
//! references (`[#]_`) dropped, sphinx-tabs' and sphinx-design's tabs (`.. tabs::`,
//! `.. group-tab:: Linux`, `.. code-tab:: bash Linux`, `.. tab-item::`) as each tab's content
//! under its label in bold, `versionchanged`/`versionadded` titled as Sphinx does ("Changed
//! in version 0.5"), and a `::` after a space dropped. Every other directive and comment is
//! dropped with its indented body. Roles (``:func:`x` ``) are left to [`super::markup`].
//!
//! One pass over the lines; admonitions nest at most [`MAX_DEPTH`] deep.

use std::sync::LazyLock;

use regex::Regex;

const MAX_DEPTH: usize = 4;
/// Heading styles told apart; deeper ones share the last level.
const MAX_LEVELS: usize = 6;

const CODE_DIRECTIVES: &[&str] = &["code-block", "code", "sourcecode", "doctest", "testcode"];

/// Rows of one simple table read at most; a longer table is left as text.
const MAX_TABLE_ROWS: usize = 500;

pub(crate) fn to_markdown(text: &str) -> String {
    let joined = links_joined(text);
    let lines: Vec<&str> = joined.iter().map(String::as_str).collect();
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
        // A doctest block (`>>>` to the next blank line) is code: its `...` lines are no
        // heading's adornment.
        if line.starts_with(">>>") {
            while i < lines.len() && !lines[i].trim().is_empty() {
                out.push(lines[i].to_string());
                i += 1;
            }
            continue;
        }
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
            } else if depth < MAX_DEPTH && matches!(name.as_str(), "tabs" | "tab-set") {
                block(&body, depth + 1, styles, out);
            } else if depth < MAX_DEPTH
                && matches!(name.as_str(), "tab" | "group-tab" | "tab-item" | "code-tab")
            {
                // sphinx-tabs and sphinx-design: each tab's content under its label in bold.
                let (language, label) = match name.as_str() {
                    "code-tab" => argument.split_once(' ').unwrap_or((argument, argument)),
                    _ => ("", argument),
                };
                out.push(String::new());
                out.push(format!("**{}**", inline(label.trim())));
                out.push(String::new());
                if name == "code-tab" {
                    fence(out, language, &body);
                } else {
                    block(&body, depth + 1, styles, out);
                }
            } else if let Some(kind) = admonition(&name).filter(|_| depth < MAX_DEPTH) {
                out.push(String::new());
                out.push(format!(":::{kind}"));
                let argument = match name.as_str() {
                    "versionadded" => format!("New in version {argument}."),
                    "versionchanged" => format!("Changed in version {argument}."),
                    "deprecated" => format!("Deprecated since version {argument}."),
                    _ => argument.to_string(),
                };
                if !argument.is_empty() {
                    out.push(inline(&argument));
                    // `.. warning:: It is…` goes on in the body's first line: one paragraph.
                    let continued = !matches!(
                        name.as_str(),
                        "versionadded" | "versionchanged" | "deprecated" | "admonition"
                    );
                    if !(continued && body.first().is_some_and(|l| !l.trim().is_empty())) {
                        out.push(String::new());
                    }
                }
                block(&body, depth + 1, styles, out);
                out.push(":::".into());
                out.push(String::new());
            }
            continue;
        }
        if let Some(found) = FOOTNOTE.captures(line) {
            // The footnote's text where it is written, its body following.
            let (body, end) = indented(lines, i + 1, indent_of(line));
            i = end.max(i + 1);
            out.push(String::new());
            out.push(inline(found.get(1).map_or("", |m| m.as_str())));
            out.extend(body.iter().map(|l| inline(l)));
            continue;
        }
        if TABLE_BORDER.is_match(line)
            && let Some((table, end)) = simple_table(lines, i)
        {
            out.push(String::new());
            out.extend(table);
            out.push(String::new());
            i = end;
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
            if shown.ends_with([' ', '\t']) {
                // `text ::` shows `text`.
                if !shown.trim().is_empty() {
                    out.push(inline(shown.trim_end()));
                }
            } else if !shown.trim().is_empty() {
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

/// A simple table starting at its top rule `lines[from]`: Markdown lines, and the line
/// after its bottom rule. `None` when it is not one (no bottom rule before a blank line).
fn simple_table(lines: &[&str], from: usize) -> Option<(Vec<String>, usize)> {
    let border = lines[from].trim_end();
    let columns: Vec<usize> = border
        .char_indices()
        .filter(|(at, c)| *c == '=' && (*at == 0 || border.as_bytes()[at - 1] == b' '))
        .map(|(at, _)| at)
        .collect();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut header = None;
    let mut j = from + 1;
    loop {
        let line = *lines.get(j)?;
        if line.trim().is_empty() || rows.len() > MAX_TABLE_ROWS {
            return None;
        }
        j += 1;
        if TABLE_BORDER.is_match(line) {
            let last = lines.get(j).is_none_or(|l| l.trim().is_empty());
            if last || header.is_some() {
                break;
            }
            header = Some(rows.len());
            continue;
        }
        if line.trim_start().starts_with("---") && line.trim().chars().all(|c| c == '-' || c == ' ')
        {
            continue;
        }
        let cells: Vec<String> = columns
            .iter()
            .enumerate()
            .map(|(k, start)| {
                let end = columns
                    .get(k + 1)
                    .copied()
                    .unwrap_or(line.len())
                    .max(*start);
                line.get(*start..end.min(line.len()))
                    .or_else(|| line.get(*start..))
                    .unwrap_or("")
                    .trim()
                    .to_string()
            })
            .collect();
        // A row whose first cell is blank continues the one above.
        match rows.last_mut() {
            Some(above) if cells.first().is_some_and(String::is_empty) => {
                for (cell, more) in above.iter_mut().zip(cells) {
                    if !more.is_empty() {
                        cell.push(' ');
                        cell.push_str(&more);
                    }
                }
            }
            _ => rows.push(cells),
        }
    }
    let cell = |c: &str| inline(c).replace('|', "\\|");
    let mut out = Vec::new();
    match header.filter(|h| *h > 0) {
        Some(h) => {
            for (k, row) in rows.iter().enumerate() {
                let cells: Vec<String> = row.iter().map(|c| cell(c)).collect();
                out.push(format!("| {} |", cells.join(" | ")));
                if k + 1 == h {
                    out.push(format!("|{}", " --- |".repeat(row.len())));
                }
            }
        }
        None => {
            for row in &rows {
                let mut cells = row.iter().filter(|c| !c.is_empty()).map(|c| cell(c));
                let first = cells.next().unwrap_or_default();
                let rest: Vec<String> = cells.collect();
                out.push(if rest.is_empty() {
                    format!("- {first}")
                } else {
                    format!("- {first}: {}", rest.join(" "))
                });
            }
        }
    }
    Some((out, j))
}

/// The lines, with a link broken over two lines (`` `Jinja `` then `` <https://…>`_ ``), or a
/// role (`` :ref:`binary `` then `` mode <tut-files>` ``), joined into the first.
fn links_joined(text: &str) -> Vec<String> {
    static ROLE_OPEN: LazyLock<Regex> =
        LazyLock::new(|| crate::builtin::regex(r":[A-Za-z][\w:.+-]{0,40}:`[^`]*$"));
    let mut out: Vec<String> = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let mut line = line.to_string();
        let lone = LITERAL.replace_all(&line, "").matches('`').count();
        let role_open = ROLE_OPEN.is_match(&line);
        if lone % 2 == 1
            && let Some(next) = lines.peek()
            && (next.contains("`_") || role_open && next.contains('`'))
            && !next.trim().is_empty()
            && line.len() < 10_000
        {
            line.push(' ');
            line.push_str(next.trim_start());
            lines.next();
        }
        out.push(line);
    }
    out
}

/// Inline markup: ``code`` as `code`, `` `text <url>`_ `` as a link, `` `text`_ `` as text,
/// footnote references dropped.
fn inline(line: &str) -> String {
    let line = FOOTNOTE_REFERENCE.replace_all(line, "");
    let line = LITERAL.replace_all(&line, "`$1`");
    let line = LINK.replace_all(&line, "[$1]($2)");
    NAMED.replace_all(&line, "$1").into_owned()
}

static DIRECTIVE: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r"^\s*\.\.\s+([\w:.-]{1,80})::(?:\s+(.*))?$"));
static COMMENT: LazyLock<Regex> = LazyLock::new(|| crate::builtin::regex(r"^\s*\.\.(\s.*)?$"));
static OPTION: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r"^\s*:[A-Za-z][\w-]*:(\s.*)?$"));
static TABLE_BORDER: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r"^={2,}(?: +={2,})+ *$"));
static FOOTNOTE: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r"^\.\.\s+\[(?:#[\w-]*|\d{1,4}|\*)\]\s+(.*)$"));
static FOOTNOTE_REFERENCE: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r" ?\[(?:#[\w-]*|\d{1,4}|\*)\]_"));
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
    fn a_doctest_blocks_continuation_lines_are_no_heading() {
        let page = "It returns the object:\n\n>>> class Foo:\n...     def __init__(self, value):\n...         self.value = value\n...\n>>> Foo(1).value\n1\n\nAfter.\n";
        let out = to_markdown(page);
        assert!(
            out.contains("...         self.value = value\n...\n>>> Foo(1).value"),
            "{out}"
        );
        assert!(!out.contains('#'), "{out}");
    }

    #[test]
    fn tables_links_footnotes_and_versions() {
        let page = "Converter types:\n\n========== ==========\n``string`` (default) any text\n``int``    positive\n           integers\n========== ==========\n\n=====  =====\nName   Kind\n=====  =====\na|b    x\n=====  =====\n\nFlask configures the `Jinja\n<https://jinja.pal/>`_ engine and `g` [#]_ objects. ::\n\n    code\n\n.. [#] Unsure what `g` is?\n   It stores data.\n\n.. versionchanged:: 0.5\n\n    Reads more.\n";
        assert_eq!(
            to_markdown(page),
            "Converter types:\n\n\n- `string`: (default) any text\n- `int`: positive integers\n\n\n\n| Name | Kind |\n| --- | --- |\n| a\\|b | x |\n\n\nFlask configures the [Jinja](https://jinja.pal/) engine and `g` objects.\n\n```\ncode\n```\n\n\n\nUnsure what `g` is?\nIt stores data.\n\n\n:::note\nChanged in version 0.5.\n\nReads more.\n:::\n"
        );
        let tabs = "Create it:\n\n.. tabs::\n\n   .. group-tab:: macOS/Linux\n\n      .. code-block:: text\n\n         $ mkdir app\n\n   .. code-tab:: bat Windows\n\n      > mkdir app\n";
        assert_eq!(
            to_markdown(tabs),
            "Create it:\n\n\n**macOS/Linux**\n\n\n```text\n$ mkdir app\n```\n\n\n\n**Windows**\n\n\n```bat\n> mkdir app\n```\n"
        );
        // A rule without its bottom rule stays text.
        assert!(to_markdown("==== ====\na    b\n\nText").contains("==== ===="));
    }

    #[test]
    fn a_role_broken_over_two_lines_is_read_whole() {
        let page = ".. warning:: Open files in :ref:`binary\n             mode <tut-files>`. Requests sets\n             the ``Content-Length`` header.\n";
        assert_eq!(
            to_markdown(page),
            "\n:::warning\nOpen files in :ref:`binary mode <tut-files>`. Requests sets\nthe `Content-Length` header.\n:::\n"
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
