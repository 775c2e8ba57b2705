//! Background workers. They share nothing with the API but the database, so they run inside
//! `serve` or alone as `content-pipeline worker`, on as many nodes as needed.

pub mod runs;

use std::sync::Arc;

use store::{ArticleRecord, RunRecord};

/// How events render the resources they carry; given by the API so that a webhook's `data`
/// is exactly what the API returns for the same resource.
#[derive(Clone)]
pub struct Renderers {
    pub run: Arc<dyn Fn(RunRecord) -> serde_json::Value + Send + Sync>,
    /// The article without its body.
    pub article: Arc<dyn Fn(ArticleRecord) -> serde_json::Value + Send + Sync>,
}
