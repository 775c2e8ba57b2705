//! Code highlighted by syntect (its default syntaxes, pure-Rust regexes) as
//! `<span class="hl-…">` elements, never inline styles: the pages' Content-Security-Policy
//! forbids them. The colours are a stylesheet of those classes, [`css`], light with a dark
//! variant for readers who prefer one.
//!
//! Highlighting is the slowest part of rendering (regexes per line), so it is bounded: an
//! article has [`HIGHLIGHT_BUDGET`] bytes of it, and code with a line longer than
//! [`MAX_LINE_BYTES`] (minified files, data) is shown plain. Plain code is escaped text in the
//! same `<pre>`, so nothing is lost but colour.

use std::sync::LazyLock;

use syntect::highlighting::ThemeSet;
use syntect::html::{ClassStyle, ClassedHTMLGenerator, css_for_theme_with_class_style};
use syntect::parsing::{SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;

use super::escape::escape;

/// Every class the highlighter writes starts with this.
pub(super) const CLASS_PREFIX: &str = "hl-";
/// The class of the `<pre>` around highlighted code, which the stylesheet colours.
pub(super) const CODE_CLASS: &str = "hl-code";
const STYLE: ClassStyle = ClassStyle::SpacedPrefixed {
    prefix: CLASS_PREFIX,
};
/// Bytes of code highlighted in one article (or one source view); beyond, code is plain.
pub(super) const HIGHLIGHT_BUDGET: usize = 256 * 1024;
/// Code with a longer line is shown plain.
const MAX_LINE_BYTES: usize = 1_000;
const LIGHT_THEME: &str = "InspiredGitHub";
const DARK_THEME: &str = "base16-ocean.dark";

static SYNTAXES: LazyLock<SyntaxSet> = LazyLock::new(SyntaxSet::load_defaults_newlines);

static CSS: LazyLock<String> = LazyLock::new(|| {
    let themes = ThemeSet::load_defaults();
    let css = |name: &str| {
        themes
            .themes
            .get(name)
            .and_then(|theme| css_for_theme_with_class_style(theme, STYLE).ok())
            .unwrap_or_default()
    };
    format!(
        "{}\n@media (prefers-color-scheme: dark) {{\n{}\n}}\n",
        css(LIGHT_THEME),
        css(DARK_THEME)
    )
});

/// The stylesheet of the highlighter's classes.
pub(super) fn css() -> &'static str {
    &CSS
}

/// `code` as the inside of a `<code>` element: highlighted as `language` when syntect knows
/// it and `budget` (bytes, decreased by what is highlighted) allows, else escaped text.
pub(super) fn code(code: &str, language: &str, budget: &mut usize) -> String {
    let Some(syntax) = syntax(language) else {
        return escape(code);
    };
    let plain = code.len() > *budget || code.lines().any(|line| line.len() > MAX_LINE_BYTES);
    if plain {
        return escape(code);
    }
    *budget -= code.len();
    let mut generator = ClassedHTMLGenerator::new_with_class_style(syntax, &SYNTAXES, STYLE);
    for line in LinesWithEndings::from(code) {
        // The syntaxes are the "newlines" set: every line must end with one.
        let parsed = if line.ends_with('\n') {
            generator.parse_html_for_line_which_includes_newline(line)
        } else {
            generator.parse_html_for_line_which_includes_newline(&format!("{line}\n"))
        };
        if parsed.is_err() {
            return escape(code);
        }
    }
    let html = generator.finalize();
    // The newline added to the last line is not the code's.
    match code.ends_with('\n') {
        true => html,
        false => strip_last_newline(html),
    }
}

/// The syntax for an info string's language (`rust`, `sh`, `ts`…), if syntect has one.
fn syntax(language: &str) -> Option<&'static SyntaxReference> {
    let token = language.trim().to_ascii_lowercase();
    let token = match token.as_str() {
        "" | "text" | "txt" | "plain" | "plaintext" => return None,
        "sh" | "shell" | "zsh" | "console" | "shell-session" | "shellsession" => "bash",
        // Close enough for reading; the default syntaxes have no TypeScript.
        "ts" | "typescript" | "tsx" | "jsx" | "mjs" | "cjs" => "js",
        "mdx" => "md",
        "yml" => "yaml",
        "py" => "python",
        "rs" => "rust",
        "golang" => "go",
        other => other,
    };
    SYNTAXES.find_syntax_by_token(token)
}

fn strip_last_newline(mut html: String) -> String {
    // The generator closes its spans after the text, so the newline may precede them.
    if let Some(at) = html.rfind('\n') {
        html.remove(at);
    }
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_languages_are_highlighted_with_classes_only() {
        let mut budget = HIGHLIGHT_BUDGET;
        let html = code("fn main() { let x = \"<b>\"; }", "rust", &mut budget);
        assert!(html.contains("<span class=\"hl-"), "{html}");
        assert!(html.contains("&lt;b&gt;"), "{html}");
        assert!(!html.contains("style="), "{html}");
        assert!(!html.ends_with('\n'));
        assert!(budget < HIGHLIGHT_BUDGET);
        for language in ["sh", "python", "go", "ts", "json", "yaml", "mdx"] {
            let html = code("x = 1\n", language, &mut budget);
            assert!(html.contains("<span class=\"hl-"), "{language}: {html}");
        }
    }

    #[test]
    fn unknown_languages_long_lines_and_spent_budgets_stay_plain() {
        let mut budget = HIGHLIGHT_BUDGET;
        assert_eq!(code("a < b", "no-such-language", &mut budget), "a &lt; b");
        assert_eq!(code("a < b", "", &mut budget), "a &lt; b");
        let long = format!("let x = \"{}\";", "a".repeat(2_000));
        assert!(!code(&long, "rust", &mut budget).contains("<span"));
        let mut spent = 3;
        assert_eq!(code("fn f() {}", "rust", &mut spent), "fn f() {}");
        assert_eq!(spent, 3);
    }

    #[test]
    fn the_stylesheet_colours_the_classes_in_light_and_dark() {
        let css = css();
        assert!(css.contains(".hl-code"), "{css}");
        assert!(css.contains(".hl-keyword"), "{css}");
        assert!(css.contains("prefers-color-scheme: dark"));
    }
}
