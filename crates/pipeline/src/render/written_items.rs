//! A release's section of the project's own changelog read as the items of a release post:
//! each top-level bullet (its whole first paragraph, reference links resolved against the
//! section's definitions, a changesets or towncrier credit taken off) under what its heading
//! says it is. A heading the post has no use for (contributor-facing, CI, tests, docs,
//! miscellaneous tasks) drops its items, but for those about what users install the package
//! on (wheels, Python or Node versions, platforms) that are not about the project's own
//! checks; a section without headings is read by each item's first verb. GitHub's "by @user
//! in …" credits go, and addresses of pull requests left bare after an item become links.

use regex::Regex;
use std::collections::HashMap;
use std::sync::LazyLock;

use super::lede;
use super::text::upper_first;
use crate::builtin::regex as builtin;
use crate::source::history::says_removal;

/// What an item of the project's changelog is to a release post.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Breaking, removed or major: "How to upgrade", and a highlight.
    Breaking,
    /// Deprecated: "How to upgrade".
    Deprecated,
    /// New features and enhancements.
    Added,
    Fixed,
    /// Anything else users see (changed behaviour, performance, dependencies, packaging).
    Changed,
}

/// Items read from one section at most.
const MAX_ITEMS: usize = 200;

static HEADING: LazyLock<Regex> = LazyLock::new(|| builtin(r"^#{1,6}\s+(.+?)\s*#*\s*$"));
/// "Enhancements:", "**Bug fixes**" on a line of its own.
static LABEL: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"^(?:\*\*|__)?([A-Za-z][A-Za-z '&/-]{1,48}?):?(?:\*\*|__)?:?\s*$"));
static BULLET: LazyLock<Regex> = LazyLock::new(|| builtin(r"^[-*+]\s+(.*)$"));
static DEFINITION: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"^\s{0,3}\[([^\]\n]+)\]:\s*<?([^\s>]+)>?"));
static REFERENCE: LazyLock<Regex> = LazyLock::new(|| builtin(r"\[([^\]\n]+)\]\[([^\]\n]*)\]"));
/// A shortcut reference, "[#3597]" alone (what follows is checked apart: not a link's
/// "(", "[" or a definition's ":").
static SHORTCUT: LazyLock<Regex> = LazyLock::new(|| builtin(r"(^|[^\]\\\w`])\[([^\]\[\n]+)\]"));
/// A label that can only be a reference: an issue, a pull request or a user.
static REFERENCE_LABEL: LazyLock<Regex> = LazyLock::new(|| builtin(r"^(?:[#!]\d+|@[\w-]+)$"));
/// A category label the changelog opens an item with ("**added:** …", "breaking: …"):
/// what the item is, never words of it.
static CATEGORY: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"(?i)^(?:\*\*|__)?(added|new|feat(?:ure)?s?|fixed|fix(?:es)?|changed|breaking|removed|deprecated|security|perf(?:ormance)?)(?::\s*(?:\*\*|__)|(?:\*\*|__):|:)\s+",
    )
});
/// A heading that opens the steps of an upgrade ("#### Migration", "Upgrading").
static MIGRATION: LazyLock<Regex> = LazyLock::new(|| {
    builtin(r"(?i)^#{1,6}\s+(?:migrat\w*|upgrad\w*|how to (?:upgrade|migrate))\b")
});
/// changesets: "[#12](…) [`abc1234`](…) Thanks [@user](…)! - text", the pull request and
/// the commit in either order.
static CHANGESETS_CREDIT: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"^(?:(?:\[#\d+\]\([^)\s]*\)|\[`?[0-9a-f]{7,40}`?\]\([^)\s]*\))\s*)*(?:Thanks\s+(?:\[@[^\]]+\]\([^)\s]*\)(?:,\s*|\s+and\s+|\s*)?)+!\s*)?-\s+",
    )
});
/// git-cliff templates that open an item with its commit ("[abc1234](…) *(scope)* Text").
static LEADING_COMMIT: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"^\[`?[0-9a-f]{7,40}`?\]\([^)\s]*\)\s+"));
/// Their credit: " by `@user` in [#12](…)" (the pull request link stays), and towncrier's
/// " -- by @user." before a reference.
static CODE_CREDIT: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"(?:\s+(?:--|—))?\s+by\s+`?@[\w-]+`?(?:\s+in(?:\s+|$)|\.)?"));
/// A Conventional Commits type the changelog kept in the item ("perf: add …").
static COMMIT_TYPE: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"(?i)^(feat|feature|fix|perf|refactor|chore|docs|build|ci|test|style)(?:\([^)\n]*\))?!?:\s+",
    )
});
/// Lint, typo and formatting entries: never in a post, whatever the changelog lists.
static LINT: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"(?i)^(?:fix(?:es|ed)?\s+|address(?:es|ed)?\s+|silence[ds]?\s+)?(?:an?\s+|the\s+|some\s+|more\s+|minor\s+|new\s+)*(?:clippy|lints?|linter|linting|typos?|rustfmt|fmt|formatting|spelling)\b",
    )
});
/// What users install it on, announced under a heading for contributors or maintainers
/// ("Started building wheels for CPython 3.14"): kept for a post.
static PLATFORM: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"(?i)\b(?:wheels?|support|binaries|builds?|packages?)\s+(?:for|on)\s+(?:cpython|python|pypy|node(?:\.js)?|free-?threaded|musl|linux|windows|macos|aarch64|arm64|riscv\w*|ppc64le|s390x)\b",
    )
});
/// ... unless it is about the project's own checks.
static CHECKS: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"(?i)\b(?:ci|tests?|testing|workflows?|lint\w*|coverage|actions?|matrix|runners?|jobs?)\b",
    )
});
/// zap's "[#1534](…): text" (or "#1534: text" when the file defines no link for it).
static LEADING_REFERENCE: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"^((?:(?:\[#\d+\]\([^)\s]*\)|#\d+)(?:,\s*)?)+):\s+"));
/// git-cliff's "*(scope)* ", release-please's "**scope:** " and commitizen's "**scope**: "
/// before an item.
static TOOL_SCOPE: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"^(?:\*\(([^)\n]{1,40})\)\*|\*\*([^*\n]{1,40}?)(?::\*\*|\*\*:))\s+"));
/// git-cliff's " - ([abc1234](…))" and release-please's " ([abc1234](…))" after an item:
/// the changelog links the commit, a post need not.
static TOOL_COMMIT: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"\s+(?:-\s+)?\(\[`?[0-9a-f]{7,40}`?\]\([^)\s]*\)\)\s*$"));
/// GitHub's generated " by @user in https://…/pull/12" credit, and addresses of pull
/// requests or issues left bare after an item ("Fix x https://…/pull/12"): a post links
/// them as "([#12](…))".
static BARE_REFERENCES: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"(?:\s+by\s+@[\w-]+(?:\s+in)?)?((?:\s*,?\s*<?https?://[^\s<>()]+/(?:pull|issues|pulls|merge_requests)/\d+>?)+)\s*[.;]?\s*$",
    )
});
static REFERENCE_URL: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"(https?://[^\s<>()]+/(?:pull|issues|pulls|merge_requests)/(\d+))"));
/// GitHub's " by @user" credit alone, at the end of an item.
static GITHUB_CREDIT: LazyLock<Regex> = LazyLock::new(|| builtin(r"\s+by\s+@[\w-]+(?:\s+in)?\s*$"));
/// towncrier's " -- by `user`." credit.
static TRAILING_CREDIT: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"\s+(?:--|—)\s+by\s+[^.]*\.?\s*$"));

