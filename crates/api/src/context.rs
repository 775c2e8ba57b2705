//! What every part of a request's handling may need without threading it through: the
//! request id (ours, never the client's) and the base URL used in links.

use std::sync::Arc;

#[derive(Clone, Debug)]
pub struct RequestContext {
    pub request_id: Arc<str>,
    pub base_url: Arc<str>,
}

tokio::task_local! {
    static CURRENT: RequestContext;
}

impl RequestContext {
    pub fn new(base_url: Arc<str>) -> Self {
        let id = domain::RunId::generate().to_string();
        let body = id.trim_start_matches(domain::RunId::PREFIX);
        Self {
            request_id: format!("req_{body}").into(),
            base_url,
        }
    }

    pub async fn scope<F: std::future::Future>(self, f: F) -> F::Output {
        CURRENT.scope(self, f).await
    }

    /// The context of the request being handled, if any.
    pub fn current() -> Option<RequestContext> {
        CURRENT.try_with(Clone::clone).ok()
    }
}
