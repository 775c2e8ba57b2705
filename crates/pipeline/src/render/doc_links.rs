//! Links between symbols resolved to the article's anchors. The source layer writes them
//! as `[label](doc:target)` with the target as the comment wrote it (`~pkg.Cls.run`,
//! `crate::kv::Key`, `strings.Builder`, `Self::new`); here each becomes a link to the
//! symbol's anchor when the article documents it, to the language's public docs when the
//! target is in the standard library or another crate or package (docs.rs, pkg.go.dev),
//! and otherwise its label alone: never a link that leads nowhere.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::{Captures, Regex};

use crate::builtin::regex;
use crate::source::code::{DocComment, DocItem, DocSection};

/// Segments of a target tried before giving up; targets are at most 200 characters.
const MAX_SEGMENTS: usize = 16;

/// Every symbol of one article by the names a link may use.
#[derive(Default)]
pub(crate) struct DocLinks {
    /// Normalised name → (module, anchor) of each symbol known by it.
    names: HashMap<String, Vec<(String, String)>>,
    /// The crates the article documents (Rust), so `mycrate::x` is not sent to docs.rs.
    crates: Vec<String>,
}

/// Where a link is written: the module and type of the symbol whose comment holds it.
pub(crate) struct From<'a> {
    pub module: &'a str,
    pub parent: Option<&'a str>,
    pub language: &'a str,
}

impl DocLinks {
    /// Makes `anchor` the target of `name` (qualified within its file, as `Type::method` or
    /// `Class.method`) in `module` (the module's name as the article shows it).
    pub fn add(&mut self, module: &str, name: &str, anchor: &str) {
        let module = module.trim_start_matches("package ").trim();
        let name = normalise(name);
        let mut keys = vec![name.clone()];
        if !module.is_empty() {
            let dotted = normalise(module);
            // Go: a package is linked by its last path element (`[json.Marshal]`).
            if let Some(last) = dotted.rsplit(['/', '.']).next() {
                keys.push(format!("{last}.{name}"));
            }
            keys.push(format!("{dotted}.{name}"));
        }
        for key in keys {
            let entry = self.names.entry(key).or_default();
            if !entry.iter().any(|(_, a)| a == anchor) {
                entry.push((module.to_string(), anchor.to_string()));
            }
        }
    }

    pub fn add_crate(&mut self, name: &str) {
        self.crates.push(name.replace('-', "_"));
    }

    /// `markdown` with its doc links resolved.
    pub fn resolve(&self, markdown: &str, from: &From) -> String {
        static LINK: LazyLock<Regex> = LazyLock::new(|| regex(r"\[([^\]\n]*)\]\(doc:([^)\s]*)\)"));
        if !markdown.contains("](doc:") {
            return markdown.to_string();
        }
        LINK.replace_all(markdown, |c: &Captures| {
            let label = &c[1];
            match self.target(&c[2], from) {
                Some(url) => format!("[{label}]({url})"),
                None => label.to_string(),
            }
        })
        .into_owned()
    }

    pub fn comment(&self, comment: &DocComment, from: &From) -> DocComment {
        DocComment {
            text: self.resolve(&comment.text, from),
            sections: comment
                .sections
                .iter()
                .map(|s| DocSection {
                    title: s.title.clone(),
                    items: s
                        .items
                        .iter()
                        .map(|i| DocItem {
                            name: self.resolve(&i.name, from),
                            ty: self.resolve(&i.ty, from),
                            text: self.resolve(&i.text, from),
                        })
                        .collect(),
                })
                .collect(),
            deprecated: comment.deprecated.as_ref().map(|d| self.resolve(d, from)),
            default: comment.default.clone(),
            hidden: comment.hidden,
        }
    }

