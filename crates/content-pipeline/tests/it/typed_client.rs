//! The typed client (`crates/client`) against the real server: every operation of the OpenAPI
//! document has a method that works, a 429 is waited out, and a request whose answer was lost
//! with its connection is retried with the same Idempotency-Key and replayed, not repeated.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use client::{
    ArticleFilter, Client, CreateToken, CreateWebhook, CreateWorkspace, EventType, InviteMember,
    PageRequest, RegenerateArticle, ReplayDelivery, RotateSecret, Scope, SetForgeToken,
    SetRepositoryToken, TriggerRun, UpdateMember, UpdateWebhook, UpdateWorkspace,
};
use futures_util::TryStreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::app;
use crate::helpers::TestApp;

/// Every operation the document lists, in an order in which each finds what it needs.
const OPERATIONS: &[&str] = &[
    "healthz",
    "readyz",
    "metrics",
    "openapi_json",
    "docs",
    "docs_errors",
    "create_workspace",
    "get_workspace",
    "update_workspace",
    "set_repository_token",
    "generate_deploy_key",
    "get_repository",
    "delete_repository_credential",
    "list_workspaces",
    "create_token",
    "list_tokens",
    "reissue_token",
    "revoke_token",
    "invite_member",
    "list_members",
    "update_member",
    "remove_member",
    "create_webhook",
    "get_webhook",
    "list_webhooks",
    "update_webhook",
    "rotate_secret",
    "trigger_run",
    "get_run",
    "run_log",
    "list_runs",
    "list_articles",
    "get_article",
    "article_versions",
    "publish_article",
    "published_id",
    "export_workspace",
    "unpublish_article",
    "regenerate_article",
    "drift_check",
    "get_drift_check",
    "list_event_types",
    "list_deliveries",
    "get_delivery",
    "list_attempts",
    "send_test_event",
    "replay",
    "recover",
    "rotate_forge_secret",
    "get_forge",
    "set_forge_token",
    "list_forge_deliveries",
    "list_pull_request_checks",
    "delete_forge_token",
    "set_publish_target",
    "get_publish_target",
    "delete_publish_target",
    "delete_webhook",
    "delete_workspace",
];

#[tokio::test]
async fn every_operation_of_the_document_has_a_working_client_method() {
    // One attempt per delivery (to an address nobody answers), so the workers drain.
    let app = app!(TestApp::builder().run_worker().webhook_retry_schedule("0s"));
    let api = app.platform_api();
    let document = api.openapi_json().await.expect("the document");
    let mut in_document = BTreeSet::new();
    for item in document["paths"].as_object().expect("paths").values() {
        for operation in item.as_object().expect("path item").values() {
            // Forges post to `receive` (tests/it/forge_events.rs), not API clients.
            if let Some(id) = operation["operationId"]
                .as_str()
                .filter(|id| *id != "receive")
            {
                in_document.insert(id.to_string());
            }
        }
    }
    let covered: BTreeSet<String> = OPERATIONS.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        in_document, covered,
        "every operationId of /openapi.json has a client method exercised here"
    );

    let repo = app.repo("client-repo");
    let mut ids = Ids::default();
    for op in OPERATIONS {
        exercise(&app, &api, &mut ids, &repo.path, op).await;
    }
}

#[derive(Default)]
struct Ids {
    ws: Option<client::WorkspaceId>,
    token: Option<client::TokenId>,
    member: Option<client::UserId>,
    webhook: Option<client::WebhookId>,
    run: Option<client::RunId>,
    article: Option<client::ArticleId>,
    check: Option<client::DriftCheckId>,
    delivery: Option<client::DeliveryId>,
}

