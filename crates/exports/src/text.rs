//! Text written into pages and configuration: escaped for MDX or for Python-Markdown, quoted
//! for YAML and JavaScript.

/// `text` as literal text of a page. MDX (CommonMark with JSX and expressions): every
/// character that could start syntax is backslash-escaped. Python-Markdown (MkDocs): `&`,
/// `<` and `>` become entities (it does not read `\<`), the rest is backslash-escaped.
pub(crate) fn escape(text: &str, mdx: bool) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' if !mdx => out.push_str("&amp;"),
            '<' if !mdx => out.push_str("&lt;"),
            '>' if !mdx => out.push_str("&gt;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '!' | '|' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '<' | '>' | '&' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A double-quoted string: valid JSON, YAML and JavaScript alike.
pub(crate) fn quoted(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_for_each_reader() {
        assert_eq!(escape("a <b> {c} *d*", true), r"a \<b\> \{c\} \*d\*");
        assert_eq!(escape("a <b> & {c}", false), r"a &lt;b&gt; &amp; \{c\}");
        assert_eq!(quoted("say \"hi\"\n"), r#""say \"hi\"\n""#);
    }
}