    /// The URL of `target`: `#anchor` in the article, or the language's public docs.
    fn target(&self, target: &str, from: &From) -> Option<String> {
        if target.starts_with("http://") || target.starts_with("https://") {
            return Some(target.to_string());
        }
        let name = normalise(target);
        if name.is_empty() {
            return None;
        }
        // `Self::new`, `.method` and a bare member name are looked for in the type first.
        if let Some(parent) = from.parent {
            let parent = normalise(parent);
            let member = name.strip_prefix("Self.").unwrap_or(&name);
            if let Some(anchor) = self.find(&format!("{parent}.{member}"), from.module) {
                return Some(format!("#{anchor}"));
            }
        }
        // The standard library's items are never the article's, whatever their last name
        // (`std::error::Error` is not the crate's `Error`).
        let first = target.trim().split("::").next().unwrap_or("");
        if from.language == "rust"
            && target.contains("::")
            && matches!(first, "std" | "core" | "alloc")
        {
            return external(target, &name, from.language, &self.crates);
        }
        let mut rest = name.as_str();
        for _ in 0..MAX_SEGMENTS {
            if let Some(anchor) = self.find(rest, from.module) {
                return Some(format!("#{anchor}"));
            }
            match rest.split_once('.') {
                Some((_, tail)) if !tail.is_empty() => rest = tail,
                _ => break,
            }
        }
        external(target, &name, from.language, &self.crates)
    }

    /// The anchor of `name`: the only symbol of that name, or the one in `module`.
    fn find(&self, name: &str, module: &str) -> Option<&str> {
        let found = self.names.get(name)?;
        match found.as_slice() {
            [(_, anchor)] => Some(anchor),
            many => many
                .iter()
                .find(|(m, _)| m == module.trim_start_matches("package "))
                .map(|(_, a)| a.as_str()),
        }
    }
}

/// A target as a dotted path: `crate::kv::Key` → `kv.Key`, `~pkg.Cls.run()` → `pkg.Cls.run`,
/// `fn@log` → `log`, `struct.Value.html#method.new` → `Value.new`, `*bytes.Buffer` →
/// `bytes.Buffer`.
fn normalise(target: &str) -> String {
    let mut t = target
        .trim()
        .trim_start_matches(['~', '!', '*', '.'])
        .to_string();
    if let Some(page) = rustdoc_page(&t) {
        t = page;
    }
    if let Some((namespace, path)) = t.split_once('@')
        && namespace.chars().all(|c| c.is_ascii_lowercase())
    {
        t = path.to_string();
    }
    let t = t
        .trim_end_matches("()")
        .trim_end_matches('!')
        .replace("::", ".");
    let mut t = t.as_str();
    for prefix in ["crate.", "self.", "super."] {
        while let Some(rest) = t.strip_prefix(prefix) {
            t = rest;
        }
    }
    // Generic arguments are not part of the name.
    t.split('<').next().unwrap_or(t).to_string()
}

/// `struct.Value.html#method.new` → `Value.new`; `../log/macro.info.html` → `log.info`;
/// `unsync/struct.OnceCell.html` → `unsync.OnceCell`: the folders are the module path, which
/// tells two same-named items of two modules apart (the lookup drops leading segments it
/// does not find).
fn rustdoc_page(target: &str) -> Option<String> {
    let (page, fragment) = target.split_once('#').unwrap_or((target, ""));
    let (folders, file) = page.rsplit_once('/').unwrap_or(("", page));
    let stem = file.strip_suffix(".html")?;
    let (_, name) = stem.split_once('.')?;
    let mut path: Vec<&str> = folders
        .split('/')
        .filter(|s| !s.is_empty() && *s != "." && *s != "..")
        .collect();
    path.push(name);
    if let Some((_, member)) = fragment.split_once('.') {
        path.push(member);
    }
    Some(path.join("."))
}

