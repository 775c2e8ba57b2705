//! A typed client of the Content Pipeline Service's v1 API.
//!
//! Every operation of the OpenAPI document is a method named after its `operationId`; its
//! request and answer types are the server's own (`api_types`), so the two cannot disagree.
//! A method returns a [`Call`], sent when awaited. POST and PATCH carry an `Idempotency-Key`
//! (generated unless given with [`Call::idempotency_key`]), so a retry never acts twice.
//! Calls are retried by [`RetryPolicy`]: 429 and 409 `idempotency_in_progress` after their
//! `Retry-After`, and a lost connection for GETs and keyed requests. Errors carry the API's
//! envelope ([`Error::Api`]). Lists are one page per call (`list_*`) or every item as a
//! stream that follows `next_cursor` (`all_*`); [`Client::follow_log`] streams a run's log
//! live and resumes a dropped stream with `Last-Event-ID`.
//!
//! ```no_run
//! # async fn example() -> client::Result<()> {
//! use client::{Client, TriggerRun};
//! let api = Client::new("http://127.0.0.1:8080", "cpt_…")?;
//! let ws = "ws_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f".parse().expect("a workspace id");
//! let run = api
//!     .trigger_run(&ws, &TriggerRun { feature_id: "billing".into(), ..Default::default() })
//!     .idempotency_key("build-1234")
//!     .await?;
//! println!("{} is {}", run.id, run.status);
//! # Ok(()) }
//! ```

mod call;
mod error;
mod log;
mod retry;

use std::sync::Arc;
use std::time::Duration;

use futures_util::{Stream, StreamExt, TryStreamExt, stream};
use reqwest::Method;
use serde::de::DeserializeOwned;

pub use api_types::*;
pub use call::Call;
pub use domain::{
    ArticleId, ArticleStatus, DeliveryId, DeliveryStatus, DriftCheckId, EventType, ExportFormat,
    RunId, RunStatus, Scope, Surface, Tier, TokenId, UserId, WebhookId, WorkspaceId,
};
pub use error::{Error, Result};

/// The filters of [`Client::list_deliveries_filtered`]; unset ones do not narrow.
#[derive(Clone, Debug, Default)]
pub struct DeliveryFilter {
    pub status: Option<DeliveryStatus>,
    pub event_type: Option<EventType>,
    pub since: Option<domain::Timestamp>,
    pub until: Option<domain::Timestamp>,
}
pub use retry::RetryPolicy;

use call::{bytes, json, text};

/// A connection to one server with one token. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Client {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    http: reqwest::Client,
    base_url: String,
    token: String,
    retry: RetryPolicy,
}

/// `limit` and `cursor` of a list (default 20 items, at most 100).
#[derive(Clone, Debug, Default)]
pub struct PageRequest {
    pub limit: Option<u32>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// The filters of `list_articles`.
#[derive(Clone, Debug, Default)]
pub struct ArticleFilter {
    pub feature_id: Option<String>,
    pub surface: Option<Surface>,
    pub status: Option<ArticleStatus>,
}

pub struct ClientBuilder {
    base_url: String,
    token: String,
    timeout: Duration,
    retry: RetryPolicy,
}

impl ClientBuilder {
    /// The whole-request timeout (default 30 s); live log streams have none.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    pub fn retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    pub fn build(self) -> Result<Client> {
        let base_url = self.base_url.trim_end_matches('/').to_string();
        let parsed =
            reqwest::Url::parse(&base_url).map_err(|_| Error::BaseUrl(base_url.clone()))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(Error::BaseUrl(base_url));
        }
        let http = reqwest::Client::builder()
            .user_agent(concat!(
                "content-pipeline-client/",
                env!("CARGO_PKG_VERSION")
            ))
            .connect_timeout(self.timeout)
            .read_timeout(self.timeout)
            .build()?;
        Ok(Client {
            inner: Arc::new(Inner {
                http,
                base_url,
                token: self.token,
                retry: self.retry,
            }),
        })
    }
}

impl Client {
    /// A client of the server at `base_url` (`http://127.0.0.1:8080`) with a bearer token.
    pub fn new(base_url: &str, token: &str) -> Result<Self> {
        Self::builder(base_url, token).build()
    }

    pub fn builder(base_url: &str, token: &str) -> ClientBuilder {
        ClientBuilder {
            base_url: base_url.to_string(),
            token: token.to_string(),
            timeout: Duration::from_secs(30),
            retry: RetryPolicy::default(),
        }
    }

