//! The portal and the published site from the keyboard alone: every action reached with Tab
//! and done with Enter, as a person who does not use a mouse does it. Each page reached is
//! audited as every browser test's pages are (axe-core, no sideways scroll, no console error).

use thirtyfour::Key;

use crate::browser::{DESKTOP, NARROW, assert_png, t};
use crate::helpers::TestApp;
use crate::portal::PASSWORD;
use crate::portal_browser::walkthrough_repo;
use crate::published_site::generated_from;
use crate::{app, browser};

#[tokio::test]
async fn signing_in_running_and_publishing_take_only_tab_and_enter() {
    let app = app!(TestApp::builder().run_worker());
    let b = browser!();
    let repo = walkthrough_repo(&app, "keyboard");
    let ws = app.workspace_on("Docs", &repo.path).await;
    app.person("admin@example.com", Some((&ws, "admin"))).await;

    // Sign in: the form's fields and its button.
    b.goto(&app.url("/portal/sign-in")).await;
    b.tab_to("input[name=email]").await;
    b.type_text("admin@example.com").await;
    b.tab_to("input[name=password]").await;
    b.type_text(PASSWORD).await;
    b.press(Key::Enter).await;
    b.wait_for_path("/portal/workspaces").await;

    // The workspace, then its runs; a run of the feature the picker offers.
    b.tab_to(&format!("a[href='/portal/w/{ws}/runs']")).await;
    b.press(Key::Enter).await;
    b.wait_for_path(&format!("/portal/w/{ws}/runs")).await;
    b.tab_to(&t("run-now-submit")).await;
    b.press(Key::Enter).await;
    b.wait_for(&t("run-status")).await;
    b.reload_until(
        &t("run-status"),
        "succeeded",
        std::time::Duration::from_secs(60),
    )
    .await;

    // The articles; the walkthrough, published.
    b.tab_to(&format!("a[href='/portal/w/{ws}/articles']"))
        .await;
    b.press(Key::Enter).await;
    b.wait_for_path(&format!("/portal/w/{ws}/articles")).await;
    b.tab_to(&format!("{} a", t("articles"))).await;
    b.press(Key::Enter).await;
    b.wait_for(&t("preview")).await;
    b.tab_to(&t("publish")).await;
    b.press(Key::Enter).await;
    b.wait_for_text(&t("article-status"), "published").await;

    // Its public page: the skip link comes first and moves the focus to the content.
    b.tab_to(&t("public-url")).await;
    b.press(Key::Enter).await;
    b.wait_for(".docs-main").await;
    b.press(Key::Tab).await;
    let skip = b
        .driver()
        .execute("return document.activeElement.textContent;", Vec::new())
        .await
        .expect("the focused element");
    assert_eq!(skip.json(), "Skip to content");
    b.press(Key::Enter).await;
    b.wait_until("location.hash === '#content'").await;
    b.screenshot().await;
}

#[tokio::test]
async fn the_published_site_has_its_sidebar_beside_the_article_and_below_it_on_a_phone() {
    let app = app!(TestApp::builder().run_worker());
    let b = browser!();
    let repo = walkthrough_repo(&app, "site");
    let (ws, articles) = generated_from(&app, &repo).await;
    let mut pages = Vec::new();
    for article in &articles {
        let id = article["id"].as_str().expect("id");
        let published = app
            .post(&format!("/v1/articles/{id}/publish"))
            .expect(200)
            .await;
        pages.push((
            article["surface"].as_str().expect("surface").to_owned(),
            published["public_url"].as_str().expect("url").to_owned(),
        ));
    }
    let help = &pages
        .iter()
        .find(|(s, _)| s == "help-center")
        .expect("help")
        .1;

    b.goto(&app.url(&format!("/published/workspaces/{ws}")))
        .await;
    b.wait_for_text("h1", "Numbers team documentation").await;
    b.goto(help).await;
    b.wait_for(".docs-sidebar a[aria-current=page]").await;
    let sides: Vec<f64> = b
        .driver()
        .execute(
            "const r = s => document.querySelector(s).getBoundingClientRect(); \
             return [r('.docs-sidebar').right, r('.docs-main').left, r('.docs-outline').left];",
            Vec::new(),
        )
        .await
        .and_then(|a| a.convert())
        .expect("the layout");
    assert!(
        sides[0] <= sides[1],
        "the sidebar is left of the article: {sides:?}"
    );
    assert!(
        sides[2] > sides[1],
        "the outline is right of the article: {sides:?}"
    );
    assert_eq!(b.count(".docs-sidebar li").await, pages.len());
    assert_png(&b.screenshot_as("desktop").await, DESKTOP);

    // At the narrowest width the sidebar follows the article; nothing scrolls sideways (the
    // audit checks that on every page).
    b.resize(NARROW).await;
    let below: bool = b
        .driver()
        .execute(
            "return document.querySelector('.docs-sidebar').getBoundingClientRect().top > \
             document.querySelector('.docs-main').getBoundingClientRect().bottom - 1;",
            Vec::new(),
        )
        .await
        .and_then(|a| a.convert())
        .expect("the layout");
    assert!(
        below,
        "the sidebar comes after the article on a narrow screen"
    );
    assert_png(&b.screenshot_as("narrow").await, NARROW);

    // Next, from the keyboard.
    b.resize(DESKTOP).await;
    b.tab_to(".pager-next").await;
    b.press(Key::Enter).await;
    b.wait_for(".pager-previous").await;
    assert_ne!(b.current_url().await.as_str(), help.as_str());
}
