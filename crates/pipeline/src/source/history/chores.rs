//! What a commit changed, when that alone makes it no news whatever its type says: tests,
//! CI, lint and formatting configuration, documents for contributors, maintainers and AI
//! agents.

use regex::Regex;
use std::sync::LazyLock;

use crate::builtin::regex as builtin;
use crate::source::files::is_test_file;

/// Folders of tests, CI, editor and agent set-up, wherever they are.
const FOLDERS: &[&str] = &[
    "test",
    "tests",
    "__tests__",
    "__mocks__",
    "testdata",
    "fixtures",
    "benches",
    ".github",
    ".gitlab",
    ".gitea",
    ".forgejo",
    ".circleci",
    ".buildkite",
    ".woodpecker",
    ".husky",
    ".agents",
    ".agent",
    ".claude",
    ".cursor",
    ".windsurf",
    ".devcontainer",
    ".vscode",
    ".idea",
];

/// Files of CI and lint configuration, lower case.
const FILES: &[&str] = &[
    ".travis.yml",
    ".gitlab-ci.yml",
    ".cirrus.yml",
    "appveyor.yml",
    ".appveyor.yml",
    "azure-pipelines.yml",
    "codecov.yml",
    ".codecov.yml",
    "jenkinsfile",
    "rustfmt.toml",
    ".rustfmt.toml",
    "clippy.toml",
    ".clippy.toml",
    "deny.toml",
    ".golangci.yml",
    ".golangci.yaml",
    ".pre-commit-config.yaml",
    ".pre-commit-config.yml",
    ".editorconfig",
    ".flake8",
    ".pylintrc",
    "ruff.toml",
    ".ruff.toml",
    "mypy.ini",
    "biome.json",
    "biome.jsonc",
    "typos.toml",
    "_typos.toml",
    ".typos.toml",
    "cspell.json",
    ".cspell.json",
    ".codespellrc",
    ".prettierignore",
    ".eslintignore",
    ".cursorrules",
    ".windsurfrules",
    "codeowners",
];

/// Stems (lower case) of documents for contributors, maintainers and AI agents.
const DOCUMENTS: &[&str] = &[
    "agents",
    "agent",
    "claude",
    "gemini",
    "copilot-instructions",
    "skill",
    "contributing",
    "code_of_conduct",
    "code-of-conduct",
    "maintainers",
    "maintaining",
    "releasing",
    "hacking",
    "pull_request_template",
    "issue_template",
];

/// Prefixes (lower case) of lint and formatting configuration files.
const CONFIG_PREFIXES: &[&str] = &[
    ".eslintrc",
    "eslint.config.",
    ".prettierrc",
    "prettier.config.",
    ".stylelintrc",
    ".markdownlint",
    ".yamllint",
    ".lintstagedrc",
    "lint-staged.config.",
    ".commitlintrc",
    "commitlint.config.",
];

/// Whether a change to `path` alone is a chore: tests, CI, lint configuration, or a
/// document for contributors or agents (`AGENTS.md`, `CLAUDE.md`, `.agents/`,
/// `CONTRIBUTING.md`, `.github/`).
pub(crate) fn is_chore_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let (folders, name) = lower.rsplit_once('/').unwrap_or(("", lower.as_str()));
    if folders.split('/').any(|f| FOLDERS.contains(&f)) || is_test_file(path) {
        return true;
    }
    let (stem, extension) = name.split_once('.').unwrap_or((name, ""));
    let document = matches!(
        extension,
        "" | "md" | "mdx" | "markdown" | "rst" | "txt" | "adoc"
    );
    FILES.contains(&name)
        || document && DOCUMENTS.contains(&stem)
        || CONFIG_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Descriptions of lint, typo, formatting and "tweaks" commits, whatever their type.
pub(super) static NOISE: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"(?ix)^(?:
            (?:fix(?:ed|es|ing)?\s+|correct(?:ed|s)?\s+|address(?:ed|es)?\s+|silence[ds]?\s+|resolve[ds]?\s+)?
            (?:a\s+|an\s+|some\s+|the\s+|more\s+|minor\s+|small\s+|few\s+|various\s+|new\s+|all\s+|remaining\s+)*
            (?:typos?|spelling|lints?|linter|linting|clippy|rustfmt|fmt|formatting|tweaks?|nits?|nitpicks?|(?:compiler\s+|clippy\s+|lint\s+)?warnings?)
            (?:\s+(?:fix(?:es)?|errors?|issues?|warnings?|lints?))?
            (?:\s*$|\s+(?:in|on|for|to|from|of|and|with|after|across)\b)
        )",
    )
});

/// Scopes that say a commit is about lint, formatting or spelling.
const NOISE_SCOPES: &[&str] = &[
    "lint", "lints", "linter", "clippy", "fmt", "format", "typo", "typos", "style", "spelling",
];