/// What a heading of the section says its items are; `None`: not for a post.
fn heading_kind(title: &str) -> Option<Option<Kind>> {
    let t = title.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| t.contains(w));
    let ci = t.split(|c: char| !c.is_alphanumeric()).any(|w| w == "ci");
    let for_others = has(&[
        "contributor",
        "internal",
        "development",
        "miscellaneous",
        "chore",
        "testing",
        "tests",
        "documentation",
        "docs",
        "refactor",
        "style",
        "new contributors",
    ]);
    if (ci || for_others) && !has(&["breaking"]) {
        return None;
    }
    Some(
        if has(&[
            "breaking",
            "incompatib",
            "removal",
            "removed",
            "major change",
        ]) {
            Some(Kind::Breaking)
        } else if has(&["deprecat"]) {
            Some(Kind::Deprecated)
        } else if has(&[
            "feature",
            "feat",
            "added",
            "enhancement",
            "new",
            "minor change",
            "improvement",
        ]) {
            Some(Kind::Added)
        } else if has(&["fix", "bug", "security"]) {
            Some(Kind::Fixed)
        } else if has(&["what's changed", "patch change"]) || t.trim() == "changes" {
            // changesets' "Patch Changes", GitHub's "What's Changed": by each item's verb.
            None
        } else {
            Some(Kind::Changed)
        },
    )
}

