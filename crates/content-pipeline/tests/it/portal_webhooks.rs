//! The webhook console's endpoint pages over HTTP, as a browser without JavaScript uses them:
//! add (the secret shown once, never cached), edit, disable and enable, rotate, delete; the
//! same role and tenancy rules as the API. (Deliveries, attempts, test events and recovery in
//! Chromium: `webhook_console_browser`.)

use reqwest::StatusCode;
use reqwest::header::CACHE_CONTROL;

use crate::app;
use crate::portal::{csrf_in, location};

/// The `value` of the field marked `data-test="secret-value"`.
fn secret_in(html: &str) -> Option<String> {
    let at = html.find("data-test=\"secret-value\"")?;
    let tag_start = html[..at].rfind('<')?;
    let tag = &html[tag_start..at];
    let v = tag.find("value=\"")? + "value=\"".len();
    let end = tag[v..].find('"')?;
    Some(tag[v..v + end].to_owned())
}

/// The text of the element marked `data-test="{name}"` (up to its closing tag).
fn marked(html: &str, name: &str) -> Option<String> {
    let at = html.find(&format!("data-test=\"{name}\""))?;
    let start = at + html[at..].find('>')? + 1;
    let end = start + html[start..].find('<')?;
    Some(html[start..end].trim().to_owned())
}

fn events(hook: &client::Webhook) -> Vec<&'static str> {
    hook.events.iter().map(|e| e.as_str()).collect()
}

