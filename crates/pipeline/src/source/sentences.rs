//! Sentences of prose and doc comments: where the first one ends (not at "e.g.", "1.2.3" or
//! "a.k.a."). Both the code's doc comments and the documents read it, so it lives below
//! them.

/// Longest first sentence shown.
const MAX_SENTENCE_CHARS: usize = 400;

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
    // Initialisms of single letters and dots ("a.k.a.", "U.S.") never end a sentence.
    let initialism = word.len() > 1
        && word
            .split('.')
            .all(|part| part.chars().count() == 1 && part.chars().all(char::is_alphabetic));
    if NEVER_END.contains(&word.as_str()) || initialism {
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

#[cfg(test)]
mod tests {
    use super::first_sentence;

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
            (
                "Reads the PID (a.k.a. the process id) of a run. Rest.",
                "Reads the PID (a.k.a. the process id) of a run.",
            ),
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
}
