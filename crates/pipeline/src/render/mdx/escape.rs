//! Turning text from commits, code, manifests and Markdown files into MDX that parses and
//! shows that text literally: MDX reads `{` as an expression, `<` as JSX and lines starting
//! with `import`/`export` as ES modules, so all of those are neutralised outside code.
//!
//! Markdown reads across lines while these functions work line by line, so every construct
//! that could pair with something on another line is closed or escaped on its own line:
//! backtick runs without a partner on the line are escaped, fences are re-emitted at column
//! 0 (where Markdown and this module agree on where they end) and every other fence-like line
//! is escaped. Links and definitions whose URL is not http(s), mailto or relative lose their
//! link syntax. Stage validate checks the result again (see `validate.rs`).

use super::validate::url_is_allowed;
use crate::source::docs::{closes_fence, opens_fence};

/// Longest URL kept as a link or autolink; scanning for the end of a longer one on every `<`
/// or `](` of a line would make escaping quadratic.
const MAX_URL_CHARS: usize = 2048;

/// Escapes literal text (a commit subject, a doc sentence, a title) for MDX flow or phrasing
/// content. Backtick code spans are kept as code.
pub fn escape_text(text: &str) -> String {
    escape(text, false)
}

/// Makes Markdown written by a person (a step body, a README) safe for MDX while keeping its
/// formatting: fenced code stays verbatim, existing backslash escapes are kept, autolinks
/// become links, HTML comments become MDX comments, and `{ } < >` elsewhere are escaped.
pub fn sanitize_markdown(markdown: &str) -> String {
    let tables = may_hold_table(markdown);
    sanitize_with(markdown, |line, at_start| {
        escape_line_in(line, at_start, true, tables)
    })
}

/// Whether `markdown` could hold a GFM table: some line is a delimiter row (`| --- |`,
/// `:-|-:`), maybe in a block quote or list. Without one, no line is split into cells at
/// `|`, so code spans holding `|` can stay code.
pub(crate) fn may_hold_table(markdown: &str) -> bool {
    markdown.lines().any(|line| {
        let row = line.trim_start_matches(|c: char| c.is_whitespace() || c == '>');
        row.contains('|')
            && row.contains('-')
            && row
                .chars()
                .all(|c| matches!(c, '|' | ':' | '-' | ' ' | '\t'))
    })
}

/// [`sanitize_markdown`] with another treatment of the text outside fences and comments:
/// `escape(text, at_line_start)` must return MDX as safe as [`escape_line`]'s.
pub(crate) fn sanitize_with(
    markdown: &str,
    mut escape: impl FnMut(&str, bool) -> String,
) -> String {
    let mut out = String::with_capacity(markdown.len() + 16);
    let mut fence: Option<(char, usize)> = None;
    let mut comment: Option<String> = None;
    // A fence inside a block quote: the quote's depth, the fence's char and length.
    let mut quoted: Option<(usize, char, usize)> = None;
    for line in markdown.lines() {
        if let Some((depth, ch, len)) = quoted {
            match unquoted(line, depth) {
                Some(code) => {
                    if closes_fence(code, ch, len) {
                        quoted = None;
                    }
                    out.push_str(line);
                    out.push('\n');
                    continue;
                }
                // The quote ended, and the fence with it.
                None => quoted = None,
            }
        }
        if comment.is_none()
            && fence.is_none()
            && let Some((depth, code)) = quote_depth(line)
            && let Some((ch, len, info)) = opens_fence(code)
            && !info.contains(['{', '}', '<', '>'])
        {
            quoted = Some((depth, ch, len));
            out.push_str(line);
            out.push('\n');
            continue;
        }
        if let Some((ch, len)) = fence {
            if closes_fence(line, ch, len) {
                out.push_str(&ch.to_string().repeat(len));
                fence = None;
            } else {
                out.push_str(line);
            }
            out.push('\n');
            continue;
        }
        let mut rest = line;
        let mut rendered = String::new();
        if let Some(open) = comment.as_mut() {
            match rest.find("-->") {
                Some(end) => {
                    open.push(' ');
                    open.push_str(&rest[..end]);
                    rendered.push_str(&mdx_comment(open));
                    comment = None;
                    rest = &rest[end + 3..];
                }
                None => {
                    open.push(' ');
                    open.push_str(rest);
                    continue;
                }
            }
        } else if let Some((ch, len, info)) = opens_fence(line) {
            // At column 0 the fence cannot belong to a container that would end it early.
            fence = Some((ch, len));
            out.push_str(&ch.to_string().repeat(len));
            out.push_str(info);
            out.push('\n');
            continue;
        }
        while let Some(start) = rest.find("<!--") {
            rendered.push_str(&escape(&rest[..start], rendered.is_empty()));
            let after = &rest[start + 4..];
            match after.find("-->") {
                Some(end) => {
                    rendered.push_str(&mdx_comment(&after[..end]));
                    rest = &after[end + 3..];
                }
                None => {
                    comment = Some(after.to_string());
                    rest = "";
                }
            }
        }
        let at_start = rendered.is_empty();
        rendered.push_str(&escape(rest, at_start));
        // A backslash that ends a line is a line break, not a character to show.
        let trailing = rest.chars().rev().take_while(|c| *c == '\\').count();
        if trailing % 2 == 1 && rendered.ends_with("\\\\") && comment.is_none() {
            rendered.pop();
        }
        out.push_str(&rendered);
        out.push('\n');
    }
    if let Some(open) = comment {
        out.push_str(&mdx_comment(&open));
        out.push('\n');
    }
    if let Some((ch, len)) = fence {
        // Close a fence the author left open so it cannot swallow the rest of the article.
        out.push_str(&ch.to_string().repeat(len));
        out.push('\n');
    }
    out.trim_end().to_string()
}

