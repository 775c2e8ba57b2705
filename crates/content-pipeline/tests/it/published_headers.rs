//! What browsers may do with a published article: its MDX is served as text that is never
//! sniffed or run, and its page renders the article under a policy without inline script.

use domain::Surface;

use crate::app;

#[tokio::test]
async fn published_articles_are_never_sniffed_or_run_by_browsers() {
    let app = app!();
    let ws = app.workspace("published").await;
    let article = app
        .write_article(
            &ws,
            "a",
            Surface::Blog,
            "# Title\n\n<script>alert(1)</script>\n",
        )
        .await;
    let published = app
        .post(&format!("/v1/articles/{article}/publish"))
        .expect(200)
        .await;
    let public_url = published["public_url"].as_str().expect("public_url");
    let mdx = app
        .get(public_url)
        .anonymous()
        .header("accept", "text/markdown")
        .send()
        .await;
    assert_eq!(mdx.status(), 200);
    let headers = mdx.headers();
    assert_eq!(headers["x-content-type-options"], "nosniff");
    let csp = headers["content-security-policy"].to_str().expect("ascii");
    assert!(csp.contains("default-src 'none'"), "{csp}");
    assert!(
        headers["content-type"]
            .to_str()
            .expect("ascii")
            .starts_with("text/markdown")
    );
    // The page renders the article without ever running what it holds.
    let page = app.get(public_url).anonymous().send().await;
    assert_eq!(page.status(), 200);
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(csp.contains("script-src 'self'"), "{csp}");
    let html = page.text().await.expect("body");
    assert!(
        html.contains("<h1 id=\"title\">Title <a class=\"heading-link\""),
        "{html}"
    );
    assert!(!html.contains("<script>alert"), "{html}");
}
