//! What a docs framework writes for its own build, read so that an article shows what the
//! author meant: a framework's components (`<ExternalLinks.Redux />`, `<Link to="…">`)
//! dropped or unwrapped to their children, mdBook's `{{#include …}}`/`{{#title …}}` dropped
//! and the code lines the book hides left out, mkdocstrings' `::: module.path` dropped.
//!
//! Tags are read with their braces and quotes, at most [`MAX_TAG_BYTES`] bytes over
//! [`MAX_TAG_LINES`] lines; what is not read as a tag is left to the escaper.

use std::sync::LazyLock;

use regex::Regex;

pub(super) fn note_dropped(dropped: &mut Vec<String>, name: String) {
    if !dropped.contains(&name) && dropped.len() < 32 {
        dropped.push(name);
    }
}

/// mdBook's `{{#include file}}`, `{{#title …}}`, `{{#rustdoc_include …}}` on a line of their
/// own: only the book's build can resolve them.
pub(super) fn mdbook_directive(line: &str) -> Option<String> {
    let found = MDBOOK.captures(line)?;
    Some(format!("{{{{#{}}}}}", found.get(1)?.as_str()))
}

/// A book's own preprocessor variable (`{{#PYO3_CRATE_VERSION}}`, upper case: a template's
/// lower-case `{{#each}}` is the example's own) that the line holds, by name.
pub(super) fn book_variable(line: &str) -> Option<String> {
    if !line.contains("{{#") {
        return None;
    }
    let found = BOOK_VARIABLE.captures(line)?;
    Some(format!("{{{{#{}}}}}", found.get(1)?.as_str()))
}

static BOOK_VARIABLE: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r"\{\{#([A-Z][A-Z0-9_]{1,60})\}\}"));

/// A prose line without the book variables nobody filled in: a link whose address holds one
/// is its text, a link definition that does is `None` (the line goes), any other is dropped.
pub(super) fn without_book_variables(line: &str) -> Option<String> {
    static LINK: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(
            r"\[([^\[\]\n]{0,300})\]\([^()\s]{0,300}\{\{#[A-Z][A-Z0-9_]{1,60}\}\}[^()\s]{0,300}\)",
        )
    });
    static DEFINITION: LazyLock<Regex> =
        LazyLock::new(|| crate::builtin::regex(r"^\s{0,3}\[[^\]\n]{1,300}\]:\s*\S*\{\{#[A-Z]"));
    if DEFINITION.is_match(line) {
        return None;
    }
    let line = LINK.replace_all(line, "$1");
    Some(BOOK_VARIABLE.replace_all(&line, "").into_owned())
}

/// Whether the code block whose lines follow its opening shows only comments once the lines
/// it hides (`prefix`) are left out (cxx's annotated `focuscomment` examples): then the
/// hidden lines are the example, and are kept.
pub(super) fn hides_its_code(after_opening: &[&str], prefix: &str, ch: char, len: usize) -> bool {
    let body = after_opening
        .iter()
        .take(MAX_HIDDEN_SCAN)
        .take_while(|l| !super::fences::closes_fence(l, ch, len));
    let (mut comments, mut hidden_code) = (0, 0);
    for line in body {
        let trimmed = line.trim();
        if is_hidden_line(line, prefix) {
            hidden_code += usize::from(trimmed.len() > prefix.len() + 1);
        } else if trimmed.starts_with("//") || trimmed.starts_with("/*") || trimmed.starts_with('*')
        {
            comments += 1;
        } else if !trimmed.is_empty() {
            return false;
        }
    }
    comments > 0 && hidden_code > 0
}

/// Lines of a code block read to decide whether it hides its code.
const MAX_HIDDEN_SCAN: usize = 2_000;

/// A hidden line as the book shows it when its reader asks: without the prefix (and, for
/// `#`, the space after it).
pub(super) fn unhidden(line: &str, prefix: &str) -> String {
    let trimmed = line.trim_start();
    let indent = &line[..line.len() - trimmed.len()];
    let rest = trimmed.strip_prefix(prefix).unwrap_or(trimmed);
    let rest = if prefix == "#" {
        rest.strip_prefix(' ').unwrap_or(rest)
    } else {
        rest
    };
    format!("{indent}{rest}")
}

