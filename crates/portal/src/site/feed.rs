//! A workspace's published changelogs as an Atom feed (RFC 4287).
//!
//! Each published changelog version is an entry of its own, so that a feed reader shows a
//! newly published version as news rather than silently updating an old item:
//! - `id`: the article's public URL with `#v<version>` (permanent: a version never changes);
//! - `title`: the version's title; `updated`: when the version was written;
//! - `content` (`type="html"`): the version rendered as on its page, images and links made
//!   absolute against the service's base URL (a feed reader has no page to resolve them
//!   against); `link rel="alternate"`: the public page.
//!
//! The feed holds the most recent versions, at most `operations::articles::MAX_FEED_ENTRIES`,
//! and stops adding entries once their bodies pass [`MAX_FEED_BODY_BYTES`] (at least one
//! entry is always there): every entry is rendered on each request.

use atom_syndication::{Content, Entry, Feed, FixedDateTime, Link, Person, Text};
use domain::Timestamp;
use operations::Operations;
use operations::articles::PublishedSite;
use store::ArticleVersionRecord;

use super::{article_path, feed_path, file_path, index_path};
use crate::render;

/// MDX rendered into one feed, added up over its entries.
const MAX_FEED_BODY_BYTES: usize = 4 * 1024 * 1024;

/// The feed's XML. Blocking work: call it off the async threads.
pub(super) fn changelog(ops: &Operations, site: &PublishedSite<ArticleVersionRecord>) -> String {
    let workspace = &site.workspace;
    let mut budget = MAX_FEED_BODY_BYTES;
    let mut entries = Vec::new();
    for version in &site.items {
        if !entries.is_empty() && version.mdx_body.len() > budget {
            break;
        }
        budget = budget.saturating_sub(version.mdx_body.len());
        entries.push(entry(ops, version));
    }
    let updated = site
        .items
        .iter()
        .map(|v| v.created_at)
        .max()
        .unwrap_or(workspace.created_at);
    let mut feed = Feed::default();
    feed.set_id(ops.url(&feed_path(workspace.id)));
    feed.set_title(Text::plain(format!("{} changelog", workspace.name)));
    feed.set_updated(date(updated));
    feed.set_authors(vec![Person {
        name: workspace.name.clone(),
        ..Person::default()
    }]);
    feed.set_links(vec![
        link(
            ops.url(&feed_path(workspace.id)),
            "self",
            Some("application/atom+xml"),
        ),
        link(
            ops.url(&index_path(workspace.id)),
            "alternate",
            Some("text/html"),
        ),
    ]);
    feed.set_entries(entries);
    feed.to_string()
}

fn entry(ops: &Operations, version: &ArticleVersionRecord) -> Entry {
    let page = ops.url(&article_path(version.article_id));
    // Images as on the page, absolute; whether a file exists is not checked for a feed (a
    // missing one is a broken image there rather than a repository read per entry).
    let rendered = render::article(&version.mdx_body, &|path| {
        Some(ops.url(&file_path(version.article_id, path)))
    });
    let mut entry = Entry::default();
    entry.set_id(format!("{page}#v{}", version.version));
    entry.set_title(Text::plain(rendered.title().unwrap_or(&version.title)));
    entry.set_updated(date(version.created_at));
    entry.set_links(vec![link(page.clone(), "alternate", Some("text/html"))]);
    let mut content = Content::default();
    content.set_content_type(Some("html".to_owned()));
    content.set_value(Some(absolute_links(ops, &page, &rendered.html)));
    entry.set_content(Some(content));
    entry
}

/// Root-relative `href`s of the rendered article (the site's own links) made absolute, and
/// links to its own sections made links to them on its `page`.
fn absolute_links(ops: &Operations, page: &str, html: &str) -> String {
    html.replace("href=\"/", &format!("href=\"{}/", ops.url("")))
        .replace("href=\"#", &format!("href=\"{page}#"))
}

fn link(href: String, rel: &str, mime: Option<&str>) -> Link {
    let mut link = Link::default();
    link.set_href(href);
    link.set_rel(rel);
    link.set_mime_type(mime.map(str::to_owned));
    link
}

fn date(at: Timestamp) -> FixedDateTime {
    // Our timestamps print as RFC 3339; the epoch stands in should one ever not parse.
    FixedDateTime::parse_from_rfc3339(&at.to_string()).unwrap_or_default()
}