    pub fn base_url(&self) -> &str {
        &self.inner.base_url
    }

    fn call<T: DeserializeOwned>(&self, method: Method, path: String) -> Call<T> {
        Call::new(self, method, path, json::<T>)
    }

    fn get<T: DeserializeOwned>(&self, path: String) -> Call<T> {
        self.call(Method::GET, path)
    }

    fn page<T: DeserializeOwned>(&self, path: String, page: &PageRequest) -> Call<Page<T>> {
        self.get(path)
            .query("limit", page.limit)
            .query("cursor", page.cursor.clone())
    }

    /// Every item of a list, page after page, following `next_cursor`.
    fn all<T, F>(
        &self,
        page_size: Option<u32>,
        list: F,
    ) -> impl Stream<Item = Result<T>> + use<T, F>
    where
        T: DeserializeOwned + Send + 'static,
        F: Fn(PageRequest) -> Call<Page<T>> + Send + 'static,
    {
        stream::try_unfold(Some(None::<String>), move |state| {
            let call = state.map(|cursor| {
                list(PageRequest {
                    limit: page_size,
                    cursor,
                })
            });
            async move {
                let Some(call) = call else {
                    return Ok::<_, Error>(None);
                };
                let page = call.await?;
                let next = page.next_cursor.map(Some);
                Ok(Some((page.data, next)))
            }
        })
        .map_ok(|items| stream::iter(items.into_iter().map(Ok)))
        .try_flatten()
        .boxed()
    }

    // ---- Workspaces

    pub fn list_workspaces(&self, page: &PageRequest) -> Call<Page<Workspace>> {
        self.page("/v1/workspaces".into(), page)
    }

    pub fn all_workspaces(&self) -> impl Stream<Item = Result<Workspace>> + use<> {
        let client = self.clone();
        self.all(Some(100), move |p| client.list_workspaces(&p))
    }

    pub fn create_workspace(&self, body: &CreateWorkspace) -> Call<Workspace> {
        self.call(Method::POST, "/v1/workspaces".into()).body(body)
    }

    pub fn get_workspace(&self, id: &WorkspaceId) -> Call<Workspace> {
        self.get(format!("/v1/workspaces/{id}"))
    }

    /// Renames a workspace or connects its repository (`repo_url`, `default_branch`).
    pub fn update_workspace(&self, id: &WorkspaceId, body: &UpdateWorkspace) -> Call<Workspace> {
        self.call(Method::PATCH, format!("/v1/workspaces/{id}"))
            .body(body)
    }

    /// The workspace's remote repository: URL, credential kind, last fetch.
    pub fn get_repository(&self, id: &WorkspaceId) -> Call<Repository> {
        self.get(format!("/v1/workspaces/{id}/repository"))
    }

    /// Sets the token the remote is fetched with.
    pub fn set_repository_token(
        &self,
        id: &WorkspaceId,
        body: &SetRepositoryToken,
    ) -> Call<Repository> {
        self.call(
            Method::PUT,
            format!("/v1/workspaces/{id}/repository/credential"),
        )
        .body(body)
    }

    /// Has the service generate a deploy key; the answer shows its public half.
    pub fn generate_deploy_key(&self, id: &WorkspaceId) -> Call<Repository> {
        self.call(
            Method::POST,
            format!("/v1/workspaces/{id}/repository/deploy-key"),
        )
    }

    /// Removes the remote's credential (later fetches are anonymous).
    pub fn delete_repository_credential(&self, id: &WorkspaceId) -> Call<Repository> {
        self.call(
            Method::DELETE,
            format!("/v1/workspaces/{id}/repository/credential"),
        )
    }

    /// The workspace's publish target (the docs repository publishing keeps in sync) and
    /// how its last sync went.
    pub fn get_publish_target(&self, id: &WorkspaceId) -> Call<PublishTarget> {
        self.get(format!("/v1/workspaces/{id}/publish-target"))
    }

    /// Sets the publish target (and its write credential); a sync follows at once.
    pub fn set_publish_target(
        &self,
        id: &WorkspaceId,
        body: &SetPublishTarget,
    ) -> Call<PublishTarget> {
        self.call(Method::PUT, format!("/v1/workspaces/{id}/publish-target"))
            .body(body)
    }

    /// Removes the publish target; the repository keeps what was pushed.
    pub fn delete_publish_target(&self, id: &WorkspaceId) -> Call<PublishTarget> {
        self.call(
            Method::DELETE,
            format!("/v1/workspaces/{id}/publish-target"),
        )
    }