/// The command a site's install component carries in a plain string prop
/// (`<InstallSnippet pkgs="@trpc/server @trpc/client" />` installs those packages with npm,
/// `<InstallCommand command="pip install x" />` runs its command); `None` for any other tag or
/// a prop that is an expression.
pub(super) fn install_command(tag: &str) -> Option<String> {
    static PROP: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(
            r#"\s(pkgs|packages|package|pkg|command|cmd)=(?:"([^"{}
]{1,300})"|'([^'{}
]{1,300})')"#,
        )
    });
    let name: String = tag
        .trim_start()
        .strip_prefix('<')?
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '.')
        .collect();
    if !name.starts_with(|c: char| c.is_ascii_uppercase()) || !name.contains("Install") {
        return None;
    }
    let found = PROP.captures(tag)?;
    let value = found.get(2).or(found.get(3))?.as_str().trim();
    match found.get(1)?.as_str() {
        "command" | "cmd" => Some(value.to_string()),
        _ => Some(format!("npm install {value}")),
    }
}

/// A code block's opening line without mdBook's `hidelines=` attribute, and the prefix of
/// the lines the book hides in it: `#` in Rust code (as rustdoc hides them too), else the
/// `hidelines` prefix.
/// The book's and rustdoc's attributes after the language (`rust,no_run`,
/// `toml,hidelines=...`) are for their build, so the opening keeps the language only.
pub(super) fn hidden_lines(line: &str) -> (String, Option<String>) {
    let trimmed = line.trim_start();
    let ticks = trimmed
        .chars()
        .take_while(|c| matches!(c, '`' | '~'))
        .count();
    let indent = &line[..line.len() - trimmed.len()];
    let info = &trimmed[ticks..];
    let first_word = info.split_whitespace().next().unwrap_or("");
    let language = first_word.split(',').next().unwrap_or("");
    let prefix = info
        .split(|c: char| c == ',' || c.is_whitespace())
        .find_map(|w| w.strip_prefix("hidelines="))
        .filter(|p| !p.is_empty());
    let opening = if first_word.contains(',') || prefix.is_some() {
        format!("{indent}{}{language}", &trimmed[..ticks])
    } else {
        line.to_string()
    };
    match prefix {
        Some(prefix) => (opening, Some(prefix.to_string())),
        None if language == "rust" => (opening, Some("#".into())),
        None => (opening, None),
    }
}

/// A code line without the doctest flags Sphinx trims from what it shows (`# doctest: +SKIP`),
/// and `<BLANKLINE>` as the blank line it stands for.
pub(super) fn without_doctest_flags(line: &str) -> String {
    static FLAGS: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(
            r"\s*#\s*doctest:\s*[+-][A-Z_]{1,40}(?:\s*,\s*[+-][A-Z_]{1,40}){0,20}\s*$",
        )
    });
    if line.trim() == "<BLANKLINE>" {
        return String::new();
    }
    if !line.contains("doctest:") {
        return line.to_string();
    }
    FLAGS.replace(line, "").into_owned()
}

/// A code line without a version placeholder the site's build fills in
/// (`npm install prettier@%PRETTIER_VERSION%`): the package alone installs its latest version.
pub(super) fn without_version_placeholder(line: String) -> String {
    static PLACEHOLDER: LazyLock<Regex> =
        LazyLock::new(|| crate::builtin::regex(r"@%[A-Z][A-Z0-9_]{0,60}%"));
    if !line.contains("@%") {
        return line;
    }
    PLACEHOLDER.replace_all(&line, "").into_owned()
}

