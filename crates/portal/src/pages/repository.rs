//! Settings → Repository: where the workspace's code is (a remote the service fetches), the
//! credential it is fetched with (a token pasted here, or a deploy key generated here whose
//! public half is shown to copy into the forge), and what the last fetch saw. Each action is
//! the API's use case with the person's caller; secrets are never shown back.

use askama::Template;
use axum::extract::Path;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect};
use axum::routing::{get, post};
use axum::{Form, Router};
use domain::{DriftCheckId, Scope};
use operations::drift::DriftCheck;
use operations::forge::{
    ForgeConnection, ForgeDelivery, PullRequestCheck, RotateSecret, SetForgeToken,
};
use operations::publish_targets::{PublishTarget, SetPublishTarget};
use operations::repositories::{NewCredential, Repository, SetRepositoryToken};
use operations::workspaces::UpdateWorkspace;
use serde::Deserialize;
use store::DriftCheckRecord;

use super::Member;
use super::settings::{Shown, admin, answer, in_workspace};
use crate::Portal;
use crate::web::{Nav, PageResult, render, when};

pub fn router() -> Router<Portal> {
    Router::new()
        .route(
            "/portal/w/{ws}/settings/repository",
            get(repository_page).post(connect),
        )
        .route("/portal/w/{ws}/settings/repository/token", post(set_token))
        .route(
            "/portal/w/{ws}/settings/repository/deploy-key",
            post(deploy_key),
        )
        .route("/portal/w/{ws}/settings/repository/fetch", post(fetch_now))
        .route(
            "/portal/w/{ws}/settings/repository/publish-target",
            post(set_publish_target),
        )
        .route(
            "/portal/w/{ws}/settings/repository/forge-secret",
            post(forge_secret),
        )
        .route(
            "/portal/w/{ws}/settings/repository/forge-token",
            post(forge_token),
        )
        .route("/portal/w/{ws}/drift-checks/{id}", get(drift_check))
}

#[derive(Template)]
#[template(path = "portal/settings_repository.html")]
struct RepositoryPage {
    nav: Nav,
    repo: Repository,
    /// A server path set by the platform (shown, not editable here).
    repo_path: Option<String>,
    last_fetch: Option<String>,
    error: Option<String>,
    notice: Option<String>,
    may_admin: bool,
    /// Never set: the settings tabs' frame shows a secret here on other tabs only.
    shown: Option<Shown>,
    forge: ForgeConnection,
    /// The forge secret, once, right after it was generated.
    forge_secret: Option<String>,
    deliveries: Vec<DeliveryRow>,
    checks: Vec<PullRequestCheck>,
    /// The docs repository publishing keeps in sync, and how its last sync went.
    publish: Option<PublishTarget>,
    last_sync: Option<String>,
    formats: Vec<&'static str>,
}

/// A forge delivery as the page lists it.
struct DeliveryRow {
    delivery: ForgeDelivery,
    received: String,
}

async fn view(
    portal: &Portal,
    member: &Member,
    error: Option<String>,
    notice: Option<String>,
) -> PageResult<RepositoryPage> {
    view_with(portal, member, error, notice, None).await
}

async fn view_with(
    portal: &Portal,
    member: &Member,
    error: Option<String>,
    notice: Option<String>,
    forge_secret: Option<String>,
) -> PageResult<RepositoryPage> {
    admin(member)?;
    let ws = portal
        .ops
        .store
        .workspace(member.ws.id)
        .await
        .map_err(operations::Error::from)?
        .unwrap_or_else(|| member.ws.clone());
    let repo = portal.ops.repository(&member.caller, &ws).await?;
    let forge = portal.ops.forge_connection(&member.caller, &ws).await?;
    let deliveries = portal
        .ops
        .forge_deliveries(&member.caller, &ws)
        .await?
        .into_iter()
        .map(|delivery| DeliveryRow {
            received: when(delivery.received_at),
            delivery,
        })
        .collect();
    let checks = portal.ops.pull_request_checks(&member.caller, &ws).await?;
    let publish = match portal.ops.publish_target(&member.caller, &ws).await {
        Ok(target) => Some(target),
        Err(e) if e.kind == operations::ErrorKind::NotFound => None,
        Err(e) => return Err(e.into()),
    };
    Ok(RepositoryPage {
        last_sync: publish
            .as_ref()
            .and_then(|p| p.sync.last_attempt_at)
            .map(when),
        publish,
        formats: domain::ExportFormat::ALL
            .iter()
            .map(|f| f.as_str())
            .collect(),
        forge,
        forge_secret,
        deliveries,
        checks,
        nav: member.nav("settings"),
        last_fetch: repo.last_fetch_at.map(when),
        repo,
        repo_path: ws.repo_path.clone(),
        error,
        notice,
        may_admin: ws.active,
        shown: None,
    })
}

