//! What a doc comment is once read, and what its readers share: the builder that bounds
//! it, and the Markdown helpers (paragraphs joined, headings made labels, examples left out).

use serde::Serialize;

use super::links::{self, plain};
use crate::source::code::comments::{doctest_language, first_sentence};

/// The longest description kept, and the items one section keeps: a generated file can
/// carry a doc comment of megabytes.
pub(super) const MAX_TEXT_CHARS: usize = 16_000;
const MAX_ITEMS: usize = 200;

/// A doc comment, structured.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DocComment {
    /// The description as Markdown: every paragraph, its notes and lists, without the
    /// sections below and without the code examples the symbol lists apart.
    pub text: String,
    /// Parameters, returns, raises, … in the order the tool shows them.
    pub sections: Vec<DocSection>,
    /// Present when the symbol is deprecated: the message (Markdown), possibly empty.
    pub deprecated: Option<String>,
    /// A TSDoc `@default` / `@defaultValue`.
    pub default: Option<String>,
    /// The tool leaves the symbol out (`@hidden`, `@ignore`, `@private` in JSDoc).
    #[serde(skip)]
    pub hidden: bool,
}

/// One section of a doc comment: "Parameters", "Returns", "Raises", …
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DocSection {
    pub title: String,
    pub items: Vec<DocItem>,
}

/// A parameter, a return value, an exception, …: its name and type when the comment gives
/// them, and its description (Markdown).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DocItem {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub text: String,
}

impl DocComment {
    /// The first sentence of the description, its links read as their text: the summary a
    /// list or table shows.
    pub(crate) fn summary(&self) -> String {
        let plain = plain(&self.text);
        let lines: Vec<String> = plain.lines().map(str::to_string).collect();
        first_sentence(&lines)
    }
}

/// Collects what a parser finds, bounded.
#[derive(Default)]
pub(super) struct Builder {
    pub text: Vec<String>,
    pub sections: Vec<DocSection>,
    pub deprecated: Option<String>,
    pub default: Option<String>,
    pub hidden: bool,
}

impl Builder {
    pub(super) fn item(&mut self, title: &str, item: DocItem) {
        let at = match self.sections.iter().position(|s| s.title == title) {
            Some(at) => at,
            None => {
                self.sections.push(DocSection {
                    title: title.to_string(),
                    items: Vec::new(),
                });
                self.sections.len() - 1
            }
        };
        let items = &mut self.sections[at].items;
        if items.len() < MAX_ITEMS {
            items.push(item);
        }
    }

    /// Sets the type of the item `name` of section `title` (reST `:type x:` after
    /// `:param x:`), adding the item when the comment typed it only.
    pub(super) fn item_type(&mut self, title: &str, name: &str, ty: String) {
        if let Some(item) = self
            .sections
            .iter_mut()
            .filter(|s| s.title == title)
            .flat_map(|s| s.items.iter_mut())
            .find(|i| i.name == name)
        {
            item.ty = ty;
            return;
        }
        self.item(
            title,
            DocItem {
                name: name.to_string(),
                ty,
                text: String::new(),
            },
        );
    }

    pub(super) fn line(&mut self, line: impl Into<String>) {
        self.text.push(line.into());
    }

    pub(super) fn finish(self) -> DocComment {
        DocComment {
            text: tidy(&self.text),
            sections: self
                .sections
                .into_iter()
                .filter(|s| !s.items.is_empty())
                .map(|mut s| {
                    for item in &mut s.items {
                        item.name = as_code(&item.name);
                        item.ty = as_code(&item.ty);
                    }
                    s
                })
                .collect(),
            deprecated: self.deprecated.map(|d| bound(d.trim())),
            default: self.default,
            hidden: self.hidden,
        }
    }
}

/// A name or type as Markdown: code, unless it is Markdown already (a link, a code span).
fn as_code(text: &str) -> String {
    let t = text.trim();
    // A code span holding `|` is escaped as text by the MDX layer (a table would split it):
    // a union type reads as well as plain text.
    if t.is_empty() || t.contains('`') || t.contains("](") || t.contains('|') {
        t.to_string()
    } else {
        links::code(t)
    }
}

