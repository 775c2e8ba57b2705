//! Full-text search on both engines: ranking, marked snippets, tenants, drafts and published
//! versions, and text that would be query syntax if it reached the engines.

use domain::{ArticleId, RunId, Surface, WorkspaceId};
use store::{SearchAudience, SearchHit, SearchTerms, Store};

use super::{Db, at, open, version, workspace, write_version};

conformance!(
    title_matches_rank_above_body_matches,
    snippets_mark_the_matches_and_only_them,
    a_search_never_returns_another_workspace_s_articles,
    readers_search_published_versions_and_members_current_ones,
    query_syntax_in_the_text_is_only_words,
    the_last_word_matches_as_a_prefix_while_typed,
    results_page_with_limit_and_offset,
);

/// Writes a version of (ws, feature) on the blog surface with this title and text.
async fn article(
    store: &Store,
    ws: WorkspaceId,
    feature: &str,
    title: &str,
    text: &str,
) -> ArticleId {
    let mut new = version(ws, feature, Surface::Blog, RunId::generate(), text);
    new.title = title.to_owned();
    write_version(store, &new, at(2)).await.expect("write").id
}

async fn publish(store: &Store, id: ArticleId) {
    let mut tx = store.begin().await.expect("begin");
    tx.publish_article(id, "https://docs.example/p", at(3))
        .await
        .expect("publish")
        .expect("exists");
    tx.commit().await.expect("commit");
}

async fn search(
    store: &Store,
    ws: WorkspaceId,
    audience: SearchAudience,
    text: &str,
) -> Vec<SearchHit> {
    store
        .search(ws, audience, &SearchTerms::parse(text), 20, 0)
        .await
        .unwrap_or_else(|e| panic!("search {text:?}: {e}"))
}

fn ids(hits: &[SearchHit]) -> Vec<ArticleId> {
    hits.iter().map(|h| h.article_id).collect()
}

async fn title_matches_rank_above_body_matches(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let in_body = article(
        &store,
        ws,
        "reports",
        "Reports",
        "Open the reports page, choose a range, then export it as a spreadsheet for your team.",
    )
    .await;
    let in_title = article(
        &store,
        ws,
        "csv",
        "CSV export",
        "Download every table as a file.",
    )
    .await;
    article(&store, ws, "other", "Webhooks", "Signed deliveries.").await;
    let hits = search(&store, ws, SearchAudience::Members, "export").await;
    assert_eq!(ids(&hits), [in_title, in_body], "the title match first");
    assert_eq!(hits[0].title, "CSV export");
    // Stemming: "exporting" finds "export".
    let stemmed = search(&store, ws, SearchAudience::Members, "exporting reports ").await;
    assert_eq!(ids(&stemmed), [in_body]);
}

async fn snippets_mark_the_matches_and_only_them(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let text = "Paste <script>alert('x')</script> and <mark>fake</mark> then \u{1}forged\u{2} \
                marks: the exporter keeps them as text.";
    article(&store, ws, "xss", "Hostile <b>title</b>", text).await;
    let hits = search(&store, ws, SearchAudience::Members, "exporter fake").await;
    assert_eq!(hits.len(), 1, "{hits:?}");
    let snippet = &hits[0].snippet;
    let mut marked: Vec<String> = snippet.marked().map(str::to_lowercase).collect();
    marked.sort();
    marked.dedup();
    assert_eq!(
        marked,
        ["exporter", "fake"],
        "only the search's words are marked"
    );
    let plain = snippet.plain();
    assert!(
        !plain.contains('\u{1}') && !plain.contains('\u{2}'),
        "{plain:?}"
    );
    assert!(
        plain.contains(" forged "),
        "a forged mark is a space: {plain:?}"
    );
    // Titles are shown as written (escaped by the pages), never marked by the engine.
    assert_eq!(hits[0].title, "Hostile <b>title</b>");
    // A short text is shown whole around its match, not cut down to the match.
    let short = article(&store, ws, "short", "Short", "Export reports as CSV.").await;
    let hits = search(&store, ws, SearchAudience::Members, "csv").await;
    assert_eq!(ids(&hits), [short]);
    assert_eq!(hits[0].snippet.plain(), "Export reports as CSV.");
    assert_eq!(hits[0].snippet.marked().collect::<Vec<_>>(), ["CSV"]);
}

async fn a_search_never_returns_another_workspace_s_articles(store: Db) {
    let a = workspace(&store, "A", at(1)).await;
    let b = workspace(&store, "B", at(1)).await;
    let mine = article(&store, a, "csv", "CSV export", "Export reports.").await;
    let theirs = article(&store, b, "csv", "CSV export", "Export reports.").await;
    publish(&store, mine).await;
    publish(&store, theirs).await;
    for audience in [SearchAudience::Members, SearchAudience::Published] {
        assert_eq!(ids(&search(&store, a, audience, "export").await), [mine]);
        assert_eq!(ids(&search(&store, b, audience, "export").await), [theirs]);
    }
    let nobody = workspace(&store, "C", at(1)).await;
    assert!(
        search(&store, nobody, SearchAudience::Members, "export")
            .await
            .is_empty()
    );
}

