//! What a commit changed, when that alone makes it no news whatever its type says: tests,
//! CI, lint and formatting configuration, documents for contributors, maintainers and AI
//! agents.

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

#[cfg(test)]
mod tests {
    use super::is_chore_path;

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
