//! The first paragraph of a release post: what kind of release it is for a user (breaking,
//! new features, fixes only, dependency updates only, other changes) and its most important
//! change, named in the words of the entry itself. Never a count of entries, never a claim
//! the entries do not make.
//!
//! The change named is of its kind, in the release's order (the project's own order, or the
//! commits'): passing over entries about documentation, comments, typos or tests (by their
//! words or their scope) and entries too long for one sentence, the first that starts with a
//! verb, else the first that is a sentence of its own, else the first. An entry that starts
//! with a verb is told as "it fixes …" ("Fixed …", "Fix …" and "Fixes …" alike); any other
//! follows the colon in its own words, with its next sentence when that is short ("Source
//! code has been migrated to TypeScript. From now on type declarations …"). No label, no
//! template sentence, no reference to an older release.

use regex::Regex;
use std::sync::LazyLock;

use crate::builtin::regex as builtin;

/// The entries of a release, by what they are to a user, each in the release's order.
#[derive(Debug, Default)]
pub(crate) struct Kinds<'a> {
    pub breaking: Vec<&'a str>,
    pub added: Vec<&'a str>,
    pub fixed: Vec<&'a str>,
    pub other: Vec<&'a str>,
}

/// An entry named in the lede is at most this long (bytes, after cleaning).
const MAX_NAMED: usize = 220;

/// "scope: Text", as a post shows an entry with a scope.
static SCOPE: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"^([A-Za-z0-9_./@-]{1,40}):\s+([A-Z`*\[].*)$"));
/// What follows an entry's words in a changelog: its pull request, issue or commit, a bare
/// address, a GitHub "by @user in …" credit.
static TRAILING: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"(?i)(?:\s+(?:by|thanks(?:\s+to)?)\s+@[\w-]+(?:\s+in\s+\S+)?|\s*[(\[]?\s*(?:\[[#!]?\d+\]\([^)\s]*\)|\[`?[0-9a-f]{7,40}`?\]\([^)\s]*\)|[#!]\d+|https?://[^\s)]+|@[\w-]+)(?:\s*,\s*(?:\[[#!]?\d+\]\([^)\s]*\)|[#!]\d+|https?://[^\s)]+))*\s*[)\]]?)\s*[.;,]?\s*$",
    )
});
/// Entries a reader would not call the release's most important change.
static MINOR: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"(?i)\b(?:docs?|documentation|docstrings?|comments?|typos?|readme|tests?|testing|examples?|changelog|links?|lint|ci)\b",
    )
});
/// Dependency updates: "Bump x from 1 to 2", "Update x to v2", "deps: …", "Require x >= 2".
static DEPENDENCY: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"(?i)^(?:(?:deps|dependencies|dependency)\b|(?:bump|bumped|bumps|update|updated|updates|upgrade|upgraded|upgrades)\s+(?:the\s+)?(?:dependency|dependencies|deps\b|\S+\s+(?:dependency\s+)?(?:from\s+\S+\s+)?to\s+v?\d)|(?:require|requires|required)\s+\S+\s*(?:>=|>|\d))",
    )
});

/// Verbs an entry starts with, as a lede says them after "it": base form, and the forms
/// that differ from the usual rules (past tense).
const VERBS: &[(&str, Option<&str>)] = &[
    ("accept", None),
    ("add", None),
    ("adjust", None),
    ("align", None),
    ("allow", None),
    ("apply", None),
    ("avoid", None),
    ("bump", None),
    ("catch", Some("caught")),
    ("change", None),
    ("clarify", None),
    ("convert", None),
    ("correct", None),
    ("deprecate", None),
    ("detect", None),
    ("disable", None),
    ("drop", Some("dropped")),
    ("emit", Some("emitted")),
    ("enable", None),
    ("ensure", None),
    ("expose", None),
    ("extend", None),
    ("fix", None),
    ("forward", None),
    ("handle", None),
    ("honor", None),
    ("honour", None),
    ("implement", None),
    ("improve", None),
    ("include", None),
    ("increase", None),
    ("introduce", None),
    ("keep", Some("kept")),
    ("limit", None),
    ("make", Some("made")),
    ("migrate", None),
    ("move", None),
    ("optimize", None),
    ("optimise", None),
    ("pass", None),
    ("prepare", None),
    ("print", None),
    ("parse", None),
    ("generate", None),
    ("load", None),
    ("report", None),
    ("mark", None),
    ("export", None),
    ("publish", None),
    ("preserve", None),
    ("prevent", None),
    ("propagate", None),
    ("provide", None),
    ("raise", None),
    ("reduce", None),
    ("reject", None),
    ("remove", None),
    ("rename", None),
    ("replace", None),
    ("require", None),
    ("resolve", None),
    ("respect", None),
    ("restore", None),
    ("return", None),
    ("rewrite", Some("rewrote")),
    ("rework", None),
    ("show", None),
    ("simplify", None),
    ("skip", Some("skipped")),
    ("speed", Some("sped")),
    ("start", None),
    ("stop", Some("stopped")),
    ("support", None),
    ("switch", None),
    ("treat", None),
    ("update", None),
    ("upgrade", None),
    ("use", None),
    ("validate", None),
    ("warn", None),
];

