//! An article's YAML frontmatter: the pipeline writes it (`Frontmatter::render`), the portal
//! reads its fields back for the article's header (`Frontmatter::fields`; `Frontmatter::parse`
//! when all of them are wanted) and the
//! prose polish keeps it apart from the body it sends (`Frontmatter::split`). One type, so the
//! three always agree on the shape.
//!
//! The shape is flat YAML of scalars (`title`, `description`, `feature`, `surface`, `version`,
//! `source_commit`), each string double-quoted as JSON is ([`yaml_string`]). The reader takes
//! `key: value` lines, a double-quoted value decoded as a JSON string, a single-quoted one with
//! `''` unescaped, anything else as written; a line of another shape (a nested mapping, a list)
//! is skipped rather than guessed at, since an edited article may carry fields of its own.

use domain::Surface;

use super::escape::yaml_string;

/// Most fields kept; a header with more would not be read.
const MAX_FIELDS: usize = 32;
/// Longest value kept, in characters.
const MAX_VALUE_CHARS: usize = 2_000;

/// The fields the contract requires of every generated article.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frontmatter {
    pub title: String,
    pub description: String,
    pub feature: String,
    pub surface: Surface,
    pub version: i64,
    pub source_commit: String,
}

impl Frontmatter {
    /// `---`, the fields in the contract's order, `---`, each line ending in `\n`.
    pub fn render(&self) -> String {
        format!(
            "---\ntitle: {}\ndescription: {}\nfeature: {}\nsurface: {}\nversion: {}\nsource_commit: {}\n---\n",
            yaml_string(&self.title),
            yaml_string(&self.description),
            yaml_string(&self.feature),
            yaml_string(self.surface.as_str()),
            self.version,
            yaml_string(&self.source_commit),
        )
    }

    /// The frontmatter of `yaml` (without its `---` fences) when it has every field.
    pub fn parse(yaml: &str) -> Option<Self> {
        let fields = Self::fields(yaml);
        let field = |name: &str| {
            fields
                .iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.clone())
        };
        Some(Self {
            title: field("title")?,
            description: field("description")?,
            feature: field("feature")?,
            surface: field("surface")?.parse().ok()?,
            version: field("version")?.parse().ok()?,
            source_commit: field("source_commit")?,
        })
    }

    /// The fields of YAML frontmatter `yaml` (without its `---` fences), in their order, at
    /// most [`MAX_FIELDS`], each value at most [`MAX_VALUE_CHARS`] characters.
    pub fn fields(yaml: &str) -> Vec<(String, String)> {
        yaml.lines().filter_map(field).take(MAX_FIELDS).collect()
    }

    /// An article split into its frontmatter (`---\n…\n---\n`, fences included) and its body.
    pub fn split(mdx: &str) -> Option<(&str, &str)> {
        let rest = mdx.strip_prefix("---\n")?;
        let end = rest.find("\n---\n")?;
        let cut = 4 + end + 5;
        Some((&mdx[..cut], &mdx[cut..]))
    }
}

fn field(line: &str) -> Option<(String, String)> {
    let (key, value) = line.split_once(':')?;
    let plain_key = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'));
    if !plain_key {
        return None;
    }
    let value = value.trim();
    let value = if let Some(quoted) = value.strip_prefix('"') {
        serde_json::from_str::<String>(value)
            .unwrap_or_else(|_| quoted.trim_end_matches('"').to_owned())
    } else if let Some(quoted) = value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
        quoted.replace("''", "'")
    } else {
        value.to_owned()
    };
    // A nested mapping's key has no value of its own.
    (!value.is_empty()).then(|| {
        (
            key.to_owned(),
            value.chars().take(MAX_VALUE_CHARS).collect(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_rendered_parses_back() {
        let front = Frontmatter {
            title: "Numbers {v2} \"quoted\" <b>".into(),
            description: "It's: small\nand two lines".into(),
            feature: "csv-export".into(),
            surface: Surface::DevDocs,
            version: 3,
            source_commit: "abc123".into(),
        };
        let text = front.render();
        let article = format!("{text}\n# Body\n");
        let (header, body) = Frontmatter::split(&article).unwrap();
        assert_eq!(header, text);
        assert_eq!(body, "\n# Body\n");
        let yaml = text
            .strip_prefix("---\n")
            .and_then(|t| t.strip_suffix("---\n"))
            .unwrap();
        assert_eq!(Frontmatter::parse(yaml), Some(front));
        assert!(Frontmatter::split("# no frontmatter").is_none());
    }

    #[test]
    fn the_fields_are_read_as_written() {
        let yaml = "title: \"Numbers \\u007Bv2\\u007D \\\"quoted\\\"\"\ndescription: 'It''s small'\nversion: 3\nnested:\n  a: b\n- item\nsource_commit: \"abc\"";
        assert_eq!(
            Frontmatter::fields(yaml),
            [
                ("title".to_owned(), "Numbers {v2} \"quoted\"".to_owned()),
                ("description".to_owned(), "It's small".to_owned()),
                ("version".to_owned(), "3".to_owned()),
                ("source_commit".to_owned(), "abc".to_owned()),
            ]
        );
        assert_eq!(Frontmatter::parse(yaml), None, "no feature, no surface");
    }

    #[test]
    fn broken_quotes_and_floods_are_bounded() {
        assert_eq!(
            Frontmatter::fields("title: \"unterminated")[0].1,
            "unterminated"
        );
        assert_eq!(Frontmatter::fields(&"k: v\n".repeat(1000)).len(), 32);
        assert_eq!(
            Frontmatter::fields(&format!("k: {}", "x".repeat(10_000)))[0]
                .1
                .len(),
            2_000
        );
    }
}
