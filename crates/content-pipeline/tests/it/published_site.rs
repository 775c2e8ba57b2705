//! The published site: an article made by a real run on a fixture repository, published,
//! then read as a reader does: its page, its MDX, its images, its workspace's index and the
//! changelog feed; and what the site refuses to serve.

use std::str::FromStr;

use reqwest::Response;
use reqwest::header::HeaderMap;
use serde_json::Value;
use testkit::Repo;

use crate::app;
use crate::helpers::TestApp;

const PAGE_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self'; media-src 'self'; connect-src 'self'; form-action 'self'; \
     frame-ancestors 'none'; base-uri 'none'";
const BROWSER_ACCEPT: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
const CAPTURE: &[u8] = b"\x89PNG\r\n\x1a\n the capture of step one";
const DIAGRAM: &[u8] = b"<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>";

/// A repository whose walkthrough has a captured step, whose guide shows an SVG, a missing
/// image and a symlink to a file outside what the article shows, and which holds files no
/// article references.
fn fixture(app: &TestApp) -> Repo {
    let mut repo = Repo::init(&app.dir.path().join("site-repo"));
    repo.write("src/lib.rs", "/// Adds.\npub fn add(a: i32, b: i32) -> i32 { a + b }\n")
        .write(
            "docs/guide.md",
            "# Guide\n\nThe flow:\n\n![Diagram](img/flow.svg)\n\n![Gone](img/missing.png)\n\n![Linked](img/link.png)\n",
        )
        .write("docs/img/flow.svg", DIAGRAM)
        .write("captures/one.png", CAPTURE)
        .write("captures/unused.png", b"\x89PNG unused")
        .write("secret.png", b"\x89PNG secret")
        .symlink("docs/img/link.png", "../../secret.png")
        .write(
            ".content-pipeline/features.toml",
            "[[features]]\nid = \"numbers\"\ntitle = \"Numbers\"\nsummary = \"Small helpers.\"\npaths = [\"src/**\", \"docs/**\"]\ncaptures = \"captures\"\n\n[[features.steps]]\ntitle = \"Install the crate\"\nbody = \"Run `cargo add numbers`.\"\ncapture = \"one.png\"\n\n[[features.steps]]\ntitle = \"Add two numbers\"\nbody = \"Call `add(1, 2)`.\"\n",
        );
    repo.commit("feat: add numbers");
    repo
}

/// Runs `numbers` in a new workspace on the fixture; returns the workspace and its articles.
async fn generated(app: &TestApp) -> (String, Vec<Value>) {
    generated_from(app, &fixture(app)).await
}

/// Runs `numbers` in a new workspace on `repo`; returns the workspace and its articles.
pub(crate) async fn generated_from(app: &TestApp, repo: &Repo) -> (String, Vec<Value>) {
    let ws = app.workspace_on("Numbers team", &repo.path).await;
    let run = app.run_feature(&ws, "numbers").await;
    assert_eq!(run["status"], "succeeded", "{run}");
    let list = app
        .get(&format!("/v1/workspaces/{ws}/articles"))
        .expect(200)
        .await;
    (ws, list["data"].as_array().cloned().unwrap_or_default())
}

fn article<'a>(articles: &'a [Value], surface: &str) -> &'a Value {
    articles
        .iter()
        .find(|a| a["surface"] == surface)
        .unwrap_or_else(|| panic!("a {surface} article"))
}

/// Publishes; returns the public URL.
async fn publish(app: &TestApp, article: &Value) -> String {
    let published = app
        .post(&format!(
            "/v1/articles/{}/publish",
            article["id"].as_str().unwrap()
        ))
        .expect(200)
        .await;
    published["public_url"]
        .as_str()
        .expect("public_url")
        .to_owned()
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_else(|| panic!("no {name} header"))
}

/// A page as a browser asks for it: its body, after checking the status and the headers every
/// page has.
async fn page(app: &TestApp, url: &str, status: u16) -> String {
    let res = app
        .get(url)
        .anonymous()
        .header("accept", BROWSER_ACCEPT)
        .send()
        .await;
    assert_eq!(res.status(), status, "{url}");
    let headers = res.headers();
    assert!(
        header(headers, "content-type").starts_with("text/html"),
        "{url}"
    );
    assert_eq!(
        header(headers, "content-security-policy"),
        PAGE_CSP,
        "{url}"
    );
    assert_eq!(
        header(headers, "referrer-policy"),
        "strict-origin-when-cross-origin"
    );
    assert_eq!(header(headers, "x-content-type-options"), "nosniff");
    res.text().await.expect("body")
}