/// The depth of the block quote `line` is in (`> > x`: 2) and its content, for a line in
/// one.
fn quote_depth(line: &str) -> Option<(usize, &str)> {
    let mut depth = 0;
    let mut rest = line;
    while let Some(inner) = unquoted(rest, 1) {
        depth += 1;
        rest = inner;
        if depth > 64 {
            return None;
        }
    }
    (depth > 0).then_some((depth, rest))
}

/// `line` without `depth` block-quote markers (each `>` after at most three spaces, and one
/// space after it), or `None` when it has fewer.
fn unquoted(line: &str, depth: usize) -> Option<&str> {
    let mut rest = line;
    for _ in 0..depth {
        let trimmed = rest.trim_start_matches(' ');
        if rest.len() - trimmed.len() > 3 {
            return None;
        }
        let inner = trimmed.strip_prefix('>')?;
        rest = inner.strip_prefix(' ').unwrap_or(inner);
    }
    Some(rest)
}

/// An MDX comment, `{/* … */}`, that cannot end early.
pub fn mdx_comment(text: &str) -> String {
    let cleaned: String = text
        .replace("*/", "* /")
        .chars()
        .map(|c| match c {
            '{' => '(',
            '}' => ')',
            '\n' | '\r' => ' ',
            c => c,
        })
        .collect();
    format!("{{/* {} */}}", cleaned.trim())
}

/// A quoted JSX attribute value (`"…"`) holding `text` literally.
pub fn jsx_attribute(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '{' => out.push_str("&#123;"),
            '}' => out.push_str("&#125;"),
            '\n' | '\r' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Inline code holding `text` literally, whatever backticks it contains.
pub fn code_span(text: &str) -> String {
    let text: String = text
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    let ticks = "`".repeat(longest_run(&text, '`') + 1);
    if text.starts_with('`') || text.ends_with('`') || text.is_empty() {
        format!("{ticks} {text} {ticks}")
    } else {
        format!("{ticks}{text}{ticks}")
    }
}

/// A fenced code block holding `code` verbatim.
pub fn code_block(code: &str, language: &str) -> String {
    let ticks = "`".repeat((longest_run(code, '`') + 1).max(3));
    let language: String = language
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '_'))
        .collect();
    format!("{ticks}{language}\n{}\n{ticks}", code.trim_end())
}

/// A YAML double-quoted scalar holding `text`, valid whatever `text` holds: every character
/// YAML does not allow as printable (C0, DEL, C1, U+FFFE/U+FFFF) and the line separators of
/// YAML 1.1 are escaped. So are `{ } < > [ ]`, so that a compiler reading the frontmatter as
/// Markdown (plain `@mdx-js/mdx` has no frontmatter support) finds no expression, JSX or link
/// in it. The result is a JSON string too.
pub fn yaml_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '{' | '}' | '<' | '>' | '[' | ']' => out.push_str(&format!("\\u{:04X}", c as u32)),
            c if c.is_control()
                || matches!(
                    c,
                    '\u{2028}' | '\u{2029}' | '\u{FEFF}' | '\u{FFFE}' | '\u{FFFF}'
                ) =>
            {
                out.push_str(&format!("\\u{:04X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn longest_run(text: &str, ch: char) -> usize {
    let (mut best, mut current) = (0, 0);
    for c in text.chars() {
        if c == ch {
            current += 1;
            best = best.max(current);
        } else {
            current = 0;
        }
    }
    best
}

fn escape(text: &str, prose: bool) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let tables = may_hold_table(text);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&escape_line_in(line, true, prose, tables));
    }
    out
}