/// A line of terminal output a docs site colours with HTML (Typer's and FastAPI's
/// `<font color="#F4BF75"><b>Usage: </b></font>`, `&apos;`), as the terminal shows it: the
/// tags dropped and, once the block has shown such a tag, its entities decoded. `coloured`
/// says whether the block has; only blocks of terminal output (`console`, `text`, none) are read.
pub(super) fn terminal_text(line: String, language: &str, coloured: &mut bool) -> String {
    static TAG: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(
            r#"</?(?:font|b|strong|i|em|u|span)(?:\s+(?:color|style|class)="[^"<>]*")*\s*>"#,
        )
    });
    if !matches!(language, "console" | "text" | "shell-session" | "") {
        return line;
    }
    let has_tag = (line.contains("<font") || line.contains("</")) && TAG.is_match(&line);
    if !has_tag && !*coloured {
        return line;
    }
    if has_tag {
        *coloured = true;
    }
    let line = TAG.replace_all(&line, "");
    if !line.contains('&') {
        return line.into_owned();
    }
    line.replace("&apos;", "'")
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// An empty `<i class="fas fa-bars"></i>` (Font Awesome's, or a site's own
/// `<i class="clip-button">`), which only the site's stylesheet draws, as the icon's name in
/// words: *(bars icon)*, *(clip icon)*.
pub(super) fn icon_names(text: &str) -> std::borrow::Cow<'_, str> {
    static ICON: LazyLock<Regex> =
        LazyLock::new(|| crate::builtin::regex(r#"<i\s+class="([^"<>]{1,300})"\s*>\s*</i>"#));
    if !text.contains("<i ") {
        return text.into();
    }
    ICON.replace_all(text, |c: &regex::Captures| {
        let classes = c.get(1).map_or("", |m| m.as_str());
        let awesome = classes
            .split_whitespace()
            .filter_map(|class| class.strip_prefix("fa-"))
            .rfind(|name| {
                !matches!(
                    *name,
                    "solid" | "regular" | "brands" | "light" | "fw" | "lg"
                )
            });
        let name = awesome
            .or_else(|| {
                let last = classes.split_whitespace().last()?;
                let name = last.trim_end_matches("-button").trim_end_matches("-icon");
                (!matches!(name, "fa" | "fas" | "far" | "fab" | "icon")).then_some(name)
            })
            .unwrap_or("");
        if name.is_empty() {
            String::new()
        } else {
            format!("*({} icon)*", name.replace('-', " "))
        }
    })
}

pub(super) fn is_hidden_line(line: &str, prefix: &str) -> bool {
    let trimmed = line.trim_start();
    if prefix == "#" {
        trimmed == "#" || trimmed.starts_with("# ")
    } else {
        trimmed.starts_with(prefix)
    }
}

/// Lines one component tag may span.
const MAX_TAG_LINES: usize = 8;
/// Longest component tag read.
const MAX_TAG_BYTES: usize = 2_000;

/// A JSX tag of a docs framework's own component: a capitalised or dotted name.
struct JsxTag<'a> {
    name: &'a str,
    closing: bool,
    self_closing: bool,
    /// Its length in bytes.
    len: usize,
}

/// The component tag at the start of `text` (`<ExternalLinks.Redux />`, `</Link>`,
/// `<Tabs values={[{label: 'a'}]}>`), read with its braces and quotes, bounded.
fn jsx_tag(text: &str) -> Option<JsxTag<'_>> {
    let bytes = text.as_bytes();
    let mut i = 1;
    let closing = bytes.get(i) == Some(&b'/');
    if closing {
        i += 1;
    }
    let start = i;
    if !bytes.get(i)?.is_ascii_uppercase() {
        return None;
    }
    while bytes
        .get(i)
        .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.'))
    {
        i += 1;
    }
    let name = &text[start..i];
    // `<T>` is more often a generic than a component.
    if name.len() < 2 && !closing {
        return None;
    }
    if !matches!(bytes.get(i)?, b' ' | b'\t' | b'\n' | b'>' | b'/') {
        return None;
    }
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    while i < bytes.len().min(MAX_TAG_BYTES) {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'"' | b'\'' | b'`' => quote = Some(b),
                b'{' => depth += 1,
                b'}' => depth = depth.checked_sub(1)?,
                b'>' if depth == 0 => {
                    let self_closing = text[..i].trim_end().ends_with('/');
                    if closing && self_closing {
                        return None;
                    }
                    return Some(JsxTag {
                        name,
                        closing,
                        self_closing,
                        len: i + 1,
                    });
                }
                b'<' if depth == 0 && !closing && bytes.get(i + 1) != Some(&b'/') => return None,
                _ => {}
            },
        }
        i += 1;
    }
    None
}