fn third_person(base: &str) -> String {
    if base.ends_with(['s', 'x', 'z']) || base.ends_with("sh") || base.ends_with("ch") {
        format!("{base}es")
    } else if let Some(stem) = base.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'o', 'u'])
    {
        format!("{stem}ies")
    } else {
        format!("{base}s")
    }
}

fn past(base: &str, irregular: Option<&str>) -> String {
    if let Some(p) = irregular {
        return p.to_string();
    }
    if base.ends_with('e') {
        format!("{base}d")
    } else if let Some(stem) = base.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'o', 'u'])
    {
        format!("{stem}ied")
    } else {
        format!("{base}ed")
    }
}

/// "Fixed a crash" → ("fixes", "a crash"), when the entry starts with a verb used as one
/// ("Support for X" and "Fix for X" are nouns).
fn verb_first(text: &str) -> Option<(String, String)> {
    // "Properly handle x": "properly handles x".
    if let Some((adverb, rest)) = text.split_once(' ')
        && adverb.len() > 4
        && adverb.to_ascii_lowercase().ends_with("ly")
        && adverb.chars().all(|c| c.is_ascii_alphabetic())
    {
        return verb_first(rest)
            .map(|(verb, rest)| (format!("{} {verb}", adverb.to_ascii_lowercase()), rest));
    }
    let word_end = text
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(text.len());
    let word = text[..word_end].to_ascii_lowercase();
    let rest = text[word_end..].strip_prefix(' ')?.trim_start();
    let next = rest.split_whitespace().next().unwrap_or("");
    // "Support for X": a lede adds it.
    if word == "support" && next == "for" {
        return Some(("adds".to_string(), format!("support {rest}")));
    }
    if rest.is_empty() || matches!(next, "for" | "of" | "is" | "are" | "was" | "now") {
        return None;
    }
    VERBS.iter().find_map(|(base, irregular)| {
        let third = third_person(base);
        (word == *base || word == third || word == past(base, *irregular))
            .then(|| (third, rest.to_string()))
    })
}

/// The entry's first sentence without what follows its words (references, credits, a
/// closing full stop); `None` when that is empty or too long to name.
fn named(entry: &str) -> Option<String> {
    let mut text = first_sentence(entry.trim()).to_string();
    for _ in 0..8 {
        let cut = TRAILING.replace(&text, "").into_owned();
        if cut == text {
            break;
        }
        text = cut;
    }
    let text = text
        .trim()
        .trim_end_matches(['.', ':', ';', ','])
        .trim_end();
    // An unclosed code span or link would run into the rest of the paragraph.
    let balanced = text.matches('`').count().is_multiple_of(2)
        && text.matches('[').count() == text.matches(']').count()
        && text.matches('(').count() == text.matches(')').count();
    (!text.is_empty() && text.len() <= MAX_NAMED && balanced).then(|| text.to_string())
}

