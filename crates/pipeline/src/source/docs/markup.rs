//! The markup of docs sites read into the plain Markdown the rest of the pipeline knows, so
//! that an article shows what the author meant rather than the source of a site's page:
//!
//! - MyST directives (```` ```{note} ````, `:::{warning}`) become admonitions (`:::note`),
//!   `{code-block}` a fence; the ones that only a Sphinx build can resolve (`{eval-rst}`,
//!   `{toctree}`, `{autofunction}`, `{include}`…) are dropped and named in [`Markup::dropped`];
//! - MyST roles (``{func}`pkg.fn` ``) and reStructuredText roles (``:meth:`x` ``) become code,
//!   or their text when they name a page (``{doc}`Install <install>` ``);
//! - a docs framework's ES imports and exports are dropped; its components become ours or
//!   Markdown: `<Tabs>`/`<TabItem label="pip">` a labelled paragraph per tab, `<Callout
//!   type="warning">` and `<Admonition>` an admonition;
//! - HTML headings (`<h2 align="center">Usage</h2>`) become Markdown headings and `<hr>` is
//!   dropped;
//! - reference-style links (`[Git][git-site]`, `[examples]`) are resolved with their
//!   definitions wherever those are in the file, so that a section shown alone keeps its
//!   links; a rustdoc-style ``[`Handler`]`` with no definition is code.
//!
//! Every pass is linear in the text; directives nest at most [`MAX_DEPTH`] deep.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::directives::{
    CODE_DIRECTIVES, admonition, close_dangling_colon, code_language, is_console_prompt,
    session_language,
};
use super::fences::{Fences, closes_fence, opens_fence};
use super::frameworks::{
    MDX_COMMENT, MKDOCSTRINGS, MYST_LABEL, Twoslash, VUEPRESS, book_variable, fence_label,
    file_marker, foreign_components, foreign_tag_line, hidden_lines, hides_its_code, icon_names,
    install_command, is_cell_break, is_hidden_line, is_highlight_comment, longest_backtick_run,
    mdbook_directive, note_dropped, site_leftovers, terminal_text, twoslash, unhidden,
    unresolved_include, without_book_variables, without_doctest_flags, without_plugin_flags,
    without_version_placeholder,
};
use super::shortcodes::{callouts, definition_lists, emoji};
use super::tabs;

/// Directives inside directives deeper than this are dropped.
const MAX_DEPTH: usize = 4;
/// Link definitions read from one document.
const MAX_DEFINITIONS: usize = 2_000;

/// A document's Markdown with its site markup read, and what could not be shown.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Markup {
    pub markdown: String,
    /// Directives dropped because only the docs site's build can resolve them.
    pub dropped: Vec<String>,
}

pub(crate) fn read(markdown: &str) -> Markup {
    let definitions = definitions(markdown);
    let mut out = Markup::default();
    let lines = super::pymdown::read(tabs::code_tabs(markdown.lines()));
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let lines = callouts(definition_lists(tabs::read(super::html_blocks::read(
        &lines,
    ))));
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let mut kept = Vec::with_capacity(lines.len());
    block(&lines, 0, &definitions, &mut kept, &mut out.dropped);
    out.markdown = kept.join("\n");
    out
}

/// A directive's opening line: its name, argument, fence char and length.
fn directive(line: &str) -> Option<(String, String, char, usize)> {
    let trimmed = line.trim_start();
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let ch = trimmed
        .chars()
        .next()
        .filter(|c| matches!(c, '`' | '~' | ':'))?;
    let len = trimmed.chars().take_while(|c| *c == ch).count();
    if len < 3 {
        return None;
    }
    let info = trimmed[len..].trim();
    let rest = info.strip_prefix('{')?;
    let close = rest.find('}')?;
    let name = rest[..close].trim();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'))
    {
        return None;
    }
    Some((
        name.to_ascii_lowercase(),
        rest[close + 1..].trim().to_string(),
        ch,
        len,
    ))
}

