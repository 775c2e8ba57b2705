//! Links between symbols, as each language writes them, made Markdown links to
//! [`DOC_LINK`] + the target as written, for the render layer to resolve: Sphinx roles
//! (``:meth:`~pkg.Cls.run` ``), JSDoc `{@link X}`, Go `[pkg.Name]`, rustdoc
//! ``[`Value`]``. Other inline markup of reStructuredText (` ``code`` `, `` `text <url>`_ ``)
//! becomes Markdown here too.

use std::sync::LazyLock;

use regex::{Captures, Regex};

use crate::builtin::regex;

/// The scheme of a link to a symbol, before the render layer resolves it.
pub(crate) const DOC_LINK: &str = "doc:";

/// Longest link target kept as a link.
const MAX_TARGET_CHARS: usize = 200;

/// `[label](doc:target)`, or the label alone when the target is not a symbol path.
pub(super) fn link(label: &str, target: &str) -> String {
    let target = target.trim();
    let valid = !target.is_empty()
        && target.len() <= MAX_TARGET_CHARS
        && target
            .chars()
            .all(|c| c.is_alphanumeric() || "_.:~!#*/@$-".contains(c));
    if valid && !label.trim().is_empty() {
        format!("[{label}]({DOC_LINK}{target})")
    } else {
        label.to_string()
    }
}

/// A name as code: `` `name` ``, with a longer fence when it holds a backtick.
pub(super) fn code(name: &str) -> String {
    if name.contains('`') {
        format!("`` {name} ``")
    } else {
        format!("`{name}`")
    }
}

/// Markdown with its doc links read as their labels.
pub(crate) fn plain(markdown: &str) -> String {
    static LINK: LazyLock<Regex> = LazyLock::new(|| regex(r"\[([^\]\n]*)\]\(doc:[^)\s]*\)"));
    LINK.replace_all(markdown, "$1").into_owned()
}

/// `lines` with `convert` applied to every line outside fenced code blocks.
pub(super) fn outside_code(lines: &[String], convert: impl Fn(&str) -> String) -> Vec<String> {
    let mut fence = false;
    lines
        .iter()
        .map(|line| {
            if line.trim_start().starts_with("```") {
                fence = !fence;
                return line.clone();
            }
            if fence { line.clone() } else { convert(line) }
        })
        .collect()
}

/// reStructuredText's inline markup as Markdown: Sphinx roles as doc links (`:meth:`x``,
/// `:py:class:`~a.B``, `:class:`text <a.B>``; `!` turns the link off, `~` shows the last
/// part), ` ``code`` ` as code, `` `text <url>`_ `` as a link (its text and target may be
/// on two lines of `line`), `` `text`_ `` as its text, `:pep:`/`:rfc:` as links to the
/// documents. An escaped space (`` :class:`X`\ s ``, reST's way to glue a suffix on) is
/// nothing.
pub(super) fn rest_inline(line: &str) -> String {
    static ROLE: LazyLock<Regex> = LazyLock::new(|| {
        regex(r"(?::(?:py|js|rst|std|c|cpp|rb|go|sphinx)?)?:([a-z][a-z0-9_-]*):`([^`]+)`")
    });
    static LITERAL: LazyLock<Regex> = LazyLock::new(|| regex(r"``([^`]+)``"));
    static HYPERLINK: LazyLock<Regex> =
        LazyLock::new(|| regex(r"`([^`<]+?)\s*<(https?://[^>\s]+)>`__?"));
    static REFERENCE: LazyLock<Regex> = LazyLock::new(|| regex(r"`([^`]+)`__?"));
    let line = line.replace("\\ ", "");
    let line = LITERAL.replace_all(&line, |c: &Captures| code(&c[1]));
    let line = HYPERLINK.replace_all(&line, "[$1]($2)");
    let line = REFERENCE.replace_all(&line, "$1");
    ROLE.replace_all(&line, |c: &Captures| role(&c[1], &c[2]))
        .into_owned()
}

/// reST's backslash escapes read: `wait\_max` is `wait_max`, `callable\_` is `callable_`.
pub(super) fn rest_unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&next) = chars.peek()
            && next.is_ascii_punctuation()
            && next != '\\'
        {
            continue;
        }
        out.push(c);
    }
    out
}

