//! A project's own changelog file split into its releases: the sections under headings that
//! name a version (`## [1.2.3] - 2024-05-01`, `# v1.2.3`, `1.2.3 (2024-05-01)` underlined in
//! reStructuredText), at the heading level most of them use. Markdown is read with
//! markdown-rs (its depth bounded first); reStructuredText headings by their underlines, and
//! the common inline markup of its sections rewritten as Markdown.

use markdown::mdast::Node;
use regex::Regex;
use std::collections::HashMap;
use std::sync::LazyLock;

use super::mdx::{nesting, validate};
use crate::builtin::regex as builtin;
use crate::source::forge::Forge;
use crate::source::history::ReleaseNotes;

/// At most this many release sections are read from one file.
const MAX_SECTIONS: usize = 1_000;
/// Deeper Markdown than this is not parsed (see `mdx::nesting`).
const MAX_DEPTH: usize = 64;

/// One release as the project wrote it.
#[derive(Clone, Debug)]
pub(crate) struct Section {
    pub version: semver::Version,
    /// `YYYY-MM-DD` when the heading gives one.
    pub date: Option<String>,
    /// The section's Markdown, without its heading, with the link definitions it uses.
    pub markdown: String,
}

/// A version in a heading: `1.2.3`, `v1.2`, `1.2.3-rc.1`, after a word boundary.
static VERSION: LazyLock<Regex> = LazyLock::new(|| {
    builtin(r"(?:^|[\s\[(@/_-])[vV]?(\d{1,9}\.\d{1,9}(?:\.\d{1,9})?(?:-[0-9A-Za-z.-]+)?)")
});
/// A reference-style link, `[text][label]` or `[text][]`.
static REFERENCE: LazyLock<Regex> = LazyLock::new(|| builtin(r"\[([^\]\n]+)\]\[([^\]\n]*)\]"));
/// A heading of changes not released yet.
static UNRELEASED: LazyLock<Regex> = LazyLock::new(|| {
    builtin(r"(?i)\b(?:unreleased|upcoming|not\s+yet\s+released|in\s+progress)\b")
});
static DATE: LazyLock<Regex> = LazyLock::new(|| builtin(r"\b(\d{4}-\d{2}-\d{2})\b"));

fn version(text: &str) -> Option<semver::Version> {
    let found = VERSION.captures(text)?.get(1)?.as_str();
    semver::Version::parse(found)
        .ok()
        .or_else(|| semver::Version::parse(&format!("{found}.0")).ok())
}

/// The release sections of the changelog file at `path` (reStructuredText when it ends with
/// `.rst`), in the file's order.
pub(crate) fn sections(text: &str, path: &str, forge: Option<&Forge>) -> Vec<Section> {
    if path.to_ascii_lowercase().ends_with(".rst") {
        rst_sections(text, forge, false)
    } else {
        markdown_sections(text, false)
    }
}

/// Keep a Changelog's `## [Unreleased]` section of the file (a heading at the release
/// headings' level that names no version and says it is not released), as Markdown; `None`
/// when the file has none or it is empty.
pub(crate) fn unreleased(text: &str, path: &str, forge: Option<&Forge>) -> Option<String> {
    let found = if path.to_ascii_lowercase().ends_with(".rst") {
        rst_sections(text, forge, true)
    } else {
        markdown_sections(text, true)
    };
    found
        .into_iter()
        .next()
        .map(|s| s.markdown)
        .filter(|m| m.lines().any(|l| BULLET_OR_TEXT.is_match(l)))
}

/// A line of content, not a heading, a link definition or a comment.
static BULLET_OR_TEXT: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"^\s*(?:[-*+]\s+\S|\d+\.\s+\S|[A-Za-z`])"));

/// A heading of the file: its level, where it starts and ends, its text.
struct Heading {
    level: usize,
    start: usize,
    end: usize,
    text: String,
}

