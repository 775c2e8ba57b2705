//! The first paragraph of a release post: what the release means for a user of the package,
//! built from what it holds. First what a user must act on (a raised minimum toolchain,
//! public names removed, a breaking change), else its most important entry, as a sentence
//! about the release ("rich 14.3.3 fixes …", "With pluggy 1.6.0, Python 3.8 is no longer
//! supported."); then what else it holds, in words ("It also fixes two other bugs."); then
//! what upgrading asks: "Read how to upgrade below.", or, for a release semantic versioning
//! calls compatible (a patch, or a minor release from 1.0 on) with nothing to act on, that
//! it needs no code changes. Never a label, never a count of entries alone, never a claim the
//! entries do not make, never a reference to an older release.
//!
//! The entry named is of the most important kind, in the release's order (the project's own
//! order, or the commits'): passing over entries about documentation, comments, typos or
//! tests (by their words or their scope) and entries too long for one sentence, the first
//! short one that starts with a verb, else the first that starts with a verb, else the first
//! that is a sentence of its own, else the first. Its next sentence follows when it is short
//! ("From now on type declarations …").

use regex::Regex;
use std::sync::LazyLock;

use crate::builtin::regex as builtin;

/// What a release holds, for its lede: its entries by what they are to a user (each in the
/// release's order), and what the run learns from the repository (a raised minimum
/// toolchain, public names the release removes). Owned, so that the run can complete it
/// before the lede is written.
#[derive(Clone, Debug, Default)]
pub(crate) struct Facts {
    /// "log 0.4.33", or the package's name for changes not released yet (`released` false).
    pub subject: String,
    pub released: bool,
    pub breaking: Vec<String>,
    pub added: Vec<String>,
    pub fixed: Vec<String>,
    pub other: Vec<String>,
    /// Deprecations (also counted in `other`): something to act on when upgrading.
    pub deprecated: usize,
    /// Raised minimum toolchains in plain words: "Go 1.25.0 or later, up from 1.24.0".
    pub requires: Vec<String>,
    /// Public names the release removes without a breaking entry saying so, as code.
    pub removed: Vec<String>,
    /// Semantic versioning says nothing breaks: a patch release, or a minor one from 1.0 on.
    pub compatible: bool,
    /// The entries (as listed) whose notes or commit messages ask a step of users (a
    /// "Migration" section, "Users should pass …"): something to act on, whatever the
    /// version says; named before any but a security fix.
    pub steps: Vec<String>,
}

/// An entry named in the lede is at most this long (bytes, after cleaning).
const MAX_NAMED: usize = 220;
/// An entry this short is named before a longer one of the same kind.
const MAX_SHORT: usize = 140;

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
    ("encode", None),
    ("enable", None),
    ("ensure", None),
    ("expose", None),
    ("extend", None),
    ("fix", None),
    ("forward", None),
    ("handle", None),
    ("harden", None),
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
    // A short entry reads better as the first sentence of a post.
    let short = |n: &&Named| n.text.len() <= MAX_SHORT;
    candidates
        .iter()
        .filter(major)
        .filter(short)
        .find(|n| verb_first(&n.text).is_some())
        .or_else(|| {
            candidates
                .iter()
                .filter(major)
                .find(|n| verb_first(&n.text).is_some())
        })
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

/// Cuts the text `named` names to its first clause ("… resolved *before* calling
/// `field_transformer`", of "…, so transformers receive …"), when that clause is a sentence
/// of its own.
fn first_clause(named: &mut Named) {
    const BOUNDARIES: &[&str] = &[", so ", ", which ", "; ", " — ", ", because ", ", as "];
    let text = &named.text;
    let cut = BOUNDARIES
        .iter()
        .filter_map(|b| text.find(b))
        .filter(|&at| {
            text[..at].split_whitespace().count() >= 4
                && text[..at].matches('`').count().is_multiple_of(2)
        })
        .min();
    if let Some(at) = cut {
        named.text = text[..at].to_string();
    }
}

/// The kind of entry a sentence names, for the words it falls back on when the entry is a
/// noun phrase.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Which {
    Breaking,
    Added,
    Fixed,
    Other,
}

/// Names that keep their capital at the start of a clause.
const PROPER: &[&str] = &[
    "Python", "Rust", "Go", "Node", "Windows", "Linux", "Android", "Apple", "Java", "Ruby", "Deno",
    "Bun", "Unicode", "Github", "GitHub", "Docker",
];