/// Up to the first ". " that ends a sentence (a capital, a code span or a link follows),
/// outside code spans.
fn first_sentence(text: &str) -> &str {
    let mut in_code = false;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        match c {
            '`' => in_code = !in_code,
            '.' if !in_code
                && bytes.get(i + 1) == Some(&b' ')
                && bytes
                    .get(i + 2)
                    .is_some_and(|b| b.is_ascii_uppercase() || matches!(b, b'`' | b'[')) =>
            {
                // "e.g. X", "i.e. Y", "vs. Z" end no sentence.
                let word = text[..i].rsplit(' ').next().unwrap_or("");
                let abbreviation = !word.ends_with(['`', ')', ']'])
                    && ((word.contains('.') && word.len() <= 5)
                        || matches!(word, "vs" | "etc" | "approx"));
                if !abbreviation {
                    return &text[..=i];
                }
            }
            '\n' if text[i..].starts_with("\n\n") => return &text[..i],
            _ => {}
        }
    }
    text
}

/// An entry that is a sentence of its own ("Python 3.8 is no longer supported"), not a noun
/// phrase ("Consistent init flow").
static SENTENCE: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"(?i)\b(?:is|are|was|were|has|have|had|will|can|now|no\s+longer|does|do|did|should|must|may)\b",
    )
});

/// An entry to name: its scope apart, its first sentence cleaned, and the entry as written.
struct Named {
    scope: Option<String>,
    text: String,
    entry: String,
}

/// The entry to name of `entries`: of those that are not about documentation or tests (by
/// their words or their scope) and fit a sentence, the first that starts with a verb, else
/// the first that is a sentence, else the first; else the first that fits.
fn pick(entries: &[&str]) -> Option<Named> {
    let split = |e: &str| -> (Option<String>, String) {
        match SCOPE.captures(e) {
            Some(c) => (Some(c[1].to_string()), c[2].to_string()),
            None => (None, e.to_string()),
        }
    };
    let candidates: Vec<Named> = entries
        .iter()
        .filter_map(|e| {
            let (scope, text) = split(e);
            let named = named(&text)?;
            Some(Named {
                scope,
                text: named,
                entry: text,
            })
        })
        .collect();
    let major = |n: &&Named| {
        !MINOR.is_match(&n.text) && !n.scope.as_deref().is_some_and(|s| MINOR.is_match(s))
    };
    candidates
        .iter()
        .filter(major)
        .find(|n| verb_first(&n.text).is_some())
        .or_else(|| {
            candidates
                .iter()
                .filter(major)
                .find(|n| SENTENCE.is_match(&n.text))
        })
        .or_else(|| candidates.iter().find(major))
        .or_else(|| candidates.first())
        .map(|n| Named {
            scope: n.scope.clone(),
            text: n.text.clone(),
            entry: n.entry.clone(),
        })
}

/// The sentence after an entry's first, when it is short and says more about the change
/// ("From now on type declarations are generated."), cleaned like the first.
fn second_sentence(entry: &str) -> Option<String> {
    let entry = entry.trim();
    let rest = entry.get(first_sentence(entry).len()..)?.trim_start();
    if rest.is_empty() || rest.starts_with(['(', '[', '#', '-', '*', '>', '`']) {
        return None;
    }
    let text = named(rest)?;
    (text.len() <= 160 && text.chars().next().is_some_and(char::is_uppercase))
        .then(|| format!("{text}."))
}

/// "it fixes a crash (parser)" for an entry that starts with a verb, else the entry's own
/// words ("Python 3.8 is no longer supported", "Termina backend"); `true` when the entry
/// started with a verb.
fn clause(entry: &Named) -> (bool, String) {
    // A dependency scope says no more than the update does.
    let scope = entry
        .scope
        .as_ref()
        .filter(|s| !s.to_ascii_lowercase().starts_with("dep"))
        .map(|s| format!(" ({s})"))
        .unwrap_or_default();
    match verb_first(&entry.text) {
        Some((verb, rest)) => (true, format!("it {verb} {rest}{scope}")),
        None => (false, format!("{}{scope}", entry.text)),
    }
}

/// Whether every entry is a dependency update.
pub(crate) fn dependencies_only(entries: &[&str]) -> bool {
    !entries.is_empty()
        && entries.iter().all(|e| {
            let e = e.trim_start_matches(['*', '_', ' ']);
            DEPENDENCY.is_match(e)
        })
}

/// An "It also …" clause is at most this long (bytes).
const MAX_ALSO: usize = 100;

