//! Refs a run or drift check may ask for, and the commit each names.

use std::path::Path;

/// A ref resolved in a repository: its full name (or the commit id asked for) and commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedRef {
    pub name: String,
    pub commit: String,
}

/// True for a full commit id (SHA-1 or SHA-256, hex).
pub fn is_commit_id(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Checks a `ref` as the API takes it: a branch or tag name, `refs/…` (pull and merge request
/// heads among them), or a full commit id, in the characters `A-Z a-z 0-9 . _ / + -` and git's
/// rules for names (no `..`, `//`, component starting with `.` or ending with `.lock`, nor a
/// name starting with `-` or `.` or ending with `.` or `/`): exactly what the API document's
/// pattern says. The message is written for the caller.
pub fn validate_ref(text: &str) -> Result<(), String> {
    let characters = (1..=255).contains(&text.len())
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'/' | b'+' | b'-'));
    let shape = !text.starts_with('-')
        && !text.starts_with('.')
        && !text.ends_with('.')
        && !text.ends_with('/')
        && !text.contains("..")
        && !text.contains("//")
        && !text.contains("/.")
        && !text.split('/').any(|c| c.ends_with(".lock"));
    let name = if text.starts_with("refs/") {
        text.to_owned()
    } else {
        format!("refs/heads/{text}")
    };
    if characters && shape && git2::Reference::is_valid_name(&name) {
        Ok(())
    } else {
        Err("ref must be a branch, a tag, refs/pull/N/head, refs/merge-requests/N/head or a full commit id (letters, digits and . _ / + -)".into())
    }
}

/// The commit `wanted` names in the repository at `repo` (bare or not); `None` is HEAD (a
/// mirror's HEAD is the default branch). Branches are looked up before tags.
pub fn resolve_ref(repo: &Path, wanted: Option<&str>) -> Result<ResolvedRef, String> {
    let repo = git2::Repository::open(repo)
        .map_err(|e| format!("the repository could not be opened: {}", e.message()))?;
    let not_found = |what: &str| {
        format!("'{what}' is not a branch, tag, pull request head or commit of the repository")
    };
    let Some(wanted) = wanted else {
        let head = repo
            .head()
            .map_err(|_| "the repository has no commits yet".to_owned())?;
        let commit = head
            .peel_to_commit()
            .map_err(|_| "HEAD does not point to a commit".to_owned())?;
        return Ok(ResolvedRef {
            name: head.name().unwrap_or("HEAD").to_owned(),
            commit: commit.id().to_string(),
        });
    };
    if is_commit_id(wanted) {
        let oid = git2::Oid::from_str(wanted).map_err(|_| not_found(wanted))?;
        let commit = repo.find_commit(oid).map_err(|_| not_found(wanted))?;
        return Ok(ResolvedRef {
            name: wanted.to_owned(),
            commit: commit.id().to_string(),
        });
    }
    let candidates = if wanted.starts_with("refs/") {
        vec![wanted.to_owned()]
    } else {
        vec![
            format!("refs/heads/{wanted}"),
            format!("refs/tags/{wanted}"),
        ]
    };
    for name in candidates {
        if let Ok(reference) = repo.find_reference(&name) {
            let commit = reference
                .peel_to_commit()
                .map_err(|_| format!("'{wanted}' does not point to a commit"))?;
            return Ok(ResolvedRef {
                name,
                commit: commit.id().to_string(),
            });
        }
    }
    Err(not_found(wanted))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_the_api_takes() {
        for good in [
            "main",
            "release/1.2",
            "v1.0.0",
            "refs/pull/12/head",
            "refs/merge-requests/3/head",
            "4f2a9c1e0b7d3a5f6e8c9b0a1d2e3f4a5b6c7d8e",
        ] {
            assert_eq!(validate_ref(good), Ok(()), "{good}");
        }
        for bad in [
            "",
            "-x",
            "a b",
            "a..b",
            "main.lock",
            "x\n",
            "refs/heads/a~1",
        ] {
            assert!(validate_ref(bad).is_err(), "{bad}");
        }
    }
}