/// The status of a GET of `path` sent byte for byte, without the normalisation of `.` and
/// `..` segments an HTTP client applies.
async fn raw_status(app: &TestApp, path: &str) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let address = app.base.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(address)
        .await
        .expect("connect");
    let request = format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.expect("read");
    let answer = String::from_utf8_lossy(&answer);
    answer
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {answer}"))
}

async fn get(app: &TestApp, path: &str) -> Response {
    app.get(path).anonymous().send().await
}

#[tokio::test]
async fn a_published_walkthrough_is_a_page_with_its_captures_and_its_mdx() {
    let app = app!(TestApp::builder().run_worker());
    let (ws, articles) = generated(&app).await;
    let help = article(&articles, "help-center");
    let id = help["id"].as_str().unwrap();
    let mdx = help["mdx_body"].as_str().unwrap();
    let public_url = publish(&app, help).await;
    assert!(
        public_url.ends_with(&format!("/published/{id}")),
        "{public_url}"
    );

    let res = get(&app, &public_url).await;
    assert_eq!(
        header(res.headers(), "vary"),
        "accept",
        "the page and the MDX share a URL"
    );
    let html = page(&app, &public_url, 200).await;
    for part in [
        "<title>Numbers · Numbers team</title>",
        "<header class=\"site-header\">",
        "<nav aria-label=\"Site\">",
        "<main id=\"content\" class=\"docs-main\">",
        &format!("<a class=\"site-name\" href=\"/published/workspaces/{ws}\">Numbers team</a>"),
        &format!("<a href=\"/published/{id}.mdx\" type=\"text/markdown\">MDX source</a>"),
        "<h1>Numbers</h1>",
        "<ol class=\"steps\">",
        "<h2 class=\"step-title\">Install the crate <a class=\"heading-link\"",
        &format!(
            "<figure class=\"frame\"><img src=\"/published/{id}/files/captures/one.png\" alt=\"Install the crate\"></figure>"
        ),
        &format!("<img src=\"/published/{id}/files/docs/img/flow.svg\" alt=\"Diagram\">"),
        // Not in the repository, or not a regular file: the alt text, not a broken image.
        "<span class=\"image-alt\">Gone</span>",
        "<span class=\"image-alt\">Linked</span>",
    ] {
        assert!(html.contains(part), "no {part:?} in:\n{html}");
    }
    // No script but the search box's own file (no inline script: the policy forbids it).
    assert_eq!(
        html.matches("<script").count(),
        html.matches("<script src=\"/published/assets/search.js?v=")
            .count(),
        "{html}"
    );
    assert!(!html.contains("style="), "{html}");

    // The stylesheets the page links are served.
    for href in html
        .split("<link rel=\"stylesheet\" href=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
    {
        let res = get(&app, href).await;
        assert_eq!(res.status(), 200, "{href}");
        assert!(header(res.headers(), "content-type").starts_with("text/css"));
        assert!(!res.text().await.unwrap().is_empty());
    }

    // The MDX, exactly as the API has always served it.
    for res in [
        app.get(&public_url)
            .anonymous()
            .header("accept", "text/markdown")
            .send()
            .await,
        get(&app, &format!("/published/{id}.mdx")).await,
    ] {
        assert_eq!(res.status(), 200);
        let headers = res.headers();
        assert_eq!(
            header(headers, "content-type"),
            "text/markdown; charset=utf-8"
        );
        assert_eq!(
            header(headers, "content-security-policy"),
            "default-src 'none'; sandbox"
        );
        assert_eq!(header(headers, "x-content-type-options"), "nosniff");
        assert_eq!(header(headers, "vary"), "accept");
        assert_eq!(res.text().await.unwrap(), mdx);
    }
    let typed = app.platform_api().published_id(&id.parse().unwrap()).await;
    assert_eq!(typed.expect("the typed client reads the MDX"), mdx);

    // The images the article shows, from the repository at the run's commit.
    let capture = format!("/published/{id}/files/captures/one.png");
    let res = get(&app, &capture).await;
    assert_eq!(res.status(), 200);
    let headers = res.headers().clone();
    assert_eq!(header(&headers, "content-type"), "image/png");
    assert_eq!(header(&headers, "x-content-type-options"), "nosniff");
    let etag = header(&headers, "etag").to_owned();
    assert_eq!(res.bytes().await.unwrap().as_ref(), CAPTURE);
    let again = app
        .get(&capture)
        .anonymous()
        .header("if-none-match", etag)
        .send()
        .await;
    assert_eq!(
        again.status(),
        304,
        "a cache holding these bytes keeps them"
    );

    let res = get(&app, &format!("/published/{id}/files/docs/img/flow.svg")).await;
    assert_eq!(res.status(), 200);
    assert_eq!(header(res.headers(), "content-type"), "image/svg+xml");
    let csp = header(res.headers(), "content-security-policy");
    assert!(
        csp.contains("default-src 'none'") && csp.contains("sandbox"),
        "{csp}"
    );
    assert_eq!(res.bytes().await.unwrap().as_ref(), DIAGRAM);

    // The working tree is not what is served: the commit is.
    std::fs::write(
        app.dir.path().join("site-repo/captures/one.png"),
        b"changed",
    )
    .unwrap();
    let res = get(&app, &capture).await;
    assert_eq!(res.bytes().await.unwrap().as_ref(), CAPTURE);
}

#[tokio::test]
async fn only_the_files_an_article_shows_are_served() {
    let app = app!(TestApp::builder().run_worker());
    let (_, articles) = generated(&app).await;
    let help = article(&articles, "help-center");
    let id = help["id"].as_str().unwrap();
    let files = format!("/published/{id}/files");
    // Before publishing, nothing is served, not even a referenced file.
    assert_eq!(
        get(&app, &format!("{files}/captures/one.png"))
            .await
            .status(),
        404
    );
    publish(&app, help).await;
    assert_eq!(
        get(&app, &format!("{files}/captures/one.png"))
            .await
            .status(),
        200
    );
    for refused in [
        // In the repository but not shown by the article.
        "captures/unused.png",
        "secret.png",
        "src/lib.rs",
        ".content-pipeline/features.toml",
        // Shown, but missing at the commit, or a symlink.
        "docs/img/missing.png",
        "docs/img/link.png",
        // Out of the repository, or around the reference check (a client normalises `..`
        // and `.` segments; encoded slashes reach the server as they are).
        "..%2f..%2fsecret.png",
        "docs%2f..%2fcaptures%2fone.png",
        "/etc/passwd",
        "%2Fetc%2Fpasswd",
        "captures/one.png%00",
        "captures//one.png",
    ] {
        let res = get(&app, &format!("{files}/{refused}")).await;
        assert_eq!(res.status(), 404, "{refused}");
        let body = res.bytes().await.unwrap();
        assert!(!body.windows(6).any(|w| w == b"secret"), "{refused}");
    }
    // Dot segments sent as they are, as no ordinary client sends them.
    for raw in [
        "../../secret.png",
        "docs/../captures/one.png",
        "./captures/one.png",
        "../../../../../../etc/passwd",
    ] {
        assert_eq!(
            raw_status(&app, &format!("{files}/{raw}")).await,
            404,
            "{raw}"
        );
    }
    // Another article's id, a malformed one.
    let blog = article(&articles, "blog")["id"].as_str().unwrap();
    assert_eq!(
        get(&app, &format!("/published/{blog}/files/captures/one.png"))
            .await
            .status(),
        404
    );
    assert_eq!(
        get(&app, "/published/nope/files/captures/one.png")
            .await
            .status(),
        404
    );
}

#[tokio::test]
async fn an_article_page_is_a_page_of_the_docs_site() {
    let app = app!(TestApp::builder().run_worker());
    let repo = fixture(&app);
    repo.set_origin("https://github.com/acme/numbers.git");
    let commit = repo.head();
    let (ws, articles) = generated_from(&app, &repo).await;
    let help = article(&articles, "help-center");
    let dev = article(&articles, "dev-docs");
    let changelog = article(&articles, "changelog");
    let id = |a: &Value| a["id"].as_str().unwrap().to_owned();
    let help_url = publish(&app, help).await;
    publish(&app, dev).await;
    publish(&app, changelog).await;

    let html = page(&app, &help_url, 200).await;
    let (help_id, dev_id, changelog_id) = (id(help), id(dev), id(changelog));
    let absolute = app.url(&format!("/published/{help_id}"));
    for part in [
        // Found and shared: canonical address, description, OpenGraph and Twitter cards.
        format!("<link rel=\"canonical\" href=\"{absolute}\">"),
        format!("<meta property=\"og:url\" content=\"{absolute}\">"),
        "<meta property=\"og:title\" content=\"Numbers\">".to_owned(),
        "<meta property=\"og:site_name\" content=\"Numbers team\">".to_owned(),
        "<meta name=\"twitter:card\" content=\"summary\">".to_owned(),
        "<meta name=\"description\" content=\"".to_owned(),
        // The sidebar: every published article by surface, this one current.
        "<nav id=\"docs-nav\" class=\"docs-sidebar\"".to_owned(),
        "<h3 class=\"sidebar-group-title\">Help center</h3>".to_owned(),
        "<h3 class=\"sidebar-group-title\">Developer docs</h3>".to_owned(),
        "<h3 class=\"sidebar-group-title\">Changelog</h3>".to_owned(),
        format!("<a href=\"/published/{help_id}\" aria-current=\"page\">Numbers</a>"),
        format!("<a href=\"/published/{changelog_id}\">Numbers changelog</a>"),
        // Help center comes first: no previous page; the developer docs come next.
        format!("<a class=\"pager-next\" rel=\"next\" href=\"/published/{dev_id}\">"),
        // The outline of its sections.
        "<nav class=\"docs-outline\" aria-labelledby=\"outline-heading\">".to_owned(),
        "<li class=\"outline-level-2\"><a href=\"#install-the-crate\">Install the crate</a></li>"
            .to_owned(),
        // When and from what it was written, linked to the forge.
        "<p class=\"last-updated\">Last updated <time datetime=\"".to_owned(),
        format!(
            "from commit <a href=\"https://github.com/acme/numbers/commit/{commit}\"><code>{}</code></a>",
            &commit[..12]
        ),
        "<p>Edit the source:</p>".to_owned(),
        format!(
            "<a href=\"https://github.com/acme/numbers/blob/{commit}/docs/guide.md\"><code>docs/guide.md</code></a>"
        ),
    ] {
        assert!(html.contains(&part), "no {part:?} in:\n{html}");
    }
    assert!(
        !html.contains("pager-previous"),
        "the first page has no previous"
    );
    // The service's own fields stay out of a reader's page.
    for internal in ["source_commit", "surface: ", "article-meta", "<dt>feature"] {
        assert!(!html.contains(internal), "{internal:?} in:\n{html}");
    }

    // The last page links back and has no next.
    let last = page(&app, &format!("/published/{changelog_id}"), 200).await;
    assert!(
        last.contains(&format!(
            "<a class=\"pager-previous\" rel=\"prev\" href=\"/published/{dev_id}\">"
        )),
        "{last}"
    );
    assert!(!last.contains("pager-next"), "{last}");

    // The sitemap lists the index and every published page, with absolute addresses.
    let res = get(&app, &format!("/published/workspaces/{ws}/sitemap.xml")).await;
    assert_eq!(res.status(), 200);
    assert!(header(res.headers(), "content-type").starts_with("application/xml"));
    let xml = res.text().await.unwrap();
    let document = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}:\n{xml}"));
    let locations: Vec<&str> = document
        .descendants()
        .filter(|n| n.has_tag_name("loc"))
        .filter_map(|n| n.text())
        .collect();
    assert_eq!(locations.len(), 4, "{xml}");
    assert_eq!(
        locations[0],
        app.url(&format!("/published/workspaces/{ws}"))
    );
    for article in [&help_id, &dev_id, &changelog_id] {
        assert!(
            locations.contains(&app.url(&format!("/published/{article}")).as_str()),
            "{article} in {xml}"
        );
    }
    assert_eq!(
        document
            .descendants()
            .filter(|n| n.has_tag_name("lastmod"))
            .count(),
        4
    );
    let other = app.workspace_on("Other", &repo.path).await;
    assert_eq!(
        get(&app, &format!("/published/workspaces/{other}/sitemap.xml"))
            .await
            .status(),
        404,
        "nothing published, no sitemap"
    );
}