fn closes(line: &str, ch: char, len: usize) -> bool {
    if ch == ':' {
        let trimmed = line.trim();
        trimmed.len() >= len && trimmed.chars().all(|c| c == ':')
    } else {
        closes_fence(line, ch, len)
    }
}

/// The lines of `lines`, read: directives converted or dropped, components mapped, roles,
/// headings and links rewritten.
fn block(
    lines: &[&str],
    depth: usize,
    definitions: &Definitions,
    out: &mut Vec<String>,
    dropped: &mut Vec<String>,
) {
    let mut fence: Option<(char, usize)> = None;
    // The open code block's language, and whether its output was coloured with HTML.
    let mut language = String::new();
    let mut coloured = false;
    // The prefix of the lines that mdBook hides in the open code block.
    let mut hidden: Option<String> = None;
    // Whether the open code block's hidden lines are shown (its visible lines are comments).
    let mut unhide = false;
    // Inside a file of a code block the site does not show (`// file: x.ts noEmit`).
    let mut unshown = false;
    // Where the open code block's lines start in `out` (a twoslash `// ---cut---` drops
    // what came before it).
    let mut code_start = 0;
    let mut tabs = Tabs::default();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if let Some((ch, len)) = fence {
            if closes_fence(line, ch, len) {
                fence = None;
                hidden = None;
                unshown = false;
            } else if let Some(no_emit) = file_marker(line) {
                unshown = no_emit;
                continue;
            } else if unshown {
                continue;
            } else if let Some(directive) = twoslash(line) {
                match directive {
                    Twoslash::Cut => out.truncate(code_start),
                    Twoslash::CutAfter => unshown = true,
                    Twoslash::Directive => {}
                }
                continue;
            } else if let Some(name) = mdbook_directive(line)
                .or_else(|| unresolved_include(line))
                .or_else(|| book_variable(line))
            {
                note_dropped(dropped, name);
                continue;
            } else if let Some(prefix) = hidden
                .as_deref()
                .filter(|prefix| is_hidden_line(line, prefix))
            {
                if unhide {
                    out.push(unhidden(line, prefix));
                }
                continue;
            } else if is_highlight_comment(line) {
                continue;
            } else if hidden.as_deref() == Some("#") && line.trim_start().starts_with("##") {
                // mdBook's escape for a line that starts with `#`.
                out.push(line.replacen("##", "#", 1));
                continue;
            }
            let line = without_version_placeholder(without_doctest_flags(line));
            out.push(terminal_text(line, &language, &mut coloured));
            continue;
        }
        if let Some(name) = mdbook_directive(line).or_else(|| unresolved_include(line)) {
            note_dropped(dropped, name);
            continue;
        }
        let unfilled;
        let line = match book_variable(line) {
            Some(name) => {
                note_dropped(dropped, name);
                match without_book_variables(line) {
                    Some(kept) => {
                        unfilled = kept;
                        unfilled.as_str()
                    }
                    None => continue,
                }
            }
            None => line,
        };
        if MYST_LABEL.is_match(line) || MDX_COMMENT.is_match(line) || is_cell_break(line) {
            continue;
        }
        if let Some(found) = MKDOCSTRINGS.captures(line) {
            let name = found.get(1).map_or("", |m| m.as_str());
            if name.contains('.') || admonition(name).is_none() && !VUEPRESS.contains(&name) {
                // Its options are the indented lines that follow.
                while i < lines.len() && lines[i].starts_with([' ', '\t']) {
                    i += 1;
                }
                note_dropped(dropped, "mkdocstrings".into());
                continue;
            }
        }
        if let Some(tag) = foreign_tag_line(lines, i - 1) {
            let joined = lines[i - 1..i - 1 + tag.lines].join("\n");
            i += tag.lines - 1;
            if let Some(command) = install_command(&joined) {
                out.extend(["", "```bash", &command, "```", ""].map(String::from));
                continue;
            }
            if let Some(Some(mapped)) = tabs.component(&joined) {
                out.push(String::new());
                out.push(mapped);
                out.push(String::new());
            }
            continue;
        }
        if let Some((name, argument, ch, len)) = directive(line) {
            // The body: up to the closing fence (MyST nests with longer fences).
            let start = i;
            while i < lines.len() && !closes(lines[i], ch, len) {
                i += 1;
            }
            let body = options_skipped(&lines[start..i]);
            i = (i + 1).min(lines.len());
            if let Some(kind) = admonition(&name).filter(|_| depth < MAX_DEPTH) {
                let title = if name == "admonition" || !argument.is_empty() {
                    format!(" {}", inline(&argument, definitions))
                } else {
                    String::new()
                };
                out.push(format!(":::{kind}{}", title.trim_end()));
                block(body, depth + 1, definitions, out, dropped);
                out.push(":::".into());
            } else if CODE_DIRECTIVES.contains(&name.as_str()) {
                let language = code_language(&name, &argument);
                let ticks = "`".repeat(longest_backtick_run(body).max(2) + 1);
                out.push(format!("{ticks}{language}"));
                out.extend(body.iter().map(|l| without_doctest_flags(l)));
                out.push(ticks);
            } else if let Some(language) = session_language(body) {
                // A directive of the site's own (pip's `{pip-cli}`) around a console session:
                // its commands are what the page teaches, whatever the directive adds.
                let ticks = "`".repeat(longest_backtick_run(body).max(2) + 1);
                out.push(format!("{ticks}{language}"));
                out.extend(body.iter().map(|l| (*l).to_string()));
                out.push(ticks);
            } else {
                close_dangling_colon(out);
                note_dropped(dropped, name);
            }
            continue;
        }
        if is_console_prompt(line) {
            // A doctest session written as a paragraph: a code block up to the blank line.
            let start = i - 1;
            while i < lines.len() && !lines[i].trim().is_empty() {
                i += 1;
            }
            let session = &lines[start..i];
            let ticks = "`".repeat(longest_backtick_run(session).max(2) + 1);
            out.push(format!("{ticks}pycon"));
            out.extend(
                session
                    .iter()
                    .map(|l| without_doctest_flags(l.trim_start())),
            );
            out.push(ticks);
            continue;
        }
        if let Some((ch, len, info)) = opens_fence(line) {
            if info.trim_start().starts_with("twoslash include ") {
                // A snippet for later blocks' `// @include:`, which the site never shows.
                while i < lines.len() && !closes_fence(lines[i], ch, len) {
                    i += 1;
                }
                i = (i + 1).min(lines.len());
                continue;
            }
            fence = Some((ch, len));
            language = info
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            coloured = false;
            let labelled = fence_label(line);
            let line = match &labelled {
                Some((opening, label)) => {
                    out.push(String::new());
                    out.push(format!("**{}**", tabs::tab_label(label)));
                    out.push(String::new());
                    opening.as_str()
                }
                None => line,
            };
            let (opening, prefix) = hidden_lines(line);
            unhide = prefix
                .as_deref()
                .is_some_and(|p| hides_its_code(&lines[i..], p, ch, len));
            hidden = prefix;
            out.push(without_plugin_flags(opening));
            code_start = out.len();
            continue;
        }
        if is_module_line(line) {
            continue;
        }
        if is_definition(line, definitions) {
            continue;
        }
        if let Some(mapped) = tabs.component(line) {
            if let Some(mapped) = mapped {
                out.push(String::new());
                out.push(mapped);
                out.push(String::new());
            }
            continue;
        }
        if let Some(heading) = html_heading(line) {
            out.push(inline(&heading, definitions));
            continue;
        }
        if HR.is_match(line) {
            continue;
        }
        let shown = inline(line, definitions);
        // `Version: {{ mdbook-version }}` without its variable says nothing.
        if line.contains("{{") && is_bare_label(&shown) {
            continue;
        }
        out.push(shown);
    }
}