/// "It also fixes a crash." from the first of `entries` that starts with a verb, is not
/// about documentation or tests and is short.
fn also(entries: &[&str]) -> Option<String> {
    entries.iter().find_map(|e| {
        let named = pick(&[e])?;
        match clause(&named) {
            (true, clause) if clause.len() <= MAX_ALSO && !minor(&named.text) => {
                Some(format!(" It also {}.", &clause["it ".len()..]))
            }
            _ => None,
        }
    })
}

/// Whether an entry is about documentation, comments, typos, tests or CI: never the first
/// thing a post names.
pub(crate) fn minor(entry: &str) -> bool {
    let (scope, text) = match SCOPE.captures(entry) {
        Some(c) => (Some(c[1].to_string()), c[2].to_string()),
        None => (None, entry.to_string()),
    };
    MINOR.is_match(&text) || scope.is_some_and(|s| MINOR.is_match(&s))
}

/// The lede of a post about `subject` ("log 0.4.33", or for changes not released yet, the
/// package's name: `released` false): what the release is, then its most important entry
/// after a colon, in the entry's words (and its next sentence when that says more); a
/// release with breaking changes also names a feature or a fix, and points to how to
/// upgrade.
pub(crate) fn lede(subject: &str, released: bool, kinds: &Kinds) -> String {
    let subject = if released {
        subject.to_string()
    } else {
        format!("The next release of {subject}")
    };
    let many = |v: &Vec<&str>| v.len() > 1;
    let (kind, entries) = if !kinds.breaking.is_empty() {
        (
            if many(&kinds.breaking) {
                "has breaking changes"
            } else {
                "has a breaking change"
            },
            &kinds.breaking,
        )
    } else if !kinds.added.is_empty() {
        (
            if many(&kinds.added) {
                "brings new features"
            } else {
                "brings a new feature"
            },
            &kinds.added,
        )
    } else if !kinds.fixed.is_empty() {
        ("is a bug-fix release", &kinds.fixed)
    } else if dependencies_only(&kinds.other) {
        ("updates dependencies", &kinds.other)
    } else {
        ("is a maintenance release", &kinds.other)
    };
    let mut lede = match pick(entries) {
        Some(named) => {
            let (_, clause) = clause(&named);
            let more = second_sentence(&named.entry)
                .map(|s| format!(" {s}"))
                .unwrap_or_default();
            format!("{subject} {kind}: {clause}.{more}")
        }
        None => format!("{subject} {kind}."),
    };
    if !kinds.breaking.is_empty() {
        if let Some(also) = also(&kinds.added) {
            lede.push_str(&also);
        } else if !kinds.added.is_empty() {
            lede.push_str(" It also brings new features.");
        } else if let Some(also) = also(&kinds.fixed) {
            lede.push_str(&also);
        } else if !kinds.fixed.is_empty() {
            lede.push_str(" It also fixes bugs.");
        }
        lede.push_str(" Read how to upgrade below.");
    } else if !kinds.added.is_empty() && !kinds.fixed.is_empty() {
        lede.push_str(" It also fixes bugs.");
    }
    lede
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds<'a>(
        breaking: &[&'a str],
        added: &[&'a str],
        fixed: &[&'a str],
        other: &[&'a str],
    ) -> Kinds<'a> {
        Kinds {
            breaking: breaking.to_vec(),
            added: added.to_vec(),
            fixed: fixed.to_vec(),
            other: other.to_vec(),
        }
    }

    #[test]
    fn a_fix_release_names_its_fix_with_the_entrys_own_verb() {
        assert_eq!(
            lede(
                "rich 1.2.3",
                true,
                &kinds(
                    &[],
                    &[],
                    &["Fixed infinite loop with `cells.split` https://github.com/o/r/pull/4006"],
                    &[]
                )
            ),
            "rich 1.2.3 is a bug-fix release: it fixes infinite loop with `cells.split`."
        );
        // A noun phrase follows the colon in its own words.
        assert_eq!(
            lede(
                "x 1.0.1",
                true,
                &kinds(&[], &[], &["Crash on empty input."], &[])
            ),
            "x 1.0.1 is a bug-fix release: Crash on empty input."
        );
        assert_eq!(
            lede(
                "x 1.0.1",
                true,
                &kinds(&[], &[], &["Properly handle when `Box::new` panics"], &[])
            ),
            "x 1.0.1 is a bug-fix release: it properly handles when `Box::new` panics."
        );
    }

    #[test]
    fn breaking_changes_and_features_lead_and_counts_never_do() {
        let text = lede(
            "widgets 2.0.0",
            true,
            &kinds(
                &["Removed `Widget::a`; use `Widget::b`. It was slow."],
                &["Support for streams", "Add `Widget::c`"],
                &["Fix a crash"],
                &[],
            ),
        );
        assert_eq!(
            text,
            "widgets 2.0.0 has a breaking change: it removes `Widget::a`; use `Widget::b`. It was slow. It also adds support for streams. Read how to upgrade below."
        );
        let text = lede(
            "widgets 1.1.0",
            true,
            &kinds(
                &[],
                &["Adds `Widget::b`, which reads a stream (#12)"],
                &["Fix a crash"],
                &[],
            ),
        );
        assert_eq!(
            text,
            "widgets 1.1.0 brings a new feature: it adds `Widget::b`, which reads a stream. It also fixes bugs."
        );
        assert!(
            !text
                .chars()
                .any(|c| c.is_ascii_digit() && !text.contains("1.1.0"))
        );
    }

    #[test]
    fn dependency_and_maintenance_releases_say_so() {
        assert_eq!(
            lede(
                "gax 2.22.0",
                true,
                &kinds(
                    &[],
                    &[],
                    &[],
                    &["deps: Update module golang.org/x/net to v0.40.0"]
                )
            ),
            "gax 2.22.0 updates dependencies: it updates module golang.org/x/net to v0.40.0."
        );
        assert_eq!(
            lede(
                "pkg",
                false,
                &kinds(&[], &[], &[], &["Faster parsing of headers"])
            ),
            "The next release of pkg is a maintenance release: Faster parsing of headers."
        );
        assert_eq!(
            lede("pkg 1.0.0", true, &kinds(&[], &[], &[], &[])),
            "pkg 1.0.0 is a maintenance release."
        );
    }

    #[test]
    fn an_entry_that_starts_with_a_verb_or_says_a_sentence_is_named_without_a_label() {
        // A noun phrase, a test scope and a comment fix are passed over for a verb.
        assert_eq!(
            lede(
                "sdk 1.17.2",
                true,
                &kinds(
                    &[],
                    &[],
                    &[
                        "Broken link in hooks.go comment (#476)",
                        "Consistent init flow (#474)",
                        "testing: Make test provider context-aware (#470)",
                        "memprovider: Use int64 type in IntEvaluation (#464)",
                    ],
                    &[]
                )
            ),
            "sdk 1.17.2 is a bug-fix release: it uses int64 type in IntEvaluation (memprovider)."
        );
        // A sentence comes with its next one, when short; never a label.
        assert_eq!(
            lede(
                "react 11.14.0",
                true,
                &kinds(
                    &[],
                    &[
                        "Source code has been migrated to TypeScript. From now on type declarations are emitted from it. See #3281 for more."
                    ],
                    &[],
                    &[]
                )
            ),
            "react 11.14.0 brings a new feature: Source code has been migrated to TypeScript. From now on type declarations are emitted from it."
        );
        // A breaking release without features names a short fix as well.
        assert_eq!(
            lede(
                "pluggy 1.6.0",
                true,
                &kinds(
                    &["Python 3.8 is no longer supported. (#556)"],
                    &[],
                    &[
                        &format!(
                            "Fix a regression where {} (#504)",
                            "the traceback grows ".repeat(6)
                        ),
                        "Fix python 3.14 SyntaxError by rearranging code. (#573)",
                    ],
                    &[]
                )
            ),
            "pluggy 1.6.0 has a breaking change: Python 3.8 is no longer supported. It also fixes python 3.14 SyntaxError by rearranging code. Read how to upgrade below."
        );
    }

    #[test]
    fn an_entry_too_long_or_unbalanced_is_not_named() {
        let long = format!("Fix {}", "very ".repeat(60));
        assert_eq!(
            lede("x 1.0.1", true, &kinds(&[], &[], &[&long], &[])),
            "x 1.0.1 is a bug-fix release."
        );
        assert_eq!(
            first_sentence("Use e.g. `a.b`. Then more."),
            "Use e.g. `a.b`."
        );
        assert_eq!(first_sentence("Call `x. Y` now"), "Call `x. Y` now");
    }
}
