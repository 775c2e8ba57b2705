//! Full-text search over articles (migration `0014_search.sql`): SQLite FTS5 ranked by bm25,
//! PostgreSQL `tsvector` ranked by `ts_rank`, both with English stemming, the title weighted
//! above the body, and snippets whose matches are marked. One difference remains between the
//! engines: PostgreSQL's parser reads `<word …>` as markup and leaves it out of its index and
//! snippets, where FTS5 keeps it as words.
//!
//! Two rules hold here and nowhere else:
//! - **What a person types never becomes query syntax.** [`SearchTerms`] keeps only words
//!   (runs of letters and digits), at most [`SearchTerms::MAX_TERMS`] of at most
//!   [`SearchTerms::MAX_TERM_CHARS`] characters, and writes each as a quoted FTS5 string or a
//!   bare `tsquery` lexeme: `"`, `*`, `NEAR`, `-`, `:` and column filters are text to split
//!   on, never operators. The words must all match; the last one also as a prefix (results
//!   as you type) unless the text ended after it.
//! - **Only the engines' own marks become highlights.** The engines mark matches with the
//!   control characters [`MARK_START`] and [`MARK_END`], which the indexed text never holds
//!   (see [`searchable`]); [`Highlighted`] splits a snippet at them into text and marked
//!   text, for a template to escape. Article text is never trusted as markup.
//!
//! The workspace and the audience filter every query in SQL, so no result of another tenant,
//! and no draft on the published site, can come back.

use domain::{ArticleId, ArticleStatus, Surface, WorkspaceId};

use crate::engine::{Engine, on_tx, read};
use crate::{Store, StoreError, Tx};

/// Where a match starts in a snippet the engine wrote.
pub const MARK_START: char = '\u{1}';
/// Where it ends.
pub const MARK_END: char = '\u{2}';

/// Which versions a search reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchAudience {
    /// The published version of each article: the published site's readers.
    Published,
    /// The current version of each article, drafts included: the workspace's members.
    Members,
}

impl SearchAudience {
    fn flag(self) -> &'static str {
        match self {
            SearchAudience::Published => "d.is_published",
            SearchAudience::Members => "d.is_current",
        }
    }
}

/// The words of a search (see the module): what reaches the engines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchTerms {
    words: Vec<String>,
    /// The last word also matches as a prefix.
    last_is_prefix: bool,
}

impl SearchTerms {
    /// The most words a search keeps; the rest are ignored.
    pub const MAX_TERMS: usize = 16;
    /// The longest word kept, in characters; longer ones are cut.
    pub const MAX_TERM_CHARS: usize = 64;
    /// The shortest last word that also matches as a prefix: a single letter would match
    /// most of the vocabulary.
    const MIN_PREFIX_CHARS: usize = 2;

    /// The words of `text`: runs of letters and digits, lowercased.
    pub fn parse(text: &str) -> Self {
        let words: Vec<String> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .take(Self::MAX_TERMS)
            .map(|w| w.chars().take(Self::MAX_TERM_CHARS).collect::<String>())
            .map(|w| w.to_lowercase())
            .collect();
        let ends_in_word = text.chars().last().is_some_and(char::is_alphanumeric);
        let last_is_prefix = ends_in_word
            && words
                .last()
                .is_some_and(|w| w.chars().count() >= Self::MIN_PREFIX_CHARS);
        Self {
            words,
            last_is_prefix,
        }
    }

    /// True when the text held no word: there is nothing to search.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// An FTS5 query: each word a string (`"word"`, which no FTS5 operator can be), all of
    /// them required, the last one a prefix (`"word" *`) when it is. Column filters, `NEAR`
    /// and the boolean operators cannot appear: only letters and digits are inside quotes.
    fn fts5(&self) -> String {
        let mut query = String::new();
        for (i, word) in self.words.iter().enumerate() {
            if i > 0 {
                query.push(' ');
            }
            query.push('"');
            query.push_str(word);
            query.push('"');
            if self.last_is_prefix && i + 1 == self.words.len() {
                query.push_str(" *");
            }
        }
        query
    }

    /// A `to_tsquery` text: the words joined by `&`, the last one `:*` when a prefix. A word
    /// of letters and digits holds none of `tsquery`'s operators (`& | ! ( ) < > : * ' \`).
    fn tsquery(&self) -> String {
        let mut query = String::new();
        for (i, word) in self.words.iter().enumerate() {
            if i > 0 {
                query.push_str(" & ");
            }
            query.push_str(word);
            if self.last_is_prefix && i + 1 == self.words.len() {
                query.push_str(":*");
            }
        }
        query
    }
}

/// `text` as the index may hold it: without the characters that mark matches.
pub fn searchable(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains([MARK_START, MARK_END]) {
        text.replace([MARK_START, MARK_END], " ").into()
    } else {
        text.into()
    }
}