/// A line that is only a label of one or two words and a colon (`Version:`).
fn is_bare_label(line: &str) -> bool {
    line.trim().strip_suffix(':').is_some_and(|label| {
        label.split_whitespace().count() <= 2 && !label.contains(['`', '[', '*'])
    })
}

/// A directive's body without its options (`:class: x` lines, or a `---` YAML block).
fn options_skipped<'a, 'b>(body: &'a [&'b str]) -> &'a [&'b str] {
    let first = body.iter().position(|l| !l.trim().is_empty());
    let Some(first) = first else { return body };
    if body[first].trim() == "---" {
        if let Some(end) = body[first + 1..].iter().position(|l| l.trim() == "---") {
            return &body[first + end + 2..];
        }
        return body;
    }
    let options = body[first..]
        .iter()
        .take_while(|l| OPTION.is_match(l))
        .count();
    &body[first + options..]
}

static OPTION: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r"^\s*:[A-Za-z][\w-]*:(\s.*)?$"));
static HR: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r"(?i)^\s{0,3}<hr\b[^<>]{0,500}>\s*$"));
static HEADING: LazyLock<Regex> = LazyLock::new(|| {
    crate::builtin::regex(r"(?i)^\s{0,3}<h([1-6])(?:\s[^>]*)?>(.*?)</h([1-6])>\s*$")
});
static IMPORT: LazyLock<Regex> = LazyLock::new(|| {
    crate::builtin::regex(
        r#"^(?:import\s+(?:[\w*{}\s,$]+\s+from\s+)?['"][^'"]+['"];?\s*$|export\s+(?:const|let|var|function|default)\s[^{}]*;?\s*$)"#,
    )
});