fn role(name: &str, content: &str) -> String {
    let content = &rest_unescape(content);
    // `text <target>` gives the label explicitly.
    let (label, target) = match content
        .trim()
        .strip_suffix('>')
        .and_then(|c| c.rsplit_once('<'))
    {
        Some((text, target)) => (Some(text.trim().to_string()), target.trim().to_string()),
        None => (None, content.trim().to_string()),
    };
    match name {
        "meth" | "func" | "class" | "attr" | "exc" | "data" | "const" | "mod" | "obj" | "any"
        | "type" | "member" | "function" | "method" => {
            let no_link = target.starts_with('!');
            let target = target.trim_start_matches(['!']);
            let short = target.starts_with('~');
            // A leading dot asks Sphinx to search for the name from the current module
            // outwards (`.BadPayload`); it is not part of the name shown.
            let target = target.trim_start_matches('~').trim_start_matches('.');
            let shown = label.unwrap_or_else(|| {
                if short {
                    target.rsplit('.').next().unwrap_or(target).to_string()
                } else {
                    target.to_string()
                }
            });
            let shown = if matches!(name, "meth" | "func" | "function" | "method")
                && !shown.ends_with(')')
            {
                format!("{shown}()")
            } else {
                shown
            };
            if no_link {
                code(&shown)
            } else {
                link(&code(&shown), target)
            }
        }
        "pep" => format!(
            "[PEP {target}](https://peps.python.org/pep-{:0>4}/)",
            target.trim()
        ),
        "rfc" => format!(
            "[RFC {target}](https://www.rfc-editor.org/rfc/rfc{})",
            target.trim()
        ),
        "code" | "kbd" | "file" | "samp" | "envvar" | "option" | "program" | "command" | "math"
        | "regexp" => code(&label.unwrap_or(target)),
        // A page of the project's docs (`/concepts`, `../guide/install`): its title when
        // the role gives one, else the page's name without its path, never a bare path.
        "doc" => label.unwrap_or_else(|| {
            let page = target.trim_end_matches('/');
            let page = page.rsplit('/').next().unwrap_or(page);
            let page = page.strip_suffix(".rst").unwrap_or(page);
            let page = page.strip_suffix(".md").unwrap_or(page);
            page.replace(['-', '_'], " ")
        }),
        // :ref:, :term:, :abbr: and any other: the words alone.
        _ => label.unwrap_or_else(|| {
            target
                .split_once(" (")
                .map_or(target.as_str(), |(t, _)| t)
                .to_string()
        }),
    }
}

/// JSDoc and TSDoc inline links: `{@link X}`, `{@link X | text}`, `{@link X text}`,
/// `{@linkcode X}`, `{@linkplain X}`; a URL target stays a plain link.
pub(super) fn jsdoc_inline(line: &str) -> String {
    static LINK: LazyLock<Regex> = LazyLock::new(|| {
        regex(r"\{@(link|linkcode|linkplain)\s+([^}|\s]+)(?:\s*\|\s*|\s+)?([^}]*)\}")
    });
    LINK.replace_all(line, |c: &Captures| {
        let target = &c[2];
        let text = c[3].trim();
        if target.starts_with("http://") || target.starts_with("https://") {
            let text = if text.is_empty() { target } else { text };
            return format!("[{text}]({target})");
        }
        let label = if text.is_empty() || &c[1] == "linkcode" {
            code(if text.is_empty() { target } else { text })
        } else {
            text.to_string()
        };
        link(&label, target)
    })
    .into_owned()
}

/// Go doc links: `[Name]`, `[Name.Method]`, `[pkg.Name]`, `[*pkg.Name]`,
/// `[golang.org/x/net/html.Parse]`; brackets that a `[text]: url` definition of the
/// comment names (`defined`) are ordinary links and stay.
pub(super) fn go_inline(line: &str, defined: &[String]) -> String {
    static LINK: LazyLock<Regex> = LazyLock::new(|| {
        regex(
            r"(^|[^A-Za-z0-9_\]])\[(\*?(?:[a-z][a-z0-9_./-]*\.)?[A-Z][A-Za-z0-9_]*(?:\.[A-Z][A-Za-z0-9_]*)?)\]([^(\[:]|$)",
        )
    });
    LINK.replace_all(line, |c: &Captures| {
        let name = &c[2];
        if defined.iter().any(|d| d == name) {
            return c[0].to_string();
        }
        let target = name.trim_start_matches('*');
        format!("{}{}{}", &c[1], link(&code(name), target), &c[3])
    })
    .into_owned()
}
