//! Python docstrings as Sphinx (autodoc with napoleon) renders them: Google sections
//! (`Args:` with indented items), NumPy sections (a title underlined with dashes), reST
//! field lists (`:param x:`, `:type x:`, `:returns:`, `:rtype:`, `:raises E:`), directives
//! (`.. deprecated::`, `.. versionadded::`, `.. note::`, `.. code-block::`, `.. seealso::`)
//! and literal blocks (`::`).

use std::collections::BTreeMap;

use super::links::{code, link, rest_inline, rest_unescape};
use super::model::{Builder, DocComment, DocItem, join_text};

/// A section's title as the docstring writes it, and what it is.
enum Kind {
    /// A list of named items (parameters, attributes, exceptions) under this title.
    Items(&'static str),
    /// One value (returns, yields): a type and a text.
    Value(&'static str),
    /// A callout of the text.
    Callout(&'static str),
    /// See also: names, each perhaps with a text.
    SeeAlso,
    /// Text under a label (examples' prose, references).
    Label(&'static str),
    /// Left out (napoleon's `Todo:` without its extension, `Methods:` autodoc lists).
    Dropped,
}

fn section(title: &str) -> Option<Kind> {
    let t = title
        .trim()
        .trim_end_matches(':')
        .trim()
        .to_ascii_lowercase();
    Some(match t.as_str() {
        "args" | "arguments" | "parameters" | "params" | "parameter" => Kind::Items("Parameters"),
        "keyword args" | "keyword arguments" | "kwargs" => Kind::Items("Keyword arguments"),
        "other parameters" | "other params" => Kind::Items("Other parameters"),
        "attributes" => Kind::Items("Attributes"),
        "raises" | "raise" | "exceptions" | "except" => Kind::Items("Raises"),
        "warns" | "warn" => Kind::Items("Warns"),
        "returns" | "return" => Kind::Value("Returns"),
        "yields" | "yield" => Kind::Value("Yields"),
        "note" | "notes" => Kind::Callout("NOTE"),
        "warning" | "warnings" => Kind::Callout("WARNING"),
        "tip" | "hint" => Kind::Callout("TIP"),
        "important" => Kind::Callout("IMPORTANT"),
        "caution" | "danger" | "attention" => Kind::Callout("CAUTION"),
        "see also" | "seealso" => Kind::SeeAlso,
        "example" | "examples" => Kind::Label("Examples"),
        "references" => Kind::Label("References"),
        "todo" | "methods" => Kind::Dropped,
        _ => return None,
    })
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

pub(super) fn parse(lines: &[String]) -> DocComment {
    let mut b = Builder::default();
    let mut types: BTreeMap<(&'static str, String), String> = BTreeMap::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].as_str();
        let t = line.trim();
        let ind = indent(line);
        // A Markdown code fence (mkdocstrings-style docstrings) is kept as written, its
        // sessions and `::` lines included.
        if let Some((ch, len, _)) = crate::source::docs::opens_fence(t) {
            let start = i;
            i += 1;
            while i < lines.len() && !crate::source::docs::closes_fence(lines[i].trim(), ch, len) {
                i += 1;
            }
            let end = (i + 1).min(lines.len());
            let block: Vec<&str> = lines[start..end].iter().map(String::as_str).collect();
            let text = crate::source::code::comments::dedent(&block);
            b.line("");
            for l in text.trim_matches('\n').lines() {
                b.line(l.to_string());
            }
            if end == lines.len() && end == i {
                // Never closed: closed here, so the rest of the article is not code.
                b.line(ch.to_string().repeat(len));
            }
            b.line("");
            i = end;
            continue;
        }
        // Doctest sessions stay where the docstring has them, as Sphinx shows them.
        if t.starts_with(">>>") {
            let start = i;
            while i < lines.len() && !lines[i].trim().is_empty() {
                i += 1;
            }
            let session: Vec<&str> = lines[start..i].iter().map(|l| l.trim()).collect();
            fenced(&mut b, "python", &session);
            continue;
        }
        // NumPy: a title underlined with dashes.
        if let Some(next) = lines.get(i + 1)
            && is_underline(next.trim())
            && !t.is_empty()
            && let Some(kind) = section(t)
        {
            let end = numpy_end(lines, i + 2);
            let body: Vec<&str> = lines[i + 2..end].iter().map(String::as_str).collect();
            numpy_section(&mut b, kind, &body);
            i = end;
            continue;
        }
        // Google: `Args:` with a body indented under it.
        if t.ends_with(':')
            && !t.ends_with("::")
            && let Some(kind) = section(t)
        {
            let end = indented_end(lines, i + 1, ind);
            if end > i + 1 {
                let body: Vec<&str> = lines[i + 1..end].iter().map(String::as_str).collect();
                google_section(&mut b, kind, &body);
                i = end;
                continue;
            }
        }
        // reST fields: `:param x: text` and its indented continuation.
        if let Some((field, rest)) = field(t) {
            let end = indented_end(lines, i + 1, ind);
            let mut text = vec![rest];
            text.extend(lines[i + 1..end].iter().map(String::as_str));
            rest_field(&mut b, &mut types, &field, &join_text(&text));
            i = end;
            continue;
        }
        // reST directives: `.. name:: argument` and an indented body.
        if let Some(after) = t.strip_prefix("..") {
            let end = indented_end(lines, i + 1, ind);
            let body: Vec<&str> = lines[i + 1..end].iter().map(String::as_str).collect();
            directive(&mut b, after.trim(), &body);
            i = end;
            continue;
        }
        // A paragraph ending in `::` introduces a literal block.
        if t.ends_with("::") {
            let end = indented_end(lines, i + 1, ind);
            let lead = t.trim_end_matches("::").trim_end();
            if !lead.is_empty() {
                b.line(format!(
                    "{}{}",
                    " ".repeat(ind),
                    rest_inline(&format!("{lead}:"))
                ));
            }
            let block: Vec<&str> = lines[i + 1..end].iter().map(String::as_str).collect();
            fenced(&mut b, "python", &block);
            i = end;
            continue;
        }
        // A paragraph line whose inline literal or role a line break splits
        // (` ``(valid,` / `payload)`` `) is read with the lines that close it, as reST reads
        // a paragraph: converted line by line, its backticks would be left as written.
        let mut joined = line.to_string();
        i += 1;
        let mut more = 0;
        while open_inline(&joined)
            && more < MAX_JOINED_LINES
            && let Some(next) = lines.get(i)
            && !next.trim().is_empty()
            && !next.trim_start().starts_with(">>>")
        {
            joined = format!("{} {}", joined.trim_end(), next.trim());
            i += 1;
            more += 1;
        }
        b.line(rest_inline(&joined));
    }
    for ((title, name), ty) in types {
        b.item_type(title, &name, ty);
    }
    b.finish()
}

/// Lines of a paragraph read together at most to close one inline literal or role.
const MAX_JOINED_LINES: usize = 8;

/// Whether `line` leaves a reST inline literal (` `` `) or interpreted text (`` ` ``, a
/// role's content) open at its end.
fn open_inline(line: &str) -> bool {
    let bytes = line.as_bytes();
    let (mut literal, mut interpreted) = (false, false);
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let run = bytes[i..].iter().take_while(|b| **b == b'`').count();
        if run >= 2 {
            if !interpreted {
                literal = !literal;
            }
        } else if !literal {
            interpreted = !interpreted;
        }
        i += run;
    }
    literal || interpreted
}

fn is_underline(line: &str) -> bool {
    line.len() >= 3 && line.chars().all(|c| c == '-' || c == '=')
}

/// Where a NumPy section that starts at `from` ends: at the next underlined title.
fn numpy_end(lines: &[String], from: usize) -> usize {
    let mut i = from;
    while i < lines.len() {
        if lines
            .get(i + 1)
            .is_some_and(|n| is_underline(n.trim()) && !lines[i].trim().is_empty())
        {
            return i;
        }
        i += 1;
    }
    lines.len()
}

/// Where the block of lines indented deeper than `than`, starting at `from`, ends (blank
/// lines inside it belong to it; trailing blank lines do not).
fn indented_end(lines: &[String], from: usize, than: usize) -> usize {
    let mut end = from;
    let mut i = from;
    while i < lines.len() {
        let line = &lines[i];
        if line.trim().is_empty() {
            i += 1;
            continue;
        }
        if indent(line) <= than {
            break;
        }
        i += 1;
        end = i;
    }
    end
}

fn fenced(b: &mut Builder, language: &str, block: &[&str]) {
    let text = crate::source::code::comments::dedent(block);
    let text = text.trim_matches('\n');
    if text.trim().is_empty() {
        return;
    }
    b.line("");
    b.line(format!("```{language}"));
    for l in text.lines() {
        b.line(l.to_string());
    }
    b.line("```");
    b.line("");
}

/// Items of a body: each starts at the body's least indentation; deeper lines continue it.
fn items<'a>(body: &[&'a str]) -> Vec<(&'a str, Vec<&'a str>)> {
    let base = body
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| indent(l))
        .min()
        .unwrap_or(0);
    let mut out: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in body {
        if !line.trim().is_empty() && indent(line) <= base {
            out.push((line.trim(), Vec::new()));
        } else if let Some(last) = out.last_mut() {
            last.1.push(line);
        }
    }
    out
}

/// `name (type): text`, `name: text`, `*args: text`.
fn google_item(head: &str) -> (String, String, String) {
    let (left, text) = match head.split_once(": ") {
        Some((l, t)) => (l, t),
        None => match head.strip_suffix(':') {
            Some(l) => (l, ""),
            None => (head, ""),
        },
    };
    let left = left.trim();
    if let Some((name, ty)) = left.split_once(" (")
        && let Some(ty) = ty.strip_suffix(')')
    {
        return (name.trim().into(), ty.trim().into(), text.into());
    }
    if left.contains(' ') && !left.contains(',') {
        // Not a name: the whole line is text.
        return (String::new(), String::new(), head.into());
    }
    (left.into(), String::new(), text.into())
}

fn google_section(b: &mut Builder, kind: Kind, body: &[&str]) {
    match kind {
        Kind::Items(title) => {
            for (head, more) in items(body) {
                let (name, ty, text) = google_item(head);
                let mut lines = vec![text.as_str()];
                lines.extend(more);
                push_item(b, title, name, ty, &lines);
            }
        }
        Kind::Value(title) => {
            // `type: text` when the part before the colon reads as a type.
            let first = body
                .iter()
                .find(|l| !l.trim().is_empty())
                .map_or("", |l| l.trim());
            let (ty, rest) = match first.split_once(": ") {
                Some((ty, rest)) if looks_like_type(ty) => (ty.to_string(), rest),
                // `str:` and nothing else: a type without a description.
                _ => match first.strip_suffix(':') {
                    Some(ty) if looks_like_type(ty) => (ty.to_string(), ""),
                    _ => (String::new(), first),
                },
            };
            let skip = body
                .iter()
                .position(|l| !l.trim().is_empty())
                .map_or(0, |p| p + 1);
            let mut lines = vec![rest];
            lines.extend(body.iter().skip(skip).copied());
            push_item(b, title, String::new(), ty, &lines);
        }
        other => text_section(b, other, body),
    }
}

fn numpy_section(b: &mut Builder, kind: Kind, body: &[&str]) {
    match kind {
        Kind::Items(title) | Kind::Value(title) => {
            let value = matches!(kind, Kind::Value(_));
            for (head, more) in items(body) {
                let (name, ty) = match head.split_once(" : ") {
                    Some((n, t)) => (n.trim().to_string(), t.trim().to_string()),
                    None if head.ends_with(" :") => {
                        (head.trim_end_matches(':').trim().into(), String::new())
                    }
                    // A Returns item without a name is its type.
                    None if value || title == "Raises" || title == "Warns" => {
                        if title == "Raises" || title == "Warns" {
                            (head.into(), String::new())
                        } else {
                            (String::new(), head.into())
                        }
                    }
                    None => (head.into(), String::new()),
                };
                push_item(b, title, name, ty, &more);
            }
        }
        other => text_section(b, other, body),
    }
}

fn text_section(b: &mut Builder, kind: Kind, body: &[&str]) {
    let text = crate::source::code::comments::dedent(body);
    let kept: Vec<&str> = text.lines().collect();
    match kind {
        Kind::Callout(which) => callout(b, which, &kept.join("\n")),
        Kind::SeeAlso => see_also(b, &kept),
        Kind::Label(label) => {
            let inner = parse(&kept.iter().map(|l| l.to_string()).collect::<Vec<_>>());
            if !inner.text.trim().is_empty() {
                b.line("");
                b.line(format!("**{label}**"));
                b.line("");
                for l in inner.text.lines() {
                    b.line(l.to_string());
                }
            }
        }
        _ => {}
    }
}

fn push_item(b: &mut Builder, title: &str, name: String, ty: String, lines: &[&str]) {
    // Joined first: a hyperlink's text and target may sit on two lines.
    b.item(
        title,
        DocItem {
            name: rest_unescape(&name),
            ty: rest_inline(&ty),
            text: rest_inline(&join_text(lines)),
        },
    );
}

fn looks_like_type(text: &str) -> bool {
    let t = text.trim();
    !t.is_empty()
        && t.len() <= 80
        && t.chars()
            .all(|c| c.is_alphanumeric() || " _.,[]|()`:~".contains(c))
        && (!t.contains(' ') || t.contains(',') || t.contains('|') || t.contains(" or "))
}

fn callout(b: &mut Builder, which: &str, text: &str) {
    let converted: Vec<String> = text.lines().map(rest_inline).collect();
    let body = converted.join("\n");
    if body.trim().is_empty() {
        return;
    }
    b.line("");
    b.line(format!("> [!{which}]"));
    for l in body.trim().lines() {
        b.line(format!("> {l}").trim_end().to_string());
    }
    b.line("");
}

fn see_also(b: &mut Builder, lines: &[&str]) {
    for (head, more) in items(lines) {
        let (names, text) = match head.split_once(" : ").or_else(|| head.split_once(": ")) {
            Some((n, t)) => (n, t),
            None => (head, ""),
        };
        let mut texts = vec![text];
        texts.extend(more);
        let text = join_text(&texts.iter().map(|t| t.trim()).collect::<Vec<_>>());
        for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let name = rest_inline(name);
            // Already a link when the line used a role.
            let shown = if name.starts_with('[') || name.contains('`') {
                name
            } else {
                link(&code(&name), &name)
            };
            b.item(
                "See also",
                DocItem {
                    name: shown,
                    ty: String::new(),
                    text: rest_inline(&text),
                },
            );
        }
    }
}

