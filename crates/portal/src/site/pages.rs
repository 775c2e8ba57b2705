//! The site's pages (askama templates under `templates/site/`, compiled in). Every value is
//! escaped by the templates except the rendered article, which `render` has sanitised.

use askama::Template;
use axum::http::StatusCode;
use domain::{Surface, Timestamp};
use operations::articles::PublishedSite;
use operations::{Error, Result};
use store::{ArticleRecord, ArticleVersionRecord, PublishedArticle, WorkspaceRecord};

use super::assets::{HIGHLIGHT_STYLESHEET, SITE_STYLESHEET};
use super::search::SearchBox;
use super::{article_path, feed_path, index_path};
use crate::render::Rendered;

/// A surface as readers call it.
pub(super) fn surface_title(surface: Surface) -> &'static str {
    match surface {
        Surface::HelpCenter => "Help center",
        Surface::DevDocs => "Developer docs",
        Surface::Changelog => "Changelog",
        Surface::Blog => "Blog",
    }
}

#[derive(Template)]
#[template(path = "site/article.html")]
struct ArticlePage<'a> {
    page_title: String,
    site_stylesheet: &'a str,
    highlight_stylesheet: &'a str,
    workspace_name: &'a str,
    index_href: String,
    mdx_href: String,
    surface: &'a str,
    surface_title: &'a str,
    article_html: &'a str,
    version: i64,
    written_at: String,
    written_on: String,
    search_box: Option<SearchBox>,
}

/// The page of a published article.
pub(super) fn article(
    workspace: &WorkspaceRecord,
    article: &ArticleRecord,
    version: &ArticleVersionRecord,
    rendered: &Rendered,
) -> Result<String> {
    let title = rendered.title().unwrap_or(&version.title);
    let (written_at, written_on) = dates(version.created_at);
    ArticlePage {
        page_title: format!("{title} · {}", workspace.name),
        site_stylesheet: &SITE_STYLESHEET,
        highlight_stylesheet: &HIGHLIGHT_STYLESHEET,
        workspace_name: &workspace.name,
        index_href: index_path(workspace.id),
        mdx_href: format!("{}.mdx", article_path(article.id)),
        surface: article.surface.as_str(),
        surface_title: surface_title(article.surface),
        article_html: &rendered.html,
        version: version.version,
        written_at,
        written_on,
        search_box: Some(SearchBox::new(workspace, "")),
    }
    .render()
    .map_err(Error::internal)
}

#[derive(Template)]
#[template(path = "site/index.html")]
struct IndexPage<'a> {
    page_title: String,
    site_stylesheet: &'a str,
    highlight_stylesheet: &'a str,
    workspace_name: &'a str,
    index_href: String,
    feed_href: Option<String>,
    groups: Vec<Group<'a>>,
    search_box: Option<SearchBox>,
}

struct Group<'a> {
    id: &'static str,
    title: &'static str,
    is_changelog: bool,
    items: Vec<Item<'a>>,
}

struct Item<'a> {
    href: String,
    title: &'a str,
    feature: &'a str,
    written_at: String,
    written_on: String,
}

/// A workspace's index: its published articles by surface (in the surfaces' order), by
/// title within one.
pub(super) fn index(site: &PublishedSite<PublishedArticle>) -> Result<String> {
    let workspace = &site.workspace;
    let groups: Vec<Group<'_>> = Surface::ALL
        .iter()
        .filter_map(|surface| {
            let mut items: Vec<&PublishedArticle> = site
                .items
                .iter()
                .filter(|a| a.surface == *surface)
                .collect();
            if items.is_empty() {
                return None;
            }
            items.sort_by(|a, b| a.title.cmp(&b.title).then(a.feature_id.cmp(&b.feature_id)));
            Some(Group {
                id: surface.as_str(),
                title: surface_title(*surface),
                is_changelog: *surface == Surface::Changelog,
                items: items
                    .into_iter()
                    .map(|a| {
                        let (written_at, written_on) = dates(a.created_at);
                        Item {
                            href: article_path(a.article_id),
                            title: &a.title,
                            feature: &a.feature_id,
                            written_at,
                            written_on,
                        }
                    })
                    .collect(),
            })
        })
        .collect();
    let has_changelog = groups.iter().any(|g| g.is_changelog);
    IndexPage {
        page_title: format!("{} documentation", workspace.name),
        site_stylesheet: &SITE_STYLESHEET,
        highlight_stylesheet: &HIGHLIGHT_STYLESHEET,
        workspace_name: &workspace.name,
        index_href: index_path(workspace.id),
        feed_href: has_changelog.then(|| feed_path(workspace.id)),
        groups,
        search_box: Some(SearchBox::new(workspace, "")),
    }
    .render()
    .map_err(Error::internal)
}

#[derive(Template)]
#[template(path = "site/error.html")]
struct ErrorPage<'a> {
    page_title: &'a str,
    site_stylesheet: &'a str,
    highlight_stylesheet: &'a str,
    heading: &'a str,
    message: &'a str,
    search_box: Option<SearchBox>,
}

/// The page of a refusal: not found, or an internal error (whose cause is only logged).
pub(super) fn error(status: StatusCode) -> String {
    let (heading, message) = match status {
        StatusCode::NOT_FOUND => (
            "Not found",
            "There is no published page here. It may not be published yet, or the link is mistyped.",
        ),
        _ => (
            "Something went wrong",
            "This page could not be shown. Please try again later.",
        ),
    };
    ErrorPage {
        page_title: heading,
        site_stylesheet: &SITE_STYLESHEET,
        highlight_stylesheet: &HIGHLIGHT_STYLESHEET,
        heading,
        message,
        search_box: None,
    }
    .render()
    // The template has no fallible part; should rendering fail anyway, the heading is a page.
    .unwrap_or_else(|_| heading.to_owned())
}

/// A timestamp for `datetime` and the date shown, `YYYY-MM-DD`.
fn dates(at: Timestamp) -> (String, String) {
    let full = at.to_string();
    let day = full.get(..10).unwrap_or(&full).to_owned();
    (full, day)
}
