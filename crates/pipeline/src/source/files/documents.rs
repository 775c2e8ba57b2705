//! Markdown documents about the project rather than its features: changelogs, licences,
//! contributors' and maintainers' guides, forge settings, design records, and instructions
//! for AI coding agents. They are never a feature's prose on any surface.

use crate::source::paths::{literal_prefix, stem};

/// File names (stems as words) of documents about the project rather than a feature: left out
/// of its prose, and never the source of a walkthrough.
pub(crate) const PROJECT_FILES: &[&str] = &[
    "changelog",
    "change log",
    "changes",
    "history",
    "news",
    "releases",
    "release notes",
    "contributing",
    "contributors",
    "code of conduct",
    "conduct",
    "security",
    "license",
    "licence",
    "copying",
    "notice",
    "authors",
    "maintainers",
    "codeowners",
    "governance",
    "support",
    "funding",
    "issue template",
    "pull request template",
    // Maintainers' and contributors' guides.
    "maintaining",
    "maintainer",
    "maintainer guide",
    "maintainers guide",
    "releasing",
    "release process",
    "release checklist",
    "hacking",
    "contributor guide",
    "contributors guide",
    "contributing guide",
    // Thanks to the people and companies who fund the project.
    "backers",
    "sponsors",
    "backers sponsors",
    "sponsors backers",
    "backers and sponsors",
    "sponsors and backers",
    // The people behind the project, and how they run it.
    "team",
    "meet the team",
    "charter",
    "project charter",
    "expense policy",
];

/// Instructions for AI coding agents, by their conventional names (written in capitals:
/// `docs/agents.md` of an agent framework is a user guide).
const AGENT_FILES: &[&str] = &[
    "AGENTS.md",
    "AGENT.md",
    "CLAUDE.md",
    "CLAUDE.local.md",
    "GEMINI.md",
    "SKILL.md",
    "copilot-instructions.md",
];

/// Folders of instructions for AI coding agents and their skills.
const AGENT_FOLDERS: &[&str] = &[
    ".agents",
    ".agent",
    ".claude",
    ".cursor",
    ".codex",
    ".gemini",
    ".windsurf",
    ".clinerules",
    ".roo",
    ".kiro",
    ".junie",
    ".continue",
    ".aider",
    // Agent skills (`skills/<name>/SKILL.md` and the references beside it).
    "skills",
];

/// Folders of documents about the project: forge settings, design records, release notes.
const PROJECT_FOLDERS: &[&str] = &[
    ".github",
    ".gitlab",
    ".gitea",
    ".forgejo",
    "issue_template",
    "pull_request_template",
    "rfcs",
    "rfc",
    "adr",
    "adrs",
    "decisions",
    "changelog.d",
    "changelogs",
    ".changeset",
    ".changes",
    "news",
    "newsfragments",
    "release-notes",
    "releases",
    "contributing",
    "maintainers",
    "maintainer",
    "maintaining",
];

/// File names of reference documents, for developers only.
const REFERENCE_FILES: &[&str] = &[
    "api",
    "reference",
    "architecture",
    "design",
    "internals",
    "spec",
    "specification",
    "protocol",
];

/// Why a document is no prose of the feature, or `None` when it is. The feature is its id
/// (an implicit feature's file or folder) and its declared paths (globs).
pub(crate) fn project_document(path: &str, id: &str, paths: &[String]) -> Option<&'static str> {
    if paths.iter().any(|p| p == path) && !is_agent_file(path) {
        return None;
    }
    // The feature's own folder may be one of these (feature `rfcs`, or `paths = ["rfcs/**"]`):
    // only folders below the deepest one it names are judged.
    let inside = std::iter::once(id.to_string())
        .chain(paths.iter().map(|p| literal_prefix(p)))
        .filter_map(|scope| {
            let rest = path.strip_prefix(scope.as_str())?.strip_prefix('/')?;
            Some(rest)
        })
        .min_by_key(|rest| rest.len())
        .unwrap_or(path);
    // Instructions for AI agents are never anyone's documentation, wherever they are.
    if is_agent_file(path) {
        return Some("instructions for AI coding agents");
    }
    let mut folders: Vec<&str> = inside.split('/').collect();
    folders.pop();
    if folders
        .iter()
        .any(|f| PROJECT_FOLDERS.contains(&f.to_ascii_lowercase().as_str()))
    {
        return Some("a folder about the project (forge settings, design records, release notes)");
    }
    // A test's expected output (`testdata/expected-doc.md`) is no page anyone reads.
    if folders.iter().any(|f| {
        matches!(
            f.to_ascii_lowercase().as_str(),
            "testdata"
                | "test"
                | "tests"
                | "__tests__"
                | "fixtures"
                | "__fixtures__"
                | "__snapshots__"
        )
    }) {
        return Some("test data or a test's own notes");
    }
    if folders.iter().any(|f| f.eq_ignore_ascii_case("blog")) {
        return Some("a blog post, not documentation");
    }
    let stem = stem(path);
    let stem = stem.split('.').next().unwrap_or("");
    // `LICENSE-MIT`, `CHANGELOG-v1`: a few names take a suffix; `security-model` is a guide.
    let suffixed = [
        "license",
        "licence",
        "copying",
        "changelog",
        "notice",
        "authors",
    ];
    // A page a site does not publish: a partial or private file (`_snippet.md`,
    // `_artifacts/`; Hugo's `_index.md` is a section's page).
    if inside
        .split('/')
        .any(|part| part.starts_with('_') && !part.eq_ignore_ascii_case("_index.md"))
    {
        return Some("a partial or private file the site does not publish");
    }
    // A release-note fragment (`news/3294.feature.md`, towncrier's types).
    const FRAGMENTS: &[&str] = &[
        "feature", "bugfix", "doc", "removal", "misc", "dep", "breaking",
    ];
    if let Some((_, kind)) = crate::source::paths::stem(path).rsplit_once('.')
        && FRAGMENTS.contains(&kind)
    {
        return Some("a release-note fragment");
    }
    // A template the maintainers fill in (`release-announcement-template.md`) is no page.
    if PROJECT_FILES.contains(&stem)
        || suffixed.iter().any(|p| stem.starts_with(&format!("{p} ")))
        || stem.ends_with(" template")
    {
        return Some("a document about the project, not the feature");
    }
    None
}

