//! What a commit's message says about its change beyond its subject: the first paragraph of
//! its body that is prose a reader of a release post can use ("The IntEvaluation method was
//! using genericResolve[int], which caused TYPE_MISMATCH errors when …"). Lists, headings,
//! quotes, code, trailers (`Signed-off-by:`), a bot's text and a paragraph that only leads
//! into a list are passed over; nothing is reworded but "This PR" (the post is not about a
//! pull request). Read from the body's first paragraphs only: further down is detail.

use regex::Regex;
use std::sync::LazyLock;

use crate::builtin::regex as builtin;

/// Paragraphs of a body looked at.
const MAX_PARAGRAPHS: usize = 4;
/// A sentence told is at most this long (bytes); a longer one is not cut, it is left out.
const MAX_SENTENCE: usize = 300;
/// Words a sentence has at least.
const MIN_WORDS: usize = 6;

/// `Signed-off-by: …`, `Co-authored-by: …`, `Fixes: #12`, `BREAKING CHANGE: …`.
static TRAILER: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"^(?:[A-Za-z][A-Za-z-]{1,40}|BREAKING CHANGE):\s"));
/// GitHub's emoji short codes (":warning:") that open a paragraph.
static SHORTCODE: LazyLock<Regex> = LazyLock::new(|| builtin(r"^(?::[a-z0-9_+-]{1,30}:\s*)+"));
/// Text that bots and tools write.
static GENERATED: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"(?i)\b(?:dependabot|renovate|release[- ]please|this (?:pr|pull request) was (?:generated|created|automatically)|i have created a release|bumps \[)",
    )
});

/// The first sentence (with its next when both fit) of the first prose paragraph of
/// `message`'s body that does not repeat `subject`; `None` when there is none.
pub(crate) fn body_sentence(message: &str, subject: &str) -> Option<String> {
    let body = message.replace("\r\n", "\n");
    let body = body.split_once('\n').map_or("", |(_, b)| b);
    let normal = |s: &str| {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect::<String>()
    };
    let subject = normal(subject);
    body.split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .take(MAX_PARAGRAPHS)
        .find_map(|paragraph| {
            let opens_block = paragraph.starts_with([
                '*', '-', '+', '#', '>', '|', '`', '<', '[', '!', '=', '~', '_',
            ]) || paragraph.starts_with(|c: char| c.is_ascii_digit());
            if opens_block
                || paragraph.lines().any(|l| TRAILER.is_match(l.trim()))
                || paragraph
                    .lines()
                    .any(|l| l.starts_with("    ") || l.starts_with('\t'))
                || GENERATED.is_match(paragraph)
            {
                return None;
            }
            let text = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
            let text = SHORTCODE.replace(&text, "").into_owned();
            let text = text
                .strip_prefix("This PR ")
                .or_else(|| text.strip_prefix("This pull request "))
                .map_or(text.clone(), |rest| format!("This change {rest}"));
            let sentence = sentences(&text)?;
            let words = sentence.split_whitespace().count();
            let repeats = normal(&sentence).starts_with(&subject) && !subject.is_empty();
            (sentence.starts_with(|c: char| c.is_uppercase())
                && words >= MIN_WORDS
                && !repeats
                && sentence.matches('`').count() % 2 == 0)
                .then_some(sentence)
        })
}

/// A sentence of a commit message that asks something of users: an instruction ("Users
/// should pass explicit content types"), or input it now refuses ("reject … at
/// construction", "now panics", "no longer accepts").
static ACTION: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"(?i)\b(?:users?|callers?|you|applications?|apps?|projects?|code)\s+(?:should|must|need to|will need to|have to)\s+\w|\b(?:now|will)\s+(?:panics?|raises?|throws?|fails?|rejects?|returns? an? error)\b|\bno longer (?:accepts?|accepted|allowed|allows?|supported|supports?)\b|\breject\w*\b.{0,80}\bat (?:construction|startup|start-up|compile time|registration)\b",
    )
});

/// The sentences of `message`'s body that ask something of users when they upgrade
/// ([`ACTION`]), in its words, at most two; `None` when it asks nothing. Read from the
/// body's first paragraphs of prose, as [`body_sentence`].
pub(crate) fn action_sentences(message: &str) -> Option<String> {
    let body = message.replace("\r\n", "\n");
    let body = body.split_once('\n').map_or("", |(_, b)| b);
    let found: Vec<String> = body
        .split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .take(MAX_PARAGRAPHS)
        .filter(|p| {
            !p.starts_with(['*', '-', '+', '#', '>', '|', '`'])
                && !p.lines().any(|l| TRAILER.is_match(l.trim()))
                && !GENERATED.is_match(p)
        })
        .flat_map(|p| {
            let text = p.split_whitespace().collect::<Vec<_>>().join(" ");
            text.split_inclusive(". ")
                .map(|s| s.trim().to_string())
                .collect::<Vec<_>>()
        })
        .filter(|s| ACTION.is_match(s) && s.len() <= MAX_SENTENCE)
        .take(2)
        .collect();
    (!found.is_empty()).then(|| found.join(" "))
}

