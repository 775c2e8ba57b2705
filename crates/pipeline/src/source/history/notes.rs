//! Commits as release notes, the way git-cliff's configurations and release-please write
//! them: Conventional Commits parsed by `git-conventional`, grouped by their type (never by
//! the words of the subject), one section per release tag, breaking changes on top of each.
//!
//! Commits without a type are grouped by their leading verb, as git-cliff's
//! `examples/keepachangelog.toml` does (Add/Support/Introduce → Added, Remove/Delete/Drop →
//! Removed, Fix → Fixed, security words → Security, anything else → Changed), so that a
//! repository that does not write Conventional Commits still gets its changelog.
//!
//! What is left out: release commits, merge commits (collect never lists them), bot
//! authors and dependency updates, always; `chore`, `ci`, `build`, `test`, `style` and
//! `docs` commits; commits without a type that only change documentation, tests, CI,
//! tooling or lock files, or whose subject says they are such housekeeping (typos,
//! formatting, review rounds); unless the repository's `[changelog]` settings say otherwise.
//! A revert and the commit it reverts both leave when both are in one release; a revert of a
//! revert re-applies the change and is listed as that change.

use regex::Regex;
use serde::Serialize;
use std::collections::BTreeSet;
use std::sync::LazyLock;

use super::chores;
use super::conventional::KNOWN_TYPES;
use super::rules::Rules;
use super::walk::History;
use super::{CommitInfo, date};
use crate::source::forge::Forge;

use crate::builtin::regex as builtin;

/// Release commits of release-please, semantic-release, commitizen, cargo-release, changesets
/// and hand-written ones.
static RELEASE: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"(?ix)^(?:
            (?:chore|build|ci)\((?:release|releases|version|bump)\)!?:
          | (?:chore|build|ci|release)(?:\([^)]*\))?!?:\s*(?:release|prepare\s+(?:for\s+)?(?:a\s+)?release|bump\s+(?:the\s+)?version|version\s+bump|publish)\b
          | release(?:\([^)]*\))?!?:
          | bump(?:\([^)]*\))?!?:\s*version\b
          | (?:release|releasing|released|bump|bumped|version|prepare|start|begin|open|publish|cut|increment|incremented|increase)\s+(?:(?:version|to|for|release|the|of|a|new|dev)\s+)*v?\d+\.\d+
          | (?:increment|incremented|increase|set|update|updated)\s+(?:the\s+)?version\s+(?:number\s+)?(?:to\s+)?v?\d+\.\d+
          | (?:chore|build|ci|release|bump|version)(?:\([^)]*\))?!?:\s*(?:(?:version|bump|bumped|to|release|releasing|v)\s+)*v?\d+\.\d+(?:\.\d+)?\S*$
          | (?:(?:release|releasing|publish)\s+\S+\s+v?|\S+@v?|\S+-v)\d+\.\d+\.\d+\S*$
          | v?\d+\.\d+(?:\.\d+)?\S*(?:\s+release)?$
        )",
    )
});

/// Dependabot, Renovate, GitHub Actions and every GitHub App (`name[bot]`).
static BOT_NAME: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"(?i)\[bot\]|^dependabot|^renovate|github-actions|^snyk-bot$"));
static BOT_EMAIL: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"(?i)\[bot\]@|^bot@renovateapp\.com$|dependabot|github-actions"));
/// `(#123)` in a subject: the pull request it came from.
static PULL: LazyLock<Regex> = LazyLock::new(|| builtin(r"\s*\(#(\d{1,9})\)"));
/// git's own revert message.
static REVERTS: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"(?i)this reverts commit ([0-9a-f]{7,40})"));