/// Escapes one line. `line_start` says whether the text begins a line of the document (where
/// `import`/`export` start an ES module block and `>` starts a block quote).
pub(crate) fn escape_line(line: &str, line_start: bool, prose: bool) -> String {
    escape_line_in(line, line_start, prose, true)
}

/// [`escape_line`] for a line of text that `tables` says may be a table's row
/// ([`may_hold_table`]); a code span holding `|` is escaped as text only then.
pub(crate) fn escape_line_in(line: &str, line_start: bool, prose: bool, tables: bool) -> String {
    let mut out = String::with_capacity(line.len() + 8);
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    if line_start {
        let indent = chars
            .iter()
            .take_while(|c| **c == ' ' || **c == '\t')
            .count();
        out.extend(&chars[..indent]);
        i = indent;
        if prose {
            // Keep block-quote markers of prose.
            while i < chars.len() && chars[i] == '>' {
                out.push('>');
                i += 1;
                while i < chars.len() && chars[i] == ' ' {
                    out.push(' ');
                    i += 1;
                }
            }
        }
        if chars.get(i) == Some(&'[') && !safe_definition(&chars[i..]) {
            // `[x]: javascript:…` stays text.
            out.push_str("\\[");
            i += 1;
        }
        // MDX reads a line starting with `import ` or `export ` as an ES module.
        let rest: String = chars[i..].iter().collect();
        for keyword in ["import", "export"] {
            if rest.starts_with(keyword)
                && rest[keyword.len()..]
                    .chars()
                    .next()
                    .is_some_and(char::is_whitespace)
            {
                // A character reference keeps the word but stops MDX reading an ES module.
                out.push_str(if keyword == "import" {
                    "&#105;"
                } else {
                    "&#101;"
                });
                i += 1;
            }
        }
    }
    while i < chars.len() {
        let c = chars[i];
        if c == '`' {
            let run = chars[i..].iter().take_while(|c| **c == '`').count();
            match find_closing_ticks(&chars, i + run, run) {
                // A GFM table splits its rows at `|` even inside code, which would leave the
                // code's content unescaped: such code is escaped as text.
                Some(end) if !tables || !chars[i + run..end].contains(&'|') => {
                    out.extend(&chars[i..end + run]);
                    i = end + run;
                }
                // Without a partner on this line the run could pair with one on the next.
                _ => {
                    for _ in 0..run {
                        out.push_str("\\`");
                    }
                    i += run;
                }
            }
            continue;
        }
        if c == '~' && chars[i..].iter().take_while(|c| **c == '~').count() >= 3 {
            // Three tildes could open a fence.
            out.push_str("\\~");
            i += 1;
            continue;
        }
        if c == ']' && chars.get(i + 1) == Some(&'(') && !safe_destination(&chars[i + 2..]) {
            // `[x](javascript:…)` stays text.
            out.push_str("\\]");
            i += 1;
            continue;
        }
        if prose && c == '\\' {
            match chars.get(i + 1) {
                Some(next) if next.is_ascii_punctuation() => {
                    out.push('\\');
                    out.push(*next);
                    i += 2;
                }
                _ => {
                    out.push_str("\\\\");
                    i += 1;
                }
            }
            continue;
        }
        if prose
            && c == '<'
            && let Some((url, len)) = autolink(&chars[i..])
        {
            out.push_str(&format!("[{}]({})", escape_line(&url, false, false), url));
            i += len;
            continue;
        }
        match c {
            '\\' => out.push_str("\\\\"),
            '{' => out.push_str("\\{"),
            '}' => out.push_str("\\}"),
            '<' => out.push_str("\\<"),
            '>' => out.push_str("\\>"),
            '\r' => {}
            c => out.push(c),
        }
        i += 1;
    }
    out
}

/// Whether a link destination (the text after `(`) is one stage validate accepts. Character
/// references and backslash escapes could hide a scheme, so they count against it.
fn safe_destination(after_paren: &[char]) -> bool {
    let destination: String = after_paren
        .iter()
        .skip_while(|c| **c == ' ' || **c == '\t')
        .take_while(|c| !c.is_whitespace() && **c != ')')
        .take(MAX_URL_CHARS + 1)
        .collect();
    if destination.chars().count() > MAX_URL_CHARS {
        return false;
    }
    let scheme_end = destination
        .find(['/', '?', '#'])
        .unwrap_or(destination.len());
    url_is_allowed(&destination) && !destination[..scheme_end].contains(['&', '\\', '<'])
}

