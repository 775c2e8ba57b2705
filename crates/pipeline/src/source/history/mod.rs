//! What the repository's history says: commits, release tags, pull requests, the changes
//! it keeps notes of for its next release (changesets, news fragments), and the
//! commits read as release notes (Conventional Commits, the repository's own `[changelog]`
//! parsers or else its changelog tool's configuration, the built-in rules). Walks are
//! bounded: [`MAX_COMMITS`] listed, [`MAX_WALKED`] walked, [`tags::MAX_TAGS`] tags read.

mod bodies;
mod chores;
mod conventional;
mod handwritten;
mod notes;
mod pending;
mod pulls;
mod removals;
mod renames;
mod rules;
mod tags;
mod tools;
mod walk;

pub(crate) use bodies::{action_sentences, body_sentence, repeats};
pub(crate) use chores::is_chore_path;
pub(crate) use conventional::has_known_type;
pub(crate) use handwritten::changelog_file;
pub(crate) use notes::{Changelog, Entry, ReleaseNotes, entry, notes};
pub(crate) use pending::{Fragment, Markup, Pending, pending};
pub(crate) use removals::{removed_names, says_removal};
pub(crate) use rules::Rules;
pub use tags::MAX_TAGS;
pub(crate) use tags::Tags;
pub(crate) use tools::tool_rules;
pub(crate) use walk::{History, Range, history};

/// At most this many commits go into a changelog (a first run reads the newest releases, a
/// repository without release tags its newest commits up to this cap).
pub const MAX_COMMITS: usize = 500;
/// Never walk more history than this looking for commits that touch a feature.
pub(super) const MAX_WALKED: usize = 100_000;
/// A pull request of more commits than this (GitHub lists at most 250) is not grouped: its
/// commits are listed one by one.
pub(super) const MAX_PULL_COMMITS: usize = 250;

#[derive(Clone, Debug)]
pub(crate) struct CommitInfo {
    pub sha: String,
    pub message: String,
    pub author: String,
    pub email: String,
    pub time: i64,
    /// Every file the commit changes is documentation, a test, CI or tooling configuration,
    /// or a lock file ([`crate::source::files::is_housekeeping_path`]): what a commit without a Conventional
    /// Commits type is, when its subject cannot say.
    pub housekeeping: bool,
    /// Every file the commit changes is a test, CI or lint configuration, or a document for
    /// contributors or agents (`chores::is_chore_path`): no news whatever its type says.
    pub chores: bool,
}
/// The text of `bytes`, cut to at most `max` bytes at a character boundary; true when cut.
pub(super) fn cut_text(bytes: &[u8], max: usize) -> (String, bool) {
    if bytes.len() <= max {
        return (String::from_utf8_lossy(bytes).into_owned(), false);
    }
    let mut end = max;
    // Back off the continuation bytes of a UTF-8 character the cut would split.
    while end > 0 && bytes[end] & 0b1100_0000 == 0b1000_0000 {
        end -= 1;
    }
    (String::from_utf8_lossy(&bytes[..end]).into_owned(), true)
}

/// `YYYY-MM-DD` of a git time in the time zone it was recorded in (a tag made on the evening
/// of the 3rd in UTC−5 is dated the 3rd, as its author dates the release).
pub(crate) fn local_date(time: git2::Time) -> String {
    date(time.seconds() + i64::from(time.offset_minutes()) * 60)
}

/// `YYYY-MM-DD` (UTC) of a Unix time.
pub(crate) fn date(unix_seconds: i64) -> String {
    // Howard Hinnant's civil-from-days.
    let days = unix_seconds.div_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

impl ReleaseNotes {
    /// An empty "Unreleased" section, for the project's own notes to fill.
    pub(crate) fn unreleased() -> Self {
        ReleaseNotes {
            version: None,
            title: "Unreleased".to_string(),
            tag: None,
            date: None,
            previous_tag: None,
            compare_url: None,
            breaking: Vec::new(),
            groups: Vec::new(),
            count: 0,
            contributors: Vec::new(),
            handwritten: None,
            source: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::date;

    #[test]
    fn dates() {
        assert_eq!(date(0), "1970-01-01");
        assert_eq!(date(1_700_000_000), "2023-11-14");
        assert_eq!(date(951_782_400), "2000-02-29");
    }
}
