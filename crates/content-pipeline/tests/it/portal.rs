//! The portal over HTTP, as a browser without JavaScript uses it: sessions, CSRF and Origin
//! checks, the same tenancy and role rules as the API, runs triggered with `source: portal`.
//! (The browser tests, in real Chromium, are in `portal_browser`.)

use domain::Surface;
use operations::accounts::NewUser;
use reqwest::StatusCode;
use reqwest::header::{LOCATION, ORIGIN};

use crate::app;
use crate::helpers::TestApp;

pub const PASSWORD: &str = "correct horse battery staple";

/// A person with a browser-like client (cookies kept, redirects not followed).
pub struct Person {
    pub email: String,
    pub client: reqwest::Client,
    base: String,
}

impl TestApp {
    /// Creates `email` (a member of `ws` with `role`, or a platform admin without one) with
    /// [`PASSWORD`] set through their sign-in link, and signs them in.
    pub async fn person(&self, email: &str, membership: Option<(&str, &str)>) -> Person {
        let link = self
            .ops
            .create_user(NewUser {
                email: email.into(),
                platform_admin: membership.is_none(),
                membership: membership.map(|(ws, role)| {
                    (
                        ws.parse().expect("a workspace id"),
                        role.parse().expect("a role"),
                    )
                }),
            })
            .await
            .expect("create the user");
        let token = link.url.split("token=").nth(1).expect("a token").to_owned();
        self.ops
            .set_password_with_link(&token, PASSWORD)
            .await
            .expect("set the password");
        let person = Person::new(self, email);
        let answer = person.sign_in(PASSWORD).await;
        assert_eq!(answer.status(), StatusCode::SEE_OTHER, "sign in as {email}");
        person
    }
}

impl Person {
    pub fn new(app: &TestApp, email: &str) -> Self {
        Self {
            email: email.into(),
            client: reqwest::Client::builder()
                .cookie_store(true)
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("a client"),
            base: app.base.clone(),
        }
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .expect("GET")
    }

    pub async fn page(&self, path: &str) -> (StatusCode, String) {
        let r = self.get(path).await;
        let status = r.status();
        (status, r.text().await.expect("a body"))
    }

    /// The CSRF token of the forms on `path`.
    pub async fn csrf(&self, path: &str) -> String {
        let (status, html) = self.page(path).await;
        assert_eq!(status, StatusCode::OK, "{path}: {html}");
        csrf_in(&html).unwrap_or_else(|| panic!("no CSRF field on {path}"))
    }

    /// POSTs `form` as the portal's own page would (its Origin, its CSRF token).
    pub async fn post(&self, path: &str, form: &[(&str, &str)]) -> reqwest::Response {
        self.client
            .post(format!("{}{path}", self.base))
            .header(ORIGIN, self.base.as_str())
            .form(form)
            .send()
            .await
            .expect("POST")
    }

    pub async fn sign_in(&self, password: &str) -> reqwest::Response {
        let csrf = self.csrf("/portal/sign-in").await;
        self.post(
            "/portal/sign-in",
            &[
                ("csrf", &csrf),
                ("email", &self.email),
                ("password", password),
            ],
        )
        .await
    }
}

pub fn csrf_in(html: &str) -> Option<String> {
    let at = html.find("name=\"csrf\" value=\"")? + "name=\"csrf\" value=\"".len();
    let end = html[at..].find('"')?;
    Some(html[at..at + end].to_owned())
}

pub fn location(r: &reqwest::Response) -> String {
    r.headers()
        .get(LOCATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn pages_carry_the_security_headers_and_the_root_leads_to_the_portal() {
    let app = app!();
    let root = app.get("/").anonymous().send().await;
    assert!(root.status().is_redirection());
    let person = Person::new(&app, "nobody@example.com");
    let r = person.get("/portal/sign-in").await;
    assert_eq!(r.status(), StatusCode::OK);
    let h = r.headers();
    let csp = h["content-security-policy"].to_str().expect("text");
    assert!(
        csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"),
        "{csp}"
    );
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert_eq!(h["x-content-type-options"], "nosniff");
    assert!(h.contains_key("referrer-policy"));
    // A page that needs a session sends the visitor to sign in, and back afterwards.
    let r = person.get("/portal/workspaces").await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), "/portal/sign-in?next=%2Fportal%2Fworkspaces");
    // An unknown portal path is an HTML 404.
    let r = person.get("/portal/no/such/page").await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert!(r.text().await.expect("body").contains("<html"));
}