/// Calls the client method of `op` and checks its answer; a panic names the operation.
async fn exercise(app: &TestApp, api: &Client, ids: &mut Ids, repo: &std::path::Path, op: &str) {
    let page = PageRequest::default();
    match op {
        "healthz" => assert_eq!(api.healthz().await.named(op)["status"], "ok"),
        "readyz" => {
            api.readyz().await.named(op);
        }
        "metrics" => assert!(
            api.metrics()
                .await
                .named(op)
                .contains("http_requests_total")
        ),
        "openapi_json" => {
            assert_eq!(api.openapi_json().await.named(op)["openapi"], "3.1.0")
        }
        "docs" => assert!(api.docs().await.named(op).contains("<html")),
        "docs_errors" => {
            assert!(
                api.docs_errors()
                    .await
                    .named(op)
                    .contains("idempotency_key_reused")
            )
        }
        "create_workspace" => {
            let body = CreateWorkspace {
                name: "client".into(),
                repo_path: Some(repo.display().to_string()),
                ..Default::default()
            };
            let ws = api.create_workspace(&body).await.named(op);
            assert_eq!(ws.name, "client");
            ids.ws = Some(ws.id);
        }
        "get_workspace" => {
            let ws = api.get_workspace(&ws(ids)).await.named(op);
            assert!(ws.active);
        }
        "update_workspace" => {
            let body = UpdateWorkspace {
                name: Some("client, renamed".into()),
                ..Default::default()
            };
            let ws = api.update_workspace(&ws(ids), &body).await.named(op);
            assert_eq!(ws.name, "client, renamed");
        }
        "set_repository_token" => {
            let body = SetRepositoryToken {
                token: "glpat-client".into(),
                username: Some("oauth2".into()),
            };
            let repo = api.set_repository_token(&ws(ids), &body).await.named(op);
            let credential = repo.credential.expect("a credential");
            assert_eq!(credential.kind, "token");
            assert!(credential.fingerprint.starts_with("sha256:"));
        }
        "generate_deploy_key" => {
            let repo = api.generate_deploy_key(&ws(ids)).await.named(op);
            let credential = repo.credential.expect("a credential");
            assert_eq!(credential.kind, "deploy_key");
            assert!(
                credential
                    .public_key
                    .is_some_and(|k| k.starts_with("ssh-ed25519 "))
            );
        }
        "get_forge" => {
            let forge = api.get_forge(&ws(ids)).await.named(op);
            assert!(forge.secret.is_none() && forge.secret_set);
            assert!(forge.endpoints.gitlab.ends_with("/forge/gitlab"));
        }
        "rotate_forge_secret" => {
            let forge = api
                .rotate_forge_secret(&ws(ids), &RotateSecret::default())
                .await
                .named(op);
            assert_eq!(forge.secret.map(|s| s.len()), Some(64));
        }
        "set_forge_token" => {
            let body = SetForgeToken {
                token: "ghp_client".into(),
                api_url: None,
            };
            let forge = api.set_forge_token(&ws(ids), &body).await.named(op);
            assert!(forge.api_token.is_some());
        }
        "delete_forge_token" => {
            let forge = api.delete_forge_token(&ws(ids)).await.named(op);
            assert!(forge.api_token.is_none());
        }
        "list_forge_deliveries" => {
            let page = api.list_forge_deliveries(&ws(ids)).await.named(op);
            assert!(page.data.is_empty() && page.next_cursor.is_none());
        }
        "list_pull_request_checks" => {
            let page = api.list_pull_request_checks(&ws(ids)).await.named(op);
            assert!(page.data.is_empty());
        }
        "get_repository" => {
            let repo = api.get_repository(&ws(ids)).await.named(op);
            assert!(repo.credential.is_some());
        }
        "delete_repository_credential" => {
            let repo = api.delete_repository_credential(&ws(ids)).await.named(op);
            assert!(repo.credential.is_none());
        }
        "list_workspaces" => {
            let all: Vec<_> = api.all_workspaces().try_collect().await.named(op);
            assert!(all.iter().any(|w| w.id == ws(ids)));
            api.list_workspaces(&page).await.named(op);
        }
        "create_token" => {
            let body = CreateToken {
                scope: Scope::Read,
                name: Some("client test".into()),
                rate_limit: None,
                expires_at: None,
            };
            let token = api.create_token(&ws(ids), &body).await.named(op);
            assert!(
                token
                    .token
                    .as_deref()
                    .is_some_and(|t| t.starts_with("cpt_"))
            );
            ids.token = Some(token.id);
        }
        "list_tokens" => {
            let tokens = api.list_tokens(&ws(ids), &page).await.named(op);
            assert!(tokens.data.iter().any(|t| Some(t.id) == ids.token));
        }
        "reissue_token" => {
            let token = api
                .reissue_token(&ids.token.expect("token"))
                .await
                .named(op);
            assert!(token.token.is_some());
        }
        "revoke_token" => {
            let token = api.revoke_token(&ids.token.expect("token")).await.named(op);
            assert!(token.revoked_at.is_some());
        }
        "invite_member" => {
            let body = InviteMember {
                email: "client@example.com".into(),
                role: Scope::Read,
            };
            let member = api.invite_member(&ws(ids), &body).await.named(op);
            assert!(member.sign_up_url.is_some(), "a new person gets a link");
            ids.member = Some(member.user_id);
        }
        "list_members" => {
            let members = api.list_members(&ws(ids), &page).await.named(op);
            assert!(members.data.iter().any(|m| Some(m.user_id) == ids.member));
        }
        "update_member" => {
            let body = UpdateMember {
                role: Scope::Publish,
            };
            let member = api
                .update_member(&ws(ids), &ids.member.expect("member"), &body)
                .await
                .named(op);
            assert_eq!(member.role, Scope::Publish);
        }
        "remove_member" => {
            let member = api
                .remove_member(&ws(ids), &ids.member.expect("member"))
                .await
                .named(op);
            assert_eq!(member.email, "client@example.com");
        }
        "create_webhook" => {
            let body = CreateWebhook {
                url: "https://hooks.example.com/client".into(),
                events: vec![EventType::RunCompleted],
                ..Default::default()
            };
            let hook = api.create_webhook(&ws(ids), &body).await.named(op);
            assert!(
                hook.secret
                    .as_deref()
                    .is_some_and(|s| s.starts_with("whsec_"))
            );
            ids.webhook = Some(hook.id);
        }
        "get_webhook" => {
            let hook = api.get_webhook(&webhook(ids)).await.named(op);
            assert_eq!(hook.secret, None);
        }
        "list_webhooks" => {
            let hooks = api.list_webhooks(&ws(ids), &page).await.named(op);
            assert_eq!(hooks.data.len(), 1);
        }
        "update_webhook" => {
            let body = UpdateWebhook {
                description: Some(Some("rebuild the docs site".into())),
                ..Default::default()
            };
            let hook = api.update_webhook(&webhook(ids), &body).await.named(op);
            assert_eq!(hook.description.as_deref(), Some("rebuild the docs site"));
        }
        "rotate_secret" => {
            let body = RotateSecret {
                grace_period_seconds: Some(60),
            };
            let hook = api.rotate_secret(&webhook(ids), &body).await.named(op);
            assert!(hook.secret.is_some());
        }
        "trigger_run" => {
            let body = TriggerRun {
                feature_id: "a".into(),
                ..Default::default()
            };
            let run = api.trigger_run(&ws(ids), &body).await.named(op);
            app.drained().await;
            ids.run = Some(run.id);
        }
        "get_run" => {
            let run = api.get_run(&run(ids)).await.named(op);
            assert_eq!(run.status, client::RunStatus::Succeeded, "{:?}", run.error);
            assert_eq!(run.artifacts.len(), 4);
        }
        "run_log" => {
            let log: Vec<_> = api.all_run_log(&run(ids)).try_collect().await.named(op);
            assert!(log.windows(2).all(|w| w[0].seq < w[1].seq));
            assert!(!log.is_empty());
        }
        "list_runs" => {
            let runs: Vec<_> = api.all_runs(&ws(ids)).try_collect().await.named(op);
            assert_eq!(runs.len(), 1);
        }
        "list_articles" => {
            let filter = ArticleFilter {
                surface: Some(client::Surface::DevDocs),
                ..Default::default()
            };
            let articles = api.list_articles(&ws(ids), &filter, &page).await.named(op);
            assert_eq!(articles.data.len(), 1);
            ids.article = Some(articles.data[0].id);
        }
        "get_article" => {
            let article = api.get_article(&article(ids)).await.named(op);
            assert!(article.mdx_body.is_some_and(|b| b.contains("add")));
        }
        "article_versions" => {
            let versions = api.article_versions(&article(ids), &page).await.named(op);
            assert_eq!(versions.data.len(), 1);
        }
        "publish_article" => {
            let article = api.publish_article(&article(ids)).await.named(op);
            assert_eq!(article.published_version, Some(1));
        }
        "unpublish_article" => {
            let article = api.unpublish_article(&article(ids)).await.named(op);
            assert_eq!(article.published_version, None);
            assert!(article.public_url.is_none());
        }
        "set_publish_target" => {
            let body = client::SetPublishTarget {
                url: "https://docs.example.com/acme/docs.git".into(),
                folder: Some("docs".into()),
                format: "starlight".into(),
                token: Some("ghp-client".into()),
                ..client::SetPublishTarget::default()
            };
            let target = api.set_publish_target(&ws(ids), &body).await.named(op);
            assert_eq!(target.branch, "main");
            assert_eq!(target.credential.expect("a credential").kind, "token");
        }
        "get_publish_target" => {
            let target = api.get_publish_target(&ws(ids)).await.named(op);
            assert_eq!(target.format, "starlight");
        }
        "delete_publish_target" => {
            let target = api.delete_publish_target(&ws(ids)).await.named(op);
            assert_eq!(target.folder, "docs");
        }
        "published_id" => {
            let mdx = api.published_id(&article(ids)).await.named(op);
            assert!(mdx.starts_with("---"));
        }
        "export_workspace" => {
            let archive = api
                .export_workspace(&ws(ids), client::ExportFormat::Mintlify)
                .await
                .named(op);
            // gzip's magic number, then a docs.json inside.
            assert_eq!(archive.get(..2), Some(&[0x1f, 0x8b][..]));
            let files = crate::framework_exports::files(&archive);
            assert!(files.contains_key("docs.json"), "{:?}", files.keys());
        }
        "regenerate_article" => {
            let run = api
                .regenerate_article(&article(ids), &RegenerateArticle::default())
                .await
                .named(op);
            assert_eq!(run.surfaces, Some(vec![client::Surface::DevDocs]));
            app.drained().await;
        }
        "drift_check" => {
            let check = api.drift_check(&ws(ids)).await.named(op);
            ids.check = Some(check.id);
        }
        "get_drift_check" => {
            let check = api
                .get_drift_check(&ids.check.expect("check"))
                .await
                .named(op);
            assert_eq!(check.workspace_id, ws(ids));
        }
        "list_deliveries" => {
            let deliveries = api
                .list_deliveries(&webhook(ids), None, &page)
                .await
                .named(op);
            assert!(!deliveries.data.is_empty(), "run.completed was delivered");
            ids.delivery = Some(deliveries.data[0].id);
        }
        "get_delivery" => {
            let delivery = api
                .get_delivery(&ids.delivery.expect("delivery"))
                .await
                .named(op);
            assert_eq!(delivery.event_type, EventType::RunCompleted);
            let filtered = api
                .list_deliveries_filtered(
                    &webhook(ids),
                    &client::DeliveryFilter {
                        event_type: Some(EventType::ArticlePublished),
                        since: Some(delivery.created_at),
                        ..Default::default()
                    },
                    &page,
                )
                .await
                .named(op);
            assert!(
                filtered
                    .data
                    .iter()
                    .all(|d| d.event_type == EventType::ArticlePublished)
            );
        }
        "list_event_types" => {
            let catalog = api.list_event_types().await.named(op);
            assert_eq!(catalog.data.len(), EventType::ALL.len());
            assert!(
                catalog
                    .data
                    .iter()
                    .all(|e| e.example["type"] == e.event_type.as_str())
            );
        }
        "list_attempts" => {
            let delivery = ids.delivery.expect("delivery");
            let attempts = testkit::eventually(Duration::from_secs(10), "an attempt", || async {
                let page = api.list_attempts(&delivery, &page).await.named(op);
                (!page.data.is_empty()).then_some(page)
            })
            .await;
            assert_eq!(attempts.data[0].delivery_id, delivery);
            assert_eq!(attempts.data[0].attempt, 1);
        }
        "send_test_event" => {
            let body = client::SendTestEvent {
                event_type: EventType::DriftDetected,
            };
            let sent = api.send_test_event(&webhook(ids), &body).await.named(op);
            assert_eq!(sent.event_type, EventType::DriftDetected);
            assert!(!sent.is_replay);
        }
        "recover" => {
            let since = api.get_webhook(&webhook(ids)).await.named(op).created_at;
            let body = client::RecoverDeliveries { since };
            let recovered = api.recover(&webhook(ids), &body).await.named(op);
            assert!(!recovered.has_more);
        }
        "replay" => {
            let body = ReplayDelivery {
                delivery_id: ids.delivery.expect("delivery").to_string(),
            };
            let replayed = api.replay(&webhook(ids), &body).await.named(op);
            assert!(replayed.is_replay);
        }
        "delete_webhook" => {
            api.delete_webhook(&webhook(ids)).await.named(op);
            let gone = api.get_webhook(&webhook(ids)).await.expect_err("deleted");
            assert_eq!(gone.kind(), Some(client::ErrorType::NotFound));
        }
        "delete_workspace" => {
            let ws = api.delete_workspace(&ws(ids)).await.named(op);
            assert!(!ws.active);
        }
        other => panic!("no client method is exercised for {other}"),
    }
}