#[tokio::test]
async fn a_writer_adds_edits_pauses_rotates_and_deletes_an_endpoint_from_the_pages() {
    let app = app!();
    let ws = app.workspace("Docs").await;
    let writer = app.person("writer@example.com", Some((&ws, "write"))).await;
    let list = format!("/portal/w/{ws}/webhooks");

    let (status, html) = writer.page(&list).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("data-test=\"no-endpoints\""), "{html}");
    assert!(html.contains("data-test=\"add-endpoint\""));
    let csrf = csrf_in(&html).expect("csrf");

    // Refused input comes back as the form, filled with what was sent, and the reason.
    let refused = writer
        .post(
            &list,
            &[
                ("csrf", &csrf),
                ("url", "http://10.0.0.7/hook"),
                ("events", "run.completed"),
            ],
        )
        .await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let html = refused.text().await.expect("body");
    assert!(marked(&html, "form-error").is_some(), "{html}");
    assert!(html.contains("value=\"http://10.0.0.7/hook\""));
    assert!(
        html.contains("value=\"run.completed\" checked"),
        "the chosen events stay chosen"
    );

    let created = writer
        .post(
            &list,
            &[
                ("csrf", &csrf),
                ("url", "https://hooks.example.com/docs"),
                ("description", "Docs site rebuild"),
                ("events", "run.completed"),
                ("events", "article.published"),
            ],
        )
        .await;
    assert_eq!(created.status(), StatusCode::CREATED);
    assert_eq!(
        created.headers().get(CACHE_CONTROL).map(|v| v.as_bytes()),
        Some(&b"no-store"[..]),
        "the page with the secret is never cached"
    );
    let html = created.text().await.expect("body");
    let secret = secret_in(&html).expect("the secret is shown");
    assert!(secret.starts_with("whsec_"), "{secret}");

    // The API sees what the page made, without its secret.
    let api = app.platform_api();
    let hooks = api
        .list_webhooks(&ws.parse().expect("id"), &Default::default())
        .await
        .expect("list");
    let hook = hooks.data.first().expect("the endpoint");
    let id = hook.id.to_string();
    assert_eq!(hook.url, "https://hooks.example.com/docs");
    assert_eq!(events(hook), ["run.completed", "article.published"]);
    assert_eq!(hook.description.as_deref(), Some("Docs site rebuild"));
    assert!(hook.secret.is_none());
    let get = |id: String| {
        let api = app.platform_api();
        async move { api.get_webhook(&id.parse().expect("id")).await }
    };

    // The list shows it; its page never shows the secret again.
    let (_, html) = writer.page(&list).await;
    assert!(html.contains(&format!("data-id=\"{id}\"")), "{html}");
    let page = format!("{list}/{id}");
    let (status, html) = writer.page(&page).await;
    assert_eq!(status, StatusCode::OK);
    assert!(!html.contains(&secret), "the secret is shown once only");
    assert_eq!(marked(&html, "endpoint-status").as_deref(), Some("active"));

    // Edit: the form is filled with the endpoint as it is.
    let (_, html) = writer.page(&format!("{page}/edit")).await;
    assert!(html.contains("value=\"https://hooks.example.com/docs\""));
    assert!(html.contains("value=\"article.published\" checked"));
    let edited = writer
        .post(
            &format!("{page}/edit"),
            &[
                ("csrf", &csrf),
                ("url", "https://hooks.example.com/v2"),
                ("description", ""),
                ("events", "drift.detected"),
            ],
        )
        .await;
    assert_eq!(edited.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&edited), page);
    let hook = get(id.clone()).await.expect("the endpoint");
    assert_eq!(hook.url, "https://hooks.example.com/v2");
    assert_eq!(events(&hook), ["drift.detected"]);
    assert!(
        hook.description.is_none(),
        "an emptied description is cleared"
    );

    // Disable, then enable.
    let paused = writer
        .post(
            &format!("{page}/active"),
            &[("csrf", &csrf), ("active", "false")],
        )
        .await;
    assert_eq!(paused.status(), StatusCode::SEE_OTHER);
    assert!(!get(id.clone()).await.expect("the endpoint").active);
    let (_, html) = writer.page(&page).await;
    assert_eq!(
        marked(&html, "endpoint-status").as_deref(),
        Some("disabled")
    );
    assert!(html.contains("data-test=\"enable-endpoint\""));
    writer
        .post(
            &format!("{page}/active"),
            &[("csrf", &csrf), ("active", "true")],
        )
        .await;
    assert!(get(id.clone()).await.expect("the endpoint").active);

    // Rotate with a chosen grace period: a new secret, shown once.
    let (status, html) = writer.page(&format!("{page}/rotate")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("data-test=\"grace-period\""));
    let rotated = writer
        .post(
            &format!("{page}/rotate"),
            &[("csrf", &csrf), ("grace_period_seconds", "3600")],
        )
        .await;
    assert_eq!(rotated.status(), StatusCode::OK);
    assert_eq!(
        rotated.headers().get(CACHE_CONTROL).map(|v| v.as_bytes()),
        Some(&b"no-store"[..])
    );
    let html = rotated.text().await.expect("body");
    let new_secret = secret_in(&html).expect("the new secret");
    assert!(new_secret.starts_with("whsec_") && new_secret != secret);
    let too_long = writer
        .post(
            &format!("{page}/rotate"),
            &[("csrf", &csrf), ("grace_period_seconds", "604801")],
        )
        .await;
    assert_eq!(too_long.status(), StatusCode::UNPROCESSABLE_ENTITY);

    // Delete goes through a confirmation page.
    let (status, html) = writer.page(&format!("{page}/delete")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("data-test=\"confirm-delete\""));
    let deleted = writer
        .post(&format!("{page}/delete"), &[("csrf", &csrf)])
        .await;
    assert_eq!(deleted.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&deleted), list);
    let gone = get(id.clone()).await.expect_err("deleted");
    assert_eq!(gone.status(), Some(404));
    let (status, _) = writer.page(&page).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_reader_sees_no_write_controls_and_other_workspaces_endpoints_are_missing() {
    let app = app!();
    let ws = app.workspace("Docs").await;
    let other = app.workspace("Other").await;
    let mine = app
        .webhook(&ws, "https://hooks.example.com/mine", &["run.completed"])
        .await["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let theirs = app
        .webhook(
            &other,
            "https://hooks.example.com/theirs",
            &["run.completed"],
        )
        .await["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let reader = app.person("reader@example.com", Some((&ws, "read"))).await;

    let (status, html) = reader.page(&format!("/portal/w/{ws}/webhooks")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains(&format!("data-id=\"{mine}\"")));
    assert!(!html.contains("data-test=\"add-endpoint\""));
    let page = format!("/portal/w/{ws}/webhooks/{mine}");
    let (status, html) = reader.page(&page).await;
    assert_eq!(status, StatusCode::OK);
    assert!(!html.contains("data-test=\"endpoint-actions\""), "{html}");
    let csrf = csrf_in(&html).expect("csrf");

    // Forged writes, with the reader's own valid token, are refused by role.
    for (path, form) in [
        (
            format!("/portal/w/{ws}/webhooks"),
            vec![
                ("url", "https://hooks.example.com/x"),
                ("events", "run.completed"),
            ],
        ),
        (format!("{page}/active"), vec![("active", "false")]),
        (format!("{page}/delete"), vec![]),
        (
            format!("{page}/rotate"),
            vec![("grace_period_seconds", "0")],
        ),
    ] {
        let mut form = form;
        form.push(("csrf", &csrf));
        let r = reader.post(&path, &form).await;
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "{path}");
    }
    let (status, _) = reader.page(&format!("/portal/w/{ws}/webhooks/new")).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let hook = app
        .platform_api()
        .get_webhook(&mine.parse().expect("id"))
        .await
        .expect("the endpoint");
    assert!(hook.active, "nothing changed");

    for path in [
        format!("/portal/w/{ws}/webhooks/{theirs}"),
        format!("/portal/w/{other}/webhooks"),
        format!("/portal/w/{other}/webhooks/{theirs}"),
        format!("/portal/w/{ws}/webhooks/wh_nonsense"),
    ] {
        let (status, _) = reader.page(&path).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
    }
}