/// Of `headings`, the sections at the level most release headings use (`unreleased`: the
/// first section at that level that names no version and says it is not released).
fn split(text: &str, headings: &[Heading], unreleased: bool) -> Vec<(usize, usize)> {
    let mut counts = std::collections::BTreeMap::new();
    for h in headings.iter().filter(|h| version(&h.text).is_some()) {
        *counts.entry(h.level).or_insert(0usize) += 1;
    }
    let Some(level) = counts
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(l, _)| *l)
    else {
        return Vec::new();
    };
    let mut spans = Vec::new();
    for (i, h) in headings.iter().enumerate() {
        let release = version(&h.text).is_some();
        let wanted = if unreleased {
            !release && UNRELEASED.is_match(&h.text)
        } else {
            release
        };
        if h.level != level || !wanted {
            continue;
        }
        // The next release (or "Unreleased") at this level ends it, as does any heading
        // above it; other headings of its level are its own ("## What's Changed").
        let end = headings[i + 1..]
            .iter()
            .find(|n| {
                n.level < level
                    || n.level == level
                        && (version(&n.text).is_some() || UNRELEASED.is_match(&n.text))
            })
            .map_or(text.len(), |n| n.start);
        spans.push((i, end));
        if spans.len() >= MAX_SECTIONS || unreleased {
            break;
        }
    }
    spans
}

/// The release sections (or with `unreleased`, the Unreleased one, its version 0.0.0).
fn markdown_sections(text: &str, unreleased: bool) -> Vec<Section> {
    if nesting::check(text, MAX_DEPTH).is_err() {
        return Vec::new();
    }
    let Ok(tree) = markdown::to_mdast(text, &markdown::ParseOptions::gfm()) else {
        return Vec::new();
    };
    let Some(children) = tree.children() else {
        return Vec::new();
    };
    let mut headings = Vec::new();
    // Link definitions, by label, as written: a section keeps those it uses.
    let mut definitions: Vec<(String, &str)> = Vec::new();
    let mut urls: Vec<(String, String)> = Vec::new();
    // Where each top-level block starts, and whether it is a definition.
    let mut blocks: Vec<(usize, bool)> = Vec::new();
    for node in children {
        let Some(position) = node.position() else {
            continue;
        };
        let (start, end) = (position.start.offset, position.end.offset);
        blocks.push((start, matches!(node, Node::Definition(_))));
        match node {
            Node::Heading(h) => headings.push(Heading {
                level: usize::from(h.depth),
                start,
                end,
                text: node.to_string(),
            }),
            Node::Definition(d) => {
                if let Some(source) = text.get(start..end) {
                    definitions.push((d.identifier.to_lowercase(), source));
                    urls.push((d.identifier.to_lowercase(), d.url.clone()));
                }
            }
            _ => {}
        }
    }
    let spans = split(text, &headings, unreleased);
    spans
        .into_iter()
        .filter_map(|(i, end)| {
            let heading = &headings[i];
            // The definitions that close the file (or the section) are not its text.
            let inside: Vec<&(usize, bool)> = blocks
                .iter()
                .filter(|(start, _)| *start >= heading.end && *start < end)
                .collect();
            let trailing = inside.iter().rev().take_while(|(_, d)| *d).count();
            let end = match inside.len().checked_sub(trailing) {
                Some(first) if trailing > 0 => inside.get(first).map_or(end, |(start, _)| *start),
                _ => end,
            };
            let body = text.get(heading.end..end)?;
            let lower = body.to_lowercase();
            // A reference the file defines nowhere (`[#1534][]`) is its text: left as it
            // is, a reader sees the brackets.
            let mut markdown = REFERENCE
                .replace_all(body.trim(), |c: &regex::Captures| {
                    let label = if c[2].is_empty() { &c[1] } else { &c[2] };
                    let label = label.to_lowercase();
                    // Defined: an inline link (`[#1501][]` → `[#1501](…)`), which every
                    // renderer of a release section reads; `[x][]` is a link to `x`.
                    match urls.iter().find(|(l, _)| *l == label) {
                        Some((_, url)) if !url.contains(['(', ')', ' ']) => {
                            format!("[{}]({url})", &c[1])
                        }
                        Some(_) => c[0].to_string(),
                        None => c[1].to_string(),
                    }
                })
                .into_owned();
            // The definitions still used by reference (`[x]`, `[x][y]` whose target had
            // parentheses or spaces) follow the section.
            let lower_markdown = markdown.to_lowercase();
            let used: Vec<&str> = definitions
                .iter()
                .filter(|(label, source)| {
                    let needle = format!("[{label}]");
                    !body.contains(*source)
                        && lower.contains(&needle)
                        && lower_markdown.match_indices(&needle).any(|(i, _)| {
                            !matches!(
                                lower_markdown.as_bytes().get(i + needle.len()),
                                Some(b'(' | b':')
                            )
                        })
                })
                .take(MAX_SECTIONS)
                .map(|(_, source)| *source)
                .collect();
            if !used.is_empty() {
                markdown.push_str("\n\n");
                markdown.push_str(&used.join("\n"));
            }
            Some(Section {
                version: if unreleased {
                    semver::Version::new(0, 0, 0)
                } else {
                    version(&heading.text)?
                },
                date: DATE.captures(&heading.text).map(|c| c[1].to_string()),
                markdown,
            })
        })
        .collect()
}