/// An item's kind by its first word, when its heading does not say.
fn verb_kind(text: &str) -> Kind {
    let word: String = text
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .chars()
        .take_while(|c| c.is_alphanumeric())
        .collect::<String>()
        .to_lowercase();
    let starts = |stems: &[&str]| stems.iter().any(|s| word.starts_with(s));
    if starts(&["fix", "prevent", "correct", "resolv", "repair"]) {
        Kind::Fixed
    } else if starts(&["deprecat"]) {
        Kind::Deprecated
    } else if starts(&["remov", "drop", "delet"]) {
        Kind::Breaking
    } else if starts(&[
        "add",
        "support",
        "introduc",
        "implement",
        "allow",
        "enabl",
        "expos",
        "new",
    ]) {
        Kind::Added
    } else {
        Kind::Changed
    }
}

/// The section's items for a post, in the section's order.
pub(crate) fn items(markdown: &str) -> Vec<(Kind, String)> {
    let definitions = definitions(markdown);
    let mut out: Vec<(Option<Kind>, String)> = Vec::new();
    // `None` outer: a heading the post skips; inner `None`: by each item's verb.
    let mut kind: Option<Option<Kind>> = Some(None);
    let mut current: Option<String> = None;
    let mut fence = false;
    // Under a "Security" heading: an item that does not say so itself is labelled, so that
    // the post (and its lede, which puts security first) tells it.
    let mut security = false;
    let finish =
        |item: Option<String>, kind: Option<Option<Kind>>, security: bool, out: &mut Vec<_>| {
            // Under a heading the post skips, only what users install it on.
            let platform = |t: &str| PLATFORM.is_match(t) && !CHECKS.is_match(t);
            let kind = match (&item, kind) {
                (Some(t), None) if platform(t) => Some(Some(Kind::Changed)),
                (_, kind) => kind,
            };
            if let (Some(text), Some(k)) = (item, kind)
                && out.len() < MAX_ITEMS
            {
                let (label, mut text) = clean(&text, &definitions);
                // A first paragraph that introduces a list the post does not show ends there.
                if let Some(cut) = text.strip_suffix(':').filter(|t| !t.ends_with(':')) {
                    text = format!("{}.", cut.trim_end());
                }
                if security && !text.is_empty() && !lede::says_security(&text) {
                    text = format!("Security: {text}");
                }
                if !text.is_empty()
                    && !text.to_lowercase().starts_with("updated dependencies")
                    && !LINT.is_match(&text)
                {
                    out.push((k.or(label), text));
                }
            }
        };
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~") {
            fence = !fence;
        }
        if fence {
            continue;
        }
        if let Some(c) = BULLET.captures(line) {
            finish(current.take(), kind, security, &mut out);
            current = Some(c[1].to_string());
            continue;
        }
        let indented = line.starts_with(' ') || line.starts_with('\t');
        if indented && !line.trim().is_empty() {
            if let Some(text) = current.as_mut()
                && !BULLET.is_match(line.trim_start())
                && !line.trim_start().starts_with('>')
            {
                text.push(' ');
                text.push_str(line.trim());
                continue;
            }
            if current.is_some() {
                // A nested list ends the item's first paragraph.
                finish(current.take(), kind, security, &mut out);
            }
            continue;
        }
        if line.trim().is_empty() {
            finish(current.take(), kind, security, &mut out);
            continue;
        }
        finish(current.take(), kind, security, &mut out);
        if let Some(c) = HEADING.captures(line) {
            kind = heading_kind(&c[1]);
            security = c[1].to_lowercase().contains("security");
        } else if let Some(c) = LABEL.captures(line.trim())
            && line.trim_end().ends_with([':', '*', '_'])
        {
            kind = heading_kind(&c[1]);
            security = c[1].to_lowercase().contains("security");
        }
    }
    finish(current.take(), kind, security, &mut out);
    out.into_iter()
        .map(|(k, text)| {
            // A Conventional Commits type the changelog kept ("perf: add …") says what the
            // item is, then goes.
            let typed = COMMIT_TYPE.captures(&text).map(|c| {
                let kind = match c[1].to_ascii_lowercase().as_str() {
                    "feat" | "feature" => Kind::Added,
                    "fix" => Kind::Fixed,
                    _ => Kind::Changed,
                };
                (kind, upper_first(&text[c.get(0).map_or(0, |m| m.end())..]))
            });
            let (kind, text) = match typed {
                Some((kind, rest)) => (k.unwrap_or(kind), rest),
                None => (k.unwrap_or_else(|| verb_kind(&text)), text),
            };
            // Public API removed or renamed breaks users' code under any heading.
            let removes = matches!(kind, Kind::Added | Kind::Changed | Kind::Fixed)
                && says_removal(&text, kind == Kind::Fixed);
            (if removes { Kind::Breaking } else { kind }, text)
        })
        .collect()
}

