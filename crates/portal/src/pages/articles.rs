//! Articles: the list (by feature, surface and status), an article's rendered preview, its
//! MDX source, its versions with the run that made each, a diff between two versions,
//! Publish and Regenerate, and the drift raised for it.

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Redirect};
use axum::routing::{get, post};
use axum::{Form, Router};
use domain::{ArticleId, ArticleStatus, RunSource, Scope, Surface};
use operations::drift::DriftReport;
use operations::runs::RegenerateArticle;
use serde::Deserialize;
use store::{ArticleFilter, ArticleRecord, ArticleVersionRecord};

use super::{Member, list_page, list_url};
use crate::Portal;
use crate::web::{Nav, PageError, PageResult, render as render_page, short_commit, when};
use crate::{render, site};

/// The most versions the versions tab lists.
const MAX_VERSIONS: i64 = 200;

pub fn router() -> Router<Portal> {
    Router::new()
        .route("/portal/w/{ws}/articles", get(list))
        .route("/portal/w/{ws}/articles/{id}", get(preview))
        .route("/portal/w/{ws}/articles/{id}/source", get(source))
        .route("/portal/w/{ws}/articles/{id}/versions", get(versions))
        .route("/portal/w/{ws}/articles/{id}/diff", get(diff))
        .route("/portal/w/{ws}/articles/{id}/publish", post(publish))
        .route("/portal/w/{ws}/articles/{id}/regenerate", post(regenerate))
        .route(
            "/portal/w/{ws}/articles/{id}/versions/{version}/files/{*path}",
            get(file),
        )
}

struct ArticleRow {
    id: ArticleId,
    title: String,
    feature_id: String,
    surface: Surface,
    status: ArticleStatus,
    version: i64,
    published_version: Option<i64>,
    updated: String,
}

impl ArticleRow {
    fn new(a: &ArticleRecord) -> Self {
        Self {
            id: a.id,
            title: a.title.clone(),
            feature_id: a.feature_id.clone(),
            surface: a.surface,
            status: a.status,
            version: a.version,
            published_version: a.published_version,
            updated: when(a.updated_at),
        }
    }

    /// Published, but an unpublished newer version exists.
    fn behind(&self) -> bool {
        self.published_version.is_some_and(|p| p != self.version)
    }
}

#[derive(Deserialize, Default)]
struct ListQuery {
    feature: Option<String>,
    surface: Option<String>,
    status: Option<String>,
    before: Option<String>,
}

#[derive(Template)]
#[template(path = "portal/articles.html")]
struct ArticlesPage {
    nav: Nav,
    rows: Vec<ArticleRow>,
    next_url: Option<String>,
    feature: String,
    surface: String,
    status: String,
    surfaces: &'static [Surface],
    statuses: &'static [ArticleStatus],
}

/// A query value, unless blank.
fn non_empty(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

async fn list(
    State(portal): State<Portal>,
    member: Member,
    Query(q): Query<ListQuery>,
) -> PageResult {
    let filter = ArticleFilter {
        feature_id: non_empty(&q.feature).map(|f| f.chars().take(200).collect()),
        surface: non_empty(&q.surface).and_then(|s| s.parse().ok()),
        status: non_empty(&q.status).and_then(|s| s.parse().ok()),
    };
    let (ops, record, wanted) = (&portal.ops, &member.ws, &filter);
    let ws = record.id;
    let listed = list_page(
        &portal.config.cursors,
        &format!("articles:{ws}"),
        q.before.as_deref(),
        |page| async move { ops.articles_page(record, wanted, &page).await },
        |a: &ArticleRecord| (a.created_at, a.id),
    )
    .await?;
    let records = listed.rows;
    let next_url = listed.next_before.map(|b| {
        list_url(
            &format!("/portal/w/{ws}/articles"),
            &[
                ("feature", filter.feature_id.clone()),
                ("surface", filter.surface.map(|s| s.as_str().to_owned())),
                ("status", filter.status.map(|s| s.as_str().to_owned())),
                ("before", Some(b)),
            ],
        )
    });
    let page = ArticlesPage {
        nav: member.nav("articles"),
        rows: records.iter().map(ArticleRow::new).collect(),
        next_url,
        feature: filter.feature_id.clone().unwrap_or_default(),
        surface: filter
            .surface
            .map(|s| s.as_str().to_owned())
            .unwrap_or_default(),
        status: filter
            .status
            .map(|s| s.as_str().to_owned())
            .unwrap_or_default(),
        surfaces: Surface::ALL,
        statuses: ArticleStatus::ALL,
    };
    render_page(&page)
}

/// What every tab of an article's page shows above its content.
struct ArticleHead {
    row: ArticleRow,
    public_url: Option<String>,
    may_publish: bool,
    may_regenerate: bool,
    /// "preview", "source", "versions" or "diff".
    tab: &'static str,
    drift: Vec<DriftReport>,
}

impl ArticleHead {
    fn tab_current(&self, tab: &str) -> &'static str {
        if self.tab == tab { "page" } else { "false" }
    }
}