/// Whether `path` holds instructions for AI coding agents (`AGENTS.md`, `.agents/**`,
/// `SKILL.md`…).
pub(crate) fn is_agent_file(path: &str) -> bool {
    let mut segments = path.split('/');
    let file = segments.next_back().unwrap_or(path);
    AGENT_FILES.contains(&file)
        || segments.any(|f| AGENT_FOLDERS.contains(&f.to_ascii_lowercase().as_str()))
}

pub(crate) fn is_readme(path: &str) -> bool {
    stem(path).starts_with("readme")
}

/// A reference document: named so (`api.md`, `reference.md`…), or in a folder of them
/// (`docs/api/…`, `reference/`).
pub(crate) fn is_reference(path: &str) -> bool {
    let mut folders = path.split('/').rev().skip(1);
    REFERENCE_FILES.contains(&stem(path).as_str())
        || folders.any(|f| matches!(f.to_ascii_lowercase().as_str(), "api" | "reference"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_documents_and_records_are_left_out() {
        let none: &[String] = &[];
        for path in [
            "CHANGELOG.md",
            "pkg/HISTORY.md",
            "NEWS.md",
            "CONTRIBUTING.md",
            "CODE_OF_CONDUCT.md",
            "SECURITY.md",
            "LICENSE-MIT.md",
            "AUTHORS.md",
            ".github/ISSUE_TEMPLATE/bug.md",
            ".github/pull_request_template.md",
            "rfcs/0296-structured-logging.md",
            "docs/adr/0001-use-x.md",
            "AGENTS.md",
            "pkg/AGENTS.md",
            "CLAUDE.md",
            ".agents/skills/release/SKILL.md",
            ".claude/commands/review.md",
            ".cursor/rules/style.md",
            "skills/pdf/SKILL.md",
            "MAINTAINING.md",
            "docs/RELEASING.md",
            "docs/maintainer-guide.md",
            "docs/contributing/setup.md",
            "HACKING.md",
            "testdata/expected-doc-full.md",
            "src/__snapshots__/render.md",
            "website/blog/2024-01-01-release.md",
            "docs/backers-sponsors.md",
            "docs/change_log.md",
            "docs/team.md",
            "PROJECT_CHARTER.md",
            "EXPENSE_POLICY.md",
            "news/3294.feature.md",
            "changes/12.bugfix.md",
            "_artifacts/skill_spec.md",
            "packages/toolkit/skills/modern-redux/references/overrides.md",
            "releases/release-announcement-template.md",
            "SPONSORS.md",
            ".changeset/observed-computeds-track-action-dependencies.md",
        ] {
            assert!(project_document(path, ".", none).is_some(), "{path}");
        }
        // An agent's instructions even when the feature names them.
        assert!(project_document("AGENTS.md", "AGENTS.md", &["AGENTS.md".into()]).is_some());
        for path in [
            "README.md",
            "docs/guide.md",
            "docs/security-model.md",
            "src/news_feed/README.md",
            "docs/agents.md",
            "docs/skills.md",
            "docs/release-notes-format.md",
        ] {
            assert_eq!(project_document(path, ".", none), None, "{path}");
        }
        // Named by the feature, or the feature's own folder: shown.
        assert_eq!(
            project_document("CHANGELOG.md", "CHANGELOG.md", &["CHANGELOG.md".into()]),
            None
        );
        assert_eq!(project_document("rfcs/0001-x.md", "rfcs", none), None);
        let declared = ["rfcs/**".to_string()];
        assert_eq!(
            project_document("rfcs/0001-x.md", "design-records", &declared),
            None
        );
        assert!(project_document("docs/rfcs/0001-x.md", "design", &["docs/**".into()]).is_some());
    }
}