/// One item as a post shows it: references resolved, credits taken off, a leading pull
/// request reference moved to the end.
fn clean(text: &str, definitions: &HashMap<String, String>) -> (Option<Kind>, String) {
    let (label, text) = match CATEGORY.captures(text) {
        Some(c) => (
            category_kind(&c[1]),
            &text[c.get(0).map_or(0, |m| m.end())..],
        ),
        None => (None, text),
    };
    let resolved = resolve_references(text, definitions);
    let text = LEADING_COMMIT.replace(&resolved, "");
    let text = CHANGESETS_CREDIT.replace(&text, "").into_owned();
    // towncrier's " -- by `user`." first: the git-cliff credit is within it.
    let text = TRAILING_CREDIT.replace(&text, "").into_owned();
    let text = CODE_CREDIT.replace_all(&text, " ").replace("  ", " ");
    let text = TOOL_COMMIT.replace(&text, "");
    // "scope: Description", as a post shows a commit's.
    let (scope, text) = match TOOL_SCOPE.captures(&text) {
        Some(c) => (
            c.get(1)
                .or_else(|| c.get(2))
                .map(|m| m.as_str().to_string())
                // A template's word for "no scope".
                .filter(|s| !matches!(s.as_str(), "uncategorized" | "none" | "other" | "misc")),
            text[c.get(0).map_or(0, |m| m.end())..].to_string(),
        ),
        None => (None, text.into_owned()),
    };

    let text = match BARE_REFERENCES.captures(&text) {
        Some(c) => {
            let links: Vec<String> = REFERENCE_URL
                .captures_iter(&c[1])
                .map(|r| format!("[#{}]({})", &r[2], &r[1]))
                .fold(Vec::new(), |mut all, link| {
                    if !all.contains(&link) {
                        all.push(link);
                    }
                    all
                });
            let rest = text[..c.get(0).map_or(0, |m| m.start())].trim_end();
            format!("{rest} ({})", links.join(", "))
        }
        None => GITHUB_CREDIT.replace(&text, "").into_owned(),
    };
    let text = match LEADING_REFERENCE.captures(&text) {
        Some(c) => {
            let rest = &text[c.get(0).map_or(0, |m| m.end())..];
            format!("{} ({})", rest.trim_end(), &c[1])
        }
        None => text,
    };
    let text = match scope {
        Some(scope) => format!("{scope}: {}", upper_first(text.trim())),
        None => upper_first(text.trim()),
    };
    (label, text)
}

/// What a category label says an item is.
fn category_kind(label: &str) -> Option<Kind> {
    let l = label.to_ascii_lowercase();
    Some(match l.as_str() {
        "breaking" | "removed" => Kind::Breaking,
        "deprecated" => Kind::Deprecated,
        "fixed" | "fix" | "fixes" | "security" => Kind::Fixed,
        "changed" | "perf" | "performance" => Kind::Changed,
        _ => Kind::Added,
    })
}

