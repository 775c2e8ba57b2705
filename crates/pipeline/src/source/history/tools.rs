//! The configuration of the changelog tool a repository uses, followed when `[changelog]`
//! gives no parsers of its own: git-cliff's `cliff.toml` (`[git] commit_parsers`),
//! release-please's `changelog-sections`, commitizen's `change_type_map` (`.cz.toml`,
//! `cz.toml`, or `[tool.commitizen]` in `pyproject.toml`). The files come from the
//! repository, so everything is bounded: a file larger than [`MAX_TOOL_FILE_BYTES`] is not
//! read, at most [`MAX_TOOL_PARSERS`] rules are taken, and an expression that is too long,
//! too large compiled or invalid leaves its rule out rather than failing the run.

use git2::{Repository, Tree};
use regex::Regex;
use serde_json::Value as Json;
use toml::{Table, Value as Toml};

use super::handwritten::read;
use super::rules::{MAX_PATTERN_BYTES, Parser, bounded};

/// A tool's configuration file larger than this is not read.
pub(crate) const MAX_TOOL_FILE_BYTES: usize = 256 * 1024;
/// At most this many of a tool's rules are followed.
pub(crate) const MAX_TOOL_PARSERS: usize = 100;
/// A group title longer than this leaves its rule out.
const MAX_TITLE_BYTES: usize = 200;

/// The rules a changelog tool's configuration gives, and the file they come from.
pub(crate) struct ToolRules {
    pub path: &'static str,
    pub parsers: Vec<Parser>,
}

/// What reads the rules of one tool's file.
type ReadRules = fn(&str) -> Vec<Parser>;

/// Files read, in this order, with what reads them; the first that gives a rule wins.
const FILES: &[(&str, ReadRules)] = &[
    ("cliff.toml", cliff),
    ("release-please-config.json", release_please),
    (".cz.toml", commitizen),
    ("cz.toml", commitizen),
    ("pyproject.toml", commitizen),
];

/// The rules of the first changelog tool configured at the repository's root.
pub(crate) fn tool_rules(repo: &Repository, tree: &Tree) -> Option<ToolRules> {
    FILES.iter().find_map(|&(path, parse)| {
        let text = read(repo, tree, path, MAX_TOOL_FILE_BYTES)?;
        let parsers = parse(&text);
        (!parsers.is_empty()).then_some(ToolRules { path, parsers })
    })
}

/// git-cliff's `[git] commit_parsers`: `message` matched against the subject, then `group`
/// or `skip = true`. A rule that matches on what is not read here (`body`, `footer`, `sha`,
/// `field`) is left out, so that it never catches commits it was not written for.
fn cliff(text: &str) -> Vec<Parser> {
    let Ok(table) = text.parse::<Table>() else {
        return Vec::new();
    };
    let Some(list) = table
        .get("git")
        .and_then(|g| g.get("commit_parsers"))
        .and_then(Toml::as_array)
    else {
        return Vec::new();
    };
    list.iter()
        .filter_map(Toml::as_table)
        .filter(|p| {
            p.keys().all(|k| {
                matches!(
                    k.as_str(),
                    "message" | "group" | "skip" | "scope" | "default_scope"
                )
            })
        })
        .filter_map(|p| {
            let message = p.get("message").and_then(Toml::as_str)?;
            let skip = p.get("skip").and_then(Toml::as_bool).unwrap_or(false);
            let group = p.get("group").and_then(Toml::as_str);
            parser(Rule::Subject(message), group, skip)
        })
        .take(MAX_TOOL_PARSERS)
        .collect()
}

/// release-please's `changelog-sections`: the whole configuration's, else the root
/// package's, else the first package's that has some; `hidden: true` leaves a type out.
fn release_please(text: &str) -> Vec<Parser> {
    let Ok(config) = serde_json::from_str::<Json>(text) else {
        return Vec::new();
    };
    let key = "changelog-sections";
    let packages = config.get("packages").and_then(Json::as_object);
    let sections = config
        .get(key)
        .or_else(|| packages?.get(".")?.get(key))
        .or_else(|| packages?.values().find_map(|p| p.get(key)))
        .and_then(Json::as_array);
    let Some(sections) = sections else {
        return Vec::new();
    };
    sections
        .iter()
        .filter_map(|s| {
            let kind = s.get("type").and_then(Json::as_str)?;
            let hidden = s.get("hidden").and_then(Json::as_bool).unwrap_or(false);
            let section = s.get("section").and_then(Json::as_str);
            parser(Rule::Type(kind), section, hidden)
        })
        .take(MAX_TOOL_PARSERS)
        .collect()
}