/// `text` to follow a comma: its first word lower-cased when it is a common word
/// ("Source code has …" → "source code has …"); `None` when it must keep its capital
/// (a name, an acronym, a version follows it).
fn mid_sentence(text: &str) -> Option<String> {
    let (first, rest) = text.split_once(' ').unwrap_or((text, ""));
    let common = (first.len() > 1 || first == "A")
        && first.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && first.chars().skip(1).all(|c| c.is_ascii_lowercase())
        && !PROPER.contains(&first)
        && rest
            .chars()
            .next()
            .is_some_and(|c| c.is_lowercase() || c == '`');
    if first.chars().next().is_some_and(|c| c.is_lowercase()) {
        return Some(text.to_string());
    }
    common.then(|| format!("{}{}", first.to_ascii_lowercase(), &text[first.len()..]))
}

/// One sentence with `who` ("rich 14.3.3", "It") as its subject that names `entry` in its
/// own words: "rich 14.3.3 fixes infinite loop with `x`." for an entry that starts with a
/// verb, "With pluggy 1.6.0, Python 3.8 is no longer supported." for a sentence, else the
/// noun phrase after words that fit its kind ("brings streaming support").
fn headline(who: &str, entry: &Named, which: Which) -> String {
    // A scope is a tag of the project's lists ("middleware"), not words of a sentence: the
    // post's lists show it, the lede does not.
    if let Some((verb, rest)) = verb_first(&entry.text) {
        return format!("{who} {verb} {rest}.");
    }
    let text = &entry.text;
    if SENTENCE.is_match(text) {
        if who == "It" {
            return format!("{text}.");
        }
        return match mid_sentence(text) {
            Some(lower) => format!("With {who}, {lower}."),
            None if text.starts_with(char::is_uppercase) => format!("With {who}, {text}."),
            None => format!("{who}: {text}."),
        };
    }
    let lower = mid_sentence(text);
    match (which, lower) {
        (Which::Breaking, _) => format!("{who} has a breaking change: {text}."),
        (Which::Fixed, Some(lower)) => format!("{who} has a fix for {lower}."),
        (Which::Fixed, None) => format!("{who} fixes a bug: {text}."),
        (_, Some(lower)) => format!("{who} brings {lower}."),
        (_, None) => format!("{who} brings {text}."),
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

/// A clause naming one entry is at most this long (bytes).
const MAX_ALSO: usize = 100;

/// A count in words ("two"), for the small numbers a release holds.
fn count(n: usize) -> String {
    const WORDS: [&str; 13] = [
        "no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve",
    ];
    WORDS
        .get(n)
        .map_or_else(|| n.to_string(), |w| (*w).to_string())
}

/// "one bug", "two bugs".
fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", count(n), if n == 1 { one } else { many })
}

/// "a, b and c".
fn and_list(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// A short clause naming the only entry of `entries`, when it starts with a verb, is not
/// about documentation or tests and fits ("fixes a crash").
fn only_one(entries: &[&str]) -> Option<String> {
    let [entry] = entries else {
        return None;
    };
    let named = pick(&[entry])?;
    let (verb, rest) = verb_first(&named.text)?;
    let clause = format!("{verb} {rest}");
    (clause.len() <= MAX_ALSO && !minor(&named.text)).then_some(clause)
}

/// Whether an entry says it is a security fix or hardening.
pub(crate) fn says_security(entry: &str) -> bool {
    SECURITY.is_match(entry)
}

/// Security fixes and hardening: what a user of any release must know first.
static SECURITY: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"(?i)\b(?:security|vulnerab\w*|csrf|xss|ssrf|cve-\d+|ghsa-[\w-]+|harden\w*|injection|advisory)\b",
    )
});

/// Whether an entry is about documentation, comments, typos, tests or CI: never the first
/// thing a post names.
pub(crate) fn minor(entry: &str) -> bool {
    let (scope, text) = match SCOPE.captures(entry) {
        Some(c) => (Some(c[1].to_string()), c[2].to_string()),
        None => (None, entry.to_string()),
    };
    MINOR.is_match(&text) || scope.is_some_and(|s| MINOR.is_match(&s))
}