/// Whether an author is a bot (`name` or `email`).
fn is_bot(name: &str, email: &str) -> bool {
    BOT_NAME.is_match(name) || BOT_EMAIL.is_match(email)
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct Pull {
    pub number: u64,
    pub url: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct Entry {
    pub sha: String,
    pub short_sha: String,
    pub date: String,
    pub author: String,
    /// The Conventional Commits type (`feat`, `fix`, …); empty for other commits.
    #[serde(rename = "type")]
    pub kind: String,
    /// After `[changelog.scopes]` renames.
    pub scope: Option<String>,
    /// The subject without its type, scope and `(#123)` references.
    pub description: String,
    /// The first line of the message, as written.
    pub subject: String,
    pub breaking: bool,
    /// The `BREAKING CHANGE:` footer; empty when there is none (`feat!:`).
    pub breaking_description: String,
    pub conventional: bool,
    /// The group it is listed under; `None` when it is left out.
    pub group: Option<String>,
    pub commit_url: Option<String>,
    pub pulls: Vec<Pull>,
    #[serde(skip)]
    email: String,
    /// What a revert reverts: a commit id prefix and/or a subject.
    #[serde(skip)]
    reverts: Option<(Option<String>, String)>,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct Group {
    pub title: String,
    pub entries: Vec<Entry>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub(crate) struct Changelog {
    pub breaking: Vec<Entry>,
    pub groups: Vec<Group>,
}

/// One release section.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct ReleaseNotes {
    /// `1.2.3`; `None` for the commits after the newest tag.
    pub version: Option<String>,
    /// The version, or "Unreleased".
    pub title: String,
    pub tag: Option<String>,
    /// The tagged commit's date, `YYYY-MM-DD` (UTC).
    pub date: Option<String>,
    pub previous_tag: Option<String>,
    /// The forge's comparison of the previous tag with this one (or with HEAD).
    pub compare_url: Option<String>,
    pub breaking: Vec<Entry>,
    pub groups: Vec<Group>,
    /// Entries listed (breaking ones included).
    pub count: usize,
    /// Authors of the listed entries, bots excluded, in order of appearance.
    pub contributors: Vec<String>,
    /// The release's section of the project's own changelog file (Markdown), shown instead
    /// of the commits.
    pub handwritten: Option<String>,
    /// The path of that file.
    pub source: Option<String>,
}

/// Keep a Changelog's order, then the types it has no word for, then the repository's own
/// groups (in the order `parsers` names them), then "Other".
const GROUPS: [&str; 9] = [
    "Added",
    "Changed",
    "Deprecated",
    "Removed",
    "Fixed",
    "Performance",
    "Security",
    "Reverted",
    DEPENDENCIES,
];
/// The group of the dependency updates of a release that has nothing else to list.
const DEPENDENCIES: &str = "Dependencies";
const OTHER: &str = "Other";

pub(crate) fn entry(commit: &CommitInfo, rules: &Rules, forge: Option<&Forge>) -> Entry {
    let message = commit.message.trim();
    let subject = message.lines().next().unwrap_or("").trim().to_string();
    let mut entry = Entry {
        sha: commit.sha.clone(),
        short_sha: commit.sha.chars().take(7).collect(),
        date: date(commit.time),
        author: commit.author.clone(),
        kind: String::new(),
        scope: None,
        description: subject.clone(),
        subject: subject.clone(),
        breaking: false,
        breaking_description: String::new(),
        conventional: false,
        group: None,
        commit_url: forge.and_then(|f| f.commit_url(&commit.sha)),
        pulls: Vec::new(),
        email: commit.email.clone(),
        reverts: None,
    };
    let mut hints = Hints {
        housekeeping: commit.housekeeping,
        chores: commit.chores,
        ..Hints::default()
    };
    let reverts = Reverts::of(&subject);
    // A revert is read as the change it reverts (or, reverted twice, re-applies); its own
    // message holds no footers of that change.
    let text = match &reverts {
        Some(r) => r.innermost.as_str(),
        None => message,
    };
    // `kv::std_support …` is a path, not a type: the colon must end the type.
    let parsed = git_conventional::Commit::parse(text)
        .ok()
        .filter(|p| !p.description().starts_with(':'));
    if let Some(parsed) = parsed {
        let description = parsed.description().trim().to_string();
        let footer = parsed
            .breaking_description()
            .filter(|d| d.trim() != description)
            .map(|d| d.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_default();
        for footer in parsed.footers() {
            let token = footer.token().as_str().to_ascii_lowercase();
            hints.security |= token == "security";
            hints.deprecated |= token == "deprecated";
        }
        entry.kind = parsed.type_().as_str().to_ascii_lowercase();
        entry.scope = parsed.scope().map(|s| s.as_str().to_string());
        entry.breaking = parsed.breaking();
        entry.breaking_description = footer;
        entry.conventional = true;
        entry.description = description;
        if !KNOWN_TYPES.contains(&entry.kind.as_str()) && entry.scope.is_none() {
            // `macros: fix …`: the word before the colon names the area, not a type.
            entry.scope = Some(parsed.type_().as_str().to_string());
        }
    } else {
        entry.description = text.lines().next().unwrap_or("").trim().to_string();
    }
    // GitHub's "Merge commit from fork" of a security advisory: the advisory is the news.
    if let Some(advisory) = chores::advisory(&subject, message) {
        (entry.description, hints.security) = (advisory, true);
    }
    if let Some(reverts) = reverts {
        if entry.scope.is_none() {
            entry.scope = reverts.scope.clone();
        }
        // Reverted an odd number of times, the change is undone; an even number, it is back.
        if reverts.depth % 2 == 1 {
            entry.kind = "revert".into();
            entry.breaking = false;
            entry.breaking_description.clear();
        }
        let sha = REVERTS.captures(message).map(|c| c[1].to_ascii_lowercase());
        entry.reverts = Some((sha, reverts.reverted));
    }
    for caps in PULL.captures_iter(&entry.description) {
        if let Ok(number) = caps[1].parse::<u64>() {
            entry.pulls.push(Pull {
                number,
                url: forge.and_then(|f| f.pull_url(number)),
            });
        }
    }
    entry.description = PULL.replace_all(&entry.description, "").trim().to_string();
    if !entry.conventional {
        // A sentence's full stop is not part of a list item.
        let trimmed = entry.description.trim_end_matches('.');
        if !trimmed.ends_with('.') {
            entry.description = trimmed.to_string();
        }
    }
    if let Some(scope) = &entry.scope
        && let Some(renamed) = rules.scopes.get(scope)
    {
        entry.scope = Some(renamed.clone());
    }
    // Public API removed or renamed breaks its users' code, whatever the version or the
    // type says; a change of only tests, CI or documents removes none.
    entry.breaking |= !commit.chores
        && !commit.housekeeping
        && super::removals::commit_removes(&entry.kind, &entry.description);
    entry.group = classify(&entry, rules, &hints);
    entry
}

/// What a commit says besides its type.
#[derive(Default)]
struct Hints {
    /// A `Security:` footer.
    security: bool,
    /// A `Deprecated:` footer.
    deprecated: bool,
    /// Every file it changes is housekeeping (`source::files::is_housekeeping_path`).
    housekeeping: bool,
    /// Every file it changes is a test, CI, lint configuration or a document for
    /// contributors (`chores::is_chore_path`).
    chores: bool,
}

/// A revert's subject unwrapped: git's `Revert "…"` and Conventional Commits' `revert: …`,
/// however deeply nested.
#[derive(Debug, PartialEq, Eq)]
struct Reverts {
    /// How many reverts wrap the change: 1 undoes it, 2 re-applies it, …
    depth: usize,
    /// The subject of the change itself.
    innermost: String,
    /// The subject of the commit reverted: the subject without its outer layer.
    reverted: String,
    /// The scope of an outer `revert(scope): …`.
    scope: Option<String>,
}

impl Reverts {
    fn of(subject: &str) -> Option<Reverts> {
        let mut depth = 0;
        let mut text = subject.trim();
        let mut reverted = None;
        let mut scope = None;
        // What follows a closing quote: a forge's ` (#123)`, kept for the entry.
        let mut tails: Vec<&str> = Vec::new();
        // Bounded by the subject's length: each layer removes at least 7 bytes.
        loop {
            let inner = if let Some(rest) = text.strip_prefix("Revert \"") {
                // One layer closes with one quote; git writes nothing after it, a forge's
                // revert button ` (#123)`; a subject cut short has no closing quote.
                match rest.strip_suffix('"') {
                    Some(inner) => inner,
                    None => match rest.rfind('"') {
                        Some(end) if PULLS_ONLY.is_match(&rest[end + 1..]) => {
                            tails.push(&rest[end + 1..]);
                            &rest[..end]
                        }
                        _ => rest,
                    },
                }
            } else if let Some(caps) = CONVENTIONAL_REVERT.captures(text) {
                if scope.is_none() {
                    scope = caps.name("scope").map(|m| m.as_str().to_string());
                }
                caps.name("rest").map_or("", |m| m.as_str())
            } else {
                break;
            };
            depth += 1;
            text = inner.trim();
            if reverted.is_none() {
                reverted = Some(text.to_string());
            }
        }
        // A quote left unpaired (a subject cut short, a forge's suffix) is not the change's.
        let text = if text.matches('"').count() % 2 == 1 {
            text.strip_suffix('"')
                .or_else(|| text.strip_prefix('"'))
                .unwrap_or(text)
        } else {
            text
        };
        // A title the forge cut short ("… middleware (#…") ends at its last whole word.
        let text = match text.strip_suffix('…') {
            Some(cut) if cut.ends_with(char::is_alphanumeric) => {
                cut.rsplit_once(' ').map_or(cut, |(whole, _)| whole)
            }
            Some(cut) => cut,
            None => text,
        };
        let text = text
            .trim_end_matches(|c: char| c.is_whitespace() || matches!(c, '(' | '#' | ',' | ':'));
        let innermost = std::iter::once(text.trim())
            .chain(tails.iter().rev().map(|t| t.trim()))
            .collect::<Vec<_>>()
            .join(" ");
        (depth > 0).then(|| Reverts {
            depth,
            innermost,
            reverted: reverted.unwrap_or_default(),
            scope,
        })
    }
}

/// Nothing but pull request references: ` (#123)`.
static PULLS_ONLY: LazyLock<Regex> = LazyLock::new(|| builtin(r"^(?:\s*\(#\d{1,9}\))+\s*$"));

/// Conventional Commits' `revert: …` / `revert(scope): …`.
static CONVENTIONAL_REVERT: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"(?is)^revert(?:\((?P<scope>[^)]*)\))?!?:\s*(?P<rest>.*)$"));

/// Subjects of commits that are not news whatever their files: dependency updates
/// (Dependabot's and Renovate's wording, or by hand), typo and formatting fixes, work in
/// progress and review rounds, documentation, CI and test chores named as such.
static HOUSEKEEPING_SUBJECT: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"(?ix)^(?:
            bump\s+\S+\s+from\s+\S+\s+to\s+\S+
          | (?:update|upgrade|bump|refresh)\s+(?:all\s+|the\s+|dev\s+|npm\s+|go\s+|cargo\s+|rust\s+)*(?:deps|dependencies|dependency|dev-?dependencies|lock\s*files?|crates?|modules?)\b
          | (?:update|upgrade)\s+(?:rust\s+crate|module|npm\s+package|actions?)\s
          | (?:fix(?:ed|es)?\s+)?(?:a\s+|some\s+|the\s+)?typos?\b
          | (?:run\s+|apply\s+)?(?:cargo\s+)?(?:fmt|rustfmt|gofmt|prettier|clippy|lint|linting|formatting|reformat)\b
          | (?:fix|update|improve|clean\s*up|add|remove)\s+(?:the\s+|some\s+|an?\s+|more\s+|missing\s+|obvious\s+|old\s+)*(?:docs?|documentation|readme|changelog|comments?|ci|tests?|test\s+cases?|benchmarks?|examples?|formatting|lints?|clippy\s+\w+|warnings?|badges?|typos?)\b
          | (?:wip|fixup!|squash!|review\b|address\s+review|apply\s+review|code\s+review)
          | merge\s+(?:branch|pull\s+request|remote-tracking)\b
        )",
    )
});

