//! Markdown extensions that docs sites render and plain Markdown shows as text: emoji
//! shortcodes (`:warning:`, GitHub's and MkDocs' `pymdownx.emoji`) and MkDocs' icon codes
//! (`:material-check:`), MyST definition lists (a term line, then `: definition`), and
//! markdown-callouts' paragraphs (`NOTE: **Title.** text`, `> TIP: text`).

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
    ("wink", "😉"),
    ("smiley", "😃"),
    ("grin", "😁"),
    ("sweat_smile", "😅"),
    ("slightly_smiling_face", "🙂"),
    ("thinking", "🤔"),
    ("sunglasses", "😎"),
    ("raised_hands", "🙌"),
    ("clap", "👏"),
    ("muscle", "💪"),
    ("pray", "🙏"),
    ("100", "💯"),
    ("trophy", "🏆"),
    ("gift", "🎁"),
    ("robot", "🤖"),
    ("test_tube", "🧪"),
    ("hammer_and_wrench", "🛠️"),
    ("chart_with_upwards_trend", "📈"),
    ("calendar", "📅"),
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

/// markdown-callouts' paragraphs as the admonitions the converter reads: a paragraph that
/// opens `NOTE: ` (or `TIP:`, `WARNING:`…), its leading bold text the title, or a quote whose
/// first line does. Lines in fenced code stay as they are.
pub(crate) fn callouts(lines: Vec<String>) -> Vec<String> {
    static OPENING: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(
            r"^(> ?)?(NOTE|TIP|HINT|INFO|IMPORTANT|WARNING|CAUTION|DANGER):\s+(?:\*\*([^*\n]{1,120})\*\*\s*)?(.*)$",
        )
    });
    if !lines.iter().any(|l| l.contains(": ")) {
        return lines;
    }
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut fence = Fences::default();
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        i += 1;
        let starts_paragraph = out.last().is_none_or(|l| l.trim().is_empty());
        let found = (!fence.is_code(line) && starts_paragraph)
            .then(|| OPENING.captures(line))
            .flatten();
        let Some(found) = found else {
            out.push(line.clone());
            continue;
        };
        let quoted = found.get(1).is_some();
        let kind = match found.get(2).map_or("", |m| m.as_str()) {
            "TIP" | "HINT" => "tip",
            "WARNING" | "CAUTION" | "DANGER" => "warning",
            _ => "note",
        };
        let title = found
            .get(3)
            .map_or("", |m| m.as_str().trim().trim_end_matches(['.', ':']));
        let first = found.get(4).map_or("", |m| m.as_str().trim());
        out.push(format!(":::{kind} {title}").trim_end().to_string());
        if !first.is_empty() {
            out.push(first.to_string());
        }
        // The paragraph (or the quote) goes on up to a blank line (or a line not quoted).
        while let Some(next) = lines.get(i) {
            let body = if quoted {
                next.strip_prefix('>')
                    .map(|b| b.strip_prefix(' ').unwrap_or(b))
            } else {
                Some(next.as_str()).filter(|l| !l.trim().is_empty())
            };
            match body {
                Some(body) => out.push(body.to_string()),
                None => break,
            }
            i += 1;
        }
        out.push(":::".into());
    }
    out
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
            // The term is the line before, or the one before a blank line (a loose list).
            let term_at = match out.len().checked_sub(1) {
                Some(at) if at > 0 && out[at].trim().is_empty() && !in_definition => Some(at - 1),
                last => last,
            };
            let is_term = term_at.is_some_and(|at| {
                let term = out[at].trim();
                !term.is_empty()
                    && !term.starts_with(['#', '-', '+', '>', '|', '<', '`', ':'])
                    && !term.starts_with("* ")
                    && (at == 0 || out[at - 1].trim().is_empty())
            });
            match term_at {
                Some(at) if is_term => {
                    out.truncate(at + 1);
                    let term = out[at].trim();
                    // A term already bold (`**Term.**`) is not wrapped again.
                    let term = match term.strip_prefix("**").and_then(|t| t.strip_suffix("**")) {
                        Some(inner) if !inner.contains("**") => inner.to_string(),
                        _ => term.to_string(),
                    };
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

    /// `text` read by a pass over lines, joined again.
    fn pass(read: fn(Vec<String>) -> Vec<String>, text: &str) -> String {
        read(text.lines().map(String::from).collect()).join("\n")
    }

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
    fn callout_paragraphs_and_quotes_become_admonitions() {
        let text = "> NOTE: **Resources on YAML.**\n> YAML can be tricky.\n\nTIP: **New in version 0.14.**\n\nText.\n\nWARNING: Mind the gap.\nReally.\n\nA line that says NOTE: x.\n\n```\nNOTE: in code\n```";
        assert_eq!(
            pass(callouts, text),
            ":::note Resources on YAML\nYAML can be tricky.\n:::\n\n:::tip New in version 0.14\n:::\n\nText.\n\n:::warning\nMind the gap.\nReally.\n:::\n\nA line that says NOTE: x.\n\n```\nNOTE: in code\n```"
        );
    }

    #[test]
    fn a_term_a_blank_line_and_its_definition_are_a_loose_definition_list() {
        let text = "**It's about classes.**\n\n: *attrs* is for classes.\n  More.\n\n\n**The class is yours.**\n\n: You define it.";
        assert_eq!(
            pass(definition_lists, text),
            "- **It's about classes.**: *attrs* is for classes.\n  More.\n\n\n- **The class is yours.**: You define it."
        );
        assert_eq!(emoji("Enjoy :wink: at 10:30:00"), "Enjoy 😉 at 10:30:00");
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
