//! Commits as a Keep-a-Changelog section: Conventional Commits parsed by `git-conventional`,
//! grouped the way git-cliff's default configuration does, breaking changes first.

use serde::Serialize;

use crate::collect::CommitInfo;

#[derive(Clone, Debug, Serialize)]
pub(crate) struct Entry {
    pub sha: String,
    pub short_sha: String,
    pub date: String,
    pub author: String,
    /// The Conventional Commits type (`feat`, `fix`, …); empty for other commits.
    #[serde(rename = "type")]
    pub kind: String,
    pub scope: Option<String>,
    pub description: String,
    pub breaking: bool,
    pub breaking_description: String,
    pub conventional: bool,
}

#[derive(Debug, Serialize)]
pub(crate) struct Group {
    pub title: &'static str,
    pub entries: Vec<Entry>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Changelog {
    pub breaking: Vec<Entry>,
    pub groups: Vec<Group>,
}

/// Keep a Changelog's section order.
const GROUPS: [&str; 6] = [
    "Added",
    "Changed",
    "Deprecated",
    "Removed",
    "Fixed",
    "Security",
];

pub(crate) fn entry(commit: &CommitInfo) -> Entry {
    let message = commit.message.trim();
    let subject = message.lines().next().unwrap_or("").trim().to_string();
    let base = Entry {
        sha: commit.sha.clone(),
        short_sha: commit.sha.chars().take(7).collect(),
        date: crate::render::date(commit.time),
        author: commit.author.clone(),
        kind: String::new(),
        scope: None,
        description: subject.clone(),
        breaking: false,
        breaking_description: String::new(),
        conventional: false,
    };
    match git_conventional::Commit::parse(message) {
        Ok(parsed) => Entry {
            kind: parsed.type_().as_str().to_ascii_lowercase(),
            scope: parsed.scope().map(|s| s.as_str().to_string()),
            description: parsed.description().trim().to_string(),
            breaking: parsed.breaking(),
            breaking_description: parsed
                .breaking_description()
                .unwrap_or(parsed.description())
                .lines()
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(" "),
            conventional: true,
            ..base
        },
        Err(_) => base,
    }
}

fn group_of(entry: &Entry) -> &'static str {
    let description = entry.description.to_ascii_lowercase();
    let scope = entry.scope.as_deref().unwrap_or("").to_ascii_lowercase();
    let security = matches!(entry.kind.as_str(), "security" | "sec")
        || scope == "security"
        || description.contains("security")
        || description.contains("vulnerab")
        || description.contains("cve-");
    if security {
        return "Security";
    }
    let starts = |words: &[&str]| words.iter().any(|w| description.starts_with(w));
    match entry.kind.as_str() {
        "revert" => "Removed",
        _ if starts(&["remove", "drop ", "delete"]) => "Removed",
        _ if starts(&["deprecate"]) => "Deprecated",
        "feat" | "feature" | "add" => "Added",
        "fix" | "bugfix" | "hotfix" => "Fixed",
        _ => "Changed",
    }
}

pub(crate) fn changelog(entries: &[Entry]) -> Changelog {
    let breaking = entries.iter().filter(|e| e.breaking).cloned().collect();
    let groups = GROUPS
        .iter()
        .map(|title| Group {
            title,
            entries: entries
                .iter()
                .filter(|e| !e.breaking && group_of(e) == *title)
                .cloned()
                .collect(),
        })
        .filter(|g| !g.entries.is_empty())
        .collect();
    Changelog { breaking, groups }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit(message: &str) -> CommitInfo {
        CommitInfo {
            sha: "0123456789abcdef".into(),
            message: message.into(),
            author: "Ada".into(),
            time: 0,
        }
    }

    #[test]
    fn groups_follow_keep_a_changelog() {
        let entries: Vec<Entry> = [
            "feat(export): add CSV export",
            "fix: quote commas",
            "feat!: drop the v1 format",
            "refactor: split writer\n\nBREAKING CHANGE: Writer::new takes options",
            "Tweak things without a type",
            "fix(security): escape formulas",
            "revert: feat: old thing",
        ]
        .iter()
        .map(|m| entry(&commit(m)))
        .collect();
        let log = changelog(&entries);
        assert_eq!(log.breaking.len(), 2);
        assert_eq!(
            log.breaking[1].breaking_description,
            "Writer::new takes options"
        );
        let titles: Vec<&str> = log.groups.iter().map(|g| g.title).collect();
        assert_eq!(titles, ["Added", "Changed", "Removed", "Fixed", "Security"]);
        assert_eq!(log.groups[0].entries[0].scope.as_deref(), Some("export"));
        assert_eq!(
            log.groups[1].entries[0].description,
            "Tweak things without a type"
        );
        assert!(!log.groups[1].entries[0].conventional);
    }
}
