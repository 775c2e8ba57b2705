//! Markdown extensions that docs sites render and plain Markdown shows as text: emoji
//! shortcodes (`:warning:`, GitHub's and MkDocs' `pymdownx.emoji`) and MkDocs' icon codes
//! (`:material-check:`), and MyST definition lists (a term line, then `: definition`).

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use super::fences::Fences;

/// The shortcodes docs use most, as the characters a site shows for them. An unknown one
/// stays as written: `:name:` is also ordinary text (a time, a role's name).
const EMOJI: &[(&str, &str)] = &[
    ("warning", "⚠️"),
    ("information_source", "ℹ️"),
    ("bulb", "💡"),
    ("memo", "📝"),
    ("pencil", "📝"),
    ("pencil2", "✏️"),
    ("heavy_check_mark", "✔️"),
    ("white_check_mark", "✅"),
    ("ballot_box_with_check", "☑️"),
    ("x", "❌"),
    ("heavy_multiplication_x", "✖️"),
    ("exclamation", "❗"),
    ("heavy_exclamation_mark", "❗"),
    ("question", "❓"),
    ("no_entry", "⛔"),
    ("no_entry_sign", "🚫"),
    ("stop_sign", "🛑"),
    ("construction", "🚧"),
    ("rotating_light", "🚨"),
    ("arrow_right", "➡️"),
    ("arrow_left", "⬅️"),
    ("arrow_up", "⬆️"),
    ("arrow_down", "⬇️"),
    ("point_right", "👉"),
    ("point_up", "☝️"),
    ("rocket", "🚀"),
    ("tada", "🎉"),
    ("sparkles", "✨"),
    ("star", "⭐"),
    ("fire", "🔥"),
    ("zap", "⚡"),
    ("boom", "💥"),
    ("bug", "🐛"),
    ("lock", "🔒"),
    ("key", "🔑"),
    ("book", "📖"),
    ("books", "📚"),
    ("package", "📦"),
    ("wrench", "🔧"),
    ("hammer", "🔨"),
    ("gear", "⚙️"),
    ("link", "🔗"),
    ("mag", "🔍"),
    ("eyes", "👀"),
    ("pushpin", "📌"),
    ("hourglass", "⌛"),
    ("checkered_flag", "🏁"),
    ("heart", "❤️"),
    ("+1", "👍"),
    ("thumbsup", "👍"),
    ("-1", "👎"),
    ("thumbsdown", "👎"),
    ("smile", "😄"),
    ("wave", "👋"),
    ("new", "🆕"),
    ("speech_balloon", "💬"),
    ("globe_with_meridians", "🌐"),
    ("computer", "💻"),
    ("whale", "🐳"),
    ("snake", "🐍"),
    ("crab", "🦀"),
];

/// Icon sets of MkDocs Material, drawn as SVG by the site: nothing to show in text.
const ICON_SETS: &[&str] = &["material-", "octicons-", "fontawesome-", "simple-"];

static SHORTCODE: LazyLock<Regex> =
    LazyLock::new(|| crate::builtin::regex(r":([a-z0-9_+-][a-z0-9_+-]{0,60}):"));

/// Text outside code with its shortcodes shown as the site shows them.
pub(crate) fn emoji(text: &str) -> Cow<'_, str> {
    if !text.contains(':') {
        return Cow::Borrowed(text);
    }
    SHORTCODE.replace_all(text, |c: &regex::Captures| {
        let whole = c.get(0).map_or("", |m| m.as_str());
        let name = c.get(1).map_or("", |m| m.as_str());
        if ICON_SETS.iter().any(|set| name.starts_with(set)) {
            return String::new();
        }
        EMOJI
            .iter()
            .find(|(code, _)| *code == name)
            .map_or_else(|| whole.to_string(), |(_, shown)| (*shown).to_string())
    })
}

/// MyST definition lists as a Markdown list, one item per term: `Term` over `: Text` (its
/// continuation indented) becomes `- **Term**: Text`. Lines in fenced code stay as they are.
pub(crate) fn definition_lists(lines: Vec<String>) -> Vec<String> {
    if !lines.iter().any(|l| l.starts_with(": ")) {
        return lines;
    }
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut fence = Fences::default();
    // Whether the last lines written belong to a definition (its continuation follows).
    let mut in_definition = false;
    for line in lines {
        if fence.is_code(&line) {
            out.push(line);
            continue;
        }
        if let Some(definition) = line.strip_prefix(": ") {
            let term_at = out.len().checked_sub(1);
            let is_term = term_at.is_some_and(|at| {
                let term = out[at].trim();
                !term.is_empty()
                    && !term.starts_with(['#', '-', '*', '+', '>', '|', '<', '`', ':'])
                    && (at == 0 || out[at - 1].trim().is_empty())
            });
            match term_at {
                Some(at) if is_term => {
                    let term = out[at].trim().to_string();
                    out[at] = format!("- **{term}**: {}", definition.trim());
                    in_definition = true;
                    continue;
                }
                // A second definition of the same term, after a blank line.
                _ if in_definition => {
                    out.push(format!("  {}", definition.trim()));
                    continue;
                }
                _ => {}
            }
        }
        if in_definition && !line.trim().is_empty() && !line.starts_with([' ', '\t']) {
            in_definition = false;
        }
        out.push(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortcodes_are_shown_as_their_emoji_and_icons_dropped() {
        assert_eq!(
            emoji(
                ":warning: The `v2` series :material-check: is old; `-abc` :arrow_right: fine at 10:30:00 :unknown_code:"
            ),
            "⚠️ The `v2` series  is old; `-abc` ➡️ fine at 10:30:00 :unknown_code:"
        );
    }

    #[test]
    fn definition_lists_become_lists_of_terms() {
        let lines: Vec<String> = "Intro.\n\nlogger\n: Your wrapped logger,\n  called last.\n\nprocessors\n: A list.\n\n```\nx\n: not a definition\n```"
            .lines()
            .map(String::from)
            .collect();
        assert_eq!(
            definition_lists(lines).join("\n"),
            "Intro.\n\n- **logger**: Your wrapped logger,\n  called last.\n\n- **processors**: A list.\n\n```\nx\n: not a definition\n```"
        );
    }
}
