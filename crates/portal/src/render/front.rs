//! The frontmatter's fields. The pipeline writes flat YAML of scalars (`title`, `description`,
//! `feature`, `surface`, `version`, `source_commit`), each string double-quoted as JSON is
//! (`pipeline::render::frontmatter`), so this reads exactly that shape: `key: value` lines,
//! a double-quoted value decoded as a JSON string, a single-quoted one with `''` unescaped,
//! anything else as written. A line of another shape (a nested mapping, a list) is skipped
//! rather than guessed at; no YAML parser is needed for what the service writes.

/// Most fields kept; a header with more would not be read.
const MAX_FIELDS: usize = 32;
/// Longest value kept, in characters.
const MAX_VALUE_CHARS: usize = 2_000;

/// The fields of YAML frontmatter `yaml` (without its `---` fences), in their order.
pub(super) fn fields(yaml: &str) -> Vec<(String, String)> {
    yaml.lines().filter_map(field).take(MAX_FIELDS).collect()
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
    use super::fields;

    #[test]
    fn the_pipelines_frontmatter_is_read_as_written() {
        let yaml = "title: \"Numbers \\u007Bv2\\u007D \\\"quoted\\\"\"\ndescription: 'It''s small'\nversion: 3\nnested:\n  a: b\n- item\nsource_commit: \"abc\"";
        assert_eq!(
            fields(yaml),
            [
                ("title".to_owned(), "Numbers {v2} \"quoted\"".to_owned()),
                ("description".to_owned(), "It's small".to_owned()),
                ("version".to_owned(), "3".to_owned()),
                ("source_commit".to_owned(), "abc".to_owned()),
            ]
        );
    }

    #[test]
    fn broken_quotes_and_floods_are_bounded() {
        assert_eq!(fields("title: \"unterminated")[0].1, "unterminated");
        assert_eq!(fields(&"k: v\n".repeat(1000)).len(), 32);
        assert_eq!(
            fields(&format!("k: {}", "x".repeat(10_000)))[0].1.len(),
            2_000
        );
    }
}