/// Words that say nothing of what a change is about.
const STOP_WORDS: &[&str] = &[
    "the", "and", "for", "with", "that", "this", "these", "are", "was", "were", "when", "than",
    "from", "into", "not", "but", "its", "has", "have", "can", "now", "all", "any",
];

/// Whether `sentence` mostly says again what `item` says: half or more of its words (of
/// three letters or more, [`STOP_WORDS`] aside) are in the item.
pub(crate) fn repeats(sentence: &str, item: &str) -> bool {
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() >= 3)
            .map(str::to_lowercase)
            .filter(|w| !STOP_WORDS.contains(&w.as_str()))
            .collect()
    };
    let said = words(item);
    let new = words(sentence);
    let again = new.iter().filter(|w| said.contains(w)).count();
    !new.is_empty() && again * 2 >= new.len()
}

/// The first sentence of `text`, with the second when both fit in [`MAX_SENTENCE`]; `None`
/// when the first is longer, or leads into a list (ends with a colon) or has no full stop.
fn sentences(text: &str) -> Option<String> {
    let ends: Vec<usize> = text
        .match_indices(". ")
        .map(|(i, _)| i + 1)
        .chain(text.ends_with('.').then_some(text.len()))
        .filter(|&i| {
            // "e.g." and "i.e." end no sentence.
            let word = text[..i].rsplit(' ').next().unwrap_or("");
            !(word.len() <= 5 && word[..word.len().saturating_sub(1)].contains('.'))
        })
        .collect();
    let first = *ends.first()?;
    if first > MAX_SENTENCE {
        return None;
    }
    let end = ends
        .get(1)
        .copied()
        .filter(|&second| second <= MAX_SENTENCE)
        .unwrap_or(first);
    let out = text[..end].trim();
    (!out.ends_with(':')).then(|| out.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_prose_paragraph_of_a_body() {
        let message = "fix(memprovider): use int64 type (#464)\n\nThe IntEvaluation method was using genericResolve[int] which caused\nTYPE_MISMATCH errors when users stored int64 values in Variants.\n\nThe FeatureProvider interface defines IntEvaluation with int64:\n  IntEvaluation(ctx) IntResolutionDetail\n";
        assert_eq!(
            body_sentence(message, "fix(memprovider): use int64 type (#464)").as_deref(),
            Some(
                "The IntEvaluation method was using genericResolve[int] which caused TYPE_MISMATCH errors when users stored int64 values in Variants."
            )
        );
        let squash = "fix: consistent init flow (#474)\n\n* fix: make X consistent with Y\n\n:warning: Providers that lazily initialize their `EventChannel()` in `Init()` may be impacted by this change.\n\nSigned-off-by: A <a@b.c>\n";
        assert_eq!(
            body_sentence(squash, "fix: consistent init flow (#474)").as_deref(),
            Some(
                "Providers that lazily initialize their `EventChannel()` in `Init()` may be impacted by this change."
            )
        );
    }

    #[test]
    fn lists_trailers_bots_and_lead_ins_are_no_context() {
        for message in [
            "fix: x\n\nSigned-off-by: A <a@b.c>\nCo-authored-by: B <b@c.d>",
            "chore(deps): bump x\n\nBumps [x](https://x) from 1 to 2.\n- [Commits](https://x)",
            "fix: x\n\nThis PR introduces a couple of changes:\n\n- a\n- b",
            "fix: x\n\n## Summary\n\n- add the backend",
            "Merge pull request #4006 from a/b\n\nfix for infinite loop in split_graphemes",
            "fix: the thing\n\nFix the thing.",
        ] {
            assert_eq!(
                body_sentence(message, message.lines().next().unwrap_or("")),
                None,
                "{message}"
            );
        }
        assert!(repeats(
            "This adds a new CheckPreWriteHook type and a Before method on CheckedEntry that allows transforming the Entry and Fields before they are written to any registered Cores.",
            "Add `zapcore.CheckPreWriteHook` and `CheckedEntry.Before` method for transforming entries before they are written to any Cores. (#1534)"
        ));
        assert!(!repeats(
            "The IntEvaluation method was using genericResolve[int] which caused TYPE_MISMATCH errors when users stored int64 values in Variants.",
            "memprovider: Use int64 type in IntEvaluation to match API (#464)"
        ));
        assert_eq!(
            body_sentence(
                "fix: x\n\nThis PR makes the reader stop at the end of a stream.",
                "fix: x"
            )
            .as_deref(),
            Some("This change makes the reader stop at the end of a stream.")
        );
    }
}