#[tokio::test]
async fn a_wrong_password_and_an_unknown_email_get_the_same_answer_and_the_session_cookie_is_locked_down()
 {
    let app = app!();
    let ws = app.workspace("Docs").await;
    let person = app.person("writer@example.com", Some((&ws, "write"))).await;
    let (status, html) = person.page("/portal/workspaces").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        html.contains("writer@example.com") && html.contains("Docs"),
        "{html}"
    );

    let wrong = Person::new(&app, "writer@example.com")
        .sign_in("not the password!")
        .await;
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    let wrong = wrong.text().await.expect("body");
    let unknown = Person::new(&app, "nobody@example.com")
        .sign_in("not the password!")
        .await;
    assert_eq!(unknown.status(), StatusCode::UNAUTHORIZED);
    let unknown = unknown.text().await.expect("body");
    let message = |html: &str| {
        let at = html.find("data-test=\"sign-in-error\">").expect("an error") + 26;
        html[at..at + html[at..].find('<').expect("end")].to_owned()
    };
    assert_eq!(message(&wrong), message(&unknown));

    let fresh = Person::new(&app, "writer@example.com");
    let signed = fresh.sign_in(PASSWORD).await;
    let cookie = signed
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with("cp_session="))
        .expect("a session cookie")
        .to_owned();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    // The base URL is http here, so the cookie cannot be Secure.
    assert!(!cookie.contains("Secure"), "{cookie}");

    // Signing out ends the session on the server, not just in the browser.
    let csrf = person.csrf("/portal/workspaces").await;
    let out = person.post("/portal/sign-out", &[("csrf", &csrf)]).await;
    assert_eq!(out.status(), StatusCode::SEE_OTHER);
    let value = cookie
        .split(';')
        .next()
        .and_then(|c| c.strip_prefix("cp_session="))
        .expect("a value");
    assert!(app.ops.session(value).await.expect("lookup").is_some());
    let r = person.get("/portal/workspaces").await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER, "signed out");
}

#[tokio::test]
async fn a_form_without_the_csrf_token_or_from_another_origin_is_refused() {
    let app = app!();
    let ws = app.workspace("Docs").await;
    let person = app.person("writer@example.com", Some((&ws, "write"))).await;
    let runs = format!("/portal/w/{ws}/runs");
    let csrf = person.csrf(&runs).await;
    let features = crate::helpers::feature_ids();
    let feature = features[0].as_str();

    let without = person.post(&runs, &[("feature", feature)]).await;
    assert_eq!(without.status(), StatusCode::FORBIDDEN);
    let forged = person
        .post(&runs, &[("csrf", "forged"), ("feature", feature)])
        .await;
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);
    let elsewhere = person
        .client
        .post(format!("{}{runs}", app.base))
        .header(ORIGIN, "https://evil.example")
        .form(&[("csrf", csrf.as_str()), ("feature", feature)])
        .send()
        .await
        .expect("POST");
    assert_eq!(elsewhere.status(), StatusCode::FORBIDDEN);
    let no_origin = person
        .client
        .post(format!("{}{runs}", app.base))
        .form(&[("csrf", csrf.as_str()), ("feature", feature)])
        .send()
        .await
        .expect("POST");
    assert_eq!(no_origin.status(), StatusCode::FORBIDDEN);
    let runs_listed = app
        .platform_api()
        .list_runs(&ws.parse().expect("id"), &Default::default())
        .await
        .expect("runs");
    assert!(runs_listed.data.is_empty(), "no refused form queued a run");

    // The same form with its token is accepted, and the run says it came from the portal.
    let ok = person
        .post(
            &runs,
            &[("csrf", &csrf), ("feature", feature), ("tier", "priority")],
        )
        .await;
    assert_eq!(ok.status(), StatusCode::SEE_OTHER);
    let run_page = location(&ok);
    let run_id = run_page.rsplit('/').next().expect("an id");
    let run = app
        .platform_api()
        .get_run(&run_id.parse().expect("a run id"))
        .await
        .expect("the run");
    assert_eq!(run.source.as_str(), "portal");
    assert_eq!(run.tier.as_str(), "priority");
    let (status, html) = person.page(&run_page).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains(feature) && html.contains("data-test=\"run-source\">portal"));
}

