//! Words as git-cliff writes them in a changelog.

/// The text with its first letter upper case, as git-cliff's `upper_first` (`add CSV export`
/// → `Add CSV export`), unless its first word is code a reader would type as is
/// (`kv::std_support`, `fooBar`, `snake_case`, `--flag`).
pub(crate) fn upper_first(text: &str) -> String {
    let text = text.trim();
    let word = text.split_whitespace().next().unwrap_or("");
    let plain_word = word
        .trim_end_matches([',', ':', ';', '.'])
        .chars()
        .all(|c| c.is_lowercase() || c == '-' || c == '\'');
    let mut chars = text.chars();
    match chars.next() {
        Some(first) if plain_word && first.is_lowercase() => {
            first.to_uppercase().chain(chars).collect()
        }
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upper_first_leaves_code_alone() {
        assert_eq!(upper_first("add CSV export"), "Add CSV export");
        assert_eq!(upper_first("  éclair support"), "Éclair support");
        assert_eq!(
            upper_first("drop-in parser, faster"),
            "Drop-in parser, faster"
        );
        for code in [
            "kv::std_support may go",
            "fooBar is gone",
            "snake_case it",
            "--quiet",
            "`x` now",
        ] {
            assert_eq!(upper_first(code), code);
        }
        assert_eq!(upper_first(""), "");
    }
}