/// reStructuredText: a title line underlined (and maybe overlined) by one repeated
/// punctuation character at least as long; levels in the order the characters appear.
fn rst_sections(text: &str, forge: Option<&Forge>, unreleased: bool) -> Vec<Section> {
    let lines: Vec<(usize, &str)> = text
        .split_inclusive('\n')
        .scan(0, |offset, line| {
            let start = *offset;
            *offset += line.len();
            Some((start, line.trim_end_matches(['\n', '\r'])))
        })
        .collect();
    let underline = |line: &str| -> Option<char> {
        let first = line.chars().next()?;
        ("=-~^*+#\"'`:.".contains(first) && line.len() >= 3 && line.chars().all(|c| c == first))
            .then_some(first)
    };
    let mut order: Vec<char> = Vec::new();
    let mut headings = Vec::new();
    let mut i = 0;
    while i + 1 < lines.len() {
        let (start, title) = lines[i];
        let title_text = title.trim();
        if let Some(c) = underline(lines[i + 1].1)
            && !title_text.is_empty()
            && underline(title).is_none()
            && lines[i + 1].1.len() >= title_text.chars().count()
        {
            if !order.contains(&c) {
                order.push(c);
            }
            let level = order.iter().position(|o| *o == c).unwrap_or(0) + 1;
            // An overline belongs to the heading.
            let start = match i.checked_sub(1).map(|j| lines[j]) {
                Some((over, line)) if underline(line) == Some(c) => over,
                _ => start,
            };
            let end = lines.get(i + 2).map_or(text.len(), |(s, _)| *s);
            headings.push(Heading {
                level,
                start,
                end,
                text: title_text.to_string(),
            });
            i += 2;
            continue;
        }
        i += 1;
    }
    let targets = rst_targets(text);
    split(text, &headings, unreleased)
        .into_iter()
        .filter_map(|(h, end)| {
            let heading = &headings[h];
            let body = text.get(heading.end..end)?;
            Some(Section {
                version: if unreleased {
                    semver::Version::new(0, 0, 0)
                } else {
                    version(&heading.text)?
                },
                date: DATE.captures(&heading.text).map(|c| c[1].to_string()),
                markdown: rst_to_markdown(body, &headings, heading.end, end, forge, &targets),
            })
        })
        .collect()
}

