//! A workspace's sitemap (sitemaps.org 0.9): its index, then each published article's page with
//! when it was last published, so that search engines find every page and recrawl what changed.
//! It lists what the index lists (at most `operations::articles::MAX_PUBLISHED_LISTED`), far
//! below the protocol's 50,000 URLs.

use askama::Template;
use operations::Operations;
use operations::articles::PublishedSite;
use store::PublishedArticle;

use super::{article_path, index_path};

#[derive(Template)]
#[template(path = "site/sitemap.xml")]
struct Sitemap {
    index_url: String,
    index_lastmod: Option<String>,
    /// Absolute URL and last modification of each article page.
    pages: Vec<(String, String)>,
}

/// The sitemap's XML (every value escaped by the template).
pub(super) fn of(ops: &Operations, site: &PublishedSite<PublishedArticle>) -> String {
    let modified = |a: &PublishedArticle| a.published_at.unwrap_or(a.created_at);
    let pages = site
        .items
        .iter()
        .map(|a| {
            (
                ops.url(&article_path(a.article_id)),
                modified(a).to_string(),
            )
        })
        .collect();
    Sitemap {
        index_url: ops.url(&index_path(site.workspace.id)),
        index_lastmod: site.items.iter().map(modified).max().map(|t| t.to_string()),
        pages,
    }
    .render()
    // The template has no fallible part; should rendering fail anyway, an empty set is valid.
    .unwrap_or_else(|_| {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"></urlset>\n".to_owned()
    })
}
