//! The workspaces of the signed-in person; platform admins see every workspace and may
//! create and (softly) delete them.

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect};
use axum::routing::{get, post};
use axum::{Form, Router};
use domain::Scope;
use operations::ErrorKind;
use operations::workspaces::CreateWorkspace;
use serde::Deserialize;

use super::Member;
use crate::Portal;
use crate::session::SignedIn;
use crate::web::{Nav, PageResult, WorkspaceNav, render, when};

pub fn router() -> Router<Portal> {
    Router::new()
        .route("/portal/workspaces", get(list).post(create))
        .route("/portal/w/{ws}", get(open))
        .route("/portal/w/{ws}/delete", post(delete))
}

struct Row {
    ws: WorkspaceNav,
    repo_path: String,
    created: String,
}

#[derive(Template)]
#[template(path = "portal/workspaces.html")]
struct WorkspacesPage {
    nav: Nav,
    rows: Vec<Row>,
    form_name: String,
    form_repo: String,
    error: Option<String>,
}

async fn list(State(portal): State<Portal>, SignedIn(session): SignedIn) -> PageResult {
    page(
        &portal,
        &session,
        String::new(),
        String::new(),
        None,
        StatusCode::OK,
    )
    .await
}

async fn page(
    portal: &Portal,
    session: &operations::accounts::Session,
    form_name: String,
    form_repo: String,
    error: Option<String>,
    status: StatusCode,
) -> PageResult {
    let rows = portal
        .ops
        .workspaces_of(&session.user)
        .await?
        .into_iter()
        .map(|(ws, role)| Row {
            repo_path: ws.repo_path.clone().unwrap_or_default(),
            created: when(ws.created_at),
            ws: WorkspaceNav::new(&ws, role),
        })
        .collect();
    let page = WorkspacesPage {
        nav: Nav::new(session, None, "workspaces"),
        rows,
        form_name,
        form_repo,
        error,
    };
    Ok((status, render(&page)?).into_response())
}

#[derive(Deserialize)]
struct CreateForm {
    name: String,
    #[serde(default)]
    repo_path: String,
}

async fn create(
    State(portal): State<Portal>,
    SignedIn(session): SignedIn,
    Form(form): Form<CreateForm>,
) -> PageResult {
    let caller = session.user.platform_caller()?;
    let req = CreateWorkspace {
        name: form.name.clone(),
        repo_path: Some(form.repo_path.trim().to_owned()).filter(|p| !p.is_empty()),
        ..CreateWorkspace::default()
    };
    let ops = portal.ops.clone();
    let created = portal
        .ops
        .store
        .write(move |tx| Box::pin(async move { ops.create_workspace(tx, &caller, &req).await }))
        .await;
    match created {
        Ok(ws) => Ok(Redirect::to(&format!("/portal/w/{}/runs", ws.id)).into_response()),
        Err(e) if e.kind == ErrorKind::Validation => {
            page(
                &portal,
                &session,
                form.name,
                form.repo_path,
                Some(e.message),
                StatusCode::UNPROCESSABLE_ENTITY,
            )
            .await
        }
        Err(e) => Err(e.into()),
    }
}

async fn open(member: Member) -> Redirect {
    Redirect::to(&format!("/portal/w/{}/runs", member.ws.id))
}

async fn delete(State(portal): State<Portal>, member: Member) -> PageResult {
    member.caller.check_scope(Scope::Admin)?;
    let (ops, caller, id) = (portal.ops.clone(), member.caller.clone(), member.ws.id);
    portal
        .ops
        .store
        .write(move |tx| Box::pin(async move { ops.delete_workspace(tx, &caller, id).await }))
        .await?;
    Ok(Redirect::to("/portal/workspaces").into_response())
}
