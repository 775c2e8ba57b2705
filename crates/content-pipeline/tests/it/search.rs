//! Search over HTTP: the published site's results page (a GET form, no JavaScript), the
//! fragment its script fetches as a reader types, and the portal's page for members (drafts
//! included); bounds, escaping, and workspaces that never see each other's articles.

use domain::Surface;
use reqwest::StatusCode;

use crate::app;
use crate::helpers::TestApp;

const BROWSER_ACCEPT: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/// A published-site page as a browser without a session asks for it: status and body.
async fn site(app: &TestApp, path: &str) -> (u16, String) {
    let res = app
        .get(path)
        .anonymous()
        .header("accept", BROWSER_ACCEPT)
        .send()
        .await;
    let status = res.status().as_u16();
    let csp = res
        .headers()
        .get("content-security-policy")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    if status != 404 || csp.contains("script-src") {
        assert!(
            csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"),
            "{path}: {csp}"
        );
    }
    (status, res.text().await.expect("a body"))
}

/// `text` percent-encoded for a query string.
fn encoded(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn search_url(ws: &str, q: &str) -> String {
    format!("/published/workspaces/{ws}/search?q={}", encoded(q))
}

fn fragment_url(ws: &str, q: &str) -> String {
    format!("/published/workspaces/{ws}/search/results?q={}", encoded(q))
}

/// The article ids of the hits in a results page or fragment, in order.
fn hits(html: &str) -> Vec<String> {
    html.split("data-test=\"search-hit\" data-id=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_owned)
        .collect()
}

async fn publish(app: &TestApp, article: &str) {
    app.post(&format!("/v1/articles/{article}/publish"))
        .expect(200)
        .await;
}

#[tokio::test]
async fn the_site_searches_what_a_real_run_published_without_javascript() {
    let app = app!(TestApp::builder().run_worker());
    let ws = app.workspace("Numbers").await;
    let feature = &crate::helpers::feature_ids()[0];
    let run = app.run_feature(&ws, feature).await;
    assert_eq!(run["status"], "succeeded", "{run}");
    let articles = app
        .get(&format!("/v1/workspaces/{ws}/articles?surface=dev-docs"))
        .expect(200)
        .await;
    let dev_docs = articles["data"][0]["id"]
        .as_str()
        .expect("a dev-docs article");
    let (status, _) = site(&app, &search_url(&ws, "adds")).await;
    assert_eq!(
        status, 404,
        "a workspace that published nothing has no search"
    );

    publish(&app, dev_docs).await;
    // The index page carries the search box: a GET form to the results page, and the script.
    let (status, index) = site(&app, &format!("/published/workspaces/{ws}")).await;
    assert_eq!(status, 200);
    assert!(
        index.contains(&format!(
            "method=\"get\" action=\"/published/workspaces/{ws}/search\""
        )),
        "{index}"
    );
    assert!(index.contains("name=\"q\""), "{index}");
    let script = index
        .split("<script src=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("the search script")
        .replace("&#38;", "&");
    assert!(
        script.starts_with("/published/assets/search.js?v="),
        "{script}"
    );
    let js = app.get(&script).anonymous().send().await;
    assert_eq!(js.status(), 200);
    assert!(
        js.headers()["content-type"]
            .to_str()
            .unwrap_or_default()
            .starts_with("text/javascript")
    );
    assert!(js.text().await.expect("js").contains("data-search-live"));

    // The words of the documented code, from the MDX reduced to text; not the frontmatter.
    let (status, page) = site(&app, &search_url(&ws, "adds")).await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(hits(&page), [dev_docs.to_owned()], "{page}");
    assert!(
        page.contains(&format!("href=\"/published/{dev_docs}\"")),
        "{page}"
    );
    assert!(page.contains("<mark>"), "{page}");
    assert!(
        page.contains("value=\"adds\""),
        "the box keeps the words: {page}"
    );
    let commit = run["commit"].as_str().expect("the run's commit");
    let (_, page) = site(&app, &search_url(&ws, commit)).await;
    assert!(hits(&page).is_empty(), "frontmatter is not indexed: {page}");
    // Only the published article: the run's other surfaces, which also name `add`, are drafts.
    let (_, page) = site(&app, &search_url(&ws, "add")).await;
    assert_eq!(hits(&page), [dev_docs.to_owned()], "{page}");
}

#[tokio::test]
async fn the_site_escapes_article_text_and_marks_only_the_matches() {
    let app = app!();
    let ws = app.workspace("Team").await;
    let id = app
        .write_article(
            &ws,
            "<em>feature</em>",
            Surface::Blog,
            "---\ntitle: x\n---\n\nRun \\<script\\>alert(1)\\</script\\> to export \\<mark\\>all\\</mark\\> reports.\n",
        )
        .await;
    publish(&app, &id).await;
    let (status, page) = site(&app, &search_url(&ws, "export reports")).await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(hits(&page), [id.as_str()]);
    assert!(!page.contains("<script>alert"), "{page}");
    assert!(
        !page.contains("<em>feature"),
        "the title is escaped: {page}"
    );
    assert!(
        page.contains("&#60;em&#62;feature&#60;/em&#62; on blog"),
        "{page}"
    );
    assert!(page.contains("<mark>export</mark>"), "{page}");
    assert_eq!(
        page.matches("<mark>").count(),
        2,
        "export and reports only: {page}"
    );
    if app.store.engine() == store::Engine::Sqlite {
        // PostgreSQL's headline leaves what looks like markup out of the snippet.
        assert!(
            page.contains("&#60;script&#62;alert(1)&#60;/script&#62;"),
            "{page}"
        );
        assert!(page.contains("&#60;mark&#62;all&#60;/mark&#62;"), "{page}");
    }
}

#[tokio::test]
async fn the_fragment_for_the_script_holds_the_results_only() {
    let app = app!();
    let ws = app.workspace("Team").await;
    let id = app
        .write_article(&ws, "csv", Surface::HelpCenter, "Export reports as CSV.\n")
        .await;
    publish(&app, &id).await;
    let (status, fragment) = site(&app, &fragment_url(&ws, "expo")).await;
    assert_eq!(status, 200, "{fragment}");
    assert_eq!(
        hits(&fragment),
        [id.as_str()],
        "a prefix while typing: {fragment}"
    );
    assert!(
        !fragment.contains("<html"),
        "a fragment, not a page: {fragment}"
    );
    assert!(!fragment.contains("<form"), "{fragment}");
    let (status, none) = site(&app, &fragment_url(&ws, "nothing here")).await;
    assert_eq!(status, 200);
    assert!(hits(&none).is_empty());
    assert!(none.contains("data-test=\"search-message\""), "{none}");
    let (status, _) = site(&app, &fragment_url(&ws, &"x".repeat(201))).await;
    assert_eq!(status, 422);
    let (status, _) = site(
        &app,
        &fragment_url("ws_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f", "export"),
    )
    .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn the_site_bounds_what_a_search_may_ask() {
    let app = app!();
    let ws = app.workspace("Team").await;
    for i in 0..12 {
        let id = app
            .write_article(
                &ws,
                &format!("feature-{i:02}"),
                Surface::Blog,
                "Export reports.\n",
            )
            .await;
        publish(&app, &id).await;
    }
    let (status, page) = site(&app, &search_url(&ws, &"x".repeat(10_000))).await;
    assert_eq!(status, 422);
    assert!(page.contains("too long"), "{page}");
    assert!(hits(&page).is_empty());
    let (status, _) = site(&app, &search_url(&ws, &"é".repeat(200))).await;
    assert_eq!(
        status, 200,
        "200 characters are allowed, whatever their bytes"
    );
    for page in ["0", "11", "abc", "-1"] {
        let (status, _) = site(&app, &format!("{}&page={page}", search_url(&ws, "export"))).await;
        assert_eq!(status, 422, "page={page}");
    }
    // Ten results a page, then a link to the next.
    let (status, first) = site(&app, &search_url(&ws, "export")).await;
    assert_eq!(status, 200);
    assert_eq!(hits(&first).len(), 10);
    let next = first
        .split("data-test=\"search-next\"")
        .next()
        .and_then(|s| s.rsplit("href=\"").next())
        .and_then(|s| s.split('"').next())
        .expect("a next page")
        .replace("&#38;", "&");
    assert!(next.ends_with("page=2"), "{next}");
    let (_, second) = site(&app, &next).await;
    assert_eq!(hits(&second).len(), 2);
    assert!(!second.contains("search-next"));
    let mut all = hits(&first);
    all.extend(hits(&second));
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 12);
    // Text that would be query syntax is only words.
    for q in [
        "\"",
        "*",
        "NEAR(",
        "-export",
        "title:export",
        "export\"*",
        "(",
        "'",
    ] {
        let (status, page) = site(&app, &search_url(&ws, q)).await;
        assert_eq!(status, 200, "{q:?}: {page}");
    }
}

#[tokio::test]
async fn workspaces_never_see_each_other_s_results() {
    let app = app!();
    let a = app.workspace("A").await;
    let b = app.workspace("B").await;
    let drafts_only = app.workspace("C").await;
    let mine = app
        .write_article(&a, "csv", Surface::Blog, "Alpha export.\n")
        .await;
    let theirs = app
        .write_article(&b, "csv", Surface::Blog, "Alpha beta export.\n")
        .await;
    app.write_article(&drafts_only, "csv", Surface::Blog, "Alpha export.\n")
        .await;
    publish(&app, &mine).await;
    publish(&app, &theirs).await;
    let (_, page) = site(&app, &search_url(&a, "alpha")).await;
    assert_eq!(hits(&page), [mine.as_str()]);
    let (_, page) = site(&app, &search_url(&a, "beta")).await;
    assert!(hits(&page).is_empty(), "{page}");
    let (_, page) = site(&app, &search_url(&b, "alpha")).await;
    assert_eq!(hits(&page), [theirs.as_str()]);
    let (status, _) = site(&app, &search_url(&drafts_only, "alpha")).await;
    assert_eq!(status, 404, "nothing published: no search, as no index");
    let (status, _) = site(&app, &search_url("not-a-workspace", "alpha")).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn members_search_drafts_in_the_portal_and_only_their_workspace() {
    let app = app!();
    let ws = app.workspace("Team").await;
    let other = app.workspace("Other").await;
    let published = app
        .write_article(&ws, "csv", Surface::Blog, "Gamma export, published.\n")
        .await;
    publish(&app, &published).await;
    let draft = app
        .write_article(
            &ws,
            "draft",
            Surface::Blog,
            "Gamma preview, not yet published.\n",
        )
        .await;
    app.write_article(&other, "csv", Surface::Blog, "Gamma elsewhere.\n")
        .await;
    let person = app.person("reader@example.com", Some((&ws, "read"))).await;

    let (status, articles) = person.page(&format!("/portal/w/{ws}/articles")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        articles.contains(&format!("href=\"/portal/w/{ws}/search\"")),
        "the workspace's navigation links to search"
    );

    let (status, page) = person.page(&format!("/portal/w/{ws}/search?q=gamma")).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let mut found = hits(&page);
    found.sort();
    let mut expected = vec![published.clone(), draft.clone()];
    expected.sort();
    assert_eq!(found, expected, "drafts too: {page}");
    assert!(page.contains(&format!("href=\"/portal/w/{ws}/articles/{draft}\"")));
    assert!(page.contains("status-draft"), "{page}");
    assert!(page.contains("hx-get=\"/portal/w/"), "as you type: {page}");
    // Readers of the published site do not see the draft.
    let (_, site_page) = site(&app, &search_url(&ws, "gamma")).await;
    assert_eq!(hits(&site_page), [published.as_str()]);

    // What htmx swaps in as the person types.
    let (status, fragment) = person
        .page(&format!("/portal/w/{ws}/search/results?q=previ"))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(hits(&fragment), [draft.as_str()]);
    assert!(!fragment.contains("<html"), "{fragment}");

    let long = "x".repeat(10_000);
    let (status, page) = person
        .page(&format!("/portal/w/{ws}/search?q={long}"))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(page.contains("too long"), "{page}");

    // Another workspace is missing for this member; nobody signed in is sent to sign in.
    let (status, _) = person
        .page(&format!("/portal/w/{other}/search?q=gamma"))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = person
        .page(&format!("/portal/w/{other}/search/results?q=gamma"))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let stranger = crate::portal::Person::new(&app, "nobody@example.com");
    let (status, _) = stranger
        .page(&format!("/portal/w/{ws}/search?q=gamma"))
        .await;
    assert!(
        status == StatusCode::SEE_OTHER || status == StatusCode::UNAUTHORIZED,
        "{status}"
    );
}