/// An ES `import … from '…'` or a one-line `export` of an MDX page.
fn is_module_line(line: &str) -> bool {
    (line.starts_with("import ") || line.starts_with("export ")) && IMPORT.is_match(line)
}

/// `<h2 align="center">Usage</h2>` as `## Usage`.
fn html_heading(line: &str) -> Option<String> {
    let found = HEADING.captures(line)?;
    let level = found.get(1)?.as_str();
    if found.get(3)?.as_str() != level {
        return None;
    }
    let level: usize = level.parse().ok()?;
    let text = found.get(2)?.as_str().trim();
    (!text.is_empty()).then(|| format!("{} {text}", "#".repeat(level)))
}

/// The tabs of a docs framework, mapped as they are read.
#[derive(Default)]
struct Tabs {
    /// Labels given by `<Tabs items={['pip', 'conda']}>` to the unlabelled tabs that follow.
    items: Vec<String>,
    next: usize,
}

static COMPONENT: LazyLock<Regex> = LazyLock::new(|| {
    crate::builtin::regex(
        r"^\s*<(/?)(Tabs|TabItem|Tab|Tabs\.Tab|CodeGroup|TabGroup|Callout|Admonition|Note|Tip|Warning|Info|Caution|Danger|Important)(\s[^>]*)?>\s*$",
    )
});
static ATTRIBUTE: LazyLock<Regex> = LazyLock::new(|| {
    crate::builtin::regex(
        r#"\b(label|title|value|type)\s*=\s*(?:"([^"]*)"|'([^']*)'|\{\s*["']([^"']*)["']\s*\})"#,
    )
});
static ITEM: LazyLock<Regex> = LazyLock::new(|| crate::builtin::regex(r#"["']([^"']{1,80})["']"#));

impl Tabs {
    /// What a line holding only a component's tag becomes: `Some(None)` dropped,
    /// `Some(Some(line))` replaced, `None` not a component.
    fn component(&mut self, line: &str) -> Option<Option<String>> {
        let found = COMPONENT.captures(line)?;
        let closing = !found.get(1)?.as_str().is_empty();
        let name = found.get(2)?.as_str();
        let attributes = found.get(3).map_or("", |m| m.as_str());
        let attribute = |wanted: &str| {
            ATTRIBUTE.captures_iter(attributes).find_map(|c| {
                (c.get(1)?.as_str() == wanted).then(|| {
                    c.get(2)
                        .or(c.get(3))
                        .or(c.get(4))
                        .map_or(String::new(), |m| m.as_str().trim().to_string())
                })
            })
        };
        Some(match name {
            "Tabs" | "CodeGroup" | "TabGroup" => {
                if !closing {
                    let items = attributes
                        .split_once("items")
                        .map_or("", |(_, rest)| rest.split(']').next().unwrap_or(""));
                    self.items = ITEM
                        .captures_iter(items)
                        .filter_map(|c| Some(c.get(1)?.as_str().to_string()))
                        .take(32)
                        .collect();
                    self.next = 0;
                }
                None
            }
            "TabItem" | "Tab" | "Tabs.Tab" => {
                if closing {
                    return Some(None);
                }
                let label = attribute("label")
                    .or_else(|| attribute("title"))
                    .or_else(|| attribute("value"))
                    .or_else(|| self.items.get(self.next).cloned())
                    .filter(|l| !l.is_empty());
                self.next += 1;
                label.map(|label| format!("**{}**", tabs::tab_label(&label)))
            }
            _ => {
                if closing {
                    return Some(Some(":::".into()));
                }
                let kind = attribute("type").unwrap_or_else(|| name.to_string());
                let kind = admonition(&kind).unwrap_or("note");
                let title = attribute("title").unwrap_or_default();
                Some(format!(":::{kind} {title}").trim_end().to_string())
            }
        })
    }
}

// Roles and reference links, on one line outside code.

/// Roles whose text names a page or a section: their text is shown, not code.
const TEXT_ROLES: &[&str] = &[
    "doc",
    "ref",
    "term",
    "numref",
    "download",
    "abbr",
    "sub",
    "sup",
    "bdg",
    "bdg-primary",
    "bdg-secondary",
    "bdg-success",
    "bdg-info",
    "bdg-warning",
    "bdg-danger",
    "bdg-light",
    "bdg-dark",
    "guilabel",
    "menuselection",
];

/// Roles that draw an icon.
const ICON_ROLES: &[&str] = &["octicon", "fa", "fas", "far", "fab", "icon", "iconify"];

/// One line with its roles and reference links rewritten, code spans left alone.
fn inline(line: &str, definitions: &Definitions) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    // Code spans are copied as they are; what is between them is rewritten.
    while let Some(open) = rest.find('`') {
        let run = rest[open..].chars().take_while(|c| *c == '`').count();
        let ticks = &rest[open..open + run];
        let after = &rest[open + run..];
        let Some(close) = after.find(ticks) else {
            out.push_str(&text(&rest[..open + run], definitions));
            rest = after;
            continue;
        };
        let span_end = open + run + close + run;
        let span = &rest[open..span_end];
        if let Some(role) = role_before(&rest[..open]).filter(|_| run == 1) {
            out.push_str(&text(&rest[..role], definitions));
            out.push_str(&role_text(&rest[role..open], &span[1..span.len() - 1]));
            rest = &rest[span_end..];
            continue;
        }
        out.push_str(&text(&rest[..open], definitions));
        // A rustdoc link (``[`Handler`]``): resolved by its definition, else just its code.
        let bracketed = rest[..open].ends_with('[')
            && out.ends_with('[')
            && rest[span_end..].starts_with(']')
            && !rest[span_end + 1..].starts_with(['(', '[', ':']);
        // `[text][`label`]`: a full reference whose label is code.
        if bracketed && rest[..open].ends_with("][") {
            match definitions.get(&normalize_label(span)) {
                Some(destination) => {
                    out.pop();
                    out.pop();
                    out.push_str("](");
                    out.push_str(destination);
                    out.push(')');
                }
                None => {
                    out.push_str(span);
                    out.push(']');
                }
            }
            rest = &rest[span_end + 1..];
        } else if bracketed {
            match definitions.get(&normalize_label(span)) {
                Some(destination) => {
                    out.push_str(span);
                    out.push_str("](");
                    out.push_str(destination);
                    out.push(')');
                }
                None => {
                    out.pop();
                    out.push_str(span);
                }
            }
            rest = &rest[span_end + 1..];
        } else {
            out.push_str(span);
            rest = &rest[span_end..];
        }
    }
    out.push_str(&text(rest, definitions));
    out
}

/// Where a role's name (`{func}`, `:meth:`, `:py:class:`) starts, when `before` ends with
/// one (read from its last characters only).
fn role_before(before: &str) -> Option<usize> {
    static ROLE: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(
            r#"(?:^|[\s(\["',*_])(\{[A-Za-z][\w:.-]{0,40}\}|:(?:[A-Za-z][\w.-]{0,40}:){1,2})$"#,
        )
    });
    let mut tail = before.len().saturating_sub(100);
    while !before.is_char_boundary(tail) {
        tail += 1;
    }
    let found = ROLE.captures(&before[tail..])?;
    Some(tail + found.get(1)?.start())
}