async fn repository_page(State(portal): State<Portal>, member: Member) -> PageResult {
    render(&view(&portal, &member, None, None).await?)
}

/// Shows the page again with `outcome`: a notice (200) or the refusal (422).
async fn after(
    portal: &Portal,
    member: &Member,
    outcome: Result<String, operations::Error>,
) -> PageResult {
    match outcome {
        Ok(notice) => render(&view(portal, member, None, Some(notice)).await?),
        Err(e) if e.kind == operations::ErrorKind::Validation => {
            let page = view(portal, member, Some(e.message), None).await?;
            answer(&page, StatusCode::UNPROCESSABLE_ENTITY)
        }
        Err(e) => Err(e.into()),
    }
}

#[derive(Deserialize)]
struct ConnectForm {
    #[serde(default)]
    repo_url: String,
    #[serde(default)]
    default_branch: String,
}

async fn connect(
    State(portal): State<Portal>,
    member: Member,
    Form(form): Form<ConnectForm>,
) -> PageResult {
    admin(&member)?;
    let url = Some(form.repo_url.trim().to_owned()).filter(|u| !u.is_empty());
    let branch = Some(form.default_branch.trim().to_owned()).filter(|b| !b.is_empty());
    let req = UpdateWorkspace {
        repo_url: Some(url),
        default_branch: Some(branch),
        ..UpdateWorkspace::default()
    };
    let outcome = in_workspace(&portal, &member, |tx, ops, caller, ws| {
        Box::pin(async move { ops.update_workspace(tx, &caller, &ws, &req).await })
    })
    .await
    .map(|ws| match ws.repo_url {
        Some(url) => format!("Connected to {url}."),
        None => "The repository was disconnected.".to_owned(),
    });
    after(&portal, &member, outcome).await
}

#[derive(Deserialize)]
struct TokenForm {
    #[serde(default)]
    token: String,
    #[serde(default)]
    username: String,
}

async fn set_token(
    State(portal): State<Portal>,
    member: Member,
    Form(form): Form<TokenForm>,
) -> PageResult {
    admin(&member)?;
    let req = NewCredential::Token(SetRepositoryToken {
        token: form.token.trim().to_owned(),
        username: Some(form.username.trim().to_owned()).filter(|u| !u.is_empty()),
    });
    let outcome = in_workspace(&portal, &member, |tx, ops, caller, ws| {
        Box::pin(async move {
            ops.set_repository_credential(tx, &caller, &ws, Some(&req))
                .await
        })
    })
    .await
    .map(|_| "The token is saved (encrypted; it is never shown again).".to_owned());
    after(&portal, &member, outcome).await
}

async fn deploy_key(State(portal): State<Portal>, member: Member) -> PageResult {
    admin(&member)?;
    let outcome = in_workspace(&portal, &member, |tx, ops, caller, ws| {
        Box::pin(async move {
            ops.set_repository_credential(tx, &caller, &ws, Some(&NewCredential::DeployKey))
                .await
        })
    })
    .await
    .map(|_| "A new deploy key is ready: add its public half to the repository's deploy keys (read access).".to_owned());
    after(&portal, &member, outcome).await
}

#[derive(Deserialize)]
struct PublishTargetForm {
    #[serde(default)]
    url: String,
    #[serde(default)]
    branch: String,
    #[serde(default)]
    folder: String,
    #[serde(default)]
    format: String,
    #[serde(default)]
    token: String,
    #[serde(default)]
    username: String,
}