/// The project's own words for its releases: each release the file has a section for shows
/// that section (its Markdown, from the file at `path`). A release of the file that the
/// commits listed nothing for is added when its version has a tag (`tags`: every release
/// tag's version) and is not below the releases shown; one without a tag when it falls
/// between two releases shown, or below them while fewer than `fill` releases are shown (a
/// first run's window; 0 on a later run, which shows only what is new), and when its tag is
/// one the run covers (`in_range`). The file's Unreleased section (`unreleased`) and a
/// section above every release tag are not released yet: they tell the commits' Unreleased
/// section in the project's words (on a first run, even without commits after the newest
/// tag), and
/// a pre-release whose final release is in the file or tagged folds into it. Releases end up
/// highest version first, after "Unreleased".
pub(crate) fn apply(
    releases: &mut Vec<ReleaseNotes>,
    sections: Vec<Section>,
    path: &str,
    fill: usize,
    tags: &[semver::Version],
    in_range: &[semver::Version],
    unreleased: Option<String>,
) {
    let versions: Vec<semver::Version> = releases
        .iter()
        .filter_map(|r| semver::Version::parse(r.version.as_deref()?).ok())
        .collect();
    let (lowest, highest) = (
        versions.iter().min().cloned(),
        versions.iter().max().cloned(),
    );
    let core = |v: &semver::Version| (v.major, v.minor, v.patch);
    let finals: std::collections::HashSet<(u64, u64, u64)> = tags
        .iter()
        .chain(sections.iter().map(|s| &s.version))
        .filter(|v| v.pre.is_empty())
        .map(core)
        .collect();
    let mut shown = versions.len();
    let newest_tag = tags.iter().max();
    // Sections of versions above every release tag: what the project wrote for its next
    // release (markupsafe's "Version 3.1.0 / Unreleased").
    let mut upcoming: Vec<(Option<semver::Version>, String)> =
        unreleased.into_iter().map(|md| (None, md)).collect();
    for section in sections {
        if section.markdown.trim().is_empty() {
            continue;
        }
        if newest_tag.is_some_and(|t| section.version > *t) && !versions.contains(&section.version)
        {
            upcoming.push((Some(section.version), section.markdown));
            continue;
        }
        let found = releases.iter_mut().find(|r| {
            r.version
                .as_deref()
                .and_then(|v| semver::Version::parse(v).ok())
                .is_some_and(|v| v == section.version)
        });
        if let Some(release) = found {
            release.date = release.date.take().or(section.date);
            release.handwritten = Some(section.markdown);
            release.source = Some(path.to_string());
            continue;
        }
        let v = &section.version;
        if !v.pre.is_empty() && finals.contains(&core(v)) {
            continue;
        }
        let not_below = lowest.as_ref().is_some_and(|l| v >= l);
        let filling = shown < fill;
        let show = if tags.contains(v) {
            // A tag this run covers is a release even when no commit of the feature is in
            // it (only its release commit): a later run lists it too.
            not_below || in_range.contains(v) || (lowest.is_none() && filling)
        } else {
            let between = not_below && highest.as_ref().is_some_and(|h| v < h);
            let below = !not_below && filling && (tags.is_empty() || lowest.is_some());
            between || below
        };
        if !show {
            continue;
        }
        shown += 1;
        let version = section.version.to_string();
        releases.push(ReleaseNotes {
            title: version.clone(),
            version: Some(version),
            date: section.date,
            handwritten: Some(section.markdown),
            source: Some(path.to_string()),
            ..ReleaseNotes::unreleased()
        });
    }
    // The Unreleased section of the commits, in the project's words when it wrote some; a
    // first run (`fill`) shows what the project wrote even when no commit is listed.
    if !upcoming.is_empty() && fill > 0 && releases.iter().all(|r| r.version.is_some()) {
        releases.insert(0, ReleaseNotes::unreleased());
    }
    if let Some(unreleased) = releases.iter_mut().find(|r| r.version.is_none())
        && !upcoming.is_empty()
    {
        let markdown = match upcoming.as_slice() {
            [(_, only)] => only.clone(),
            several => several
                .iter()
                .map(|(v, md)| match v {
                    Some(v) => format!("## {v}\n\n{md}"),
                    None => format!("## Unreleased\n\n{md}"),
                })
                .collect::<Vec<_>>()
                .join("\n\n"),
        };
        unreleased.handwritten = Some(markdown);
        unreleased.source = Some(path.to_string());
    }
    let key = |r: &ReleaseNotes| {
        r.version
            .as_deref()
            .and_then(|v| semver::Version::parse(v).ok())
    };
    // Unreleased (no version) first, then the highest version.
    releases.sort_by(|a, b| match (key(a), key(b)) {
        (None, None) => std::cmp::Ordering::Equal,
        (None, Some(_)) => std::cmp::Ordering::Less,
        (Some(_), None) => std::cmp::Ordering::Greater,
        (Some(a), Some(b)) => b.cmp(&a),
    });
}

