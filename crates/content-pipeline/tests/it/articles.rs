//! Articles: written through the store as a run would write them, then read, filtered,
//! published and regenerated over HTTP.

use domain::Surface;
use serde_json::{Value, json};
use testkit::TestDatabase;

use crate::app;
use crate::helpers::expect_error;

fn ids(list: &Value) -> Vec<String> {
    list["data"]
        .as_array()
        .expect("data")
        .iter()
        .filter_map(|a| a["id"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn get_shows_the_current_version_with_its_body() {
    let app = app!();
    let ws = app.workspace("W").await;
    let read = app.token(&ws, "read").await;
    let id = app
        .write_article(&ws, "csv-export", Surface::HelpCenter, "# CSV export\n")
        .await;
    let a = app
        .get(&format!("/v1/articles/{id}"))
        .token(&read)
        .expect(200)
        .await;
    assert!(id.starts_with("art_"));
    assert_eq!(a["id"], id.as_str());
    assert_eq!(a["workspace_id"], ws.as_str());
    assert_eq!(a["feature_id"], "csv-export");
    assert_eq!(a["surface"], "help-center");
    assert_eq!(a["status"], "draft");
    assert_eq!(a["version"], 1);
    assert!(a["run_id"].as_str().is_some_and(|r| r.starts_with("run_")));
    assert_eq!(a["title"], "csv-export on help-center");
    assert_eq!(a["mdx_body"], "# CSV export\n");
    assert!(a["public_url"].is_null());

    app.get("/v1/articles/art_0193000000007000800000000000000a")
        .token(&read)
        .expect_error(404, "not_found")
        .await;
}

#[tokio::test]
async fn list_filters_by_feature_surface_and_status() {
    let app = app!();
    let ws = app.workspace("W").await;
    let read = app.token(&ws, "read").await;
    let a = app.write_article(&ws, "export", Surface::Blog, "a").await;
    let b = app
        .write_article(&ws, "export", Surface::DevDocs, "b")
        .await;
    let c = app.write_article(&ws, "import", Surface::Blog, "c").await;
    app.post(&format!("/v1/articles/{c}/publish"))
        .expect(200)
        .await;

    let list = |query: &'static str| {
        app.get(&format!("/v1/workspaces/{ws}/articles{query}"))
            .token(&read)
            .expect(200)
    };
    assert_eq!(
        ids(&list("").await),
        [c.as_str(), b.as_str(), a.as_str()],
        "newest first"
    );
    assert_eq!(
        ids(&list("?feature_id=export").await),
        [b.as_str(), a.as_str()]
    );
    assert_eq!(ids(&list("?surface=blog").await), [c.as_str(), a.as_str()]);
    assert_eq!(ids(&list("?status=published").await), [c.as_str()]);
    assert_eq!(ids(&list("?status=draft").await), [b.as_str(), a.as_str()]);
    assert_eq!(
        ids(&list("?feature_id=export&surface=blog").await),
        [a.as_str()]
    );
    assert_eq!(ids(&list("?surface=changelog").await), Vec::<String>::new());
    let first = list("").await;
    assert_eq!(first["data"][0]["mdx_body"], "c");

    for bad in ["?surface=wiki", "?status=archived", "?surface=Blog"] {
        app.get(&format!("/v1/workspaces/{ws}/articles{bad}"))
            .token(&read)
            .expect_error(400, "invalid_request")
            .await;
    }
}

#[tokio::test]
async fn every_version_stays_readable_newest_first() {
    let app = app!();
    let ws = app.workspace("W").await;
    let read = app.token(&ws, "read").await;
    let id = app
        .write_article(&ws, "export", Surface::Changelog, "first")
        .await;
    let again = app
        .write_article(&ws, "export", Surface::Changelog, "second")
        .await;
    assert_eq!(again, id, "one article per (workspace, feature, surface)");

    let current = app
        .get(&format!("/v1/articles/{id}"))
        .token(&read)
        .expect(200)
        .await;
    assert_eq!(current["version"], 2);
    assert_eq!(current["mdx_body"], "second");

    let versions = app
        .get(&format!("/v1/articles/{id}/versions"))
        .token(&read)
        .expect(200)
        .await;
    let items = versions["data"].as_array().expect("data");
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["version"], 2);
    assert_eq!(items[0]["mdx_body"], "second");
    assert_eq!(items[1]["version"], 1);
    assert_eq!(items[1]["mdx_body"], "first");
    assert_ne!(items[0]["run_id"], items[1]["run_id"]);
    assert_eq!(items[0]["run_id"], current["run_id"]);
    assert!(versions["next_cursor"].is_null());
}

async fn published_events(db: &TestDatabase, article: &str) -> i64 {
    db.count(&format!(
        "SELECT COUNT(*) FROM events WHERE event_type = 'article.published' AND payload LIKE '%{article}%'"
    ))
    .await
}

#[tokio::test]
async fn publish_sets_the_url_and_emits_one_event() {
    let app = app!();
    let ws = app.workspace("W").await;
    let publisher = app.token(&ws, "publish").await;
    let hook = app
        .webhook(&ws, "https://example.com/hook", &["article.published"])
        .await;
    let other = app
        .webhook(&ws, "https://example.com/other", &["article.drafted"])
        .await;
    let id = app
        .write_article(
            &ws,
            "export",
            Surface::DevDocs,
            "---\ntitle: Export\n---\n# Export\n",
        )
        .await;
    let publish = format!("/v1/articles/{id}/publish");

    let a = app.post(&publish).token(&publisher).expect(200).await;
    assert_eq!(a["status"], "published");
    assert_eq!(a["version"], 1);
    let public_url = a["public_url"].as_str().expect("public_url").to_owned();
    assert!(public_url.starts_with(&app.base), "{public_url}");

    // No token needed; the MDX for a client that asks for it, the page for the others.
    let mdx = app
        .get(&public_url)
        .anonymous()
        .header("accept", "text/markdown")
        .expect_text(200)
        .await;
    assert_eq!(mdx, "---\ntitle: Export\n---\n# Export\n");
    let page = app.get(&public_url).anonymous().expect_text(200).await;
    assert!(page.contains("<h1>Export</h1>"), "{page}");
    assert_eq!(published_events(&app.db, &id).await, 1);
    let deliveries = |hook: &Value| {
        let path = format!(
            "/v1/webhooks/{}/deliveries",
            hook["id"].as_str().expect("id")
        );
        let app = &app;
        async move { app.get(&path).expect(200).await }
    };
    let list = deliveries(&hook).await;
    assert_eq!(list["data"].as_array().map(Vec::len), Some(1));
    assert_eq!(list["data"][0]["event_type"], "article.published");
    assert_eq!(
        deliveries(&other).await["data"],
        json!([]),
        "not subscribed"
    );

    // Publishing the published version again changes and emits nothing.
    let again = app
        .post(&publish)
        .token(&publisher)
        .json(&json!({}))
        .expect(200)
        .await;
    assert_eq!(again["status"], "published");
    assert_eq!(again["public_url"], public_url.as_str());
    assert_eq!(published_events(&app.db, &id).await, 1, "no second event");
    assert_eq!(
        deliveries(&hook).await["data"].as_array().map(Vec::len),
        Some(1)
    );

    // A new version is a draft again, and publishing it emits again and serves the new body.
    app.write_article(&ws, "export", Surface::DevDocs, "# Export v2\n")
        .await;
    let v2 = app.post(&publish).token(&publisher).expect(200).await;
    assert_eq!(v2["version"], 2);
    assert_eq!(published_events(&app.db, &id).await, 2);
    let mdx = app
        .get(&format!("{public_url}.mdx"))
        .anonymous()
        .expect_text(200)
        .await;
    assert_eq!(mdx, "# Export v2\n");
}

#[tokio::test]
async fn an_unpublished_article_has_no_public_page() {
    let app = app!();
    let ws = app.workspace("W").await;
    let id = app
        .write_article(&ws, "export", Surface::Blog, "draft")
        .await;
    let res = app
        .get(&format!("/published/{id}"))
        .anonymous()
        .send()
        .await;
    assert_eq!(res.status(), 404);
    assert!(
        res.headers()
            .get("request-id")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("req_")),
        "a portal page carries our request id: {:?}",
        res.headers()
    );
    // Its MDX gets the API's envelope, whole: the request id it answered with, the docs link.
    let res = app
        .get(&format!("/published/{id}.mdx"))
        .anonymous()
        .send()
        .await;
    assert_eq!(res.status(), 404);
    let request_id = res
        .headers()
        .get("request-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let body: serde_json::Value = res.json().await.expect("an envelope");
    assert_eq!(body["error"]["type"], "not_found", "{body}");
    assert!(request_id.starts_with("req_"), "{request_id:?}");
    assert_eq!(body["error"]["request_id"], request_id.as_str(), "{body}");
    assert_eq!(
        body["error"]["docs"],
        app.url("/docs/errors#not_found").as_str(),
        "{body}"
    );
}

#[tokio::test]
async fn publishing_needs_the_publish_scope() {
    let app = app!();
    let ws = app.workspace("W").await;
    let write = app.token(&ws, "write").await;
    let id = app
        .write_article(&ws, "export", Surface::Blog, "draft")
        .await;
    let res = app
        .post(&format!("/v1/articles/{id}/publish"))
        .token(&write)
        .send()
        .await;
    let res_headers = res.headers().clone();
    expect_error(res, 403, "insufficient_scope").await;
    assert!(
        res_headers
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.contains("scope=\"publish\""))
    );
    let a = app
        .get(&format!("/v1/articles/{id}"))
        .token(&write)
        .expect(200)
        .await;
    assert_eq!(a["status"], "draft");
    assert!(a["public_url"].is_null());
    assert_eq!(published_events(&app.db, &id).await, 0);
}

