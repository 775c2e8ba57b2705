use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::response::Response;
use domain::{ArticleId, ArticleStatus, EventType, RunSource, Scope, Surface, Tier};
use serde::Deserialize;
use store::{ArticleFilter, NewRun};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::runs::queue_run;
use super::{active_workspace, parse_id, workspace_for};
use crate::auth::Auth;
use crate::body::{EmptyBody, JsonBody};
use crate::error::{ApiError, ApiResult, ErrorEnvelope};
use crate::idempotency::Idempotency;
use crate::paging::{ListQuery, Page, PageParams, keyset_position};
use crate::resources::{Article, ArticleVersion, Run};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_articles))
        .routes(routes!(get_article))
        .routes(routes!(article_versions))
        .routes(routes!(publish_article))
        .routes(routes!(regenerate_article))
}

/// Regenerate options.
#[derive(Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct RegenerateArticle {
    /// Default `standard`.
    pub tier: Option<Tier>,
    /// Default true.
    pub notify_on_complete: Option<bool>,
}

async fn load(
    state: &AppState,
    auth: &Auth,
    raw: &str,
    needed: Scope,
) -> ApiResult<store::ArticleRecord> {
    let id: ArticleId = parse_id(raw, "article")?;
    let article = state
        .store
        .article(id)
        .await?
        .ok_or_else(|| ApiError::not_found("article", raw))?;
    auth.check(article.workspace_id, needed, "article", raw)?;
    Ok(article)
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
    UrlPath(ws): UrlPath<String>,
    q: ListQuery,
) -> ApiResult<axum::Json<Page<Article>>> {
    let ws = workspace_for(&state, &auth, &ws, Scope::Read).await?;
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
    let page = state.cursors.keyset(&list, &q)?;
    let rows = state.store.articles(ws.id, &filter, &page).await?;
    Ok(axum::Json(state.cursors.page(
        &list,
        q.limit,
        rows,
        |r| keyset_position(r.created_at, r.id),
        Article::with_body,
    )))
}

/// Get an article
#[utoipa::path(get, path = "/v1/articles/{id}", tag = "Articles", params(("id" = String, Path)),
    security(("bearer" = ["read"])), responses((status = 200, body = Article)))]
async fn get_article(
    State(state): State<AppState>,
    auth: Auth,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<axum::Json<Article>> {
    let article = load(&state, &auth, &id, Scope::Read).await?;
    Ok(axum::Json(Article::with_body(article)))
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
    UrlPath(id): UrlPath<String>,
    q: ListQuery,
) -> ApiResult<axum::Json<Page<ArticleVersion>>> {
    let article = load(&state, &auth, &id, Scope::Read).await?;
    let list = format!("versions:{}", article.id);
    let before = state.cursors.seq(&list, &q)?;
    let rows = state
        .store
        .article_versions(article.id, before, q.limit + 1)
        .await?;
    Ok(axum::Json(state.cursors.page(
        &list,
        q.limit,
        rows,
        |r| r.version.to_string(),
        ArticleVersion::from,
    )))
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
    UrlPath(id): UrlPath<String>,
    body: JsonBody,
) -> ApiResult<Response> {
    let article = load(&state, &auth, &id, Scope::Publish).await?;
    active_workspace(
        &state,
        &auth,
        article.workspace_id,
        Scope::Publish,
        "article",
        &id,
    )
    .await?;
    let _: EmptyBody = body.parse_optional()?;
    let now = state.clock.timestamp();
    let public_url = state.url(&format!("/published/{}", article.id));
    let mut tx = state.store.begin().await?;
    let (published, changed) = tx
        .publish_article(article.id, &public_url, now)
        .await?
        .ok_or_else(|| ApiError::not_found("article", &id))?;
    if changed {
        let data = serde_json::to_value(Article::without_body(published.clone()))
            .map_err(ApiError::internal)?;
        tx.record_event(
            published.workspace_id,
            EventType::ArticlePublished,
            data,
            now,
        )
        .await?;
    }
    let response = idem
        .respond(
            &mut tx,
            StatusCode::OK,
            None,
            &Article::with_body(published),
        )
        .await?;
    tx.commit().await?;
    Ok(response)
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
    UrlPath(id): UrlPath<String>,
    body: JsonBody,
) -> ApiResult<Response> {
    let article = load(&state, &auth, &id, Scope::Write).await?;
    let ws = active_workspace(
        &state,
        &auth,
        article.workspace_id,
        Scope::Write,
        "article",
        &id,
    )
    .await?;
    let req: RegenerateArticle = body.parse_optional()?;
    super::runs::validate_feature(&state, &ws, &article.feature_id).await?;
    let new = NewRun {
        workspace_id: ws.id,
        feature_id: article.feature_id,
        surfaces: Some(vec![article.surface]),
        source: RunSource::Api,
        tier: req.tier.unwrap_or_default(),
        notify_on_complete: req.notify_on_complete.unwrap_or(true),
    };
    queue_run(&state, &idem, new).await
}