/// Sets the publish target (the API's `PUT …/publish-target`); an empty token keeps the
/// current credential.
async fn set_publish_target(
    State(portal): State<Portal>,
    member: Member,
    Form(form): Form<PublishTargetForm>,
) -> PageResult {
    admin(&member)?;
    let text = |s: &str| Some(s.trim().to_owned()).filter(|s| !s.is_empty());
    let req = SetPublishTarget {
        url: form.url.trim().to_owned(),
        branch: text(&form.branch),
        folder: text(&form.folder),
        format: form.format.trim().to_owned(),
        token: text(&form.token),
        username: text(&form.username),
        generate_deploy_key: None,
    };
    let outcome = in_workspace(&portal, &member, |tx, ops, caller, ws| {
        Box::pin(async move { ops.set_publish_target(tx, &caller, &ws, &req).await })
    })
    .await
    .map(|t| {
        format!(
            "Publishing now keeps {} ({}, folder '{}') in sync; the first sync is under way.",
            t.url, t.branch, t.folder
        )
    });
    after(&portal, &member, outcome).await
}

/// Fetches now: a drift check at the default branch, which fetches first.
async fn fetch_now(State(portal): State<Portal>, member: Member) -> PageResult {
    admin(&member)?;
    let queued = in_workspace(&portal, &member, |tx, ops, _caller, ws| {
        Box::pin(async move { ops.queue_drift_check(tx, &ws, None).await })
    })
    .await;
    match queued {
        Ok(_) => Ok(
            Redirect::to(&format!("/portal/w/{}/settings/repository", member.ws.id))
                .into_response(),
        ),
        Err(e) => after(&portal, &member, Err(e)).await,
    }
}

/// Generates (or rotates) the forge secret and shows it once.
async fn forge_secret(State(portal): State<Portal>, member: Member) -> PageResult {
    admin(&member)?;
    let rotated = in_workspace(&portal, &member, |tx, ops, caller, ws| {
        Box::pin(async move {
            ops.rotate_forge_secret(tx, &caller, &ws, RotateSecret::default())
                .await
        })
    })
    .await;
    match rotated {
        Ok(connection) => {
            let notice = "A new forge secret: paste it into the forge's webhook form now; it is not shown again (the previous one keeps working for 24 hours).";
            render(
                &view_with(
                    &portal,
                    &member,
                    None,
                    Some(notice.into()),
                    connection.secret,
                )
                .await?,
            )
        }
        Err(e) => after(&portal, &member, Err(e)).await,
    }
}

#[derive(Deserialize)]
struct ForgeTokenForm {
    #[serde(default)]
    token: String,
    #[serde(default)]
    api_url: String,
}

/// Sets the token commit statuses are posted with (an empty token removes it).
async fn forge_token(
    State(portal): State<Portal>,
    member: Member,
    Form(form): Form<ForgeTokenForm>,
) -> PageResult {
    admin(&member)?;
    let token = form.token.trim().to_owned();
    let req = (!token.is_empty()).then(|| SetForgeToken {
        token,
        api_url: Some(form.api_url.trim().to_owned()).filter(|u| !u.is_empty()),
    });
    let removed = req.is_none();
    let outcome = in_workspace(&portal, &member, |tx, ops, caller, ws| {
        Box::pin(async move { ops.set_forge_token(tx, &caller, &ws, req).await })
    })
    .await
    .map(|_| {
        if removed {
            "The status token is removed: pull requests' checks are kept here only.".to_owned()
        } else {
            "The status token is saved (encrypted; it is never shown again).".to_owned()
        }
    });
    after(&portal, &member, outcome).await
}

#[derive(Template)]
#[template(path = "portal/drift_check.html")]
struct DriftCheckPage {
    nav: Nav,
    check: DriftCheck,
    created: String,
    finished: Option<String>,
    pull: Option<PullRequestCheck>,
}

/// One drift check: what it read, what drifted (a pull request's commit status links here).
async fn drift_check(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id)): Path<(String, String)>,
) -> PageResult {
    let id: DriftCheckId = id.parse().map_err(|_| crate::web::PageError::not_found())?;
    let record: DriftCheckRecord = portal.ops.load(&member.caller, id, Scope::Read).await?;
    member.owns(record.workspace_id)?;
    let pull = portal
        .ops
        .store
        .commit_status(record.id)
        .await
        .map_err(operations::Error::from)?
        .map(operations::forge::check_view);
    let check = operations::drift::drift_check_view(&portal.ops.base_url, record)?;
    render(&DriftCheckPage {
        nav: member.nav("articles"),
        created: when(check.created_at),
        finished: check.finished_at.map(when),
        check,
        pull,
    })
}