/// Subjects of dependency updates: Dependabot's and Renovate's wording, or by hand.
static DEPENDENCY_SUBJECT: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"(?ix)^(?:
            bump\s+\S+\s+(?:from\s+\S+\s+)?to\s+\S+
          | (?:update|upgrade|bump)\s+(?:rust\s+crate|module|npm\s+package|actions?)\s
          | (?:update|upgrade|bump|refresh)\s+(?:all\s+|the\s+|dev\s+|npm\s+|go\s+|cargo\s+|rust\s+)*(?:deps|dependencies|dependency|dev-?dependencies|lock\s*files?)\b
          | (?:update|upgrade|bump)\s+\S+\s+(?:requirement\s+)?(?:from\s+\S+\s+)?to\s+v?\d
        )",
    )
});

/// Whether an entry updates dependencies: typed `deps`, scoped `deps`, or worded as one.
fn is_dependency_update(entry: &Entry) -> bool {
    matches!(entry.kind.as_str(), "deps" | "dep")
        || entry.scope.as_deref().is_some_and(|s| {
            matches!(
                s.to_ascii_lowercase().as_str(),
                "deps" | "deps-dev" | "dev-deps" | "dependencies" | "dependency"
            )
        })
        || DEPENDENCY_SUBJECT.is_match(&entry.description)
        || DEPENDENCY_SUBJECT.is_match(&entry.subject)
}