    /// The workspace's forge connection: payload URLs, whether a secret is set, the status
    /// token's fingerprint.
    pub fn get_forge(&self, id: &WorkspaceId) -> Call<ForgeConnection> {
        self.get(format!("/v1/workspaces/{id}/repository/forge"))
    }

    /// Generates (or rotates) the forge secret; the answer is the only time it is shown.
    pub fn rotate_forge_secret(
        &self,
        id: &WorkspaceId,
        body: &RotateSecret,
    ) -> Call<ForgeConnection> {
        self.call(
            Method::POST,
            format!("/v1/workspaces/{id}/repository/forge-secret"),
        )
        .body(body)
    }

    /// Sets the token commit statuses are posted with, and the forge API root.
    pub fn set_forge_token(&self, id: &WorkspaceId, body: &SetForgeToken) -> Call<ForgeConnection> {
        self.call(
            Method::PUT,
            format!("/v1/workspaces/{id}/repository/forge-token"),
        )
        .body(body)
    }

    /// Removes the status token (statuses are then kept in the service only).
    pub fn delete_forge_token(&self, id: &WorkspaceId) -> Call<ForgeConnection> {
        self.call(
            Method::DELETE,
            format!("/v1/workspaces/{id}/repository/forge-token"),
        )
    }

    /// The last deliveries the workspace's forge sent, and what each triggered.
    pub fn list_forge_deliveries(&self, id: &WorkspaceId) -> Call<Page<ForgeDelivery>> {
        self.get(format!("/v1/workspaces/{id}/forge-deliveries"))
    }

    /// The pull requests' drift checks and their commit statuses.
    pub fn list_pull_request_checks(&self, id: &WorkspaceId) -> Call<Page<PullRequestCheck>> {
        self.get(format!("/v1/workspaces/{id}/pull-request-checks"))
    }

    /// A soft delete: the workspace stays readable, every write in it becomes 409.
    pub fn delete_workspace(&self, id: &WorkspaceId) -> Call<Workspace> {
        self.call(Method::DELETE, format!("/v1/workspaces/{id}"))
    }

    // ---- Runs

    pub fn list_runs(&self, ws: &WorkspaceId, page: &PageRequest) -> Call<Page<Run>> {
        self.page(format!("/v1/workspaces/{ws}/runs"), page)
    }

    pub fn all_runs(&self, ws: &WorkspaceId) -> impl Stream<Item = Result<Run>> + use<> {
        let (client, ws) = (self.clone(), *ws);
        self.all(Some(100), move |p| client.list_runs(&ws, &p))
    }

    /// Queues a run (201), or returns the run already queued for the feature (200).
    pub fn trigger_run(&self, ws: &WorkspaceId, body: &TriggerRun) -> Call<Run> {
        self.call(Method::POST, format!("/v1/workspaces/{ws}/runs"))
            .body(body)
    }

    pub fn get_run(&self, id: &RunId) -> Call<Run> {
        self.get(format!("/v1/runs/{id}"))
    }

    /// One page of a run's log, oldest first.
    pub fn run_log(&self, id: &RunId, page: &PageRequest) -> Call<Page<RunLogEvent>> {
        self.page(format!("/v1/runs/{id}/log"), page)
    }

    pub fn all_run_log(&self, id: &RunId) -> impl Stream<Item = Result<RunLogEvent>> + use<> {
        let (client, id) = (self.clone(), *id);
        self.all(Some(100), move |p| client.run_log(&id, &p))
    }

    // ---- Articles

    pub fn list_articles(
        &self,
        ws: &WorkspaceId,
        filter: &ArticleFilter,
        page: &PageRequest,
    ) -> Call<Page<Article>> {
        self.page(format!("/v1/workspaces/{ws}/articles"), page)
            .query("feature_id", filter.feature_id.clone())
            .query("surface", filter.surface)
            .query("status", filter.status)
    }

    pub fn all_articles(
        &self,
        ws: &WorkspaceId,
        filter: ArticleFilter,
    ) -> impl Stream<Item = Result<Article>> + use<> {
        let (client, ws) = (self.clone(), *ws);
        self.all(Some(100), move |p| client.list_articles(&ws, &filter, &p))
    }

    pub fn get_article(&self, id: &ArticleId) -> Call<Article> {
        self.get(format!("/v1/articles/{id}"))
    }

    pub fn article_versions(
        &self,
        id: &ArticleId,
        page: &PageRequest,
    ) -> Call<Page<ArticleVersion>> {
        self.page(format!("/v1/articles/{id}/versions"), page)
    }