/// What a role shows: its target as code, or its text for a page or section
/// (`{doc}`/`:ref:`).
fn role_text(role: &str, content: &str) -> String {
    let name = role.trim_matches(['{', '}', ':']);
    let name = name.rsplit(':').next().unwrap_or(name);
    let content = content.trim();
    // `Text <target>`: the text; `~pkg.mod.fn`: the last name.
    let shown = match content.strip_suffix('>').and_then(|c| c.rsplit_once('<')) {
        Some((text, _)) if !text.trim().is_empty() => text.trim(),
        Some((_, target)) => target.trim(),
        None => content,
    };
    let shown = match shown.strip_prefix('~') {
        Some(path) => path.rsplit('.').next().unwrap_or(path),
        None => shown.trim_start_matches('!'),
    };
    if matches!(name, "doc" | "ref") {
        return super::xrefs::role_link(name, content);
    }
    // sphinx-design's and MyST's icons (`{octicon}`check;1em``, `{fa}`check,text-success``)
    // are pictures, not words.
    if ICON_ROLES.contains(&name) || name.starts_with("material-") {
        return String::new();
    }
    if TEXT_ROLES.contains(&name) {
        shown.to_string()
    } else {
        format!("`{shown}`")
    }
}

/// Text outside code: a framework's components taken out, reference links resolved.
fn text(text: &str, definitions: &Definitions) -> String {
    let text = foreign_components(text);
    let text = emoji(text.as_ref());
    let text = site_leftovers(text.as_ref());
    let text = icon_names(text.as_ref());
    let text = untitled_links(text.as_ref());
    let text = text.as_ref();
    if !text.contains("][") && (definitions.is_empty() || !text.contains('[')) {
        return text.to_string();
    }
    REFERENCE
        .replace_all(text, |c: &regex::Captures| {
            let whole = c.get(0).map_or("", |m| m.as_str());
            let label_text = c.get(1).map_or("", |m| m.as_str());
            let reference = c.get(2).map(|m| m.as_str()).filter(|r| !r.is_empty());
            let after = c.get(3).map_or("", |m| m.as_str());
            // `[x](…)` and `[x]:` are not references.
            if after.starts_with(['(', ':']) {
                return whole.to_string();
            }
            let key = normalize_label(reference.unwrap_or(label_text));
            let start = c.get(0).map_or(0, |m| m.start());
            // `[text with `code`][label]`: the label of a full reference whose text was
            // split off at its code span.
            let label_only = c.get(2).is_none() && text[..start].ends_with(']');
            match definitions.get(&key) {
                Some(destination) if label_only => format!("({destination}){after}"),
                Some(destination) => {
                    format!("[{label_text}]({destination}){after}")
                }
                // `[mkdocstrings.Handler][]` that only the site's build resolves (autorefs):
                // its text. An image's or an escaped bracket's stays as written.
                None if c.get(2).is_some()
                    && !label_only
                    && !text[..start].ends_with(['!', '\\']) =>
                {
                    format!("{label_text}{after}")
                }
                None => whole.to_string(),
            }
        })
        .into_owned()
}