/// Reference links resolved against the definitions ("[text][label]", "[#12]"); one whose
/// definition is missing shows its text, never brackets a reader would see.
fn resolve_references(text: &str, definitions: &HashMap<String, String>) -> String {
    let full = REFERENCE.replace_all(text, |c: &regex::Captures| {
        let label = if c[2].is_empty() { &c[1] } else { &c[2] };
        match definitions.get(&label.to_lowercase()) {
            Some(url) => format!("[{}]({url})", &c[1]),
            None => c[1].to_string(),
        }
    });
    let mut out = String::with_capacity(full.len());
    let mut last = 0;
    for c in SHORTCUT.captures_iter(&full) {
        let (Some(whole), Some(label)) = (c.get(0), c.get(2)) else {
            continue;
        };
        let after = &full[whole.end()..];
        // A link's text ("[x](…)"), a definition ("[x]: …") or a checkbox stays as it is.
        let url = definitions.get(&label.as_str().to_lowercase());
        if after.starts_with(['(', '[', ':'])
            || (url.is_none() && !REFERENCE_LABEL.is_match(label.as_str()))
        {
            continue;
        }
        let start = label.start() - 1;
        out.push_str(&full[last..start]);
        match url {
            Some(url) => out.push_str(&format!("[{}]({url})", label.as_str())),
            None => out.push_str(label.as_str()),
        }
        last = whole.end();
    }
    out.push_str(&full[last..]);
    out
}

/// The steps the section gives for upgrading: what follows a "Migration" or "Upgrading"
/// heading, up to the next heading of its level or above, or the end of the item it is
/// nested in (then titled by that item, cleaned like the item itself). In the notes' own
/// words, code blocks kept, at most [`MAX_STEPS`].
pub(crate) fn upgrade_steps(markdown: &str) -> Vec<(Option<String>, String)> {
    let definitions = definitions(markdown);
    let mut steps = Vec::new();
    let mut item: Option<String> = None;
    let mut open: Option<(usize, usize, Vec<&str>)> = None; // indent, heading level, lines
    let mut fence = false;
    let close = |open: &mut Option<(usize, usize, Vec<&str>)>,
                 item: &Option<String>,
                 steps: &mut Vec<_>| {
        if let Some((indent, _, lines)) = open.take() {
            let body: Vec<String> = lines.iter().map(|l| strip_indent(l, indent)).collect();
            let body = body.join("\n").trim().to_string();
            let title = item
                .as_ref()
                .filter(|_| indent > 0)
                .map(|t| clean(t, &definitions).1);
            if !body.is_empty() && steps.len() < MAX_STEPS {
                steps.push((title, body));
            }
        }
    };
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let toggles = trimmed.starts_with("```") || trimmed.starts_with("~~~");
        if !fence && !trimmed.is_empty() {
            let level = trimmed.chars().take_while(|c| *c == '#').count();
            let heading = level > 0 && trimmed[level..].starts_with(' ');
            let ends = open.as_ref().is_some_and(|(at, lvl, _)| {
                indent < *at || (heading && level <= *lvl) || DEFINITION.is_match(line)
            });
            if ends {
                close(&mut open, &item, &mut steps);
            }
            if indent == 0
                && let Some(c) = BULLET.captures(line)
            {
                item = Some(c[1].to_string());
            } else if indent == 0 && heading {
                item = None;
            }
            if open.is_none() && heading && MIGRATION.is_match(trimmed) {
                open = Some((indent, level, Vec::new()));
                continue;
            }
        }
        if toggles {
            fence = !fence;
        }
        if let Some((_, _, lines)) = open.as_mut() {
            lines.push(line);
        }
    }
    close(&mut open, &item, &mut steps);
    steps
}

/// Steps read from one section at most.
const MAX_STEPS: usize = 20;

/// A line without the first `indent` spaces it is nested by.
fn strip_indent(line: &str, indent: usize) -> String {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    line[spaces.min(indent)..].to_string()
}

