//! Pull requests: which commits a GitHub pull request merge brought in, so that they are one
//! entry under the pull request's title.

use git2::{Commit, Oid, Repository};

use crate::error::PipelineError;

use super::conventional::has_known_type;
use super::{MAX_PULL_COMMITS, MAX_WALKED, cut_text};

/// The pull requests merged by the merges a history walk meets, and which commits are theirs.
/// Finding them is bounded: the main line (the first parents from the first merge met) and
/// each pull request's commits (the first parents from its merged commit down to the main
/// line) together walk at most [`MAX_WALKED`] commits; past that, commits are listed alone.
#[derive(Default)]
pub(crate) struct Pulls {
    /// "<title> (#N)" of each pull request found.
    pub(crate) titles: Vec<String>,
    /// Each commit of a pull request, with the pull request's index.
    pub(crate) members: std::collections::HashMap<Oid, usize>,
    /// Commits of the main line walked so far, and the next one to walk.
    pub(crate) main_line: std::collections::HashSet<Oid>,
    pub(crate) main_next: Option<Oid>,
    pub(crate) steps: usize,
}

impl Pulls {
    pub(crate) fn of(&self, commit: Oid) -> Option<usize> {
        self.members.get(&commit).copied()
    }

    pub(crate) fn title(&self, pull: usize) -> &str {
        self.titles.get(pull).map_or("", String::as_str)
    }

    /// Records the pull request `merge` merges, if it merges one.
    pub(crate) fn merged(
        &mut self,
        repo: &Repository,
        merge: &Commit,
        max_message_bytes: usize,
    ) -> Result<(), PipelineError> {
        let (message, _) = cut_text(merge.message_bytes(), max_message_bytes);
        let Some((number, title)) = pull_request_merge(&message) else {
            return Ok(());
        };
        let (Ok(main), Ok(merged)) = (merge.parent_id(0), merge.parent_id(1)) else {
            return Ok(());
        };
        if self.main_next.is_none() && self.main_line.is_empty() {
            self.main_next = Some(main);
        }
        let mut members = Vec::new();
        let mut next = Some(merged);
        while let Some(oid) = next {
            if self.steps >= MAX_WALKED || members.len() > MAX_PULL_COMMITS {
                return Ok(());
            }
            self.steps += 1;
            let commit = repo.find_commit(oid)?;
            if self.on_main_line(repo, oid, commit.time().seconds())? {
                break;
            }
            // Conventional Commits say more than the pull request's title: listed one by one,
            // as git-cliff lists them.
            let first_line = commit.message_bytes().split(|b| *b == b'\n').next();
            let (subject, _) = cut_text(first_line.unwrap_or_default(), 256);
            if has_known_type(&subject) {
                return Ok(());
            }
            members.push(oid);
            next = commit.parent_id(0).ok();
        }
        let pull = self.titles.len();
        self.titles.push(format!("{title} (#{number})"));
        for oid in members {
            self.members.entry(oid).or_insert(pull);
        }
        Ok(())
    }

    /// Whether `oid` is a first parent of the main line. The main line is walked on demand,
    /// down to commits older than `oid` (`time`): further down it cannot be, but for clocks
    /// that disagree.
    fn on_main_line(
        &mut self,
        repo: &Repository,
        oid: Oid,
        time: i64,
    ) -> Result<bool, PipelineError> {
        while !self.main_line.contains(&oid) {
            let Some(next) = self.main_next else {
                return Ok(false);
            };
            if self.steps >= MAX_WALKED {
                return Ok(false);
            }
            self.steps += 1;
            let commit = repo.find_commit(next)?;
            self.main_line.insert(next);
            self.main_next = commit.parent_id(0).ok();
            if next != oid && commit.time().seconds() < time {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// The number and title of a GitHub pull request merge: "Merge pull request #12 from
/// owner/branch", a blank line, the title.
fn pull_request_merge(message: &str) -> Option<(u64, &str)> {
    let mut lines = message.lines();
    let subject = lines.next()?.trim();
    let rest = subject.strip_prefix("Merge pull request #")?;
    let (number, from) = rest.split_once(' ')?;
    if !from.starts_with("from ") {
        return None;
    }
    let number = number.parse().ok()?;
    let title = lines.map(str::trim).find(|l| !l.is_empty())?;
    Some((number, title))
}

#[cfg(test)]
mod tests {
    use super::pull_request_merge;

    #[test]
    fn a_pull_request_merge_is_read_from_its_message() {
        assert_eq!(
            pull_request_merge("Merge pull request #732 from me/fix\n\nFixed key comparison\n"),
            Some((732, "Fixed key comparison"))
        );
        for other in [
            "Merge pull request #732 from me/fix",
            "Merge branch 'main' into fix\n\nFixed",
            "Merge pull request #x from me/fix\n\nTitle",
            "Merge pull request #7 into main\n\nTitle",
        ] {
            assert_eq!(pull_request_merge(other), None, "{other}");
        }
    }
}