async fn load_article(
    portal: &Portal,
    member: &Member,
    id: &str,
    tab: &'static str,
) -> PageResult<(ArticleRecord, ArticleHead)> {
    let id: ArticleId = id.parse().map_err(|_| PageError::not_found())?;
    let article: ArticleRecord = portal.ops.load(&member.caller, id, Scope::Read).await?;
    member.owns(article.workspace_id)?;
    let drift = portal.ops.drift_notices(&article).await?;
    let nav = member.nav("articles");
    let ws = nav.workspace.as_ref();
    let row = ArticleRow::new(&article);
    let head = ArticleHead {
        may_publish: ws.is_some_and(|w| w.may_publish())
            && article.published_version != Some(article.version),
        may_regenerate: ws.is_some_and(|w| w.may_write()),
        public_url: article.public_url.clone(),
        row,
        tab,
        drift,
    };
    Ok((article, head))
}

/// One version of `article` (the current one without `version`).
async fn version_of(
    portal: &Portal,
    article: &ArticleRecord,
    version: Option<i64>,
) -> PageResult<ArticleVersionRecord> {
    let v = version.unwrap_or(article.version);
    if v < 1 || v > article.version {
        return Err(PageError::not_found());
    }
    portal
        .ops
        .store
        .article_versions(article.id, Some(v + 1), 1)
        .await
        .map_err(operations::Error::from)?
        .into_iter()
        .next()
        .filter(|found| found.version == v)
        .ok_or_else(PageError::not_found)
}

#[derive(Deserialize)]
struct VersionQuery {
    version: Option<i64>,
}

#[derive(Template)]
#[template(path = "portal/article.html")]
struct PreviewPage {
    nav: Nav,
    head: ArticleHead,
    version: i64,
    /// The frontmatter's `source_commit`: the service's field, shown here and not to readers.
    source_commit: Option<String>,
    html: String,
}

async fn preview(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id)): Path<(String, String)>,
    Query(q): Query<VersionQuery>,
) -> PageResult {
    let (article, head) = load_article(&portal, &member, &id, "preview").await?;
    let version = version_of(&portal, &article, q.version).await?;
    let base = format!(
        "/portal/w/{}/articles/{}/versions/{}/files/",
        member.ws.id, article.id, version.version
    );
    let rendered = site::files::render_version(&portal.ops, &article, &version, move |path| {
        format!("{base}{}", pipeline::encode_path(path))
    })
    .await?;

    let page = PreviewPage {
        nav: member.nav("articles"),
        head,
        version: version.version,
        source_commit: rendered
            .front
            .iter()
            .find(|(key, _)| key == "source_commit")
            .map(|(_, commit)| commit.clone()),
        html: rendered.html,
    };
    render_page(&page)
}

/// An image or capture a version shows, from the repository at that version's commit (only
/// files the version references; see `site::files`).
async fn file(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id, version, path)): Path<(String, String, i64, String)>,
    headers: axum::http::HeaderMap,
) -> PageResult {
    let id: ArticleId = id.parse().map_err(|_| PageError::not_found())?;
    let article: ArticleRecord = portal.ops.load(&member.caller, id, Scope::Read).await?;
    member.owns(article.workspace_id)?;
    let version = version_of(&portal, &article, Some(version)).await?;
    let found = site::files::referenced_file(&portal.ops, &article, &version, &path).await?;
    Ok(site::security::file_response(found, &headers))
}

#[derive(Template)]
#[template(path = "portal/article_source.html")]
struct SourcePage {
    nav: Nav,
    head: ArticleHead,
    version: i64,
    html: String,
}