trait Named<T> {
    /// The value, or a panic that names the operation.
    fn named(self, op: &str) -> T;
}

impl<T> Named<T> for client::Result<T> {
    fn named(self, op: &str) -> T {
        self.unwrap_or_else(|e| panic!("{op}: {e}"))
    }
}

fn ws(ids: &Ids) -> client::WorkspaceId {
    ids.ws.expect("workspace")
}
fn webhook(ids: &Ids) -> client::WebhookId {
    ids.webhook.expect("webhook")
}
fn run(ids: &Ids) -> client::RunId {
    ids.run.expect("run")
}
fn article(ids: &Ids) -> client::ArticleId {
    ids.article.expect("article")
}

#[tokio::test]
async fn errors_carry_the_envelope_and_are_not_retried() {
    let app = app!();
    let api = app.platform_api();
    let missing = "run_01933b5f0a1b7c3e9d1f2a4b6c8d0e20".parse().expect("id");
    let error = api.get_run(&missing).await.expect_err("no such run");
    assert_eq!(error.status(), Some(404));
    let client::Error::Api { error, .. } = error else {
        panic!("an API error")
    };
    assert_eq!(error.kind, client::ErrorType::NotFound);
    assert!(error.request_id.starts_with("req_"));
    assert!(error.docs.ends_with("/docs/errors#not_found"));

    let ws = app.workspace("w").await.parse().expect("ws");
    let empty = TriggerRun::default();
    let error = api.trigger_run(&ws, &empty).await.expect_err("no feature");
    assert_eq!(error.kind(), Some(client::ErrorType::ValidationFailed));
}

