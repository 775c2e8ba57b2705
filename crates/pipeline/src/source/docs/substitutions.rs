//! Sphinx's substitutions filled in as the site's build fills them: `|version|` and
//! `|release|` (reST) and MyST's ``{sub-ref}`release` ``, from `conf.py`'s `version` and
//! `release` when they are written as strings, else from the package's own `__version__`
//! that `conf.py` names (`version = requests.__version__`); and the `.. |name| replace:: text`
//! substitutions of `conf.py`'s `rst_epilog`/`rst_prolog`.
//!
//! A line whose substitution has no value found is dropped, never shown with its bars.
//! Code is left as written.
//!
//! In an mdBook, a version variable its own preprocessor fills in (`{{#PYO3_CRATE_VERSION}}`)
//! is the crate's version from the root `Cargo.toml`, code included: `pyo3 = { {{#…}} }` is
//! `pyo3 = { version = "0.29.2" }`. Other variables are left to the markup reader, which drops
//! them.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::fences::Fences;

/// Folders above a page searched for its `conf.py`.
const MAX_CONF_DEPTH: usize = 4;
/// Substitutions read from one `conf.py`.
const MAX_SUBSTITUTIONS: usize = 200;

/// `text` (the page at `path`) with its substitutions filled in; `read` gives a repository
/// file's text by path.
pub(crate) fn substitute(path: &str, text: &str, read: &dyn Fn(&str) -> Option<String>) -> String {
    let versioned = book_versions(path, text, read);
    sphinx(path, &versioned, read)
}

fn sphinx(path: &str, text: &str, read: &dyn Fn(&str) -> Option<String>) -> String {
    static REFERENCE: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(
            r"(?:\\ )?(?:\|([A-Za-z][\w-]{0,40})\||\{sub-ref\}`([\w-]{1,40})`)(?:\\ )?",
        )
    });
    if !text.contains('|') && !text.contains("{sub-ref}") {
        return text.to_string();
    }
    let Some(values) = conf_values(path, read) else {
        return text.to_string();
    };
    let mut fence = Fences::default();
    let mut out = Vec::new();
    for line in text.lines() {
        // A table's row (`|release|date|`) and a directive line are left as they are.
        let trimmed = line.trim_start();
        if fence.is_code(line)
            || !REFERENCE.is_match(line)
            || trimmed.starts_with("..")
            || trimmed.starts_with('|')
        {
            out.push(line.to_string());
            continue;
        }
        let mut missing = false;
        let filled = REFERENCE.replace_all(line, |c: &Captures| {
            let name = c.get(1).or(c.get(2)).map_or("", |m| m.as_str());
            let whole = c.get(0).map_or("", |m| m.as_str());
            match values.get(name) {
                // reST's `v\\ |version|` escapes the space only to join the two.
                Some(value) => value.clone(),
                // A table's `|a|` or a pipe in text is no substitution of this site.
                None if c.get(2).is_none() && !VERSION_NAMES.contains(&name) => whole.to_string(),
                None => {
                    missing = true;
                    whole.to_string()
                }
            }
        });
        if !missing {
            out.push(filled.into_owned());
        }
    }
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    joined
}

/// The substitutions every Sphinx site defines.
const VERSION_NAMES: [&str; 2] = ["version", "release"];

/// The values `conf.py` beside or above the page gives: `version`, `release` and its
/// epilog's and prolog's `replace::` substitutions. `None` when no `conf.py` is found.
fn conf_values(
    path: &str,
    read: &dyn Fn(&str) -> Option<String>,
) -> Option<HashMap<String, String>> {
    static ASSIGNED: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(
            r#"(?m)^(version|release)\s*=\s*(?:[uU]?"([^"\n]{1,60})"|[uU]?'([^'\n]{1,60})'|([A-Za-z_][\w]{0,60})\.__version__)\s*$"#,
        )
    });
    static REPLACE: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(r"(?m)^\s*\.\. \|([^|\n]{1,60})\| replace:: ([^\n]{1,300})$")
    });
    let conf = above(path, "conf.py", read)?;
    let mut values = HashMap::new();
    for found in ASSIGNED.captures_iter(&conf) {
        let name = found.get(1).map_or("", |m| m.as_str());
        let value = match found.get(2).or(found.get(3)) {
            Some(literal) => Some(literal.as_str().to_string()),
            None => found
                .get(4)
                .and_then(|module| package_version(module.as_str(), read)),
        };
        if let Some(value) = value {
            values.insert(name.to_string(), value);
        }
    }
    // Sphinx's `version` is the short X.Y of `release` when only one is given.
    if let (None, Some(release)) = (values.get("version"), values.get("release").cloned()) {
        values.insert("version".into(), release);
    }
    if let (Some(version), None) = (values.get("version").cloned(), values.get("release")) {
        values.insert("release".into(), version);
    }
    for found in REPLACE.captures_iter(&conf).take(MAX_SUBSTITUTIONS) {
        let (Some(name), Some(text)) = (found.get(1), found.get(2)) else {
            continue;
        };
        values
            .entry(name.as_str().to_string())
            .or_insert_with(|| text.as_str().trim().to_string());
    }
    Some(values)
}