/// The number of lines of a component tag that stands alone from line `at` on.
pub(super) struct TagLines {
    pub(super) lines: usize,
}

pub(super) fn foreign_tag_line(lines: &[&str], at: usize) -> Option<TagLines> {
    let first = lines.get(at)?;
    let trimmed = first.trim_start();
    if !trimmed.starts_with('<') {
        return None;
    }
    let end = (at + MAX_TAG_LINES).min(lines.len());
    for last in at..end {
        let joined = lines[at..=last].join("\n");
        let text = joined.trim_start();
        if let Some(tag) = jsx_tag(text) {
            return text[tag.len..].trim().is_empty().then_some(TagLines {
                lines: last - at + 1,
            });
        }
        if lines[last].trim().is_empty() {
            return None;
        }
    }
    None
}

/// Prose with a docs framework's components taken out: a self-closing one dropped, a pair
/// unwrapped to its children (`<Link to="…">Deriving Data</Link>` → `Deriving Data`).
pub(super) fn foreign_components(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('<') {
        return text.into();
    }
    // Where each component's last closing tag starts, found in one pass: asking the rest of
    // the text for `</Name>` at every opening tag would be quadratic in the tags of a line.
    let mut last_close: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (at, _) in text.match_indices("</") {
        let name_start = at + 2;
        let name_end = text[name_start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .map_or(text.len(), |n| name_start + n);
        if name_end > name_start && text[name_end..].starts_with('>') {
            last_close.insert(&text[name_start..name_end], at);
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut opened: Vec<&str> = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find('<') {
        let before = &rest[..at];
        // `Vec<String>` is a generic, not a component; a closing tag may follow a word.
        let joined = !rest[at..].starts_with("</")
            && before
                .chars()
                .next_back()
                .or_else(|| out.chars().next_back())
                .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | ':' | '\\'));
        out.push_str(before);
        let tag = if joined { None } else { jsx_tag(&rest[at..]) };
        let Some(tag) = tag else {
            out.push('<');
            rest = &rest[at + 1..];
            continue;
        };
        let tail = &rest[at + tag.len..];
        let paired = tag.self_closing
            || tag.name.contains('.')
            || if tag.closing {
                opened.contains(&tag.name)
            } else {
                let tail_at = text.len() - tail.len();
                last_close
                    .get(tag.name)
                    .is_some_and(|close| *close >= tail_at)
            };
        if paired {
            if !tag.closing && !tag.self_closing && opened.len() < 64 {
                opened.push(tag.name);
            }
            rest = tail;
        } else {
            out.push('<');
            rest = &rest[at + 1..];
        }
    }
    out.push_str(rest);
    out.into()
}

/// The longest run of backticks in `lines`, so that a fence around them is longer.
pub(super) fn longest_backtick_run(lines: &[&str]) -> usize {
    lines
        .iter()
        .flat_map(|l| l.split(|c| c != '`'))
        .map(str::len)
        .max()
        .unwrap_or(0)
}

pub(super) static MDBOOK: LazyLock<Regex> = LazyLock::new(|| {
    crate::builtin::regex(
        r"^\s*\{\{#(title|include|rustdoc_include|playground|template)\b[^{}]{0,500}\}\}\s*$",
    )
});
/// A MyST target label, `(name)=`, the name captured (`labels/stability-policy` too).
pub(super) static MYST_LABEL: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r"^\s{0,3}\(([\w.:/-]{1,200})\)=\s*$"));
/// An MDX comment on a line of its own, `{/* START: x */}`.
pub(super) static MDX_COMMENT: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r"^\s*\{/\*[^\n]{0,500}?\*/\}\s*$"));
/// mkdocstrings' `::: package.module` (its options follow, indented).
pub(super) static MKDOCSTRINGS: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r"^:::[ \t]+([A-Za-z_][\w.]{0,200})\s*$"));
/// An include of code left unresolved (its file is not in the repository): pymdownx.snippets'
/// `--8<-- "path"` or a FastAPI `{* path *}`, named for the run log; the line is dropped.
pub(super) fn unresolved_include(line: &str) -> Option<String> {
    static INCLUDE: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(
            r#"^\s*(?:(-{2,}8<-{2,})(?:\s+["'][^"'\n]{0,300}["'])?|\{\*\s[^\n]{0,400}\*\})\s*$"#,
        )
    });
    let found = INCLUDE.captures(line)?;
    Some(
        if found.get(1).is_some() {
            "--8<--"
        } else {
            "{* *}"
        }
        .to_string(),
    )
}