/// The section's link reference definitions, by lowercase label.
fn definitions(markdown: &str) -> HashMap<String, String> {
    markdown
        .lines()
        .filter_map(|line| {
            let c = DEFINITION.captures(line)?;
            Some((c[1].to_lowercase(), c[2].to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_under_a_security_heading_say_so_and_none_ends_on_a_colon() {
        let section = "Security\n--------\n\n- Decompression-bomb safeguards were bypassed:\n\n  1. When `drain_conn()` was called.\n\n- Pools did not strip headers (GHSA-qccp-gfcp-xxvc).\n\nBugfixes\n--------\n\n- Fixed `read()`.\n";
        let section = section.replace("--------", "");
        let section = section
            .replace("Security\n", "## Security\n")
            .replace("Bugfixes\n", "## Bugfixes\n");
        assert_eq!(
            items(&section),
            [
                (
                    Kind::Fixed,
                    "Security: Decompression-bomb safeguards were bypassed.".into()
                ),
                (
                    Kind::Fixed,
                    "Pools did not strip headers (GHSA-qccp-gfcp-xxvc).".into()
                ),
                (Kind::Fixed, "Fixed `read()`.".into()),
            ]
        );
    }

    #[test]
    fn headings_and_labels_say_what_items_are() {
        let section = "Enhancements:\n* [#1378][]: Add `WithLazy` method.\n* [#1406][]: Fix `Log`.\n* #1534: Add hooks.\n\nBreaking changes:\n* Drop Go 1.19.\n\nThanks to @a, @b for their contributions to this release.\n\n[#1378]: https://github.com/o/r/pull/1378\n[#1406]: https://github.com/o/r/pull/1406\n";
        let found = items(section);
        assert_eq!(
            found,
            [
                (
                    Kind::Added,
                    "Add `WithLazy` method. ([#1378](https://github.com/o/r/pull/1378))".into()
                ),
                (
                    Kind::Added,
                    "Fix `Log`. ([#1406](https://github.com/o/r/pull/1406))".into()
                ),
                (Kind::Added, "Add hooks. (#1534)".into()),
                (Kind::Breaking, "Drop Go 1.19.".into()),
            ]
        );
    }

    #[test]
    fn changesets_credits_and_dependency_lists_are_left_out() {
        let section = "### Major Changes\n\n- [#2128](https://x/pull/2128) [`7113c01`](https://x/commit/7113c01) Thanks [@Andarist](https://github.com/Andarist)! - Renamed the `tag` command.\n\n  More text.\n\n### Patch Changes\n\n- [#2239](https://x/pull/2239) [`fdfdc93`](https://x/commit/fdfdc93) Thanks [@bluwy](https://github.com/bluwy)! - Fix links\n- Updated dependencies [[`d0386b6`](https://x/commit/d0386b6)]:\n  - @changesets/write@1.0.1\n";
        assert_eq!(
            items(section),
            [
                (Kind::Breaking, "Renamed the `tag` command.".into()),
                (Kind::Fixed, "Fix links".into()),
            ]
        );
    }

    #[test]
    fn credits_scopes_and_commit_links_of_other_tools_are_left_out() {
        let section = "### Patch Changes\n\n- [`6f002b8e543ca39d3ee23681e28848d7f1724fae`](https://x/commit/6f002b8) [#4696](https://x/pull/4696) Thanks [@g](https://github.com/g)! - perf: add a `node` export condition\n\n## Features\n\n* **v2:** add status code ([#513](https://x/issues/513)) ([7d5554f](https://x/commit/7d5554f))\n\n### Fixed\n\n- fix clippy lint of rust 1.97 ([#2932](https://x/pull/2932))\n- update to tera v2\n";
        assert_eq!(
            items(section),
            [
                (Kind::Changed, "Add a `node` export condition".into()),
                (
                    Kind::Added,
                    "v2: Add status code ([#513](https://x/issues/513))".into()
                ),
                (Kind::Fixed, "Update to tera v2".into()),
            ]
        );
        // commitizen: "### Feat" and "**scope**: text".
        assert_eq!(
            items("### Feat\n\n- **version**: add --tag to version command (#1819)\n"),
            [(
                Kind::Added,
                "version: Add --tag to version command (#1819)".into()
            )]
        );
    }

    #[test]
    fn git_cliff_items_that_open_with_their_commit() {
        let section = "### Features\n\n- [90639c1](https://x/commit/90639c1) *(uncategorized)* Add Termina backend by `@joshka` in [#2561](https://x/pull/2561)\n\n  > ## Summary\n\n### Bug Fixes\n\n- [81e667f](https://x/commit/81e667f) *(scrollbar)* Keep a large thumb by `@sat` in [#2594](https://x/pull/2594)\n  >\n  > Closes #2582.\n";
        assert_eq!(
            items(section),
            [
                (
                    Kind::Added,
                    "Add Termina backend [#2561](https://x/pull/2561)".into()
                ),
                (
                    Kind::Fixed,
                    "scrollbar: Keep a large thumb [#2594](https://x/pull/2594)".into()
                ),
            ]
        );
    }

    #[test]
    fn bare_addresses_and_github_credits_become_links() {
        let section = "### Fixed\n\n- Fixed solo ZWJ crash https://github.com/o/r/pull/3953\n- Fix x by @ann in https://github.com/o/r/pull/7\n- Fix y by @bob\n- See https://example.com/docs for more\n";
        assert_eq!(
            items(section),
            [
                (
                    Kind::Fixed,
                    "Fixed solo ZWJ crash ([#3953](https://github.com/o/r/pull/3953))".into()
                ),
                (
                    Kind::Fixed,
                    "Fix x ([#7](https://github.com/o/r/pull/7))".into()
                ),
                (Kind::Fixed, "Fix y".into()),
                (Kind::Fixed, "See https://example.com/docs for more".into()),
            ]
        );
    }

    #[test]
    fn sections_for_contributors_are_not_for_a_post() {
        let section = "### Contributor-facing changes\n\n- CI workflow refactored -- by `webknjaz`.\n\n### Packaging updates and notes for downstreams\n\n- Started building wheels for CPython 3.14 -- by `kumaraditya303`.\n\n### ⚙️ Miscellaneous Tasks\n\n- Bump CI\n\n### 🐛 Bug Fixes\n\n- *(config)* Handle empty files - ([b99a232](https://x/commit/b99a232))\n";
        assert_eq!(
            items(section),
            [
                (
                    Kind::Changed,
                    "Started building wheels for CPython 3.14".into()
                ),
                (Kind::Fixed, "config: Handle empty files".into()),
            ]
        );
        // What users install it on is theirs, whatever the heading.
        let section = "### Contributor-facing changes\n\n- Started building wheels for CPython 3.14 -- by @a.\n- Dropped wheels for PyPy 3.9 -- by @bdraco. (#765)\n- Test on Python 3.14 in CI -- by `b`.\n- When building wheels, the sdist is passed to `cibuildwheel`.\n- Moved the linters to ruff.\n";
        assert_eq!(
            items(section),
            [
                (
                    Kind::Changed,
                    "Started building wheels for CPython 3.14".into()
                ),
                (Kind::Changed, "Dropped wheels for PyPy 3.9 (#765)".into())
            ]
        );
    }

    #[test]
    fn migration_steps_are_read_with_their_item_and_code() {
        let section = "### Changes\n\n- Detect stale clients ([#5][])\n\n  #### Migration\n\n  Apps should pass it:\n\n  ```ts\n  # not a heading\n  match({ v });\n  ```\n\n- Add nonce\n\n## Upgrading\n\nRun `x migrate`.\n\n[#5]: https://x/pull/5\n";
        assert_eq!(
            upgrade_steps(section),
            [
                (
                    Some("Detect stale clients ([#5](https://x/pull/5))".to_string()),
                    "Apps should pass it:\n\n```ts\n# not a heading\nmatch({ v });\n```"
                        .to_string()
                ),
                (None, "Run `x migrate`.".to_string()),
            ]
        );
        assert!(upgrade_steps("- Fix a crash\n\n  More text.\n").is_empty());
    }

    #[test]
    fn labels_say_the_kind_and_shortcut_references_resolve() {
        let section = "- **breaking:** Router fallbacks are merged ([#1])\n- fixed: `a[0]` in [docs](https://d) ([#2])\n\n[#1]: https://x/pull/1\n";
        assert_eq!(
            items(section),
            [
                (
                    Kind::Breaking,
                    "Router fallbacks are merged ([#1](https://x/pull/1))".into()
                ),
                (Kind::Fixed, "`a[0]` in [docs](https://d) (#2)".into()),
            ]
        );
    }
}