#[tokio::test]
async fn the_index_lists_published_articles_and_the_feed_has_the_changelog() {
    let app = app!(TestApp::builder().run_worker());
    let (ws, articles) = generated(&app).await;
    let index = format!("/published/workspaces/{ws}");
    // Nothing published yet: no public index, no feed.
    page(&app, &index, 404).await;
    assert_eq!(
        get(&app, &format!("{index}/changelog.atom")).await.status(),
        404
    );

    let help = article(&articles, "help-center");
    let changelog = article(&articles, "changelog");
    let help_url = publish(&app, help).await;
    let changelog_url = publish(&app, changelog).await;
    let dev = article(&articles, "dev-docs")["id"].as_str().unwrap();

    let html = page(&app, &index, 200).await;
    let feed_path = format!("/published/workspaces/{ws}/changelog.atom");
    for part in [
        "<h1>Numbers team documentation</h1>",
        "<h2 id=\"help-center\">Help center</h2>",
        "<h2 id=\"changelog\">Changelog</h2>",
        &format!(
            "<a href=\"/published/{}\">Numbers</a>",
            help["id"].as_str().unwrap()
        ),
        &format!(
            "<a href=\"/published/{}\">Numbers changelog</a>",
            changelog["id"].as_str().unwrap()
        ),
        &format!(
            "<link rel=\"alternate\" type=\"application/atom+xml\" title=\"Numbers team changelog\" href=\"{feed_path}\">"
        ),
    ] {
        assert!(html.contains(part), "no {part:?} in:\n{html}");
    }
    assert!(!html.contains(dev), "an unpublished article is not listed");
    assert!(
        html.find("Help center") < html.find("Changelog"),
        "surfaces in order"
    );
    // Each article page links its index.
    assert!(
        page(&app, &help_url, 200)
            .await
            .contains(&format!("href=\"{index}\""))
    );

    let res = get(&app, &feed_path).await;
    assert_eq!(res.status(), 200);
    assert!(header(res.headers(), "content-type").starts_with("application/atom+xml"));
    let xml = res.text().await.unwrap();
    let feed = atom_syndication::Feed::from_str(&xml).unwrap_or_else(|e| panic!("{e}:\n{xml}"));
    assert_eq!(feed.title().as_str(), "Numbers team changelog");
    assert!(feed.id().ends_with(&feed_path), "{}", feed.id());
    assert_eq!(feed.entries().len(), 1, "only the changelog surface");
    let entry = &feed.entries()[0];
    assert_eq!(entry.title().as_str(), "Numbers changelog");
    assert_eq!(entry.id(), format!("{changelog_url}#v1"));
    assert_eq!(entry.links()[0].href(), changelog_url);
    let content = entry.content().expect("content");
    assert_eq!(content.content_type(), Some("html"));
    let body = content.value().expect("html");
    assert!(body.contains("<section class=\"update\""), "{body}");
    assert!(body.contains("Add numbers"), "{body}");

    // The page of an article that is not published is not found, as a page and as MDX.
    page(&app, &format!("/published/{dev}"), 404).await;
    let res = app
        .get(&format!("/published/{dev}"))
        .anonymous()
        .header("accept", "text/markdown")
        .send()
        .await;
    assert_eq!(res.status(), 404);
    page(&app, "/published/art_0193000000007000800000000000000a", 404).await;
    page(
        &app,
        "/published/workspaces/ws_0193000000007000800000000000000a",
        404,
    )
    .await;
    page(&app, "/published/workspaces/nope", 404).await;

    // A deleted workspace's published documentation stays up.
    app.delete(&format!("/v1/workspaces/{ws}"))
        .expect(200)
        .await;
    page(&app, &help_url, 200).await;
    page(&app, &index, 200).await;
}