/// What a site generator leaves in a page's text for its own build, outside code: heading
/// ids and attribute lists (`## Title {#id}`, `{ .md-button }`, `{: .class }`), template
/// variables (`{{ mdbook-version }}`, `{{ config.site_name }}`), all dropped; Hugo's
/// `{{< relref "page" >}}` becomes the page it names.
pub(super) fn site_leftovers(text: &str) -> std::borrow::Cow<'_, str> {
    static LEFTOVER: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(
            r#"[ \t]*(?:\{:?[ \t]*(?:[.#][\w-]+|[\w-]+=(?:"[^"\n]*"|'[^'\n]*'|[\w.%-]+))(?:[ \t]+(?:[.#][\w-]+|[\w-]+=(?:"[^"\n]*"|'[^'\n]*'|[\w.%-]+)))*[ \t]*:?\}|\{\{-?[ \t]*[A-Za-z_][\w.-]*(?:[ \t]*\|[^{}\n]*)?[ \t]*-?\}\})"#,
        )
    });
    // Hugo's `{{< relref "pyproject#packages" >}}` in a link names the page it links to.
    static RELREF: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(r#"\{\{[<%][ \t]*(?:rel)?ref[ \t]+"([^"\n]{1,300})"[ \t]*[>%]\}\}"#)
    });
    if !text.contains('{') {
        return text.into();
    }
    let text = RELREF.replace_all(text, "$1");
    match LEFTOVER.replace_all(&text, "") {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(owned) => owned.into(),
    }
}

/// A code line that only tells Docusaurus (or a Shiki/Prism plugin) what to highlight
/// (`// highlight-next-line`, `# highlight-start`, `{/* highlight-end */}`): the site shows
/// the code without it.
pub(super) fn is_highlight_comment(line: &str) -> bool {
    static MAGIC: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(
            r"^\s*(?://|#|--|;|<!--|\{/\*|/\*)\s*highlight-(?:next-line|start|end|line)\s*(?:\*/\}|\*/|-->)?\s*$",
        )
    });
    line.contains("highlight-") && MAGIC.is_match(line)
}

/// A Docusaurus code block's file marker (`// file: app/store.ts noEmit`, from its TypeScript
/// tooling): the site shows one file per block, without the files marked `noEmit` (context
/// for the compiler only). `Some(no_emit)` for a marker line.
pub(super) fn file_marker(line: &str) -> Option<bool> {
    static MARKER: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(r"^\s*//\s*file:\s*[\w./@-]{1,200}(\s+noEmit)?\s*$")
    });
    let found = MARKER.captures(line)?;
    Some(found.get(1).is_some())
}

/// A twoslash line of a code block (Shiki's and Docusaurus' TypeScript checker): the site
/// shows the code without it.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Twoslash {
    /// `// @filename: x.ts`, `// @include: name`, `// @noErrors`, `// ^?`: dropped.
    Directive,
    /// `// ---cut---` (or `---cut-before---`): what came before it in the block is hidden too.
    Cut,
    /// `// ---cut-after---`: what comes after it in the block is hidden.
    CutAfter,
}

