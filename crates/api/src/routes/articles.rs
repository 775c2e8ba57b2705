use axum::extract::State;
use domain::{ArticleStatus, Scope, Surface};
use operations::runs::RegenerateArticle;
use operations::views::{self, Article, ArticleVersion, Run};
use store::{ArticleFilter, ArticleRecord, WorkspaceRecord};
use utoipa_axum::{router::OpenApiRouter, routes};

use super::Id;
use super::runs::queue_run;
use crate::auth::Auth;
use crate::body::{EmptyBody, JsonBody};
use crate::error::{ApiResult, ErrorEnvelope};
use crate::idempotency::{Answer, Idempotency, Recorded};
use crate::paging::{ListQuery, Page, PageParams};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_articles))
        .routes(routes!(get_article))
        .routes(routes!(article_versions))
        .routes(routes!(publish_article))
        .routes(routes!(unpublish_article))
        .routes(routes!(regenerate_article))
}

/// List articles
///
/// Newest first. Optional filters `feature_id`, `surface` and `status`. Scope: read.
#[utoipa::path(get, path = "/v1/workspaces/{ws}/articles", tag = "Articles",
    params(("ws" = String, Path), PageParams,
        ("feature_id" = Option<String>, Query), ("surface" = Option<Surface>, Query),
        ("status" = Option<ArticleStatus>, Query)),
    security(("bearer" = ["read"])),
    responses((status = 200, body = Page<Article>), (status = 400, body = ErrorEnvelope)))]
async fn list_articles(
    State(state): State<AppState>,
    auth: Auth,
    Id(ws): Id<WorkspaceRecord>,
    q: ListQuery,
) -> ApiResult<axum::Json<Page<Article>>> {
    let ws: WorkspaceRecord = state.ops.load(&auth, ws, Scope::Read).await?;
    let filter = ArticleFilter {
        feature_id: q.filter("feature_id")?,
        surface: q.filter("surface")?,
        status: q.filter("status")?,
    };
    // The filters are part of the list a cursor belongs to.
    let list = format!(
        "articles:{}:{}:{}:{}",
        ws.id,
        filter.feature_id.as_deref().unwrap_or(""),
        filter.surface.map(|s| s.as_str()).unwrap_or(""),
        filter.status.map(|s| s.as_str()).unwrap_or("")
    );
    let (ops, ws) = (&state.ops, &ws);
    state
        .cursors
        .keyset_list(
            &list,
            &q,
            move |page| async move { ops.articles_page(ws, &filter, &page).await },
            views::article,
        )
        .await
}

/// Get an article
#[utoipa::path(get, path = "/v1/articles/{id}", tag = "Articles", params(("id" = String, Path)),
    security(("bearer" = ["read"])), responses((status = 200, body = Article)))]
async fn get_article(
    State(state): State<AppState>,
    auth: Auth,
    Id(id): Id<ArticleRecord>,
) -> ApiResult<axum::Json<Article>> {
    let article = state.ops.load(&auth, id, Scope::Read).await?;
    Ok(axum::Json(views::article(article)))
}

/// List an article's versions
///
/// Every version a run wrote, newest first; earlier versions stay readable. Scope: read.
#[utoipa::path(get, path = "/v1/articles/{id}/versions", tag = "Articles",
    params(("id" = String, Path), PageParams), security(("bearer" = ["read"])),
    responses((status = 200, body = Page<ArticleVersion>), (status = 400, body = ErrorEnvelope)))]
async fn article_versions(
    State(state): State<AppState>,
    auth: Auth,
    Id(id): Id<ArticleRecord>,
    q: ListQuery,
) -> ApiResult<axum::Json<Page<ArticleVersion>>> {
    let article: ArticleRecord = state.ops.load(&auth, id, Scope::Read).await?;
    let (ops, article) = (&state.ops, &article);
    state
        .cursors
        .seq_list(
            &format!("versions:{}", article.id),
            &q,
            move |before, n| async move { ops.article_versions_page(article, before, n).await },
            views::article_version,
        )
        .await
}

/// Publish an article
///
/// Publishes the current version: `status` becomes `published`, `public_url` is set and
/// `article.published` is emitted. Publishing an already published version returns 200 and
/// emits nothing. The body is optional. Scope: publish.
#[utoipa::path(post, path = "/v1/articles/{id}/publish", tag = "Articles",
    params(("id" = String, Path)),
    request_body(content = Option<EmptyBody>), security(("bearer" = ["publish"])),
    responses((status = 200, body = Article), (status = 409, body = ErrorEnvelope),
        (status = 422, body = ErrorEnvelope)))]
async fn publish_article(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    Id(id): Id<ArticleRecord>,
    body: JsonBody,
) -> ApiResult<Recorded> {
    let (article, _) = state
        .ops
        .load_for_change::<ArticleRecord>(&auth, id, Scope::Publish)
        .await?;
    let _: EmptyBody = body.parse_optional()?;
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let published = ops.publish_article(tx, &article).await?;
                Ok(Answer::ok(views::article(published)))
            })
        })
        .await
}

/// Unpublish an article
///
/// Takes the published version off the published site and out of its search: `status`
/// becomes the current version's again (`draft` or `capture_grounded`), `public_url` is
/// cleared, versions are kept. The next sync of the workspace's publish target removes the
/// article's page from the docs repository. Unpublishing an article that is not published
/// returns it unchanged (200). Scope: publish.
#[utoipa::path(delete, path = "/v1/articles/{id}/publication", tag = "Articles",
    params(("id" = String, Path)), security(("bearer" = ["publish"])),
    responses((status = 200, body = Article), (status = 409, body = ErrorEnvelope)))]
async fn unpublish_article(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    Id(id): Id<ArticleRecord>,
) -> ApiResult<Recorded> {
    let (article, _) = state
        .ops
        .load_for_change::<ArticleRecord>(&auth, id, Scope::Publish)
        .await?;
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let unpublished = ops.unpublish_article(tx, &article).await?;
                Ok(Answer::ok(views::article(unpublished)))
            })
        })
        .await
}

/// Regenerate an article
///
/// Queues a run for the article's feature, limited to its surface, and returns the Run: 201
/// for a new run, 200 when it joined a run already queued for the feature. Scope: write.
#[utoipa::path(post, path = "/v1/articles/{id}/regenerate", tag = "Articles",
    params(("id" = String, Path)),
    request_body(content = Option<RegenerateArticle>), security(("bearer" = ["write"])),
    responses((status = 201, body = Run, headers(("Location" = String))), (status = 200, body = Run),
        (status = 409, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope)))]
async fn regenerate_article(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    Id(id): Id<ArticleRecord>,
    body: JsonBody,
) -> ApiResult<Recorded> {
    let (article, ws) = state
        .ops
        .load_for_change::<ArticleRecord>(&auth, id, Scope::Write)
        .await?;
    let req: RegenerateArticle = body.parse_optional()?;
    let new = state
        .ops
        .run_to_regenerate(&ws, article, req, domain::RunSource::Api)
        .await?;
    queue_run(&state, &idem, new).await
}