/// A lint, typo or tweaks commit, by its description or scope (`""`: none).
pub(super) fn is_noise(description: &str, scope: &str) -> bool {
    NOISE.is_match(description) || NOISE_SCOPES.contains(&scope.to_ascii_lowercase().as_str())
}

/// Subjects of work users do not see, whatever files it touched: refactors and tidying,
/// a modernizer or a helper applied across the code, documentation and comments corrected,
/// examples and tests set up.
static INTERNAL: LazyLock<Regex> = LazyLock::new(|| {
    builtin(
        r"(?ix)^(?:
            refactor(?:s|ed|ing)?\b | tidy\b | tidied\b | simplif(?:y|ies|ied)\b | clean(?:s|ed)?[\s-]*up\b | cleanup\b
          | restructure | reorgani[sz]e | modernize
          | apply\s+(?:the\s+)?\S+\s+(?:modernizer|linter|fix(?:es)?)\b
          | use\s+\S+\s+where\s+(?:possible|applicable)\b
          | (?:fix(?:ed|es)?|correct(?:ed|s)?|update[ds]?|improve[ds]?|clarif(?:y|ies|ied)|reword(?:ed)?)\s+
            (?:(?:the|an?|some|incorrect|wrong|outdated|stale|broken|misleading|inaccurate|missing)\s+)*
            (?:documentation|docs?|comments?|docstrings?|godoc|doc\s+comments?)\b
          | document\s+\S+\s+and\s+
          | (?:set\s*up|add|update)\s+(?:a\s+|the\s+)?go\s+module\s+for\s+_?examples?\b
        )",
    )
});

/// Whether a commit's subject says its work is internal ([`INTERNAL`]).
pub(super) fn is_internal(description: &str) -> bool {
    INTERNAL.is_match(description.trim())
}

/// A merge of a fork's commit that names no change ("Merge commit from fork", as GitHub
/// writes a security advisory's fix): the advisory its message links, as the entry's
/// description; `None` for any other commit.
static ADVISORY: LazyLock<Regex> =
    LazyLock::new(|| builtin(r"(?i)\b(GHSA(?:-[0-9a-z]{4}){3})\b|\b(CVE-\d{4}-\d{4,7})\b"));
static BARE_MERGE: LazyLock<Regex> = LazyLock::new(|| {
    builtin(r"(?i)^merge\s+(?:commit|branch)\s+from\s+fork\b|^merge\s+commit\s+'?[0-9a-f]{7,40}'?")
});

pub(super) fn advisory(subject: &str, message: &str) -> Option<String> {
    if !BARE_MERGE.is_match(subject) {
        return None;
    }
    let found = ADVISORY.captures(message)?;
    let id = found.get(1).or_else(|| found.get(2))?.as_str();
    Some(format!("Fix security advisory {id}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_work_and_advisories_are_read_from_subjects() {
        for subject in [
            "Refactor to use atomic type",
            "Tidy build directives",
            "Simplify chi.walk with slices.Concat",
            "Apply the stringscutprefix modernizer",
            "Use strings.ReplaceAll where applicable",
            "Correct documentation",
            "Fixed incorrect comment about routing",
            "Document printPrettyStack and harden NoColor panic test",
            "Set up go module for _examples/versions",
        ] {
            assert!(is_internal(subject), "{subject}");
        }
        for subject in [
            "Fix panic on empty route",
            "Use context.Context in handlers",
            "Document root handler serves index.html",
            "Add text/csv to compressible types",
        ] {
            assert!(!is_internal(subject), "{subject}");
        }
        assert_eq!(
            advisory(
                "Merge commit from fork",
                "Merge commit from fork\n\nhttps://github.com/o/r/security/advisories/GHSA-vrw8-fxc6-2r93\n"
            )
            .as_deref(),
            Some("Fix security advisory GHSA-vrw8-fxc6-2r93")
        );
        assert_eq!(
            advisory("Merge commit from fork", "Merge commit from fork"),
            None
        );
        assert_eq!(
            advisory("Fix GHSA-vrw8-fxc6-2r93", "Fix GHSA-vrw8-fxc6-2r93"),
            None
        );
    }

    #[test]
    fn chores_are_tests_ci_lint_and_documents_for_contributors() {
        for path in [
            "AGENTS.md",
            "CLAUDE.md",
            "pkg/AGENTS.md",
            ".agents/skills/release.md",
            "CONTRIBUTING.rst",
            ".github/workflows/ci.yml",
            "tests/it.rs",
            "src/lib.test.ts",
            ".eslintrc.json",
            "rustfmt.toml",
            "docs/SKILL.md",
        ] {
            assert!(is_chore_path(path), "{path}");
        }
        for path in [
            "src/lib.rs",
            "README.md",
            "docs/guide.md",
            "CHANGELOG.md",
            "Cargo.toml",
            "src/agents.rs",
        ] {
            assert!(!is_chore_path(path), "{path}");
        }
    }
}