#[tokio::test]
async fn regenerate_queues_a_run_for_the_articles_surface() {
    let app = app!();
    let ws = app.workspace("W").await;
    let write = app.token(&ws, "write").await;
    let id = app
        .write_article(&ws, "src", Surface::DevDocs, "docs")
        .await;
    let regenerate = format!("/v1/articles/{id}/regenerate");

    let (headers, run) = app
        .post(&regenerate)
        .token(&write)
        .expect_with_headers(201)
        .await;
    let location = headers
        .get("location")
        .and_then(|v| v.to_str().ok())
        .expect("Location");
    assert_eq!(run["status"], "queued");
    assert_eq!(run["feature_id"], "src");
    assert_eq!(run["surfaces"], json!(["dev-docs"]));
    assert_eq!(run["workspace_id"], ws.as_str());
    assert_eq!(
        location,
        app.url(&format!("/v1/runs/{}", run["id"].as_str().expect("id")))
    );

    // Coalesced.
    let again = app
        .post(&regenerate)
        .token(&write)
        .json(&json!({"tier": "priority"}))
        .expect(200)
        .await;
    assert_eq!(again["id"], run["id"]);
    assert_eq!(again["tier"], "priority");
    assert_eq!(again["surfaces"], json!(["dev-docs"]));

    let read = app.token(&ws, "read").await;
    app.post(&regenerate)
        .token(&read)
        .expect_error(403, "insufficient_scope")
        .await;
}
