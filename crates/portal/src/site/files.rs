//! The repository files an article shows (its images and captures), read from the git object
//! database at the commit its version was generated from, by the rules of
//! [`pipeline::article_files`] (shared with the exports): only paths the version's MDX
//! references ([`crate::render::referenced_files`]), images and videos, regular files of at
//! most `MAX_FILE_BYTES`, at the commit [`Operations::version_source`] names. Everything
//! else is not found (one answer for every refusal, so that nothing about the repository shows
//! through).
//!
//! [`render_version`] applies the same rules to the images of a rendered version, so that a
//! page shows an image exactly when [`referenced_file`] serves it (else its alt text).
use operations::{Error, Operations, Result};
use pipeline::article_files::{CommitFiles, CommitSource};
use store::{ArticleRecord, ArticleVersionRecord};

use crate::render;

pub use pipeline::article_files::{ArticleFile as RepositoryFile, content_type};

/// The file at `path` of `version`'s commit, when `version` references it (see the module).
/// For the published site and for the portal's preview of any version alike.
pub async fn referenced_file(
    ops: &Operations,
    article: &ArticleRecord,
    version: &ArticleVersionRecord,
    path: &str,
) -> Result<RepositoryFile> {
    let missing = || Error::not_found("file", path);
    content_type(path).ok_or_else(missing)?;
    let source = ops
        .version_source(article, version)
        .await?
        .ok_or_else(missing)?;
    let (mdx, wanted) = (version.mdx_body.clone(), path.to_owned());
    blocking(move || {
        if !render::referenced_files(&mdx).contains(&wanted) {
            return Ok(None);
        }
        let Some(files) = CommitFiles::open(&source) else {
            return Ok(None);
        };
        files.read(&wanted).map_err(Error::internal)
    })
    .await?
    .ok_or_else(missing)
}

/// `version` rendered ([`render::article`]) with each image it shows at `file_url(path)` when
/// that file can be served, else as its alt text: what the published page and the portal's
/// preview show. The repository is opened once, the MDX parsed once, off the async threads.
pub async fn render_version(
    ops: &Operations,
    article: &ArticleRecord,
    version: &ArticleVersionRecord,
    file_url: impl Fn(&str) -> String + Send + 'static,
) -> Result<render::Rendered> {
    let source: Option<CommitSource> = ops.version_source(article, version).await?;
    let mdx = version.mdx_body.clone();
    blocking(move || {
        let files = source.as_ref().and_then(CommitFiles::open);
        let url = |path: &str| {
            let servable = files.as_ref().is_some_and(|f| match f.blob_id(path) {
                Ok(id) => id.is_some(),
                Err(e) => {
                    tracing::warn!(error = %e, "reading a repository tree");
                    false
                }
            });
            servable.then(|| file_url(path))
        };
        Ok(render::article(&mdx, &url))
    })
    .await
}

/// Runs git work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(Error::internal)?
}