/// Git-cliff's keepachangelog.toml: the group of a commit without a type, by the verb it
/// starts with; `None` when the verb says nothing (then "Changed", or "Other" with
/// `other = true`).
fn verb_group(text: &str) -> Option<&'static str> {
    let lower = text.trim_start().to_ascii_lowercase();
    let word: String = lower
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    // `removing` is `remove` + `ing`.
    let without_ing = word.strip_suffix("ing").map(|w| format!("{w}e"));
    let stem = |stems: &[&str]| {
        stems.iter().any(|s| {
            std::iter::once(word.as_str())
                .chain(without_ing.as_deref())
                .any(|w| {
                    w.strip_prefix(s).is_some_and(|rest| {
                        ["", "s", "es", "ed", "d", "ing", "ped", "ping"].contains(&rest)
                    })
                })
        })
    };
    if SECURITY_WORDS.is_match(&lower) {
        return Some("Security");
    }
    if stem(&[
        "add",
        "support",
        "introduce",
        "implement",
        "impl",
        "new",
        "allow",
        "enable",
        "expose",
        "create",
    ]) {
        Some("Added")
    } else if stem(&["remove", "delete", "drop"]) {
        Some("Removed")
    } else if stem(&["fix", "correct", "resolve", "repair", "prevent"]) {
        Some("Fixed")
    } else if stem(&["deprecate"]) {
        Some("Deprecated")
    } else if stem(&["optimize", "optimise", "speed"]) {
        Some("Performance")
    } else {
        None
    }
}