/// ``code``, :role:`text`, `text <url>`_
static RST_LITERAL: LazyLock<Regex> = LazyLock::new(|| builtin(r"``([^`\n]+)``"));
static RST_ROLE: LazyLock<Regex> =
    LazyLock::new(|| builtin(r":[A-Za-z][\w:+.-]*:`(?:[^`<\n]*<)?~?([^`<>\n]+?)>?`"));
static RST_LINK: LazyLock<Regex> = LazyLock::new(|| builtin(r"`([^`<\n]+?)\s*<([^`>\n\s]+)>`__?"));
/// The same over a line break (at most one, in the text or before the target).
static RST_LINK_LINES: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"`([^`<\n]+?(?:\n[^`<\n]*?)?)\s*<([^`>\n\s]+)>`__?"));

/// A hyperlink target, `.. _#79: https://…` (the name may be quoted in backticks).
static RST_TARGET: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"(?m)^\.\.\s+_(`[^`\n]+`|[^:\n]+):\s+(\S+)\s*$"));
/// A reference to a named target, `` `#79`_ `` (not a role's text, not an inline link).
static RST_NAMED: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"(^|[^:`\w])`([^`<>\[\]\n]{1,200})`__?"));

/// The file's hyperlink targets by their normalised name (case and spacing ignored, as
/// reStructuredText compares them).
fn rst_targets(text: &str) -> HashMap<String, String> {
    RST_TARGET
        .captures_iter(text)
        .map(|c| (target_name(c[1].trim_matches('`')), c[2].to_string()))
        .collect()
}