    /// Publishes the current version (200 also when it already was).
    pub fn publish_article(&self, id: &ArticleId) -> Call<Article> {
        self.call(Method::POST, format!("/v1/articles/{id}/publish"))
    }

    /// Takes the article off the published site (and its page out of the publish target).
    pub fn unpublish_article(&self, id: &ArticleId) -> Call<Article> {
        self.call(Method::DELETE, format!("/v1/articles/{id}/publication"))
    }

    /// Queues a run for the article's feature and surface.
    pub fn regenerate_article(&self, id: &ArticleId, body: &RegenerateArticle) -> Call<Run> {
        self.call(Method::POST, format!("/v1/articles/{id}/regenerate"))
            .body(body)
    }

    /// The published version's MDX (`/published/{id}`, no token needed).
    pub fn published_id(&self, id: &ArticleId) -> Call<String> {
        Call::new(self, Method::GET, format!("/published/{id}"), text).accept("text/markdown")
    }

    // ---- Exports

    /// The workspace's published articles as a `tar.gz` laid out for `format` (Docusaurus,
    /// Mintlify, Starlight or MkDocs Material); unpack it with care (its paths are the
    /// server's: `content-pipeline export` refuses any that would leave the folder).
    pub fn export_workspace(&self, ws: &WorkspaceId, format: ExportFormat) -> Call<Vec<u8>> {
        Call::new(
            self,
            Method::GET,
            format!("/v1/workspaces/{ws}/export"),
            bytes,
        )
        .query("format", Some(format.as_str()))
        .accept("application/gzip")
    }

    // ---- Drift

    /// Checks the workspace's articles against its repository's HEAD: the finished check when
    /// it takes under 5 s, else the queued one (poll it with [`Client::get_drift_check`]).
    pub fn drift_check(&self, ws: &WorkspaceId) -> Call<DriftCheck> {
        self.call(Method::POST, format!("/v1/workspaces/{ws}/drift-check"))
    }

    /// Checks the articles against the code at a ref (a pull request's head, a commit).
    pub fn drift_check_at(&self, ws: &WorkspaceId, body: &DriftCheckOptions) -> Call<DriftCheck> {
        self.call(Method::POST, format!("/v1/workspaces/{ws}/drift-check"))
            .body(body)
    }

    pub fn get_drift_check(&self, id: &DriftCheckId) -> Call<DriftCheck> {
        self.get(format!("/v1/drift-checks/{id}"))
    }

    // ---- Tokens

    pub fn list_tokens(&self, ws: &WorkspaceId, page: &PageRequest) -> Call<Page<Token>> {
        self.page(format!("/v1/workspaces/{ws}/tokens"), page)
    }

    /// The answer carries the token's secret (`token`), once.
    pub fn create_token(&self, ws: &WorkspaceId, body: &CreateToken) -> Call<Token> {
        self.call(Method::POST, format!("/v1/workspaces/{ws}/tokens"))
            .body(body)
    }

    /// A new secret for the token; the old one stops working at once.
    pub fn reissue_token(&self, id: &TokenId) -> Call<Token> {
        self.call(Method::POST, format!("/v1/tokens/{id}/reissue"))
    }

    pub fn revoke_token(&self, id: &TokenId) -> Call<Token> {
        self.call(Method::DELETE, format!("/v1/tokens/{id}"))
    }

    // ---- Members

    pub fn list_members(&self, ws: &WorkspaceId, page: &PageRequest) -> Call<Page<Member>> {
        self.page(format!("/v1/workspaces/{ws}/members"), page)
    }

    /// For someone without a password yet, the answer carries a one-time `sign_up_url`.
    pub fn invite_member(&self, ws: &WorkspaceId, body: &InviteMember) -> Call<Member> {
        self.call(Method::POST, format!("/v1/workspaces/{ws}/members"))
            .body(body)
    }

    pub fn update_member(
        &self,
        ws: &WorkspaceId,
        user: &UserId,
        body: &UpdateMember,
    ) -> Call<Member> {
        self.call(Method::PATCH, format!("/v1/workspaces/{ws}/members/{user}"))
            .body(body)
    }

    /// Also ends the person's portal sessions.
    pub fn remove_member(&self, ws: &WorkspaceId, user: &UserId) -> Call<Member> {
        self.call(
            Method::DELETE,
            format!("/v1/workspaces/{ws}/members/{user}"),
        )
    }

    // ---- Webhooks