/// MyST's link without text (`[](using.md)`, `[](#section)`), which the site titles with
/// its target's title: a cross-reference for a page or a section, the URL itself otherwise.
fn untitled_links(text: &str) -> std::borrow::Cow<'_, str> {
    static UNTITLED: LazyLock<Regex> =
        LazyLock::new(|| crate::builtin::regex(r"(^|[^!\]\\])\[\]\(([^()\s<>]{1,300})\)"));
    if !text.contains("[](") {
        return text.into();
    }
    UNTITLED.replace_all(text, |c: &regex::Captures| {
        let before = c.get(1).map_or("", |m| m.as_str());
        let target = c.get(2).map_or("", |m| m.as_str());
        let link = if target.contains("://") || target.starts_with("mailto:") {
            format!("[{target}]({target})")
        } else if let Some(section) = target.strip_prefix('#') {
            super::xrefs::role_link("ref", section)
        } else {
            let page = target.split('#').next().unwrap_or(target);
            let page = page
                .strip_suffix(".md")
                .or_else(|| page.strip_suffix(".rst"))
                .or_else(|| page.strip_suffix(".ipynb"))
                .unwrap_or(page);
            super::xrefs::role_link("doc", page)
        };
        format!("{before}{link}")
    })
}

/// `[text][label]`, `[label][]` or `[label]`, and the character after it.
static REFERENCE: LazyLock<Regex> = LazyLock::new(|| {
    crate::builtin::regex(r"\[([^\[\]\n]{1,300})\](?:\[([^\[\]\n]{0,300})\])?(.|$)")
});

