use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use domain::ExportFormat;
use store::WorkspaceRecord;
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::Id;
use crate::auth::Auth;
use crate::error::{ApiError, ApiResult, ErrorEnvelope};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(export_workspace))
}

/// A `tar.gz` archive: the export's files (see the operation).
#[derive(ToSchema)]
#[schema(value_type = String, content_media_type = "application/gzip")]
pub struct ExportArchive(pub Vec<u8>);

/// Export published articles for a docs framework
///
/// The workspace's published articles (the published version of each; drafts and articles
/// never published are left out) as a `tar.gz` laid out for the framework named by `format`,
/// ready to build:
///
/// - `docusaurus`: `docs/<surface>/<feature>.mdx` with `sidebar_position`, a `_category_.json`
///   per surface, `docusaurus.config.js`, `sidebars.js`; images under `static/img/`.
/// - `mintlify`: `<surface>/<feature>.mdx`, `docs.json` with the navigation; images under
///   `images/`.
/// - `starlight`: `src/content/docs/<surface>/<feature>.mdx` with `sidebar.order`,
///   `astro.config.mjs` (a sidebar group per surface), `src/content.config.ts`; images under
///   `public/images/`.
/// - `mkdocs-material`: `docs/<surface>/<feature>.md` in plain Markdown with admonitions,
///   `mkdocs.yml` with `nav`; images under `docs/assets/images/`.
///
/// Pages are grouped by surface (help-center, dev-docs, changelog, blog), one per feature,
/// ordered by title, under a home page (`index`) that lists them. Our components become the
/// framework's own (`Steps`, callouts as `Note`/`Tip`/`Warning` or admonitions, `Update` for
/// changelog entries where the framework has it, headings where it has not). The images an
/// article shows are read from the repository at the version's commit by the published
/// site's rules (images and videos, regular files, at most 10 MiB each); one that cannot be
/// read is shown as its alt text. Links to published articles (`/published/{article_id}`) point
/// to their exported pages. A workspace with nothing published answers the framework's
/// skeleton (configuration and a home page that says nothing is published yet), which builds.
///
/// At most 2,000 articles and 256 MiB of images: a workspace with more published articles is
/// refused with 409 `conflict`; images beyond the budget are shown as their alt text. The
/// archive is streamed as it is made; should the export fail midway the stream is cut short
/// (an incomplete gzip stream, which every reader rejects). An unknown or missing `format` is
/// 422 `validation_failed` with `param: "format"`. Scope: read.
#[utoipa::path(get, path = "/v1/workspaces/{id}/export", tag = "Workspaces",
    params(("id" = String, Path),
        ("format" = inline(ExportFormat), Query, description = "The framework to lay the articles out for.")),
    security(("bearer" = ["read"])),
    responses(
        (status = 200, description = "The archive (`<workspace id>-<format>.tar.gz`).",
            content_type = "application/gzip", body = ExportArchive,
            headers(("Content-Disposition" = String, description = "`attachment; filename=\"<workspace id>-<format>.tar.gz\"`"))),
        (status = 400, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope),
        (status = 422, body = ErrorEnvelope)))]
async fn export_workspace(
    State(state): State<AppState>,
    auth: Auth,
    Id(ws): Id<WorkspaceRecord>,
    RawQuery(query): RawQuery,
) -> ApiResult<Response> {
    let pairs: Vec<(String, String)> =
        serde_urlencoded::from_str(query.as_deref().unwrap_or(""))
            .map_err(|_| ApiError::invalid_request("query", "The query string is malformed."))?;
    let format = pairs
        .iter()
        .find(|(key, _)| key == "format")
        .map(|(_, value)| value.as_str());
    let export = state.ops.export(&auth, ws, format).await?;
    let chunks = futures_util::stream::unfold(export.chunks, |mut chunks| async move {
        chunks.recv().await.map(|chunk| (chunk, chunks))
    });
    let disposition = format!("attachment; filename=\"{}\"", export.file_name);
    let mut response = (StatusCode::OK, Body::from_stream(chunks)).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/gzip"),
    );
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    Ok(response)
}