    pub fn list_webhooks(&self, ws: &WorkspaceId, page: &PageRequest) -> Call<Page<Webhook>> {
        self.page(format!("/v1/workspaces/{ws}/webhooks"), page)
    }

    /// The answer carries the signing secret (`secret`), once.
    pub fn create_webhook(&self, ws: &WorkspaceId, body: &CreateWebhook) -> Call<Webhook> {
        self.call(Method::POST, format!("/v1/workspaces/{ws}/webhooks"))
            .body(body)
    }

    pub fn get_webhook(&self, id: &WebhookId) -> Call<Webhook> {
        self.get(format!("/v1/webhooks/{id}"))
    }

    pub fn update_webhook(&self, id: &WebhookId, body: &UpdateWebhook) -> Call<Webhook> {
        self.call(Method::PATCH, format!("/v1/webhooks/{id}"))
            .body(body)
    }

    pub fn delete_webhook(&self, id: &WebhookId) -> Call<Webhook> {
        self.call(Method::DELETE, format!("/v1/webhooks/{id}"))
    }

    /// The answer carries the new secret (`secret`), once.
    pub fn rotate_secret(&self, id: &WebhookId, body: &RotateSecret) -> Call<Webhook> {
        self.call(Method::POST, format!("/v1/webhooks/{id}/rotate-secret"))
            .body(body)
    }

    pub fn replay(&self, id: &WebhookId, body: &ReplayDelivery) -> Call<Delivery> {
        self.call(Method::POST, format!("/v1/webhooks/{id}/replay"))
            .body(body)
    }

    pub fn list_deliveries(
        &self,
        id: &WebhookId,
        status: Option<DeliveryStatus>,
        page: &PageRequest,
    ) -> Call<Page<Delivery>> {
        self.page(format!("/v1/webhooks/{id}/deliveries"), page)
            .query("status", status)
    }

    /// A subscription's deliveries narrowed by status, event type and creation time
    /// (`since` inclusive, `until` exclusive).
    pub fn list_deliveries_filtered(
        &self,
        id: &WebhookId,
        filter: &DeliveryFilter,
        page: &PageRequest,
    ) -> Call<Page<Delivery>> {
        self.page(format!("/v1/webhooks/{id}/deliveries"), page)
            .query("status", filter.status)
            .query("event_type", filter.event_type)
            .query("since", filter.since)
            .query("until", filter.until)
    }

    pub fn get_delivery(&self, id: &DeliveryId) -> Call<Delivery> {
        self.get(format!("/v1/deliveries/{id}"))
    }

    /// A delivery's attempts, newest first: what was sent and what came back.
    pub fn list_attempts(
        &self,
        id: &DeliveryId,
        page: &PageRequest,
    ) -> Call<Page<DeliveryAttempt>> {
        self.page(format!("/v1/deliveries/{id}/attempts"), page)
    }

    /// The event catalog: each type with its JSON Schema and an example.
    pub fn list_event_types(&self) -> Call<EventTypeList> {
        self.get("/v1/event-types".into())
    }

    /// Sends the catalog's example of an event type, marked as a test, to this endpoint only.
    pub fn send_test_event(&self, id: &WebhookId, body: &SendTestEvent) -> Call<Delivery> {
        self.call(Method::POST, format!("/v1/webhooks/{id}/test"))
            .body(body)
    }

    /// Replays once each failed or dead delivery of this endpoint since a time.
    pub fn recover(&self, id: &WebhookId, body: &RecoverDeliveries) -> Call<Recovered> {
        self.call(Method::POST, format!("/v1/webhooks/{id}/recover"))
            .body(body)
    }

    // ---- The service

    pub fn healthz(&self) -> Call<serde_json::Value> {
        self.get("/healthz".into())
    }

    pub fn readyz(&self) -> Call<serde_json::Value> {
        self.get("/readyz".into())
    }

    /// Prometheus text.
    pub fn metrics(&self) -> Call<String> {
        Call::new(self, Method::GET, "/metrics".into(), text).accept("text/plain")
    }

    /// The OpenAPI 3.1 document.
    pub fn openapi_json(&self) -> Call<serde_json::Value> {
        self.get("/openapi.json".into())
    }

    /// The interactive reference (HTML).
    pub fn docs(&self) -> Call<String> {
        Call::new(self, Method::GET, "/docs".into(), text).accept("text/html")
    }

    /// The error catalogue (HTML).
    pub fn docs_errors(&self) -> Call<String> {
        Call::new(self, Method::GET, "/docs/errors".into(), text).accept("text/html")
    }
}