/// Whether a line starting with `[` is no definition, or one with a safe destination.
fn safe_definition(line: &[char]) -> bool {
    let text: String = line.iter().collect();
    match text.find("]:") {
        Some(end) => safe_destination(&line[text[..end + 2].chars().count()..]),
        None => true,
    }
}

pub(crate) fn find_closing_ticks(chars: &[char], from: usize, run: usize) -> Option<usize> {
    let mut j = from;
    while j < chars.len() {
        if chars[j] == '`' {
            let len = chars[j..].iter().take_while(|c| **c == '`').count();
            if len == run {
                return Some(j);
            }
            j += len;
        } else {
            j += 1;
        }
    }
    None
}

/// `<https://…>` or `<mailto:…>`: the URL and the number of chars consumed.
fn autolink(chars: &[char]) -> Option<(String, usize)> {
    let end = chars.iter().take(MAX_URL_CHARS).position(|c| *c == '>')?;
    let inner: String = chars[1..end].iter().collect();
    let is_url = ["http://", "https://", "mailto:"]
        .iter()
        .any(|scheme| inner.starts_with(scheme));
    if is_url
        && !inner
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '<' | '(' | ')' | '{' | '}'))
    {
        Some((inner, end + 1))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::mdx::validate::validate_mdx;

    fn assert_valid(body: &str) {
        if let Err(e) = validate_mdx(body) {
            panic!("invalid MDX ({e}):\n{body}");
        }
    }

    #[test]
    fn text_with_mdx_syntax_is_escaped() {
        let nasty = "fix: handle {id} in <Widget> when a > b \\ and `Vec<T>` stays code";
        let escaped = escape_text(nasty);
        assert_eq!(
            escaped,
            "fix: handle \\{id\\} in \\<Widget\\> when a \\> b \\\\ and `Vec<T>` stays code"
        );
        assert_valid(&format!("- {escaped}\n"));
        assert_valid(&escape_text("import x from 'y'\nexport const a = 1"));
        assert!(escape_text("import x from 'y'").starts_with("&#105;mport"));
        assert_valid(&escape_text("unclosed `tick and <!-- comment --> {"));
    }

    #[test]
    fn markdown_keeps_code_and_structure() {
        let md = "# Title\n\nUse <https://example.com> or {x}.\n<!-- hidden -->\n\n```rust\nlet v: Vec<u8> = {};\n```\n\n> quote <b>\n\nEscaped \\* star \\{ brace\n<!-- open\ncomment -->\n";
        let out = sanitize_markdown(md);
        assert!(out.contains("let v: Vec<u8> = {};"));
        assert!(out.contains("[https://example.com](https://example.com)"));
        assert!(out.contains("\\{x\\}"));
        assert!(out.contains("{/* hidden */}"));
        assert!(out.contains("> quote \\<b\\>"));
        assert!(out.contains("\\* star \\{ brace"));
        assert_valid(&out);
        assert_valid(&sanitize_markdown("```\nunclosed { fence"));
    }

    #[test]
    fn nasty_text_is_valid_in_every_position() {
        let nasty = [
            "{",
            "}",
            "<",
            ">",
            "</div>",
            "<Foo bar={1}>",
            "{/* x",
            "*/}",
            "`",
            "``a`",
            "\\",
            "\\{",
            "import a from 'b'",
            "export default {}",
            "<!--",
            "-->",
            "<https://x.y>",
            "a | b",
            "[link](<x>)",
            "&lt;",
            "# heading",
            "- item",
            "> quote",
            "---",
            "$x$",
            "See `",
            "`{x}`",
            "```",
            "    ```",
            "\t~~~",
            "~~~ a",
            "[x](javascript:alert(1))",
            "[x]: javascript:alert(1)",
            "`a|{b}`",
            "a ` <!-- c --> `{d}`",
        ];
        for a in nasty {
            for b in nasty {
                let text = format!("{a} {b}{a}");
                let escaped = escape_text(&text);
                for body in [
                    format!("{escaped}\n"),
                    format!("- {escaped}\n"),
                    format!("## {escaped}\n"),
                    format!("<Note>\n{escaped}\n</Note>\n"),
                    format!(
                        "<Step title={}>\n\n{escaped}\n\n</Step>\n",
                        jsx_attribute(&text)
                    ),
                    format!("{}\n", sanitize_markdown(&text)),
                    format!("{}\n", code_span(&text)),
                    format!("{}\n", mdx_comment(&text)),
                ] {
                    assert_valid(&body);
                }
            }
        }
    }

    /// Valid, safe MDX that shows `payload` as text, never as code.
    fn assert_inert(body: &str, payload: &str) {
        assert_valid(body);
        let escaped = payload.replace('{', "\\{").replace('}', "\\}");
        assert!(
            body.contains(&escaped) || body.contains(&format!("`{payload}`")),
            "{payload} is neither escaped nor code:\n{body}"
        );
    }

    const LIVE: &str = "{(globalThis.X=1)}";

    #[test]
    fn a_code_span_across_lines_cannot_expose_an_expression() {
        let text = format!("See `\n`{LIVE}`");
        let escaped = escape_text(&text);
        assert_eq!(escaped, format!("See \\`\n`{LIVE}`"));
        assert_inert(&escaped, LIVE);
        assert_inert(&sanitize_markdown(&text), LIVE);
    }

    #[test]
    fn fences_close_where_mdx_closes_them() {
        for closing in ["    ```", "\t```", "        ```  "] {
            let md = format!("```\ncode\n{closing}\n{LIVE}\n```");
            let out = sanitize_markdown(&md);
            assert_inert(&out, LIVE);
            assert!(out.starts_with("```\ncode\n```\n"), "{out}");
        }
        // Opened with four spaces of indentation: still a fence in MDX.
        let out = sanitize_markdown(&format!("    ```\n{LIVE}\n```\n{LIVE}\n```"));
        assert_valid(&out);
        assert!(out.contains(&format!("```\n{LIVE}\n```\n\\{{")), "{out}");
        // A fence inside a list item ends with it; a fence-like line is never left to chance.
        let out = sanitize_markdown(&format!("- ```\n  a\n  ```\n{LIVE}\n```"));
        assert_valid(&out);
        assert_inert(&escape_text(&format!("~~~\n{LIVE}\n~~~")), LIVE);
        assert_eq!(escape_text("~~~~ a~ ~~"), "\\~\\~~~ a~ ~~");
        assert_inert(&escape_text(&format!("```\n{LIVE}\n```")), LIVE);
    }

    #[test]
    fn a_comment_cannot_split_a_code_span_open() {
        let md = format!("a ` <!-- c --> `{LIVE}`");
        let out = sanitize_markdown(&md);
        assert_eq!(out, format!("a \\` {{/* c */}} `{LIVE}`"));
        assert_valid(&out);
    }

    #[test]
    fn code_in_a_table_cell_is_escaped_as_text() {
        let md = format!("| a |\n|---|\n| `{LIVE}|` |");
        let out = sanitize_markdown(&md);
        assert_valid(&out);
        assert!(out.contains("\\{(globalThis.X=1)\\}"), "{out}");
    }

    #[test]
    fn links_to_other_schemes_lose_their_link_syntax() {
        for text in [
            "[x](javascript:alert(1))",
            "[x]( JavaScript:alert(1))",
            "[x](javascript&#58;alert(1))",
            "[x](java\\script:alert(1))",
            "[x]\n\n[x]: javascript:alert(1)",
        ] {
            for out in [sanitize_markdown(text), escape_text(text)] {
                assert_valid(&out);
                assert!(out.contains("\\]") || out.contains("\\["), "{out}");
            }
        }
        let kept = sanitize_markdown("[docs](https://x.y/a) [mail](mailto:a@b.c) [rel](../a.md)");
        assert_eq!(
            kept,
            "[docs](https://x.y/a) [mail](mailto:a@b.c) [rel](../a.md)"
        );
    }

    #[test]
    fn yaml_scalars_escape_what_yaml_and_mdx_would_read() {
        assert_eq!(
            yaml_string("a\u{7f}b\u{85}c\u{9f}"),
            "\"a\\u007Fb\\u0085c\\u009F\""
        );
        assert_eq!(yaml_string("\u{1}\t\n"), "\"\\u0001\\t\\n\"");
        assert_eq!(
            yaml_string("{x} <A> [l](u)"),
            "\"\\u007Bx\\u007D \\u003CA\\u003E \\u005Bl\\u005D(u)\""
        );
        // Still a JSON string, decoding to the original text.
        let text = "t\u{7f}\u{2028}{\"\\}é";
        let decoded: String = serde_json::from_str(&yaml_string(text)).unwrap();
        assert_eq!(decoded, text);
    }

    #[test]
    fn helpers_produce_valid_mdx() {
        assert_eq!(code_span("a`b"), "``a`b``");
        assert_valid(&format!(
            "<Step title={}>\n\nx\n\n</Step>",
            jsx_attribute("a \"b\" {c} <d>")
        ));
        assert_valid(&code_block("fn f() -> Vec<T> { ``` }", "rust"));
        assert_valid(&mdx_comment("a */ b { c"));
        assert_eq!(yaml_string("a\"b"), "\"a\\\"b\"");
    }
}