/// A commit without a type that is about security.
static SECURITY_WORDS: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"(?i)\bsecurity\b|\bcve-\d{4}-\d+|\bvulnerab|\bghsa-[0-9a-z]{4}-"));

/// The group an entry is listed under, or `None` when it is left out.
fn classify(entry: &Entry, rules: &Rules, hints: &Hints) -> Option<String> {
    if RELEASE.is_match(&entry.subject) || is_bot(&entry.author, &entry.email) {
        return None;
    }
    let scope = entry.scope.as_deref().unwrap_or("");
    for parser in &rules.parsers {
        let matches = parser.kind.as_ref().is_none_or(|r| r.is_match(&entry.kind))
            && parser.scope.as_ref().is_none_or(|r| r.is_match(scope))
            && parser
                .subject
                .as_ref()
                .is_none_or(|r| r.is_match(&entry.subject))
            && parser
                .author
                .as_ref()
                .is_none_or(|r| r.is_match(&entry.author) || r.is_match(&entry.email));
        if matches {
            return parser.group.clone();
        }
    }
    // What a commit changed, or a subject that names a lint, typo or tweak, makes it no news
    // whatever its type says.
    if hints.chores || (!entry.breaking && chores::is_noise(&entry.description, scope)) {
        return None;
    }
    let typed = entry.conventional && KNOWN_TYPES.contains(&entry.kind.as_str());
    let group = if typed {
        match entry.kind.as_str() {
            // Documentation about security is documentation.
            "docs" | "doc" => None,
            "security" | "sec" => Some("Security"),
            _ if hints.security => Some("Security"),
            "deprecate" | "deprecated" | "deprecation" => Some("Deprecated"),
            _ if hints.deprecated => Some("Deprecated"),
            "feat" | "feature" => Some("Added"),
            "fix" | "bugfix" | "hotfix" => Some("Fixed"),
            "perf" => Some("Performance"),
            // Code moved, not changed for users (a breaking one is listed below).
            "refactor" => None,
            "revert" => Some("Reverted"),
            _ => None,
        }
    } else {
        untyped_group(entry, rules, hints)
    };
    // A breaking change is news whatever its type.
    match group {
        None if entry.breaking && !matches!(entry.kind.as_str(), "docs" | "doc") => {
            Some("Changed".to_string())
        }
        group => group.map(str::to_string),
    }
}