/// A text with some parts marked as matches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Highlighted {
    pub parts: Vec<HighlightedPart>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HighlightedPart {
    pub text: String,
    /// A match of the search.
    pub marked: bool,
}

impl Highlighted {
    /// Splits a text the engine marked with [`MARK_START`] and [`MARK_END`]; an unbalanced
    /// mark ends or starts a marked part, and never shows.
    pub fn from_marked(marked: &str) -> Self {
        let mut parts = Vec::new();
        let mut current = String::new();
        let mut in_mark = false;
        let mut flush = |current: &mut String, marked: bool| {
            if !current.is_empty() {
                parts.push(HighlightedPart {
                    text: std::mem::take(current),
                    marked,
                });
            }
        };
        for c in marked.chars() {
            match c {
                MARK_START | MARK_END => {
                    flush(&mut current, in_mark);
                    in_mark = c == MARK_START;
                }
                c => current.push(c),
            }
        }
        flush(&mut current, in_mark);
        Self { parts }
    }

    /// The text without its marks.
    pub fn plain(&self) -> String {
        self.parts.iter().map(|p| p.text.as_str()).collect()
    }

    /// The marked parts' texts.
    pub fn marked(&self) -> impl Iterator<Item = &str> {
        self.parts
            .iter()
            .filter(|p| p.marked)
            .map(|p| p.text.as_str())
    }
}

/// One result: which article and version matched, and what of it to show.
#[derive(Clone, Debug)]
pub struct SearchHit {
    pub article_id: ArticleId,
    pub version: i64,
    pub feature_id: String,
    pub surface: Surface,
    /// The article's status (the current version's; `published` when it is published).
    pub status: ArticleStatus,
    /// The version's title, as written: titles are not marked (PostgreSQL's headline would
    /// drop what looks like markup in them).
    pub title: String,
    /// A passage of the version's text around its matches, marked.
    pub snippet: Highlighted,
}

#[derive(sqlx::FromRow)]
struct HitRow {
    article_id: ArticleId,
    version: i64,
    feature_id: String,
    surface: Surface,
    status: ArticleStatus,
    title: String,
    snippet: String,
}

impl From<HitRow> for SearchHit {
    fn from(row: HitRow) -> Self {
        SearchHit {
            article_id: row.article_id,
            version: row.version,
            feature_id: row.feature_id,
            surface: row.surface,
            status: row.status,
            title: row.title,
            snippet: Highlighted::from_marked(&row.snippet),
        }
    }
}

/// Words of text around the matches in a snippet (FTS5 counts tokens, PostgreSQL words).
const SNIPPET_WORDS: usize = 24;

impl Store {
    /// The versions of workspace `workspace`'s articles that `audience` reads and that match
    /// every word of `terms`, best first, `limit` of them after skipping `offset`. Empty terms
    /// match nothing.
    pub async fn search(
        &self,
        workspace: WorkspaceId,
        audience: SearchAudience,
        terms: &SearchTerms,
        limit: i64,
        offset: i64,
    ) -> Result<Vec<SearchHit>, StoreError> {
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let flag = audience.flag();
        let rows: Vec<HitRow> = match self.engine() {
            Engine::Sqlite => {
                // CROSS JOIN keeps the FTS5 match the outer loop (the planner may otherwise walk
                // the workspace's rows and run the match once per row); snippets are made for
                // the page's rows only.
                let sql = format!(
                    "SELECT d.article_id, d.version, a.feature_id, a.surface, a.status, d.title,
                         snippet(search_index, 1, char(1), char(2), '…', {SNIPPET_WORDS}) AS snippet
                     FROM (
                         SELECT search_index.rowid AS id, bm25(search_index, 10.0, 1.0) AS score
                         FROM search_index
                         CROSS JOIN search_documents d ON d.id = search_index.rowid
                         WHERE search_index MATCH $1 AND d.workspace_id = $2 AND {flag}
                         ORDER BY score, d.id
                         LIMIT $3 OFFSET $4
                     ) top
                     CROSS JOIN search_index ON search_index.rowid = top.id
                     CROSS JOIN search_documents d ON d.id = top.id
                     CROSS JOIN articles a ON a.id = d.article_id
                     WHERE search_index MATCH $1
                     ORDER BY top.score, top.id"
                );
                let query = terms.fts5();
                read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
                    .bind(&query)
                    .bind(workspace)
                    .bind(limit)
                    .bind(offset)
                    .fetch_all(c)
                    .await?)
            }
            Engine::Postgres => {
                // ts_headline reads the whole text: only the page's rows get one.
                let sql = format!(
                    "SELECT s.article_id, s.version, s.feature_id, s.surface, s.status,
                         s.title, ts_headline('english', s.body, q, $5) AS snippet
                     FROM (
                         SELECT d.id, d.article_id, d.version, d.title, d.body,
                             a.feature_id, a.surface, a.status, ts_rank(d.document, q) AS rank
                         FROM search_documents d
                         JOIN articles a ON a.id = d.article_id
                         CROSS JOIN to_tsquery('english', $1) q
                         WHERE d.document @@ q AND d.workspace_id = $2 AND {flag}
                         ORDER BY rank DESC, d.id
                         LIMIT $3 OFFSET $4
                     ) s CROSS JOIN to_tsquery('english', $1) q
                     ORDER BY s.rank DESC, s.id"
                );
                let query = terms.tsquery();
                // One passage (fragments would cut a short text down to its matches).
                let snippet_options = format!(
                    "StartSel={MARK_START}, StopSel={MARK_END}, MaxWords={SNIPPET_WORDS}, \
                     MinWords={}",
                    SNIPPET_WORDS / 2
                );
                read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
                    .bind(&query)
                    .bind(workspace)
                    .bind(limit)
                    .bind(offset)
                    .bind(&snippet_options)
                    .fetch_all(c)
                    .await?)
            }
        };
        Ok(rows.into_iter().map(SearchHit::from).collect())
    }
}