/// `:name args: rest` of a reST field list line.
fn field(line: &str) -> Option<(String, &str)> {
    let inner = line.strip_prefix(':')?;
    let end = inner.find(':')?;
    let name = &inner[..end];
    if name.is_empty() || name.contains('`') || name.starts_with(' ') {
        return None;
    }
    let rest = inner[end + 1..].trim_start();
    // `:meth:`x`` at the start of a line is a role, not a field.
    if inner[end + 1..].starts_with('`') {
        return None;
    }
    Some((name.to_string(), rest))
}

fn rest_field(
    b: &mut Builder,
    types: &mut BTreeMap<(&'static str, String), String>,
    field: &str,
    text: &str,
) {
    let mut words = field.split_whitespace();
    let Some(kind) = words.next() else {
        return;
    };
    let args: Vec<&str> = words.collect();
    let name = args.last().map(|s| s.to_string()).unwrap_or_default();
    let inline_type = if args.len() > 1 {
        args[..args.len() - 1].join(" ")
    } else {
        String::new()
    };
    let text = rest_inline(text);
    let item = |name: String, ty: String, text: String| DocItem { name, ty, text };
    match kind {
        "param" | "parameter" | "arg" | "argument" => {
            b.item("Parameters", item(name, rest_inline(&inline_type), text));
        }
        "key" | "keyword" | "kwarg" | "kwparam" => {
            b.item(
                "Keyword arguments",
                item(name, rest_inline(&inline_type), text),
            );
        }
        "type" => {
            types.insert(("Parameters", name), text);
        }
        "kwtype" => {
            types.insert(("Keyword arguments", name), text);
        }
        "var" | "ivar" | "cvar" => b.item("Attributes", item(name, String::new(), text)),
        "vartype" => {
            types.insert(("Attributes", name), text);
        }
        "returns" | "return" => b.item("Returns", item(String::new(), String::new(), text)),
        "rtype" => {
            types.insert(("Returns", String::new()), text);
        }
        "yields" | "yield" => b.item("Yields", item(String::new(), String::new(), text)),
        "ytype" => {
            types.insert(("Yields", String::new()), text);
        }
        "raises" | "raise" | "except" | "exception" => {
            b.item("Raises", item(code(&args.join(" ")), String::new(), text))
        }
        "deprecated" => b.deprecated = Some(text),
        // `:meta private:`, `:noindex:` and fields Sphinx does not show.
        _ => {}
    }
}

fn directive(b: &mut Builder, after: &str, body: &[&str]) {
    let Some((name, argument)) = after.split_once("::") else {
        // A comment (`.. text`) or a link target (`.. _label:`): not shown.
        return;
    };
    let name = name.trim().to_ascii_lowercase();
    let argument = argument.trim();
    let body_text = crate::source::code::comments::dedent(body);
    let converted =
        |text: &str| -> String { text.lines().map(rest_inline).collect::<Vec<_>>().join("\n") };
    match name.as_str() {
        "deprecated" => {
            let (version, text) = match argument.split_once(' ') {
                Some((v, t)) => (v, t),
                None => (argument, ""),
            };
            let text = join_text(&[&converted(text), &converted(&body_text)]);
            let since = if version.is_empty() {
                String::new()
            } else {
                format!("Since version {version}.")
            };
            b.deprecated = Some(join_text(&[&since, &text]));
        }
        "versionadded" | "versionchanged" => {
            let (version, text) = match argument.split_once(' ') {
                Some((v, t)) => (v, t),
                None => (argument, ""),
            };
            let what = if name == "versionadded" {
                "Added"
            } else {
                "Changed"
            };
            let text = join_text(&[&converted(text), &converted(&body_text)]);
            b.line("");
            if text.is_empty() {
                b.line(format!("*{what} in version {version}.*"));
            } else {
                b.line(format!("*{what} in version {version}:* {text}"));
            }
            b.line("");
        }
        "note" => callout(b, "NOTE", &join_text(&[argument, &body_text])),
        "warning" => callout(b, "WARNING", &join_text(&[argument, &body_text])),
        "tip" | "hint" => callout(b, "TIP", &join_text(&[argument, &body_text])),
        "important" => callout(b, "IMPORTANT", &join_text(&[argument, &body_text])),
        "caution" | "danger" | "attention" | "error" => {
            callout(b, "CAUTION", &join_text(&[argument, &body_text]))
        }
        "seealso" => {
            let mut lines: Vec<&str> = Vec::new();
            if !argument.is_empty() {
                lines.push(argument);
            }
            lines.extend(body_text.lines());
            see_also(b, &lines);
        }
        "code-block" | "code" | "sourcecode" | "testcode" => {
            let language = if argument.is_empty() {
                "python"
            } else {
                argument
            };
            let lines: Vec<&str> = body_text
                .lines()
                .filter(|l| !l.trim_start().starts_with(':'))
                .collect();
            fenced(b, language, &lines);
        }
        // A formula: shown as written, in a `math` block.
        "math" => {
            let mut lines: Vec<&str> = Vec::new();
            if !argument.is_empty() {
                lines.push(argument);
            }
            lines.extend(
                body_text
                    .lines()
                    .filter(|l| !l.trim_start().starts_with(':')),
            );
            fenced(b, "math", &lines);
        }
        // Directives a reader would see as markup (autodoc, toctree, images, …): left out.
        _ => {}
    }
}