/// commitizen's `[tool.commitizen] change_type_map`: type → section title.
fn commitizen(text: &str) -> Vec<Parser> {
    let Ok(table) = text.parse::<Table>() else {
        return Vec::new();
    };
    let Some(map) = table
        .get("tool")
        .and_then(|t| t.get("commitizen"))
        .and_then(|c| c.get("change_type_map"))
        .and_then(Toml::as_table)
    else {
        return Vec::new();
    };
    map.iter()
        .filter_map(|(kind, title)| parser(Rule::Type(kind), title.as_str(), false))
        .take(MAX_TOOL_PARSERS)
        .collect()
}

/// What a tool's rule matches.
enum Rule<'a> {
    /// A regular expression, anywhere in the subject.
    Subject(&'a str),
    /// A Conventional Commits type, exactly.
    Type(&'a str),
}

/// One rule: to `group`, or left out with `skip`; `None` when it says neither, its group is
/// empty, or its expression does not compile within the caps.
fn parser(rule: Rule, group: Option<&str>, skip: bool) -> Option<Parser> {
    let group = match (group.map(title), skip) {
        (_, true) => None,
        (Some(title), false) if !title.is_empty() && title.len() <= MAX_TITLE_BYTES => Some(title),
        _ => return None,
    };
    let (kind, subject) = match rule {
        Rule::Subject(pattern) => (None, Some(compile(pattern)?)),
        Rule::Type(kind) => {
            let kind = kind.trim().to_ascii_lowercase();
            (
                Some(compile(&format!("^(?:{})$", regex::escape(&kind)))?),
                None,
            )
        }
    };
    Some(Parser {
        kind,
        scope: None,
        subject,
        author: None,
        group,
    })
}

fn compile(pattern: &str) -> Option<Regex> {
    if pattern.is_empty() || pattern.len() > MAX_PATTERN_BYTES {
        return None;
    }
    bounded(pattern).ok()
}

/// A group's title as a reader sees it, on one line: git-cliff's ordering comments
/// (`<!-- 0 -->`) left out.
fn title(group: &str) -> String {
    let mut rest = group.trim();
    while let Some(after) = rest.strip_prefix("<!--") {
        match after.split_once("-->") {
            Some((_, tail)) => rest = tail.trim_start(),
            None => break,
        }
    }
    rest.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn groups(parsers: &[Parser]) -> Vec<Option<&str>> {
        parsers.iter().map(|p| p.group.as_deref()).collect()
    }

    #[test]
    fn cliff_parsers_keep_their_order_and_leave_out_what_cannot_be_followed() {
        let parsers = cliff(
            r#"
[git]
commit_parsers = [
  { message = "^feat", group = "<!-- 0 -->🚀 Features" },
  { message = "^chore\\(release\\)", skip = true },
  { body = ".*security", group = "Security" },
  { message = "^fix", body = "x", group = "Body too" },
  { message = "(", group = "Invalid" },
  { message = "a{1000}{1000}", group = "Too large" },
  { message = "^doc", group = "  " },
  { message = "^chore", group = "Miscellaneous Tasks" },
]
"#,
        );
        assert_eq!(
            groups(&parsers),
            [Some("🚀 Features"), None, Some("Miscellaneous Tasks")]
        );
        assert!(
            parsers[1]
                .subject
                .as_ref()
                .is_some_and(|r| r.is_match("chore(release): 1.0"))
        );
        assert!(cliff("[git\ncommit_parsers = 3").is_empty());
        assert!(cliff("[git]\ncommit_parsers = 3").is_empty());
    }

    #[test]
    fn at_most_so_many_rules_are_taken() {
        let many: String = (0..MAX_TOOL_PARSERS + 50)
            .map(|i| format!("{{ message = \"^t{i}\", group = \"G{i}\" }},\n"))
            .collect();
        let parsers = cliff(&format!("[git]\ncommit_parsers = [\n{many}]\n"));
        assert_eq!(parsers.len(), MAX_TOOL_PARSERS);
    }

    #[test]
    fn release_please_sections_map_types_and_hide_some() {
        let parsers = release_please(
            r#"{"packages": {".": {"changelog-sections": [
                {"type": "feat", "section": "Features"},
                {"type": "chore", "section": "Miscellaneous Chores", "hidden": true},
                {"type": "re.f", "section": "Odd"},
                {"section": "No type"}
            ]}}}"#,
        );
        assert_eq!(groups(&parsers), [Some("Features"), None, Some("Odd")]);
        let odd = parsers[2].kind.as_ref();
        assert!(odd.is_some_and(|r| r.is_match("re.f") && !r.is_match("ref")));
        assert!(release_please("[1, 2").is_empty());
        assert!(release_please("{\"changelog-sections\": 1}").is_empty());
    }

    #[test]
    fn commitizen_maps_types_to_titles() {
        let parsers = commitizen(
            "[tool.commitizen]\nchange_type_map = { feat = \"New features\", fix = \"Bug fixes\", x = 1 }\n",
        );
        assert_eq!(groups(&parsers), [Some("New features"), Some("Bug fixes")]);
        assert!(commitizen("[tool.poetry]\nname = \"x\"\n").is_empty());
    }
}
