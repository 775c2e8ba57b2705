//! Articles: written through the store as a run would write them, then read, filtered,
//! published and regenerated over HTTP.

use domain::Surface;
use serde_json::{Value, json};

use crate::helpers::{body, expect_error};
use crate::{app, app_db};

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
    let res = app.get(&format!("/v1/articles/{id}"), &read).await;
    assert_eq!(res.status(), 200);
    let a = body(res).await;
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

    let res = app
        .get("/v1/articles/art_0193000000007000800000000000000a", &read)
        .await;
    expect_error(res, 404, "not_found").await;
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
    let res = app
        .request(
            reqwest::Method::POST,
            &format!("/v1/articles/{c}/publish"),
            &app.platform_token,
        )
        .send()
        .await
        .expect("publish");
    assert_eq!(res.status(), 200);

    let list = |query: &'static str| {
        let app = &app;
        let read = &read;
        let ws = &ws;
        async move {
            let res = app
                .get(&format!("/v1/workspaces/{ws}/articles{query}"), read)
                .await;
            assert_eq!(res.status(), 200, "{query}");
            body(res).await
        }
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
        let res = app
            .get(&format!("/v1/workspaces/{ws}/articles{bad}"), &read)
            .await;
        expect_error(res, 400, "invalid_request").await;
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

    let current = body(app.get(&format!("/v1/articles/{id}"), &read).await).await;
    assert_eq!(current["version"], 2);
    assert_eq!(current["mdx_body"], "second");

    let res = app.get(&format!("/v1/articles/{id}/versions"), &read).await;
    assert_eq!(res.status(), 200);
    let versions = body(res).await;
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

async fn published_events(db: &crate::helpers::Database, article: &str) -> i64 {
    db.count(&format!(
        "SELECT COUNT(*) FROM events WHERE event_type = 'article.published' AND payload LIKE '%{article}%'"
    ))
    .await
}

#[tokio::test]
async fn publish_sets_the_url_and_emits_one_event() {
    let (app, db) = app_db!();
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

    let res = app
        .request(
            reqwest::Method::POST,
            &format!("/v1/articles/{id}/publish"),
            &publisher,
        )
        .send()
        .await
        .expect("publish");
    assert_eq!(res.status(), 200);
    let a = body(res).await;
    assert_eq!(a["status"], "published");
    assert_eq!(a["version"], 1);
    let public_url = a["public_url"].as_str().expect("public_url").to_owned();
    assert!(public_url.starts_with(&app.base), "{public_url}");

    let page = app
        .client
        .get(&public_url)
        .send()
        .await
        .expect("public page");
    assert_eq!(page.status(), 200, "no token needed");
    assert_eq!(
        page.text().await.expect("text"),
        "---\ntitle: Export\n---\n# Export\n"
    );
    assert_eq!(published_events(&db, &id).await, 1);
    let deliveries = |hook: &Value| {
        let path = format!(
            "/v1/webhooks/{}/deliveries",
            hook["id"].as_str().expect("id")
        );
        let app = &app;
        async move { body(app.get(&path, &app.platform_token).await).await }
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
    let res = app
        .request(
            reqwest::Method::POST,
            &format!("/v1/articles/{id}/publish"),
            &publisher,
        )
        .json(&json!({}))
        .send()
        .await
        .expect("publish again");
    assert_eq!(res.status(), 200);
    let again = body(res).await;
    assert_eq!(again["status"], "published");
    assert_eq!(again["public_url"], public_url.as_str());
    assert_eq!(published_events(&db, &id).await, 1, "no second event");
    assert_eq!(
        deliveries(&hook).await["data"].as_array().map(Vec::len),
        Some(1)
    );

    // A new version is a draft again, and publishing it emits again and serves the new body.
    app.write_article(&ws, "export", Surface::DevDocs, "# Export v2\n")
        .await;
    let res = app
        .request(
            reqwest::Method::POST,
            &format!("/v1/articles/{id}/publish"),
            &publisher,
        )
        .send()
        .await
        .expect("publish v2");
    assert_eq!(body(res).await["version"], 2);
    assert_eq!(published_events(&db, &id).await, 2);
    let page = app
        .client
        .get(&public_url)
        .send()
        .await
        .expect("public page");
    assert_eq!(page.text().await.expect("text"), "# Export v2\n");
}

#[tokio::test]
async fn an_unpublished_article_has_no_public_page() {
    let app = app!();
    let ws = app.workspace("W").await;
    let id = app
        .write_article(&ws, "export", Surface::Blog, "draft")
        .await;
    let res = app
        .client
        .get(app.url(&format!("/published/{id}")))
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), 404);
}

#[tokio::test]
async fn publishing_needs_the_publish_scope() {
    let (app, db) = app_db!();
    let ws = app.workspace("W").await;
    let write = app.token(&ws, "write").await;
    let id = app
        .write_article(&ws, "export", Surface::Blog, "draft")
        .await;
    let res = app
        .request(
            reqwest::Method::POST,
            &format!("/v1/articles/{id}/publish"),
            &write,
        )
        .send()
        .await
        .expect("publish");
    let res_headers = res.headers().clone();
    expect_error(res, 403, "insufficient_scope").await;
    assert!(
        res_headers
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.contains("scope=\"publish\""))
    );
    let a = body(app.get(&format!("/v1/articles/{id}"), &write).await).await;
    assert_eq!(a["status"], "draft");
    assert!(a["public_url"].is_null());
    assert_eq!(published_events(&db, &id).await, 0);
}

#[tokio::test]
async fn regenerate_queues_a_run_for_the_articles_surface() {
    let app = app!();
    let ws = app.workspace("W").await;
    let write = app.token(&ws, "write").await;
    let id = app
        .write_article(&ws, "src", Surface::DevDocs, "docs")
        .await;

    let res = app
        .request(
            reqwest::Method::POST,
            &format!("/v1/articles/{id}/regenerate"),
            &write,
        )
        .send()
        .await
        .expect("regenerate");
    assert_eq!(res.status(), 201);
    let location = res
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .expect("Location");
    let run = body(res).await;
    assert_eq!(run["status"], "queued");
    assert_eq!(run["feature_id"], "src");
    assert_eq!(run["surfaces"], json!(["dev-docs"]));
    assert_eq!(run["workspace_id"], ws.as_str());
    assert_eq!(
        location,
        app.url(&format!("/v1/runs/{}", run["id"].as_str().expect("id")))
    );

    let res = app
        .request(
            reqwest::Method::POST,
            &format!("/v1/articles/{id}/regenerate"),
            &write,
        )
        .json(&json!({"tier": "priority"}))
        .send()
        .await
        .expect("regenerate again");
    assert_eq!(res.status(), 200, "coalesced");
    let again = body(res).await;
    assert_eq!(again["id"], run["id"]);
    assert_eq!(again["tier"], "priority");
    assert_eq!(again["surfaces"], json!(["dev-docs"]));

    let read = app.token(&ws, "read").await;
    let res = app
        .request(
            reqwest::Method::POST,
            &format!("/v1/articles/{id}/regenerate"),
            &read,
        )
        .send()
        .await
        .expect("regenerate with read");
    expect_error(res, 403, "insufficient_scope").await;
}