#[tokio::test]
async fn a_rate_limited_call_waits_for_retry_after_and_succeeds() {
    let app = app!();
    let ws = app.workspace("w").await;
    // Backoff far shorter than Retry-After: retrying on it would meet 429 three more times.
    let quick = client::RetryPolicy {
        initial_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_millis(40),
        ..client::RetryPolicy::default()
    };
    let token = app.token_with_limit(&ws, "read", 1).await;
    let api = Client::builder(&app.base, &token)
        .retry(quick)
        .build()
        .expect("client");
    let ws: client::WorkspaceId = ws.parse().expect("ws");
    api.get_workspace(&ws)
        .await
        .expect("the quota's one request");
    // The window frees its slot 300 s after that request: 1 s from now on the server's clock.
    app.clock.advance(Duration::from_secs(299));
    let started = Instant::now();
    let call = tokio::spawn({
        let api = api.clone();
        async move { api.get_workspace(&ws).await }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    app.clock.advance(Duration::from_secs(2));
    let answered = call.await.expect("task");
    assert!(answered.is_ok(), "retried after Retry-After: {answered:?}");
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "waited Retry-After (1 s) before retrying"
    );
    // A Retry-After longer than the policy accepts is returned, not waited for.
    let error = api
        .get_workspace(&ws)
        .await
        .expect_err("the quota is spent");
    assert_eq!(error.kind(), Some(client::ErrorType::RateLimited));
}

#[tokio::test]
async fn a_keyed_request_whose_answer_was_lost_is_replayed_not_repeated() {
    let app = app!();
    let ws = app.workspace("w").await;
    let target: SocketAddr = app
        .base
        .trim_start_matches("http://")
        .parse()
        .expect("addr");
    let (proxy, connections) = proxy_that_loses_the_first_answer(target).await;
    let api = Client::new(&format!("http://{proxy}"), &app.platform_token).expect("client");
    let ws: client::WorkspaceId = ws.parse().expect("ws");
    let body = CreateToken {
        scope: Scope::Write,
        name: Some("deploy bot".into()),
        rate_limit: None,
        expires_at: None,
    };
    let token = api
        .create_token(&ws, &body)
        .await
        .expect("retried and replayed");
    assert!(
        connections.load(Ordering::SeqCst) >= 2,
        "the first answer was lost"
    );
    let tokens: Vec<_> = api
        .list_tokens(&ws, &PageRequest::default())
        .await
        .expect("tokens")
        .data
        .into_iter()
        .filter(|t| t.name == "deploy bot")
        .collect();
    assert_eq!(tokens.len(), 1, "one token, not one per try");
    assert_eq!(tokens[0].id, token.id);
    assert!(
        token.token.is_some(),
        "the replay carries the stored secret"
    );
}

/// A TCP proxy to `target` whose first connection forwards the request, waits for the answer
/// to begin, and then closes without passing it on; later connections are passed through.
async fn proxy_that_loses_the_first_answer(target: SocketAddr) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let connections = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&connections);
    tokio::spawn(async move {
        while let Ok((mut downstream, _)) = listener.accept().await {
            let n = seen.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let Ok(mut upstream) = TcpStream::connect(target).await else {
                    return;
                };
                if n > 0 {
                    let _ = tokio::io::copy_bidirectional(&mut downstream, &mut upstream).await;
                    return;
                }
                let mut buf = vec![0u8; 64 * 1024];
                let Ok(read) = downstream.read(&mut buf).await else {
                    return;
                };
                let _ = upstream.write_all(&buf[..read]).await;
                let _ = upstream.read(&mut buf).await;
                // The answer exists and is dropped with both connections.
            });
        }
    });
    (addr, connections)
}
