//! What the developer docs take from a doc comment once its markers are gone: the first
//! sentence (TypeDoc, rustdoc's summary line), the code examples (Rust doctests, Python
//! doctests, JSDoc `@example`), and a module's overview.

use serde::Serialize;

/// A code example of a symbol, shown as a code block under it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Example {
    /// The info string of the code fence.
    pub language: String,
    pub code: String,
    /// Go `ExampleX_suffix` examples carry their suffix; empty otherwise.
    pub label: String,
}

/// Examples a symbol shows, and lines one example keeps: a doc comment of a generated file
/// can hold thousands.
const MAX_EXAMPLES: usize = 8;
const MAX_EXAMPLE_LINES: usize = 80;
/// Longest first sentence and overview shown.
const MAX_SENTENCE_CHARS: usize = 400;
const MAX_OVERVIEW_CHARS: usize = 2_000;

/// Words whose trailing period never ends a sentence.
const NEVER_END: &[&str] = &[
    "e.g", "i.e", "vs", "cf", "approx", "incl", "resp", "viz", "al", "mr", "mrs", "dr", "fig",
    "no", "eg", "ie",
];
/// Words whose trailing period ends a sentence only when a capitalised word follows.
const END_BEFORE_CAPITAL: &[&str] = &["etc", "ca", "misc"];

/// The first sentence of a doc comment: up to the first `.`, `!` or `?` followed by a space
/// that is not part of an abbreviation ("e.g.", "i.e.", "vs.", "etc." before a lower-case
/// word) or a number ("1.2.3", "0.5"), within the first paragraph, before any tag (`@param`),
/// section heading (`# Errors`) or code fence.
pub(crate) fn first_sentence(lines: &[String]) -> String {
    let mut paragraph = Vec::new();
    for line in lines {
        let line = line.trim();
        if line.is_empty() {
            if paragraph.is_empty() {
                continue;
            }
            break;
        }
        if line.starts_with('@')
            || line.starts_with('#')
            || line.starts_with("```")
            || line.starts_with(">>>")
        {
            break;
        }
        paragraph.push(line);
    }
    let text = paragraph.join(" ");
    let chars: Vec<char> = text.chars().collect();
    let mut end = chars.len();
    for (i, c) in chars.iter().enumerate() {
        let followed_by_space = chars.get(i + 1).is_none_or(|n| n.is_whitespace());
        if !matches!(c, '.' | '!' | '?') || !followed_by_space {
            continue;
        }
        if *c == '.' && !ends_sentence(&chars, i) {
            continue;
        }
        end = i + 1;
        break;
    }
    let sentence: String = chars[..end].iter().collect();
    bound_chars(&sentence, MAX_SENTENCE_CHARS)
}

/// Whether the period at `dot` (followed by a space or the end) closes the sentence.
fn ends_sentence(chars: &[char], dot: usize) -> bool {
    let start = chars[..dot]
        .iter()
        .rposition(|c| c.is_whitespace() || *c == '(')
        .map_or(0, |p| p + 1);
    let word: String = chars[start..dot].iter().collect::<String>().to_lowercase();
    let next_word = chars[dot + 1..].iter().find(|c| !c.is_whitespace());
    if NEVER_END.contains(&word.as_str()) {
        return false;
    }
    if END_BEFORE_CAPITAL.contains(&word.as_str()) {
        return next_word.is_none_or(|c| c.is_uppercase());
    }
    true
}

fn bound_chars(text: &str, max: usize) -> String {
    if text.chars().count() > max {
        let cut: String = text.chars().take(max - 1).collect();
        format!("{cut}…")
    } else {
        text.to_string()
    }
}

/// The code examples of a doc comment: fenced blocks (rustdoc doctests, Markdown
/// docstrings), Python doctest sessions (`>>>` lines and their output) and JSDoc `@example`
/// tags. `language` is the fence of an example that names none.
pub(crate) fn examples(lines: &[String], language: &str) -> Vec<Example> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() && found.len() < MAX_EXAMPLES {
        let line = lines[i].trim();
        if let Some(info) = line.strip_prefix("```") {
            let info = info.trim();
            let mut code = Vec::new();
            i += 1;
            while i < lines.len() && !lines[i].trim().starts_with("```") {
                code.push(lines[i].as_str());
                i += 1;
            }
            i += 1;
            let shown = doctest_language(info, language);
            if let Some(shown) = shown {
                // rustdoc hides the lines of a doctest that start with `# `.
                let code: Vec<&str> = if shown == "rust" {
                    code.into_iter()
                        .filter(|l| {
                            let t = l.trim_start();
                            t != "#" && !t.starts_with("# ")
                        })
                        .collect()
                } else {
                    code
                };
                push_example(&mut found, shown, &code);
            }
            continue;
        }
        if line.starts_with(">>>") {
            let mut code = Vec::new();
            while i < lines.len() && !lines[i].trim().is_empty() {
                code.push(lines[i].trim());
                i += 1;
            }
            push_example(&mut found, "python", &code);
            continue;
        }
        if let Some(rest) = line.strip_prefix("@example") {
            let mut code = Vec::new();
            if !rest.trim().is_empty() {
                code.push(rest.trim());
            }
            i += 1;
            while i < lines.len() && !lines[i].trim_start().starts_with('@') {
                let l = lines[i].as_str();
                if !l.trim().starts_with("```") {
                    code.push(l);
                }
                i += 1;
            }
            while code.last().is_some_and(|l| l.trim().is_empty()) {
                code.pop();
            }
            push_example(&mut found, language, &code);
            continue;
        }
        i += 1;
    }
    found
}

