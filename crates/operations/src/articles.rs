//! Publishing an article: its current version becomes the published one and
//! `article.published` is recorded, once per version.

use domain::{ArticleId, EventType};
use store::{ArticleRecord, Tx};

use crate::Operations;
use crate::error::{Error, Result};
use crate::views;

impl Operations {
    /// The published version of article `id`, as MDX; anyone may read it.
    pub async fn published_body(&self, id: ArticleId) -> Result<String> {
        let missing = || Error::not_found("published article", id);
        let article = self
            .store
            .article(id)
            .await?
            .filter(|a| a.published_version.is_some())
            .ok_or_else(missing)?;
        let version = article.published_version.unwrap_or(article.version);
        self.store
            .article_versions(article.id, Some(version + 1), 1)
            .await?
            .into_iter()
            .next()
            .map(|v| v.mdx_body)
            .ok_or_else(missing)
    }

    /// Publishes the current version of `article`; publishing it again changes nothing and
    /// records no event.
    pub async fn publish_article(
        &self,
        tx: &mut Tx,
        article: &ArticleRecord,
    ) -> Result<ArticleRecord> {
        let now = self.clock.timestamp();
        let public_url = self.url(&format!("/published/{}", article.id));
        let (published, changed) = tx
            .publish_article(article.id, &public_url, now)
            .await?
            .ok_or_else(|| Error::not_found("article", article.id))?;
        if changed {
            let data = serde_json::to_value(views::article_without_body(published.clone()))
                .map_err(Error::internal)?;
            tx.record_event(
                published.workspace_id,
                EventType::ArticlePublished,
                data,
                now,
            )
            .await?;
        }
        Ok(published)
    }
}