impl Tx {
    /// Indexes the new current version of an article (in the transaction that writes it):
    /// the previous current version leaves the index unless it is the published one.
    pub(crate) async fn index_current_version(
        &mut self,
        article: ArticleId,
        version: i64,
        workspace: WorkspaceId,
        title: &str,
        text: &str,
    ) -> Result<(), StoreError> {
        on_tx!(self, |c| sqlx::query(
            "DELETE FROM search_documents WHERE article_id = $1 AND is_current AND NOT is_published"
        )
        .bind(article)
        .execute(c)
        .await?
        .rows_affected());
        on_tx!(self, |c| sqlx::query(
            "UPDATE search_documents SET is_current = FALSE WHERE article_id = $1 AND is_current"
        )
        .bind(article)
        .execute(c)
        .await?
        .rows_affected());
        on_tx!(self, |c| sqlx::query(
            "INSERT INTO search_documents (article_id, version, workspace_id, is_current,
                 is_published, title, body)
             VALUES ($1, $2, $3, TRUE, FALSE, $4, $5)"
        )
        .bind(article)
        .bind(version)
        .bind(workspace)
        .bind(searchable(title).as_ref())
        .bind(searchable(text).as_ref())
        .execute(c)
        .await
        .map_err(StoreError::from_write)?
        .rows_affected());
        Ok(())
    }

    /// Marks `version` (the current one, which publishing just published) as the one readers
    /// search; the previously published version leaves the index.
    pub(crate) async fn index_published_version(
        &mut self,
        article: ArticleId,
        version: i64,
    ) -> Result<(), StoreError> {
        on_tx!(self, |c| sqlx::query(
            "DELETE FROM search_documents WHERE article_id = $1 AND is_published AND NOT is_current"
        )
        .bind(article)
        .execute(c)
        .await?
        .rows_affected());
        on_tx!(self, |c| sqlx::query(
            "UPDATE search_documents SET is_published = (version = $2) WHERE article_id = $1"
        )
        .bind(article)
        .bind(version)
        .execute(c)
        .await?
        .rows_affected());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_and_punctuation_are_only_separators() {
        let terms = SearchTerms::parse("\"csv\" NEAR(export* -x) title:yes");
        assert_eq!(
            terms.words(),
            ["csv", "near", "export", "x", "title", "yes"].map(String::from)
        );
        assert_eq!(
            terms.fts5(),
            "\"csv\" \"near\" \"export\" \"x\" \"title\" \"yes\" *"
        );
        assert_eq!(terms.tsquery(), "csv & near & export & x & title & yes:*");
    }

    #[test]
    fn the_last_word_is_a_prefix_only_while_it_is_typed() {
        assert_eq!(SearchTerms::parse("expo").fts5(), "\"expo\" *");
        assert_eq!(SearchTerms::parse("export ").fts5(), "\"export\"");
        assert_eq!(SearchTerms::parse("a").fts5(), "\"a\"");
        assert!(SearchTerms::parse(" -*: \"").is_empty());
    }

    #[test]
    fn words_are_bounded() {
        let long = "x".repeat(1000);
        let many = "w ".repeat(100);
        assert_eq!(
            SearchTerms::parse(&long).words()[0].len(),
            SearchTerms::MAX_TERM_CHARS
        );
        assert_eq!(
            SearchTerms::parse(&many).words().len(),
            SearchTerms::MAX_TERMS
        );
    }

    #[test]
    fn only_the_engine_marks_highlight() {
        let h = Highlighted::from_marked("a <b>\u{1}csv\u{2}</b> & \u{1}x");
        assert_eq!(h.plain(), "a <b>csv</b> & x");
        assert_eq!(h.marked().collect::<Vec<_>>(), ["csv", "x"]);
        assert_eq!(searchable("a\u{1}b\u{2}c"), "a b c");
    }
}