/// The group of a commit without a known type (git-cliff's keepachangelog.toml): by the
/// word before its colon when that is a verb (`add: …`), else by its description's leading
/// verb, else "Changed"; left out when it is housekeeping by its subject or by its files.
fn untyped_group(entry: &Entry, rules: &Rules, hints: &Hints) -> Option<&'static str> {
    if entry.kind == "revert" {
        return Some("Reverted");
    }
    if !rules.unconventional {
        return None;
    }
    if hints.housekeeping
        || HOUSEKEEPING_SUBJECT.is_match(&entry.subject)
        || HOUSEKEEPING_SUBJECT.is_match(&entry.description)
        || chores::is_internal(&entry.description)
    {
        return None;
    }
    if hints.security {
        return Some("Security");
    }
    let verb = if entry.conventional {
        verb_group(&entry.kind).or_else(|| verb_group(&entry.description))
    } else {
        verb_group(&entry.description)
    };
    match verb {
        Some(group) => Some(group),
        None if rules.other => Some(OTHER),
        None => Some("Changed"),
    }
}

/// Drops every revert whose reverted commit is listed too, and that commit.
fn cancel_reverts(entries: &mut Vec<Entry>) {
    let mut gone = BTreeSet::new();
    for (i, entry) in entries.iter().enumerate() {
        // A revert already cancelled by a revert of itself undoes nothing.
        if gone.contains(&i) {
            continue;
        }
        let Some((sha, subject)) = &entry.reverts else {
            continue;
        };
        let target = entries.iter().enumerate().position(|(j, e)| {
            j != i
                && !gone.contains(&j)
                && match sha {
                    Some(sha) => e.sha.starts_with(sha.as_str()),
                    None => e.subject == *subject,
                }
        });
        if let Some(j) = target {
            gone.insert(i);
            gone.insert(j);
        }
    }
    let mut index = 0;
    entries.retain(|_| {
        index += 1;
        !gone.contains(&(index - 1))
    });
}

/// Breaking changes first, then the groups in their order.
pub(crate) fn changelog(entries: &[Entry], rules: &Rules) -> Changelog {
    let listed = || entries.iter().filter(|e| e.group.is_some());
    let breaking = listed().filter(|e| e.breaking).cloned().collect();
    let mut titles: Vec<String> = GROUPS.iter().map(|g| g.to_string()).collect();
    for parser in &rules.parsers {
        if let Some(group) = &parser.group
            && !titles.contains(group)
        {
            titles.push(group.clone());
        }
    }
    if !titles.iter().any(|t| t == OTHER) {
        titles.push(OTHER.to_string());
    }
    let groups = titles
        .into_iter()
        .map(|title| Group {
            entries: listed()
                .filter(|e| !e.breaking && e.group.as_deref() == Some(title.as_str()))
                .cloned()
                .collect(),
            title,
        })
        .filter(|g| !g.entries.is_empty())
        .collect();
    Changelog { breaking, groups }
}

/// The run's notes: every listed entry (newest first), one section per release with at least
/// one, and the whole range as one changelog.
pub(crate) struct Notes {
    pub entries: Vec<Entry>,
    pub releases: Vec<ReleaseNotes>,
    pub all: Changelog,
}

