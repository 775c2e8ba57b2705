//! The site's pages (askama templates under `templates/site/`, compiled in). Every value is
//! escaped by the templates except the rendered article, which `render` has sanitised.

use askama::Template;
use axum::http::StatusCode;
use domain::{ArticleId, Surface, Timestamp};
use operations::articles::{PublishedSite, SourceFile, SourceLinks};
use operations::{Error, Result};
use store::{ArticleRecord, ArticleVersionRecord, PublishedArticle, WorkspaceRecord};

use super::assets::{HIGHLIGHT_STYLESHEET, SITE_STYLESHEET};
use super::search::SearchBox;
use super::{article_path, feed_path, index_path};
use crate::render::{Rendered, Section};

#[derive(Template)]
#[template(path = "site/article.html")]
struct ArticlePage<'a> {
    page_title: String,
    site_stylesheet: &'a str,
    highlight_stylesheet: &'a str,
    workspace_name: &'a str,
    index_href: String,
    feed_href: Option<String>,
    page_url: String,
    title: &'a str,
    description: Option<&'a str>,
    mdx_href: String,
    surface: &'a str,
    article_html: &'a str,
    outline: &'a [Section],
    groups: Vec<Group<'a>>,
    previous: Option<Neighbour<'a>>,
    next: Option<Neighbour<'a>>,
    updated_at: String,
    updated_on: String,
    commit: Option<&'a str>,
    commit_url: Option<&'a str>,
    source_files: &'a [SourceFile],
    more_files: usize,
    search_box: Option<SearchBox>,
}

/// The article before or after this one in the sidebar's order.
struct Neighbour<'a> {
    href: String,
    title: &'a str,
}

/// What the page of a published article shows besides the article itself.
pub(super) struct ArticleContext<'a> {
    pub workspace: &'a WorkspaceRecord,
    /// Every published article of the workspace, for the sidebar.
    pub site: &'a PublishedSite<PublishedArticle>,
    pub sources: &'a SourceLinks,
    /// The page's absolute URL.
    pub page_url: String,
}

/// The page of a published article: the sidebar of the workspace's published articles,
/// previous and next in its order, the article with its outline, and when it was last
/// updated from which commit with links to its sources. The service's own frontmatter fields
/// (feature, surface, version) are not shown: they stay in the MDX and the portal.
pub(super) fn article(
    context: &ArticleContext<'_>,
    article: &ArticleRecord,
    version: &ArticleVersionRecord,
    rendered: &Rendered,
) -> Result<String> {
    let ArticleContext {
        workspace,
        site,
        sources,
        page_url,
    } = context;
    let title = rendered.title().unwrap_or(&version.title);
    let groups = groups(site, Some(article.id));
    let order: Vec<&Item<'_>> = groups.iter().flat_map(|g| &g.items).collect();
    let position = order.iter().position(|item| item.current);
    let neighbour = |at: Option<usize>| {
        at.and_then(|i| order.get(i)).map(|item| Neighbour {
            href: item.href.clone(),
            title: item.title,
        })
    };
    let previous = neighbour(position.and_then(|p| p.checked_sub(1)));
    let next = neighbour(position.map(|p| p + 1));
    let published = site
        .items
        .iter()
        .find(|a| a.article_id == article.id)
        .and_then(|a| a.published_at)
        .or(article.published_at)
        .unwrap_or(version.created_at);
    let (updated_at, updated_on) = dates(published);
    let has_changelog = groups.iter().any(|g| g.is_changelog);
    ArticlePage {
        page_title: format!("{title} · {}", workspace.name),
        site_stylesheet: &SITE_STYLESHEET,
        highlight_stylesheet: &HIGHLIGHT_STYLESHEET,
        workspace_name: &workspace.name,
        index_href: index_path(workspace.id),
        feed_href: has_changelog.then(|| feed_path(workspace.id)),
        page_url: page_url.clone(),
        title,
        description: rendered.description().filter(|d| !d.trim().is_empty()),
        mdx_href: format!("{}.mdx", article_path(article.id)),
        surface: article.surface.as_str(),
        article_html: &rendered.html,
        outline: &rendered.outline,
        groups,
        previous,
        next,
        updated_at,
        updated_on,
        commit: sources.commit.as_deref().map(short_commit),
        commit_url: sources.commit_url.as_deref(),
        source_files: &sources.files,
        more_files: sources.more_files,
        search_box: Some(SearchBox::new(workspace, "")),
    }
    .render()
    .map_err(Error::internal)
}

/// A commit as readers see it: its first 12 hexadecimal digits.
fn short_commit(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

#[derive(Template)]
#[template(path = "site/index.html")]
struct IndexPage<'a> {
    page_title: String,
    site_stylesheet: &'a str,
    highlight_stylesheet: &'a str,
    workspace_name: &'a str,
    index_href: String,
    page_url: String,
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
    current: bool,
}

/// The published articles by surface (in the surfaces' order), by title within one: the
/// index's sections and the sidebar's groups, whose order previous and next follow.
fn groups(site: &PublishedSite<PublishedArticle>, current: Option<ArticleId>) -> Vec<Group<'_>> {
    Surface::ALL
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
                title: surface.title(),
                is_changelog: *surface == Surface::Changelog,
                items: items
                    .into_iter()
                    .map(|a| {
                        let (written_at, written_on) =
                            dates(a.published_at.unwrap_or(a.created_at));
                        Item {
                            href: article_path(a.article_id),
                            title: &a.title,
                            feature: &a.feature_id,
                            written_at,
                            written_on,
                            current: Some(a.article_id) == current,
                        }
                    })
                    .collect(),
            })
        })
        .collect()
}

/// A workspace's index: its published articles by surface (see [`groups`]). `page_url` is
/// its absolute URL.
pub(super) fn index(site: &PublishedSite<PublishedArticle>, page_url: String) -> Result<String> {
    let workspace = &site.workspace;
    let groups = groups(site, None);
    let has_changelog = groups.iter().any(|g| g.is_changelog);
    IndexPage {
        page_title: format!("{} documentation", workspace.name),
        site_stylesheet: &SITE_STYLESHEET,
        highlight_stylesheet: &HIGHLIGHT_STYLESHEET,
        workspace_name: &workspace.name,
        index_href: index_path(workspace.id),
        page_url,
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