/// The public docs of a target outside the article: Rust's standard library and other
/// crates (docs.rs), Go's packages (pkg.go.dev).
fn external(target: &str, name: &str, language: &str, crates: &[String]) -> Option<String> {
    match language {
        "rust" => {
            let path = target.trim().trim_end_matches("()").trim_end_matches('!');
            let (first, rest) = path.split_once("::")?;
            if matches!(first, "crate" | "self" | "super" | "Self")
                || crates.iter().any(|c| c == first)
            {
                return None;
            }
            let query = rest.replace("::", "%3A%3A");
            if matches!(first, "std" | "core" | "alloc") {
                Some(format!("https://doc.rust-lang.org/{first}/?search={query}"))
            } else if first.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                Some(format!(
                    "https://docs.rs/{first}/latest/{first}/?search={query}"
                ))
            } else {
                None
            }
        }
        "go" => {
            // `strings.Builder`, `golang.org/x/net/html.Parse`, `encoding/json.Marshal`.
            let (dir, last) = name.rsplit_once('/').unwrap_or(("", name));
            let (package, symbol) = last.split_once('.')?;
            if package.is_empty()
                || !package
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            {
                return None;
            }
            let import = if dir.is_empty() {
                package.to_string()
            } else {
                format!("{dir}/{package}")
            };
            Some(format!("https://pkg.go.dev/{import}#{symbol}"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links() -> DocLinks {
        let mut links = DocLinks::default();
        links.add("pkg.core", "Parser", "pkg-core-Parser");
        links.add("pkg.core", "Parser.parse", "pkg-core-Parser-parse");
        links.add("pkg.other", "parse", "pkg-other-parse");
        links.add("mycrate::kv", "Key", "kv-Key");
        links.add_crate("mycrate");
        links
    }

    fn from<'a>(module: &'a str, parent: Option<&'a str>, language: &'a str) -> From<'a> {
        From {
            module,
            parent,
            language,
        }
    }

    #[test]
    fn targets_resolve_to_anchors_by_any_name_the_comment_uses() {
        let links = links();
        let py = from("pkg.core", Some("Parser"), "python");
        let cases = [
            (
                "[`parse()`](doc:~pkg.core.Parser.parse)",
                "[`parse()`](#pkg-core-Parser-parse)",
            ),
            ("[`Parser`](doc:Parser)", "[`Parser`](#pkg-core-Parser)"),
            // A member name is looked for in the comment's own type first.
            (
                "[`parse()`](doc:parse)",
                "[`parse()`](#pkg-core-Parser-parse)",
            ),
            ("[`x`](doc:elsewhere.Thing)", "`x`"),
        ];
        for (text, expected) in cases {
            assert_eq!(links.resolve(text, &py), expected, "{text}");
        }
        let rust = from("mycrate::kv", None, "rust");
        assert_eq!(
            links.resolve("[`Key`](doc:crate::kv::Key)", &rust),
            "[`Key`](#kv-Key)"
        );
        assert_eq!(
            links.resolve("[`Key`](doc:struct.Key.html)", &rust),
            "[`Key`](#kv-Key)"
        );
        assert_eq!(
            links.resolve("[`Serialize`](doc:serde::Serialize)", &rust),
            "[`Serialize`](https://docs.rs/serde/latest/serde/?search=Serialize)"
        );
        assert_eq!(
            links.resolve("[`HashMap`](doc:std::collections::HashMap)", &rust),
            "[`HashMap`](https://doc.rust-lang.org/std/?search=collections%3A%3AHashMap)"
        );
        assert_eq!(
            links.resolve("[`Gone`](doc:mycrate::Gone)", &rust),
            "`Gone`"
        );
        // The standard library's `Key` is not the crate's.
        assert_eq!(
            links.resolve("[`Key`](doc:std::kv::Key)", &rust),
            "[`Key`](https://doc.rust-lang.org/std/?search=kv%3A%3AKey)"
        );
        // Two same-named items of two modules: the rustdoc page's folder picks one.
        let mut two = super::tests::links();
        two.add("mycrate::sync", "Cell", "sync-Cell");
        two.add("mycrate::unsync", "Cell", "unsync-Cell");
        let root = from("mycrate", None, "rust");
        assert_eq!(
            two.resolve("[`unsync::Cell`](doc:unsync/struct.Cell.html)", &root),
            "[`unsync::Cell`](#unsync-Cell)"
        );
        assert_eq!(
            two.resolve("[`sync::Cell`](doc:sync::Cell)", &root),
            "[`sync::Cell`](#sync-Cell)"
        );
        let go = from("package lib", None, "go");
        assert_eq!(
            links.resolve("[`json.Marshal`](doc:encoding/json.Marshal)", &go),
            "[`json.Marshal`](https://pkg.go.dev/encoding/json#Marshal)"
        );
        assert_eq!(
            links.resolve("[`strings.Builder`](doc:strings.Builder)", &go),
            "[`strings.Builder`](https://pkg.go.dev/strings#Builder)"
        );
    }
}