/// The file `name` in the page's folder or the nearest folder above it.
fn above(path: &str, name: &str, read: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    let mut dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    for _ in 0..MAX_CONF_DEPTH {
        let candidate = if dir.is_empty() {
            name.to_string()
        } else {
            format!("{dir}/{name}")
        };
        if let Some(text) = read(&candidate) {
            return Some(text);
        }
        if dir.is_empty() {
            return None;
        }
        dir = dir.rsplit_once('/').map_or("", |(d, _)| d);
    }
    None
}

/// A book page with its version variables filled in from the crate's version.
fn book_versions<'a>(
    path: &str,
    text: &'a str,
    read: &dyn Fn(&str) -> Option<String>,
) -> std::borrow::Cow<'a, str> {
    static VARIABLE: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(
            r"(\{\s*)?\{\{#[A-Z][A-Z0-9_]{0,40}VERSION[A-Z0-9_]{0,40}\}\}(\s*\})?",
        )
    });
    if !text.contains("{{#") || above(path, "book.toml", read).is_none() {
        return text.into();
    }
    let Some(version) = read("Cargo.toml").and_then(|cargo| crate_version(&cargo)) else {
        return text.into();
    };
    VARIABLE.replace_all(text, |c: &Captures| match (c.get(1), c.get(2)) {
        (Some(open), Some(close)) => {
            format!("{}version = \"{version}\"{}", open.as_str(), close.as_str())
        }
        (open, close) => format!(
            "{}{version}{}",
            open.map_or("", |m| m.as_str()),
            close.map_or("", |m| m.as_str())
        ),
    })
}

/// The version `[package]` (or `[workspace.package]`) of a `Cargo.toml` gives.
fn crate_version(cargo: &str) -> Option<String> {
    let mut section = "";
    for line in cargo.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line;
            continue;
        }
        if matches!(section, "[package]" | "[workspace.package]")
            && let Some(value) = line.strip_prefix("version")
            && let Some(value) = value.trim_start().strip_prefix('=')
        {
            let value = value.trim().trim_matches('"');
            let plain = !value.is_empty()
                && value.len() <= 40
                && value
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || ".-+".contains(c));
            return plain.then(|| value.to_string());
        }
    }
    None
}

/// The `__version__` a Python package writes as a string, in its `__version__.py`,
/// `_version.py` or `__init__.py`, at the root or under `src/`.
fn package_version(module: &str, read: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    static VERSION: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(r#"(?m)^__version__\s*=\s*(?:"([^"\n]{1,60})"|'([^'\n]{1,60})')"#)
    });
    ["", "src/"].iter().find_map(|root| {
        ["__version__.py", "_version.py", "__init__.py"]
            .iter()
            .find_map(|file| {
                let text = read(&format!("{root}{module}/{file}"))?;
                let found = VERSION.captures(&text)?;
                Some(found.get(1).or(found.get(2))?.as_str().to_string())
            })
    })
}

#[cfg(test)]
mod tests {
    use super::substitute;

    fn files(path: &str) -> Option<String> {
        match path {
            "docs/conf.py" => Some(
                "project = u\"Requests\"\nversion = requests.__version__\nrst_epilog = \"\"\"\n.. |tool| replace:: Widget CLI\n\"\"\"\n".into(),
            ),
            "src/requests/__version__.py" => Some("__version__ = \"2.32.3\"\n".into()),
            "other/conf.py" => Some("release = metadata.version(\"attrs\")\n".into()),
            _ => None,
        }
    }

    #[test]
    fn versions_and_epilog_substitutions_are_filled_in() {
        let page = "Release v\\ |version|. Run |tool|.\n\n| a | b |\n|a|b|\n|release|date|\n\n```\n|version|\n```\n";
        assert_eq!(
            substitute("docs/index.rst", page, &files),
            "Release v2.32.3. Run Widget CLI.\n\n| a | b |\n|a|b|\n|release|date|\n\n```\n|version|\n```\n"
        );
    }

    #[test]
    fn a_books_version_variable_is_the_crates_version() {
        let read = |path: &str| match path {
            "Cargo.toml" => Some("[package]\nname = \"pyo3\"\nversion = \"0.29.2\"\n".to_string()),
            "guide/book.toml" => Some("[book]\n".to_string()),
            _ => None,
        };
        let page = "```toml\npyo3 = { {{#PYO3_CRATE_VERSION}} }\n```\n\nDocs at {{#PYO3_DOCS_URL}}, v{{#PYO3_DOCS_VERSION}}.\n";
        assert_eq!(
            substitute("guide/src/getting-started.md", page, &read),
            "```toml\npyo3 = { version = \"0.29.2\" }\n```\n\nDocs at {{#PYO3_DOCS_URL}}, v0.29.2.\n"
        );
        // Outside a book nothing is filled in.
        assert_eq!(substitute("docs/a.md", page, &read), page);
    }

    #[test]
    fn a_substitution_without_a_value_drops_its_line() {
        let page =
            "# attrs\n\nRelease **{sub-ref}`release`**  ([What's new?](changelog.md))\n\nText.";
        assert_eq!(
            substitute("other/index.md", page, &files),
            "# attrs\n\n\nText."
        );
        // Without a Sphinx configuration nothing is read as a substitution.
        assert_eq!(substitute("x/a.md", "|version|", &files), "|version|");
    }
}
