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

    /// `work` in the context of the request being handled (if any): for a task spawned on its
    /// behalf, which task-locals do not follow.
    pub fn carried<F: std::future::Future>(
        work: F,
    ) -> impl std::future::Future<Output = F::Output> {
        let current = Self::current();
        async move {
            match current {
                Some(context) => context.scope(work).await,
                None => work.await,
            }
        }
    }

    /// The context of the request being handled, if any.
    pub fn current() -> Option<RequestContext> {
        CURRENT.try_with(Clone::clone).ok()
    }
}