fn target_name(name: &str) -> String {
    name.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// sphinx-issues' roles (`:issue:`12``, `:pr:`12``, `:user:`name``, `:commit:`abc1234``)
/// and `:pep:`/`:cve:`, whose text alone (in code) would say nothing.
static RST_REFERENCE: LazyLock<Regex> = LazyLock::new(|| {
    builtin(r":(issue|issues|pr|prs|pull|user|ghuser|commit|pep|cve):`([^`\n]{1,200})`")
});

/// A reference role as Markdown: `#12` (linked to the forge's pull request page, which
/// forwards to an issue of that number), `@name`, a commit id in code, `PEP 489` linked.
fn reference(c: &regex::Captures, forge: Option<&Forge>) -> String {
    let role = &c[1];
    c[2].split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(|value| {
            // `:issue:`text <12>`` names its target last.
            let value = value
                .rsplit_once('<')
                .map_or(value, |(_, v)| v.trim_end_matches('>'));
            match role {
                "user" | "ghuser" => format!("@{value}"),
                "commit" => match forge.and_then(|f| f.commit_url(value)) {
                    Some(url) => format!("[`{value}`]({url})"),
                    None => format!("`{value}`"),
                },
                "pep" => match value.parse::<u32>() {
                    Ok(n) => format!("[PEP {n}](https://peps.python.org/pep-{n:04}/)"),
                    Err(_) => format!("PEP {value}"),
                },
                "cve" => value.to_string(),
                _ => match (value.parse::<u64>(), forge) {
                    (Ok(n), Some(forge)) => match forge.pull_url(n) {
                        Some(url) => format!("[#{n}]({url})"),
                        None => format!("#{n}"),
                    },
                    _ => format!("#{value}"),
                },
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The common inline markup of a reStructuredText text without headings (a news fragment) as
/// Markdown.
pub(crate) fn rst_to_markdown_text(text: &str) -> String {
    rst_to_markdown(text, &[], 0, text.len(), None, &rst_targets(text))
}

/// The common inline markup of a reStructuredText section as Markdown; subheadings become
/// `###` headings, directives are dropped with their options.
fn rst_to_markdown(
    body: &str,
    headings: &[Heading],
    start: usize,
    end: usize,
    forge: Option<&Forge>,
    targets: &HashMap<String, String>,
) -> String {
    let inner: Vec<&Heading> = headings
        .iter()
        .filter(|h| h.start >= start && h.start < end)
        .collect();
    let mut out = String::new();
    let mut offset = start;
    let mut skip_until = 0;
    for line in body.split_inclusive('\n') {
        let here = offset;
        offset += line.len();
        if here < skip_until {
            continue;
        }
        if let Some(h) = inner.iter().find(|h| h.start <= here && here < h.end) {
            out.push_str(&format!("### {}\n", h.text));
            skip_until = h.end;
            continue;
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with(".. ") {
            continue;
        }
        // `#79`_ links to its target; without one, its text alone.
        let line = RST_NAMED.replace_all(line, |c: &regex::Captures| {
            let text = &c[2];
            match targets.get(&target_name(text)) {
                Some(url) if validate::url_is_allowed(url) => format!("{}[{text}]({url})", &c[1]),
                _ => format!("{}{text}", &c[1]),
            }
        });
        let line = RST_LITERAL.replace_all(&line, "`$1`");
        let line = RST_LINK.replace_all(&line, "[$1]($2)");
        let line = RST_REFERENCE.replace_all(&line, |c: &regex::Captures| reference(c, forge));
        let line = RST_ROLE.replace_all(&line, "`$1`");
        out.push_str(&line);
    }
    // A link whose text runs onto the next line (`MyPy\n  <https://…>`__).
    let out = RST_LINK_LINES.replace_all(&out, |c: &regex::Captures| {
        let text = c[1].split_whitespace().collect::<Vec<_>>().join(" ");
        format!("[{text}]({})", &c[2])
    });
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_a_changelog_sections_with_their_link_definitions() {
        let text = "# Changelog\n\n## [Unreleased]\n\n- soon\n\n## [1.2.0] - 2024-05-01\n\n### Added\n\n- A [flag][f].\n\n## [1.1.0] - 2024-01-02\n\n### Fixed\n\n- Crash.\n\n[f]: https://example.com/f\n[1.2.0]: https://example.com/compare\n";
        let found = sections(text, "CHANGELOG.md", None);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].version.to_string(), "1.2.0");
        assert_eq!(found[0].date.as_deref(), Some("2024-05-01"));
        assert_eq!(
            found[0].markdown,
            "### Added\n\n- A [flag](https://example.com/f)."
        );
        assert!(!found[0].markdown.contains("soon"));
        assert!(found[1].markdown.contains("Crash.") && !found[1].markdown.contains("[f]:"));
        // A reference defined nowhere in the file is its text.
        let dangling = sections(
            "## 1.1.0\n\n* [#15][]: Add x, see [flag][f].\n\n## 1.0.0\n\n- First.\n\n[f]: https://e.com/f\n",
            "CHANGELOG.md",
            None,
        );
        assert_eq!(
            dangling[0].markdown,
            "* #15: Add x, see [flag](https://e.com/f)."
        );
    }

    #[test]
    fn headings_of_the_release_level_without_a_version_belong_to_the_release() {
        let text = "# Change Log\n\n## [Unreleased]\n\n- next\n\n## [0.4.33] - 2026-06-20\n\n## What's Changed\n* Fixed key comparison\n\n## [0.4.32]\n\n- Other.\n";
        let found = sections(text, "CHANGELOG.md", None);
        assert_eq!(found.len(), 2);
        assert_eq!(
            found[0].markdown,
            "## What's Changed\n* Fixed key comparison"
        );
        assert!(!found[0].markdown.contains("next"));
    }

    #[test]
    fn restructured_text_sections_by_their_underlines() {
        let text = "Changelog\n=========\n\n1.2.0 (2024-05-01)\n------------------\n\nFeatures\n~~~~~~~~\n\n- Add ``x`` (:issue:`12`), see `docs <https://e.com>`_.\n\n.. note::\n\n1.1.0\n-----\n\n- Fix.\n";
        let found = sections(text, "HISTORY.rst", None);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].date.as_deref(), Some("2024-05-01"));
        assert_eq!(
            found[0].markdown,
            "### Features\n\n- Add `x` (#12), see [docs](https://e.com)."
        );
        assert_eq!(found[1].markdown, "- Fix.");
    }

    #[test]
    fn restructured_text_named_references_link_to_their_targets_or_show_their_text() {
        let text = "0.6.0\n-----\n\n- Fix (PR `#79`_). Thanks to `@tgoodlet`_ and `Ronny  Pfannschmidt`_.\n- Keep :func:`load` and ``code``_ alone; `unknown`_ shows its text.\n\n.. _#79: https://github.com/o/r/pull/79\n.. _`@tgoodlet`: https://github.com/tgoodlet\n.. _ronny pfannschmidt: https://github.com/RonnyPfannschmidt\n.. _bad: javascript:alert(1)\n";
        let found = sections(text, "CHANGELOG.rst", None);
        assert_eq!(
            found[0].markdown,
            "- Fix (PR [#79](https://github.com/o/r/pull/79)). Thanks to [@tgoodlet](https://github.com/tgoodlet) and [Ronny  Pfannschmidt](https://github.com/RonnyPfannschmidt).\n- Keep `load` and `code`_ alone; unknown shows its text."
        );
        // A target whose address is not http(s) is no link.
        let bad = sections(
            "1.0.0\n-----\n\n- See `bad`_.\n\n.. _bad: javascript:alert(1)\n",
            "CHANGELOG.rst",
            None,
        );
        assert_eq!(bad[0].markdown, "- See bad.");
    }

    #[test]
    fn restructured_text_references_become_links_to_the_forge() {
        let text = "1.2.0\n-----\n\n- Fix ``x``. :issue:`472`, :pr:`12, 13`\n  -- by :user:`webknjaz`.\n- Multi-phase init (:pep:`489`), :commit:`abc1234`, :func:`load`.\n\n1.1.0\n-----\n\n- Old.\n";
        let forge = Forge::from_remote("https://github.com/o/r.git");
        let wrapped = sections(
            "1.0.0\n-----\n\n- Uploaded to `Coveralls\n  <https://coveralls.io/x>`__ now.\n",
            "CHANGES.rst",
            None,
        );
        assert_eq!(
            wrapped[0].markdown,
            "- Uploaded to [Coveralls](https://coveralls.io/x) now."
        );
        let found = sections(text, "CHANGES.rst", forge.as_ref());
        assert_eq!(
            found[0].markdown,
            "- Fix `x`. [#472](https://github.com/o/r/pull/472), [#12](https://github.com/o/r/pull/12), [#13](https://github.com/o/r/pull/13)\n  -- by @webknjaz.\n- Multi-phase init ([PEP 489](https://peps.python.org/pep-0489/)), [`abc1234`](https://github.com/o/r/commit/abc1234), `load`."
        );
    }
}