/// The lede of a post (see the module): what the user must act on first (a raised
/// minimum toolchain, a breaking change, removed names), else the release's most important
/// entry, as a sentence about the release; then what else it holds, in words ("It also
/// fixes two other bugs."); then what upgrading asks: "Read how to upgrade below.", or,
/// where semantic versioning promises it and nothing says otherwise, that it asks nothing.
pub(crate) fn lede(facts: &Facts) -> String {
    let subject = if facts.released {
        facts.subject.clone()
    } else {
        format!("The next release of {}", facts.subject)
    };
    fn strs(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }
    let (breaking, added, fixed, other) = (
        strs(&facts.breaking),
        strs(&facts.added),
        strs(&facts.fixed),
        strs(&facts.other),
    );
    let dependencies = dependencies_only(&other);
    let mut sentences: Vec<String> = Vec::new();
    if !facts.requires.is_empty() {
        sentences.push(format!("{subject} requires {}.", and_list(&facts.requires)));
    }
    if !facts.removed.is_empty() {
        let who = if sentences.is_empty() { &subject } else { "It" };
        let names = if facts.removed.len() > 3 {
            format!(
                "{} and {} more public names",
                facts.removed[..3].join(", "),
                count(facts.removed.len() - 3)
            )
        } else {
            and_list(&facts.removed)
        };
        sentences.push(format!("{who} removes {names}."));
    }
    // The entry named: the first kind that has one, in order of what a user acts on.
    let kinds = [
        (Which::Breaking, &breaking),
        (Which::Added, &added),
        (Which::Fixed, &fixed),
        (Which::Other, &other),
    ];
    let mut named_kind = None;
    // A security fix leads over any other entry of its release.
    let secure = kinds.iter().find_map(|(which, entries)| {
        let found: Vec<&str> = entries
            .iter()
            .copied()
            .filter(|e| SECURITY.is_match(e) && !minor(e))
            .collect();
        pick(&found).map(|named| (*which, named))
    });
    // Then a change users must act on.
    let step = kinds.iter().find_map(|(which, entries)| {
        let found: Vec<&str> = entries
            .iter()
            .copied()
            .filter(|e| facts.steps.iter().any(|s| s == e))
            .collect();
        pick(&found).map(|named| (*which, named))
    });
    let ordered = secure
        .into_iter()
        .chain(step)
        .map(|(which, named)| (which, Some(named)))
        .chain(kinds.iter().map(|(which, entries)| (*which, pick(entries))));
    for (which, named) in ordered {
        if let Some(mut named) = named {
            // A breaking change is told whole under "How to upgrade": the lede names it by
            // its first clause.
            let whole = which == Which::Breaking;
            if whole {
                first_clause(&mut named);
            }
            let who = if sentences.is_empty() {
                subject.as_str()
            } else {
                "It"
            };
            sentences.push(headline(who, &named, which));
            if let Some(more) = second_sentence(&named.entry).filter(|_| !whole) {
                sentences.push(more);
            }
            named_kind = Some(which);
            break;
        }
    }
    // What else it holds.
    let rest = |which: Which, entries: &Vec<&str>| {
        entries
            .len()
            .saturating_sub(usize::from(named_kind == Some(which)))
    };
    let more = |which: Which| named_kind == Some(which);
    let mut parts = Vec::new();
    let n = rest(Which::Breaking, &breaking);
    if n > 0 {
        let adjective = if more(Which::Breaking) {
            "more breaking change"
        } else {
            "breaking change"
        };
        parts.push(format!(
            "has {}",
            plural(n, adjective, &format!("{adjective}s"))
        ));
    }
    let n = rest(Which::Added, &added);
    if let Some(clause) = only_one(&added).filter(|_| named_kind != Some(Which::Added)) {
        parts.push(clause);
    } else if n > 0 {
        let (one, many) = if more(Which::Added) {
            ("more new feature", "more new features")
        } else {
            ("new feature", "new features")
        };
        parts.push(format!("brings {}", plural(n, one, many)));
    }
    let n = rest(Which::Fixed, &fixed);
    if n > 0 {
        match only_one(&fixed).filter(|_| !more(Which::Fixed)) {
            Some(clause) => parts.push(clause),
            None if more(Which::Fixed) => {
                parts.push(format!("fixes {}", plural(n, "other bug", "other bugs")))
            }
            None => parts.push(format!("fixes {}", plural(n, "bug", "bugs"))),
        }
    }
    let n = rest(Which::Other, &other);
    if n > 0 && named_kind == Some(Which::Other) {
        parts.push(if dependencies {
            format!(
                "updates {}",
                plural(n, "more dependency", "more dependencies")
            )
        } else if more(Which::Other) {
            format!("has {}", plural(n, "more change", "more changes"))
        } else {
            format!("has {}", plural(n, "other change", "other changes"))
        });
    }
    if !parts.is_empty() {
        let also = if sentences.is_empty() {
            format!("{subject} {}.", and_list(&parts))
        } else {
            format!("It also {}.", and_list(&parts))
        };
        sentences.push(also);
    }
    if sentences.is_empty() {
        sentences.push(format!("{subject} is a maintenance release."));
    }
    let to_act = !breaking.is_empty()
        || !facts.steps.is_empty()
        || !facts.requires.is_empty()
        || !facts.removed.is_empty()
        || facts.deprecated > 0;
    if to_act {
        sentences.push("Read how to upgrade below.".to_string());
    } else if facts.compatible && facts.released {
        sentences.push("Upgrading needs no code changes.".to_string());
    }
    sentences.join(" ")
}

#[cfg(test)]
#[path = "lede_tests.rs"]
mod tests;
