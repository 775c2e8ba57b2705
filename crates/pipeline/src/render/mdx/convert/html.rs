//! HTML as a README writes it: tags read from a line (bounded), and which elements MDX keeps.

use crate::render::mdx::escape::find_closing_ticks;

/// Longest HTML tag read; `<` followed by more than this is text.
pub(crate) const MAX_TAG_CHARS: usize = 1024;
/// Lines one HTML tag may span ([`super::doc::join_split_tags`]).
pub(crate) const MAX_TAG_LINES: usize = 8;
/// Brackets tracked on one line to tell an image from a link.
pub(crate) const MAX_BRACKETS: usize = 64;

/// Elements kept as JSX when opened and closed on the same line, without attributes.
pub(crate) const PHRASING: &[&str] = &[
    "b", "strong", "i", "em", "kbd", "sup", "sub", "s", "del", "ins", "mark", "small", "u", "code",
];
/// Layout elements a README wraps around its content (a centred logo, a picture with dark
/// and light sources), and phrasing elements beyond [`PHRASING`] (`<cite>`): dropped, their
/// content kept.
pub(crate) const WRAPPERS: &[&str] = &[
    "p",
    "div",
    "center",
    "picture",
    "source",
    "span",
    "figure",
    "figcaption",
    "section",
    "article",
    "tt",
    "font",
    "aside",
    "header",
    "footer",
    "main",
    // Phrasing the article has no element for: its words are what matters.
    "cite",
    "abbr",
    "dfn",
    "time",
    "var",
    "samp",
    "big",
    // A link dressed as a button (`[<button>Download</button>](url)`): its words.
    "button",
    "label",
];
/// An HTML tag as written.
pub(crate) struct Tag {
    /// Lower case.
    pub(crate) name: String,
    pub(crate) closing: bool,
    pub(crate) self_closing: bool,
    pub(crate) attributes: Vec<(String, String)>,
    /// In chars.
    pub(crate) len: usize,
}

impl Tag {
    pub(crate) fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The HTML tags of a line outside code spans, with their start.
pub(crate) fn scan_tags(chars: &[char]) -> Vec<(usize, Tag)> {
    let mut tags = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '`' => {
                let run = chars[i..].iter().take_while(|c| **c == '`').count();
                i = find_closing_ticks(chars, i + run, run).map_or(i + run, |e| e + run);
            }
            '\\' => i += 2,
            '<' => match parse_tag(&chars[i..]) {
                Some(tag) => {
                    let len = tag.len;
                    tags.push((i, tag));
                    i += len;
                }
                None => i += 1,
            },
            _ => i += 1,
        }
    }
    tags
}

/// `<name attr="v" …>`, `</name>` or `<name … />` at the start of `chars`.
fn parse_tag(chars: &[char]) -> Option<Tag> {
    let chars = &chars[..chars.len().min(MAX_TAG_CHARS)];
    let mut i = 1;
    let closing = chars.get(i) == Some(&'/');
    if closing {
        i += 1;
    }
    let name_start = i;
    if !chars.get(i)?.is_ascii_alphabetic() {
        return None;
    }
    while chars
        .get(i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '-')
    {
        i += 1;
    }
    let name: String = chars[name_start..i]
        .iter()
        .collect::<String>()
        .to_ascii_lowercase();
    let mut attributes = Vec::new();
    // Browsers read `a="x"b="y"` as two attributes; so does this.
    let mut quoted = false;
    loop {
        let spaces = chars[i..].iter().take_while(|c| c.is_whitespace()).count();
        i += spaces;
        match chars.get(i)? {
            '>' => {
                return Some(Tag {
                    name,
                    closing,
                    self_closing: false,
                    attributes,
                    len: i + 1,
                });
            }
            '/' if chars.get(i + 1) == Some(&'>') && !closing => {
                return Some(Tag {
                    name,
                    closing,
                    self_closing: true,
                    attributes,
                    len: i + 2,
                });
            }
            c if !closing
                && (spaces > 0 || quoted)
                && (c.is_ascii_alphabetic() || matches!(c, '_' | ':' | '@')) =>
            {
                let start = i;
                while chars.get(i).is_some_and(|c| {
                    c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '.' | '-' | '@')
                }) {
                    i += 1;
                }
                let key: String = chars[start..i]
                    .iter()
                    .collect::<String>()
                    .to_ascii_lowercase();
                quoted = false;
                let spaces = chars[i..].iter().take_while(|c| c.is_whitespace()).count();
                let mut value = String::new();
                if chars.get(i + spaces) == Some(&'=') {
                    i += spaces + 1;
                    i += chars[i..].iter().take_while(|c| c.is_whitespace()).count();
                    match chars.get(i)? {
                        quote @ ('"' | '\'') => {
                            let end = chars[i + 1..].iter().position(|c| c == quote)?;
                            value = chars[i + 1..i + 1 + end].iter().collect();
                            i += end + 2;
                            quoted = true;
                        }
                        _ => {
                            let len = chars[i..]
                                .iter()
                                .take_while(|c| {
                                    !c.is_whitespace()
                                        && !matches!(c, '"' | '\'' | '=' | '<' | '>' | '`')
                                })
                                .count();
                            if len == 0 {
                                return None;
                            }
                            value = chars[i..i + len].iter().collect();
                            i += len;
                            quoted = false;
                        }
                    }
                    if !quoted
                        && !chars
                            .get(i)
                            .is_some_and(|c| c.is_whitespace() || matches!(c, '>' | '/'))
                    {
                        return None;
                    }
                }
                attributes.push((key, value));
            }
            _ => return None,
        }
    }
}