/// The fence an example is shown with, or `None` for a block that is not code.
fn doctest_language<'a>(info: &'a str, language: &'a str) -> Option<&'a str> {
    let first = info.split([',', ' ']).next().unwrap_or("");
    match first {
        "" => Some(language),
        // rustdoc's attributes on a Rust doctest.
        "no_run" | "ignore" | "should_panic" | "compile_fail" | "edition2018" | "edition2021"
        | "edition2024" => Some(language),
        "text" | "txt" | "console" | "output" | "plain" => None,
        other => Some(other),
    }
}

fn push_example(found: &mut Vec<Example>, language: &str, code: &[&str]) {
    let lines: Vec<&str> = code.iter().take(MAX_EXAMPLE_LINES).copied().collect();
    let mut text = dedent(&lines).trim_matches('\n').to_string();
    if code.len() > MAX_EXAMPLE_LINES {
        text.push_str("\n…");
    }
    if !text.trim().is_empty() {
        found.push(Example {
            language: language.to_string(),
            code: text,
            label: String::new(),
        });
    }
}

/// Lines without the indentation they all share.
pub(crate) fn dedent(lines: &[&str]) -> String {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or(l.trim_start()).trim_end())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A module's overview: the paragraphs of its documentation before the first heading, code
/// block or tag, bounded; the rest is reference material the symbols already carry.
pub(crate) fn overview(lines: &[String]) -> String {
    let mut kept: Vec<&str> = Vec::new();
    for line in lines {
        let trimmed = line.trim();
        if trimmed.starts_with('#')
            || trimmed.starts_with("```")
            || trimmed.starts_with(">>>")
            || trimmed.starts_with('@')
            || trimmed.starts_with("..")
        {
            break;
        }
        kept.push(trimmed);
    }
    let text = kept.join("\n").trim().to_string();
    bound_chars(&text, MAX_OVERVIEW_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn first_sentence_knows_abbreviations_and_numbers() {
        let cases = [
            (
                "Parses a value, e.g. a date. Then more.",
                "Parses a value, e.g. a date.",
            ),
            (
                "Keys, i.e. names, are kept. Rest.",
                "Keys, i.e. names, are kept.",
            ),
            ("Tabs vs. spaces decide. Rest.", "Tabs vs. spaces decide."),
            (
                "Red, green, etc. are colours. Rest.",
                "Red, green, etc. are colours.",
            ),
            (
                "Reads red, green etc. Then writes.",
                "Reads red, green etc.",
            ),
            (
                "Needs version 1.2.3 or later. Rest.",
                "Needs version 1.2.3 or later.",
            ),
            ("Scales by 0.5 each step. Rest.", "Scales by 0.5 each step."),
            (
                "Exports a report as CSV. Quoting follows RFC 4180.",
                "Exports a report as CSV.",
            ),
            ("Ends here! Not here.", "Ends here!"),
        ];
        for (text, expected) in cases {
            assert_eq!(first_sentence(&lines(text)), expected, "{text}");
        }
        assert_eq!(first_sentence(&lines("Adds.\n@param x")), "Adds.");
        assert_eq!(
            first_sentence(&lines("Uses v1.2 format\n\nx")),
            "Uses v1.2 format"
        );
    }

    #[test]
    fn examples_from_rust_python_and_jsdoc() {
        let rust = lines(
            "Adds.\n\n```\n# use x::add;\nassert_eq!(add(1, 2), 3);\n```\n\n```text\nout\n```",
        );
        assert_eq!(
            examples(&rust, "rust"),
            vec![Example {
                language: "rust".into(),
                code: "assert_eq!(add(1, 2), 3);".into(),
                label: String::new(),
            }]
        );
        let python = lines("Adds.\n\n>>> add(1, 2)\n3\n\nMore.");
        assert_eq!(examples(&python, "python")[0].code, ">>> add(1, 2)\n3");
        let jsdoc = lines("Adds.\n@example\n  add(1, 2);\n  // => 3\n@returns the sum");
        let found = examples(&jsdoc, "typescript");
        assert_eq!(found[0].code, "add(1, 2);\n// => 3");
        assert_eq!(found[0].language, "typescript");
    }

    #[test]
    fn overview_stops_at_the_first_section() {
        let doc = lines("Parses CSV.\n\nFast and safe.\n\n# Examples\n\n```\nx\n```");
        assert_eq!(overview(&doc), "Parses CSV.\n\nFast and safe.");
    }
}