/// Lines as one Markdown text: runs of blank lines made one, trimmed, bounded.
pub(super) fn tidy(lines: &[String]) -> String {
    let mut out = String::new();
    let mut blank = false;
    for line in lines {
        if line.trim().is_empty() {
            blank = !out.is_empty();
            continue;
        }
        if blank {
            out.push_str("\n\n");
        } else if !out.is_empty() {
            out.push('\n');
        }
        blank = false;
        out.push_str(line.trim_end());
    }
    bound(&out)
}

fn bound(text: &str) -> String {
    if text.chars().count() <= MAX_TEXT_CHARS {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(MAX_TEXT_CHARS - 1).collect();
    // Never leave a code fence open.
    if cut
        .lines()
        .filter(|l| l.trim_start().starts_with("```"))
        .count()
        % 2
        == 1
    {
        cut.push_str("\n```");
    }
    cut.push('…');
    cut
}

/// The item lines of a section body joined: continuation lines folded into one paragraph,
/// blank lines kept as paragraph breaks.
pub(super) fn join_text(lines: &[&str]) -> String {
    let mut out = String::new();
    let mut blank = false;
    for line in lines {
        let t = line.trim();
        if t.is_empty() {
            blank = !out.is_empty();
            continue;
        }
        if blank {
            out.push_str("\n\n");
        } else if !out.is_empty() {
            out.push(' ');
        }
        blank = false;
        out.push_str(t);
    }
    out
}

/// Markdown doc text (rustdoc, TSDoc descriptions) as the tool shows it: code blocks and
/// `>>>` sessions in place (a doctest fenced in its language, rustdoc's hidden lines left
/// out), headings made labels (a symbol's sections sit under the symbol's own heading).
pub(super) fn markdown_text(lines: &[String], fence: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        let t = line.trim();
        if let Some(info) = t.strip_prefix("```") {
            // Code stays where the comment put it, as the tool shows it; a doctest's fence
            // names its language, and rustdoc's hidden lines (`# `) go.
            let shown = doctest_language(info.trim(), fence);
            out.push(match shown {
                Some(language) => format!("```{language}"),
                None => line.trim_start().to_string(),
            });
            i += 1;
            while i < lines.len() && !lines[i].trim().starts_with("```") {
                let code = lines[i].trim_start();
                let hidden = shown == Some("rust") && (code == "#" || code.starts_with("# "));
                if !hidden {
                    out.push(lines[i].clone());
                }
                i += 1;
            }
            out.push("```".into());
            i += 1;
            continue;
        }
        if t.starts_with(">>>") {
            // A doctest session, in place, as Sphinx shows it.
            out.push(String::new());
            out.push("```python".into());
            while i < lines.len() && !lines[i].trim().is_empty() {
                out.push(lines[i].trim().to_string());
                i += 1;
            }
            out.push("```".into());
            out.push(String::new());
            continue;
        }
        if let Some(heading) = markdown_heading(t) {
            out.push(format!("**{heading}**"));
            out.push(String::new());
            i += 1;
            continue;
        }
        out.push(line.clone());
        i += 1;
    }
    drop_empty_labels(out)
}

fn markdown_heading(line: &str) -> Option<&str> {
    let hashes = line.chars().take_while(|c| *c == '#').count();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    let rest = &line[hashes..];
    if !rest.starts_with(' ') {
        return None;
    }
    let text = rest.trim().trim_end_matches('#').trim();
    (!text.is_empty()).then_some(text)
}

/// A label (`**Examples**`) followed by nothing but blank lines and the next label.
fn drop_empty_labels(lines: Vec<String>) -> Vec<String> {
    let is_label = |l: &str| {
        let t = l.trim();
        t.len() > 4 && t.starts_with("**") && t.ends_with("**") && !t[2..t.len() - 2].contains("**")
    };
    let mut out = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        if is_label(line) {
            let next = lines[i + 1..].iter().find(|l| !l.trim().is_empty());
            if next.is_none_or(|n| is_label(n)) {
                continue;
            }
        }
        out.push(line.clone());
    }
    out
}