async fn readers_search_published_versions_and_members_current_ones(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let id = article(&store, ws, "csv", "CSV export", "The alpha release.").await;
    let draft_only = article(&store, ws, "draft", "Unreleased", "The alpha preview.").await;
    let published = |text: &'static str| search(&store, ws, SearchAudience::Published, text);
    let members = |text: &'static str| search(&store, ws, SearchAudience::Members, text);

    assert!(
        published("alpha").await.is_empty(),
        "nothing is published yet"
    );
    assert_eq!(members("alpha").await.len(), 2);

    publish(&store, id).await;
    assert_eq!(ids(&published("alpha").await), [id]);

    // A newer draft: readers keep the published version, members see the draft.
    let mut v2 = version(
        ws,
        "csv",
        Surface::Blog,
        RunId::generate(),
        "The beta release.",
    );
    v2.title = "CSV export".into();
    write_version(&store, &v2, at(4)).await.expect("v2");
    assert_eq!(ids(&published("alpha").await), [id]);
    assert!(
        published("beta").await.is_empty(),
        "the draft is not published"
    );
    assert_eq!(ids(&members("alpha").await), [draft_only]);
    let current = members("beta").await;
    assert_eq!(ids(&current), [id]);
    assert_eq!(current[0].version, 2);

    // A third version while v1 is still published: v2 leaves the index.
    let mut v3 = version(
        ws,
        "csv",
        Surface::Blog,
        RunId::generate(),
        "The gamma release.",
    );
    v3.title = "CSV export".into();
    write_version(&store, &v3, at(5)).await.expect("v3");
    assert!(members("beta").await.is_empty());
    assert_eq!(ids(&published("alpha").await), [id]);

    // Publishing the current version: readers move to it, v1 leaves the index.
    publish(&store, id).await;
    assert!(published("alpha").await.is_empty());
    let now_published = published("gamma").await;
    assert_eq!(ids(&now_published), [id]);
    assert_eq!(now_published[0].version, 3);
    assert!(published("preview").await.is_empty(), "never published");
}

async fn query_syntax_in_the_text_is_only_words(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let csv = article(
        &store,
        ws,
        "csv",
        "CSV export",
        "Near the top: export reports, title and body. Café crème.",
    )
    .await;
    article(&store, ws, "other", "Webhooks", "Signed deliveries.").await;
    for text in [
        "\"",
        "\"csv",
        "csv\"",
        "*",
        "csv*",
        "NEAR",
        "NEAR(csv export)",
        "NEAR/2",
        "-",
        "csv -export",
        ":",
        "title:csv",
        "body:export",
        "{title}:csv",
        "^csv",
        "csv AND",
        "OR",
        "NOT csv",
        "(",
        ")",
        "'",
        "\\",
        "&",
        "|",
        "!",
        "<->",
        "csv:*",
        "'csv' & export",
        "+",
        "%",
        "_",
        "\u{0}",
    ] {
        let hits = search(&store, ws, SearchAudience::Members, text).await;
        let terms = SearchTerms::parse(text);
        if terms.is_empty() {
            assert!(hits.is_empty(), "{text:?}: no word, no result");
        } else {
            assert!(
                ids(&hits).iter().all(|h| *h == csv),
                "{text:?} is words only: {hits:?}"
            );
        }
    }
    // The words of these all occur in the article, so it is found by each.
    for text in [
        "csv -export",
        "title:csv",
        "NEAR(csv export)",
        "\"csv\"",
        "near the top",
    ] {
        assert_eq!(
            ids(&search(&store, ws, SearchAudience::Members, text).await),
            [csv],
            "{text:?}"
        );
    }
    // Unicode words, with and without their accents.
    assert_eq!(
        ids(&search(&store, ws, SearchAudience::Members, "café").await),
        [csv]
    );
    assert_eq!(
        ids(&search(&store, ws, SearchAudience::Members, "CRÈME").await),
        [csv]
    );
    // A huge text is cut to a bounded number of words, never an error.
    let huge = "export ".repeat(10_000 / 7);
    assert_eq!(
        ids(&search(&store, ws, SearchAudience::Members, &huge).await),
        [csv]
    );
}

async fn the_last_word_matches_as_a_prefix_while_typed(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let csv = article(
        &store,
        ws,
        "csv",
        "CSV export",
        "Spreadsheets for everyone.",
    )
    .await;
    assert_eq!(
        ids(&search(&store, ws, SearchAudience::Members, "expo").await),
        [csv]
    );
    assert_eq!(
        ids(&search(&store, ws, SearchAudience::Members, "csv spreadsh").await),
        [csv]
    );
    assert!(
        search(&store, ws, SearchAudience::Members, "expo ")
            .await
            .is_empty(),
        "a finished word is a whole word"
    );
}

async fn results_page_with_limit_and_offset(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    for i in 0..5 {
        article(
            &store,
            ws,
            &format!("f{i}"),
            &format!("Guide {i}"),
            "Export it.",
        )
        .await;
    }
    let terms = SearchTerms::parse("export");
    let first = store
        .search(ws, SearchAudience::Members, &terms, 3, 0)
        .await
        .expect("first");
    let rest = store
        .search(ws, SearchAudience::Members, &terms, 3, 3)
        .await
        .expect("rest");
    assert_eq!((first.len(), rest.len()), (3, 2));
    let mut all = ids(&first);
    all.extend(ids(&rest));
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 5, "no article twice, none skipped");
}