pub(super) fn twoslash(line: &str) -> Option<Twoslash> {
    static DIRECTIVE: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(
            r"^\s*//\s*(?:@(?:filename|include|noErrors|errors|noErrorValidation|noErrorsCutted|module|target|strict|jsx|esModuleInterop|lib|moduleResolution|showEmit|showEmittedFile|declaration|types|allowJs|checkJs|experimentalDecorators|noImplicitAny|strictNullChecks|skipLibCheck)\b.*|\^[?|!^]+.*)\s*$",
        )
    });
    let trimmed = line.trim();
    match trimmed {
        "// ---cut---" | "// ---cut-before---" => return Some(Twoslash::Cut),
        "// ---cut-after---" => return Some(Twoslash::CutAfter),
        _ => {}
    }
    (trimmed.starts_with("//") && DIRECTIVE.is_match(line)).then_some(Twoslash::Directive)
}

/// A code fence's opening without the flags a docs site's plugins read and show as chrome,
/// not as text (Docusaurus' `npm2yarn` turns the block into npm/Yarn/pnpm tabs;
/// `showLineNumbers` numbers it): ```` ```bash npm2yarn ```` → ```` ```bash ````.
pub(super) fn without_plugin_flags(opening: String) -> String {
    const FLAGS: &[&str] = &["npm2yarn", "showLineNumbers", "twoslash"];
    if !FLAGS.iter().any(|f| opening.contains(f)) {
        return opening;
    }
    let fence_end = opening
        .find(|c: char| c != ' ' && c != '\t' && c != '`' && c != '~')
        .unwrap_or(opening.len());
    let (fence, info) = opening.split_at(fence_end);
    let kept: Vec<&str> = info
        .split_whitespace()
        .filter(|word| !FLAGS.contains(word))
        .collect();
    format!("{fence}{}", kept.join(" "))
}

/// A line a docs build reads as a break and shows as nothing: MyST's (Jupytext's) `+++`
/// cell break and sphinx-design's `+++` card footer rule.
pub(super) fn is_cell_break(line: &str) -> bool {
    let trimmed = line.trim();
    trimmed == "+++" || trimmed.starts_with("+++ {") && trimmed.ends_with('}')
}

/// A code block's label (VitePress' and Docusaurus' ```` ```ts [config.ts] ````): the
/// opening without it, and the label shown in bold before the block.
pub(super) fn fence_label(line: &str) -> Option<(String, String)> {
    static LABEL: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(
            r"^(\s*(?:`{3,}|~{3,})[\w+#.-]{0,40})[ \t]*(?:\{[^{}\n]{0,100}\}[ \t]*)?\[([^\[\]\n`]{1,100})\][ \t]*(.*)$",
        )
    });
    let found = LABEL.captures(line)?;
    let opening = format!(
        "{} {}",
        found.get(1)?.as_str(),
        found.get(3).map_or("", |m| m.as_str())
    );
    Some((
        opening.trim_end().to_string(),
        found.get(2)?.as_str().trim().to_string(),
    ))
}

/// VuePress container names, which are not mkdocstrings paths.
pub(super) const VUEPRESS: &[&str] = &["details", "code-group", "v-pre", "raw"];

#[cfg(test)]
mod tests {
    use super::super::markup::read;

    fn md(text: &str) -> String {
        read(text).markdown
    }

