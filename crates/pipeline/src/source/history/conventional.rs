//! Conventional Commits: whether a subject's word before the colon is a type the built-in
//! rules know (`feat: …`, `fix(io)!: …`) or merely a word (`Review: …`, `macros: …`).

/// Whether `subject` is a Conventional Commit of a type the built-in rules know (`feat: …`,
/// `fix(io)!: …`), not merely a word before a colon (`Review: …`).
pub(crate) fn has_known_type(subject: &str) -> bool {
    let Some((head, _)) = subject.split_once(':') else {
        return false;
    };
    let head = head.trim_end_matches('!');
    let kind = head.split_once('(').map_or(head, |(kind, _)| kind);
    KNOWN_TYPES.contains(&kind.trim().to_ascii_lowercase().as_str())
}

/// Types of Conventional Commits the built-in rules know; another word before the colon
/// (`macros: fix …`, `Review: …`) says nothing, and the subject's verb decides.
pub(crate) const KNOWN_TYPES: &[&str] = &[
    "feat",
    "feature",
    "fix",
    "bugfix",
    "hotfix",
    "perf",
    "refactor",
    "revert",
    "security",
    "sec",
    "deprecate",
    "deprecated",
    "deprecation",
    "docs",
    "doc",
    "chore",
    "ci",
    "build",
    "test",
    "tests",
    "style",
    "release",
    "deps",
    "dep",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_conventional_type_is_told_from_a_word_before_a_colon() {
        for typed in ["feat: x", "fix(io)!: y", "Docs: z", "perf(a,b): w"] {
            assert!(has_known_type(typed), "{typed}");
        }
        for untyped in [
            "Review: fixed",
            "macros: fix",
            "Fixed key comparison",
            "v1.2: x",
        ] {
            assert!(!has_known_type(untyped), "{untyped}");
        }
    }
}