#[tokio::test]
async fn roles_decide_what_a_member_sees_and_may_do_and_other_workspaces_are_missing() {
    let app = app!(TestApp::builder().run_worker());
    let ws = app.workspace("Docs").await;
    let other = app.workspace("Other team").await;
    let features = crate::helpers::feature_ids();
    let feature = features[0].as_str();
    app.run_feature(&ws, feature).await;
    let articles = app
        .platform_api()
        .list_articles(
            &ws.parse().expect("id"),
            &Default::default(),
            &Default::default(),
        )
        .await
        .expect("articles");
    let article = articles.data.first().expect("an article").id.to_string();
    let page = format!("/portal/w/{ws}/articles/{article}");

    let reader = app.person("reader@example.com", Some((&ws, "read"))).await;
    let (status, html) = reader.page(&page).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        !html.contains("data-test=\"publish\""),
        "a reader sees no publish button"
    );
    assert!(!html.contains("data-test=\"regenerate\""));
    // A forged publish, with the reader's own valid token, is refused by role.
    let csrf = csrf_in(&html).expect("csrf");
    let forged = reader
        .post(&format!("{page}/publish"), &[("csrf", &csrf)])
        .await;
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);
    let trigger = reader
        .post(
            &format!("/portal/w/{ws}/runs"),
            &[("csrf", &csrf), ("feature", feature)],
        )
        .await;
    assert_eq!(trigger.status(), StatusCode::FORBIDDEN);

    // Another workspace's pages, and this article under the other workspace, are missing.
    for path in [
        format!("/portal/w/{other}/runs"),
        format!("/portal/w/{other}/articles"),
        format!("/portal/w/{other}/articles/{article}"),
        "/portal/w/ws_nonsense/runs".to_owned(),
    ] {
        let (status, _) = reader.page(&path).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
    }

    let publisher = app
        .person("editor@example.com", Some((&ws, "publish")))
        .await;
    let (_, html) = publisher.page(&page).await;
    assert!(html.contains("data-test=\"publish\""), "{html}");
    let csrf = csrf_in(&html).expect("csrf");
    let published = publisher
        .post(&format!("{page}/publish"), &[("csrf", &csrf)])
        .await;
    assert_eq!(published.status(), StatusCode::SEE_OTHER);
    let (_, html) = publisher.page(&page).await;
    assert!(
        html.contains("data-test=\"article-status\">published"),
        "{html}"
    );
    assert!(
        !html.contains("data-test=\"publish\""),
        "nothing left to publish"
    );

    // A deleted workspace refuses writes to everyone, admins included.
    let admin = app.person("root@example.com", None).await;
    let csrf = admin.csrf("/portal/workspaces").await;
    let deleted = admin
        .post(&format!("/portal/w/{ws}/delete"), &[("csrf", &csrf)])
        .await;
    assert_eq!(deleted.status(), StatusCode::SEE_OTHER);
    let regenerate = admin
        .post(&format!("{page}/regenerate"), &[("csrf", &csrf)])
        .await;
    assert_eq!(regenerate.status(), StatusCode::CONFLICT);
}

#[tokio::test]
async fn an_article_page_shows_the_drift_raised_since_its_version() {
    let app = app!(TestApp::builder().run_worker());
    let mut repo = app.repo("drifting");
    let ws = app.workspace_on("Docs", &repo.path).await;
    app.run_feature(&ws, "src").await;
    let reference = app
        .platform_api()
        .list_articles(
            &ws.parse().expect("id"),
            &Default::default(),
            &Default::default(),
        )
        .await
        .expect("articles")
        .data
        .into_iter()
        .find(|a| a.surface.as_str() == "dev-docs")
        .expect("the reference")
        .id
        .to_string();
    let page = format!("/portal/w/{ws}/articles/{reference}");
    let reader = app.person("reader@example.com", Some((&ws, "read"))).await;
    let (_, html) = reader.page(&page).await;
    assert!(!html.contains("data-test=\"drift\""), "no drift yet");

    repo.write(
        "src/lib.rs",
        "/// Adds, saturating.\npub fn add(a: i32, b: i32) -> i32 { a.saturating_add(b) }\n",
    );
    repo.commit("fix: saturate");
    app.post(&format!("/v1/workspaces/{ws}/drift-check"))
        .json(&serde_json::json!({}))
        .expect(200)
        .await;
    let (status, html) = reader.page(&page).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("data-test=\"drift\""), "{html}");
    assert!(
        html.contains("src/lib.rs") && html.contains("<code>add</code>"),
        "{html}"
    );

    // Regenerating writes a version from the new code: the notice no longer applies to it.
    app.run_feature(&ws, "src").await;
    let (_, html) = reader.page(&page).await;
    assert!(!html.contains("data-test=\"drift\""), "{html}");
}

#[tokio::test]
async fn a_list_pages_with_the_services_signed_cursor() {
    let app = app!();
    let ws = app.workspace("Docs").await;
    for i in 0..53 {
        app.write_article(&ws, &format!("feature-{i:02}"), Surface::Blog, "draft")
            .await;
    }
    let reader = app.person("reader@example.com", Some((&ws, "read"))).await;
    let list = format!("/portal/w/{ws}/articles");
    let (status, first) = reader.page(&list).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(first.matches("data-test=\"article-row\"").count(), 50);
    let next = first
        .split("data-test=\"next-page\"")
        .next()
        .and_then(|head| head.rsplit("href=\"").next())
        .and_then(|tail| tail.split('"').next())
        .expect("a link to the next page")
        .replace("&amp;", "&");
    let cursor = next.split("before=").nth(1).expect("a cursor").to_owned();
    assert!(
        !cursor.contains('.'),
        "an opaque cursor, not a position: {cursor}"
    );
    let (status, second) = reader.page(&next).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(second.matches("data-test=\"article-row\"").count(), 3);
    assert!(!second.contains("data-test=\"next-page\""));
    // A cursor that is not this list's (forged, or a position in clear) starts at the top.
    let other = app.workspace("Other").await;
    for forged in [
        format!("{list}?before=1700000000000000.art_1"),
        format!("{list}?before=x{cursor}"),
    ] {
        let (status, html) = reader.page(&forged).await;
        assert_eq!(status, StatusCode::OK, "{forged}");
        assert_eq!(
            html.matches("data-test=\"article-row\"").count(),
            50,
            "{forged}"
        );
    }
    let outsider = app
        .person("other@example.com", Some((&other, "read")))
        .await;
    let (status, html) = outsider
        .page(&format!("/portal/w/{other}/articles?before={cursor}"))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("data-test=\"no-articles\""), "{html}");
}