type Definitions = HashMap<String, String>;

static DEFINITION: LazyLock<Regex> = LazyLock::new(|| {
    crate::builtin::regex(
        r#"^ {0,3}\[([^\[\]\n]{1,300})\]:\s*(<[^<>\n]*>|\S+)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?\s*$"#,
    )
});

/// The link definitions of `markdown` outside fences, by normalised label (the first wins).
fn definitions(markdown: &str) -> Definitions {
    let mut out = Definitions::new();
    let mut fence = Fences::default();
    for line in markdown.lines() {
        if fence.is_code(line) {
            continue;
        }
        if out.len() >= MAX_DEFINITIONS || !line.trim_start().starts_with('[') {
            continue;
        }
        if let Some(found) = DEFINITION.captures(line) {
            let (Some(label), Some(destination)) = (found.get(1), found.get(2)) else {
                continue;
            };
            let destination = destination
                .as_str()
                .trim_start_matches('<')
                .trim_end_matches('>');
            // A destination with spaces or parentheses would end an inline link early; one
            // that a book's preprocessor fills in is no address.
            if destination.contains([' ', '(', ')']) || book_variable(destination).is_some() {
                continue;
            }
            out.entry(normalize_label(label.as_str()))
                .or_insert_with(|| destination.to_string());
        }
    }
    out
}

fn is_definition(line: &str, definitions: &Definitions) -> bool {
    !definitions.is_empty()
        && line.trim_start().starts_with('[')
        && DEFINITION.captures(line).is_some_and(|c| {
            c.get(1)
                .is_some_and(|l| definitions.contains_key(&normalize_label(l.as_str())))
        })
}

fn normalize_label(label: &str) -> String {
    label
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

#[cfg(test)]
#[path = "markup_tests.rs"]
mod tests;