    #[test]
    fn a_frameworks_own_components_are_dropped_or_unwrapped() {
        let out = md(
            "Selectors let <ExternalLinks.Redux /> store state; see <Link to=\"https://x.org\">Deriving Data</Link>.\n\n- <InternalLinks.Selector text={<b>Selector Function</b>} />: reads.\n\n<PackageTabs />\n\n<Tabs groupId='language'\n  values={[{label: 'TS', value: 'ts'}]}>\n<TabItem value='ts'>\n\nts\n\n</TabItem>\n</Tabs>\n\n<Wrapper>\nKept child.\n</Wrapper>\n\n{/* START: basic.ts */}\n\nA `<Code />` span, std::unique_ptr<T> and Vec<String> and a <T> stay.",
        );
        assert!(
            out.contains("Selectors let  store state; see Deriving Data."),
            "{out}"
        );
        assert!(out.contains("- : reads."), "{out}");
        assert!(out.contains("**ts**\n\n\nts"), "{out}");
        assert!(out.contains("Kept child."), "{out}");
        for gone in [
            "<Ext",
            "<Link",
            "</Link",
            "PackageTabs",
            "<Tabs",
            "values=",
            "<Wrapper",
            "</Wrapper",
            "START",
        ] {
            assert!(!out.contains(gone), "{gone}: {out}");
        }
        assert!(
            out.ends_with("A `<Code />` span, std::unique_ptr<T> and Vec<String> and a <T> stay."),
            "{out}"
        );
        // Unclosed or unbounded tags are left to the escaper.
        assert_eq!(md("a <Open attr={x"), "a <Open attr={x");
        let _ = md(&format!("<A {}", "{".repeat(100_000)));
    }

    #[test]
    fn a_block_that_hides_all_its_code_shows_it_and_book_variables_go() {
        let found = read(
            "See [`PyDict`]({{#PYO3_DOCS_URL}}/pyo3/struct.PyDict.html) and [`Py`] at {{#PYO3_VERSION_TAG}}.\n\n[`Py`]: {{#PYO3_DOCS_URL}}/pyo3/struct.Py.html\n\n```rust,noplayground,focuscomment\n# #[cxx::bridge]\n# mod ffi {\n    // Shared structs.\n#     struct Meta {\n#         size: usize,\n#     }\n#\n# }\n```\n\n```rust\n# fn main() {\n// set up\nlet x = 1;\n# }\n```\n\n```toml\n[dependencies]\npyo3 = { {{#PYO3_CRATE_VERSION}} }\n```\n\n```handlebars\n{{#each items}}x{{/each}}\n```\n",
        );
        assert_eq!(
            found.markdown,
            "See `PyDict` and `Py` at .\n\n\n```rust\n#[cxx::bridge]\nmod ffi {\n    // Shared structs.\n    struct Meta {\n        size: usize,\n    }\n\n}\n```\n\n```rust\n// set up\nlet x = 1;\n```\n\n```toml\n[dependencies]\n```\n\n```handlebars\n{{#each items}}x{{/each}}\n```"
        );
        assert_eq!(
            found.dropped,
            ["{{#PYO3_DOCS_URL}}", "{{#PYO3_CRATE_VERSION}}"]
        );
    }

    #[test]
    fn mdbook_directives_and_hidden_lines_mkdocstrings_and_labels_are_dropped() {
        let found = read(
            "{{#title Other tools}}\n(asdict)=\n# Tools\n\n```rust,editable\n# fn main() {\nlet x = 1;\n## not hidden\n#[derive(Debug)]\n# }\n```\n\n```toml,hidelines=...\n...[package]\nname = \"x\"\n```\n\n```python\n# a comment\n{{#include ../x.py}}\n```\n\n::: tool.applications.App\n    options:\n      show: false\n\n::: tip\nA tip.\n:::\n",
        );
        assert_eq!(
            found.markdown,
            "# Tools\n\n```rust\nlet x = 1;\n# not hidden\n#[derive(Debug)]\n```\n\n```toml\nname = \"x\"\n```\n\n```python\n# a comment\n```\n\n\n::: tip\nA tip.\n:::"
        );
        assert_eq!(
            found.dropped,
            ["{{#title}}", "{{#include}}", "mkdocstrings"]
        );
    }
}

#[cfg(test)]
mod bounds {
    use super::foreign_components;

    #[test]
    fn a_line_of_many_component_tags_is_read_in_one_pass() {
        // 100,000 opening tags without a closing one: each is kept as text, found without
        // searching the rest of the line for its closing tag.
        let line = "<Ab x>y ".repeat(100_000);
        let out = foreign_components(&line);
        assert_eq!(out.matches("<Ab x>").count(), 100_000);
        let paired = "<Tab>one</Tab> <Tab>two</Tab>";
        assert_eq!(foreign_components(paired), "one two");
    }
}