pub(crate) fn notes(history: &History, rules: &Rules, forge: Option<&Forge>, head: &str) -> Notes {
    // A revert cancels a change of its own release; one of a change an earlier release
    // shipped is news of its own.
    let mut entries: Vec<Entry> = Vec::new();
    for release in &history.releases {
        let mut own: Vec<Entry> = release
            .commits
            .iter()
            .map(|c| entry(c, rules, forge))
            .collect();
        cancel_reverts(&mut own);
        entries.extend(own);
    }
    // A release of dependency updates alone is still a release: it lists them.
    let mut updates = BTreeSet::new();
    for release in history.releases.iter().filter(|r| r.tag.is_some()) {
        let shas: BTreeSet<&str> = release.commits.iter().map(|c| c.sha.as_str()).collect();
        let own = || entries.iter().filter(|e| shas.contains(e.sha.as_str()));
        if own().all(|e| e.group.is_none()) {
            updates.extend(
                own()
                    .filter(|e| is_dependency_update(e))
                    .map(|e| e.sha.clone()),
            );
        }
    }
    for e in entries.iter_mut().filter(|e| updates.contains(&e.sha)) {
        e.group = Some(DEPENDENCIES.to_string());
    }
    entries.retain(|e| e.group.is_some());
    let mut releases = Vec::new();
    for (i, release) in history.releases.iter().enumerate() {
        let shas: BTreeSet<&str> = release.commits.iter().map(|c| c.sha.as_str()).collect();
        let own: Vec<Entry> = entries
            .iter()
            .filter(|e| shas.contains(e.sha.as_str()))
            .cloned()
            .collect();
        if own.is_empty() {
            continue;
        }
        let notes = changelog(&own, rules);
        let mut contributors: Vec<String> = Vec::new();
        for e in &own {
            if !e.author.is_empty()
                && !is_bot(&e.author, &e.email)
                && !contributors.contains(&e.author)
            {
                contributors.push(e.author.clone());
            }
        }
        let (previous_tag, to) = match &release.tag {
            Some(tag) => (tag.previous.clone(), tag.name.clone()),
            // Unreleased: from the newest release of the range to HEAD.
            None => (
                history
                    .releases
                    .get(i + 1)
                    .and_then(|r| r.tag.as_ref())
                    .map(|t| t.name.clone()),
                head.to_string(),
            ),
        };
        releases.push(ReleaseNotes {
            version: release.tag.as_ref().map(|t| t.version.clone()),
            title: release
                .tag
                .as_ref()
                .map_or_else(|| "Unreleased".to_string(), |t| t.version.clone()),
            tag: release.tag.as_ref().map(|t| t.name.clone()),
            date: release.tag.as_ref().map(|t| t.date.clone()),
            compare_url: previous_tag
                .as_deref()
                .and_then(|from| forge?.compare_url(from, &to)),
            previous_tag,
            count: own.len(),
            breaking: notes.breaking,
            groups: notes.groups,
            contributors,
            handwritten: None,
            source: None,
        });
    }
    let all = changelog(&entries, rules);
    Notes {
        entries,
        releases,
        all,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_patterns_compile() {
        for pattern in [
            &RELEASE,
            &BOT_NAME,
            &BOT_EMAIL,
            &PULL,
            &REVERTS,
            &CONVENTIONAL_REVERT,
            &HOUSEKEEPING_SUBJECT,
            &SECURITY_WORDS,
            &PULLS_ONLY,
            &DEPENDENCY_SUBJECT,
        ] {
            LazyLock::force(pattern);
        }
    }

    #[test]
    fn version_bumps_are_release_commits() {
        for subject in [
            "Increment version to 1.7.1.dev0",
            "Set version to 2.0.0",
            "Update version number to 3.1.0",
            "Bump version to 1.2.3",
        ] {
            assert!(RELEASE.is_match(subject), "{subject}");
        }
        for subject in [
            "Update to Python 3.12",
            "Increase the buffer to 1.5 MB per read",
        ] {
            assert!(!RELEASE.is_match(subject), "{subject}");
        }
    }

    #[test]
    fn reverts_unwrap_one_quote_per_layer() {
        let r = Reverts::of("Revert \"Revert \"Remove build.rs file\"\"").unwrap();
        assert_eq!(r.depth, 2);
        assert_eq!(r.innermost, "Remove build.rs file");
        assert_eq!(r.reverted, "Revert \"Remove build.rs file\"");
        let r = Reverts::of("Revert \"say \"hi\"\"").unwrap();
        assert_eq!((r.depth, r.innermost.as_str()), (1, "say \"hi\""));
        let r = Reverts::of("revert(io): feat: use mmap").unwrap();
        assert_eq!((r.depth, r.innermost.as_str()), (1, "feat: use mmap"));
        assert_eq!(r.scope.as_deref(), Some("io"));
        assert!(Reverts::of("Reverting is hard").is_none());
        // A title the forge cut short.
        let r = Reverts::of("Revert \"fix(mw): Close the writer (#…\" (#924)").unwrap();
        assert_eq!(r.innermost, "fix(mw): Close the writer (#924)");
        let r = Reverts::of("Revert \"Close the compressor midd…\"").unwrap();
        assert_eq!(r.innermost, "Close the compressor");
    }

    #[test]
    fn leading_verbs_name_the_group() {
        for (subject, group) in [
            ("Add a flag", Some("Added")),
            ("Supports `Value` conversions", Some("Added")),
            ("introducing streams", Some("Added")),
            ("Removed Node.js 18 support", Some("Removed")),
            ("Drop the old API", Some("Removed")),
            ("Deleting dead code", Some("Removed")),
            ("Fixed key comparison", Some("Fixed")),
            ("Reject CVE-2024-0001 payloads", Some("Security")),
            ("Simplify the parser", None),
            ("Address the issue", None),
            ("kv::std_support may not need value-bag", None),
        ] {
            assert_eq!(verb_group(subject), group, "{subject}");
        }
    }
}