async fn source(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id)): Path<(String, String)>,
    Query(q): Query<VersionQuery>,
) -> PageResult {
    let (article, head) = load_article(&portal, &member, &id, "source").await?;
    let version = version_of(&portal, &article, q.version).await?;
    let page = SourcePage {
        nav: member.nav("articles"),
        head,
        version: version.version,
        html: render::source(&version.mdx_body),
    };
    render_page(&page)
}

struct VersionRow {
    version: i64,
    title: String,
    status: ArticleStatus,
    created: String,
    run_id: String,
    source: Option<RunSource>,
    commit: String,
}

#[derive(Template)]
#[template(path = "portal/article_versions.html")]
struct VersionsPage {
    nav: Nav,
    head: ArticleHead,
    rows: Vec<VersionRow>,
}

async fn versions(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id)): Path<(String, String)>,
) -> PageResult {
    let (article, head) = load_article(&portal, &member, &id, "versions").await?;
    let rows = portal
        .ops
        .store
        .version_origins(article.id, MAX_VERSIONS)
        .await
        .map_err(operations::Error::from)?
        .into_iter()
        .map(|v| VersionRow {
            version: v.version,
            title: v.title,
            status: v.status,
            created: when(v.created_at),
            run_id: v.run_id.to_string(),
            source: v.source,
            commit: v
                .source_commit
                .map(|c| short_commit(&c).to_owned())
                .unwrap_or_default(),
        })
        .collect();
    let page = VersionsPage {
        nav: member.nav("articles"),
        head,
        rows,
    };
    render_page(&page)
}

#[derive(Deserialize)]
struct DiffQuery {
    from: Option<i64>,
    to: Option<i64>,
}

#[derive(Template)]
#[template(path = "portal/article_diff.html")]
struct DiffPage {
    nav: Nav,
    head: ArticleHead,
    from: i64,
    to: i64,
    latest: i64,
    html: String,
}

async fn diff(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id)): Path<(String, String)>,
    Query(q): Query<DiffQuery>,
) -> PageResult {
    let (article, head) = load_article(&portal, &member, &id, "diff").await?;
    let to = q.to.unwrap_or(article.version);
    let from = q.from.unwrap_or((to - 1).max(1));
    let old = version_of(&portal, &article, Some(from)).await?;
    let new = version_of(&portal, &article, Some(to)).await?;
    let page = DiffPage {
        nav: member.nav("articles"),
        head,
        from,
        to,
        latest: article.version,
        html: render::diff(&old.mdx_body, &new.mdx_body),
    };
    render_page(&page)
}

#[derive(Deserialize)]
struct ActionForm {
    #[serde(default)]
    tier: String,
}

async fn publish(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id)): Path<(String, String)>,
) -> PageResult {
    let id: ArticleId = id.parse().map_err(|_| PageError::not_found())?;
    let (article, _) = portal
        .ops
        .load_for_change::<ArticleRecord>(&member.caller, id, Scope::Publish)
        .await?;
    member.owns(article.workspace_id)?;
    let ops = portal.ops.clone();
    portal
        .ops
        .store
        .write(move |tx| Box::pin(async move { ops.publish_article(tx, &article).await }))
        .await?;
    Ok(Redirect::to(&format!("/portal/w/{}/articles/{id}", member.ws.id)).into_response())
}

async fn regenerate(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id)): Path<(String, String)>,
    Form(form): Form<ActionForm>,
) -> PageResult {
    let id: ArticleId = id.parse().map_err(|_| PageError::not_found())?;
    let (article, ws) = portal
        .ops
        .load_for_change::<ArticleRecord>(&member.caller, id, Scope::Write)
        .await?;
    member.owns(article.workspace_id)?;
    let req = RegenerateArticle {
        tier: form.tier.parse().ok(),
        notify_on_complete: None,
    };
    let new = portal
        .ops
        .run_to_regenerate(&ws, article, req, RunSource::Portal)
        .await?;
    let ops = portal.ops.clone();
    let outcome = portal
        .ops
        .store
        .write(move |tx| Box::pin(async move { ops.queue_run(tx, new).await }))
        .await?;
    Ok(Redirect::to(&format!(
        "/portal/w/{}/runs/{}",
        member.ws.id,
        outcome.run().id
    ))
    .into_response())
}
