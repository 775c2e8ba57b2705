//! Workspaces: the tenants. Only the platform creates them; deleting one is a soft delete.

use std::path::Path;

pub use api_types::{CreateWorkspace, UpdateWorkspace};
use domain::{Scope, WorkspaceId};
use store::{RepositorySetting, Tx, WorkspaceRecord};

use crate::error::{Error, Result, bounded, required_text};
use crate::{Caller, Operations};

/// Checks a repository path: absolute, and a git repository the server can read.
pub fn validate_repo_path(raw: &str) -> Result<()> {
    bounded("repo_path", raw, 4096)?;
    let path = Path::new(raw);
    if !path.is_absolute() {
        return Err(Error::validation(
            "repo_path",
            "repo_path must be an absolute path.",
        ));
    }
    if !pipeline::is_git_repository(path) {
        return Err(Error::validation(
            "repo_path",
            "repo_path must be a readable git repository.",
        ));
    }
    Ok(())
}

impl Operations {
    /// Creates a workspace; the platform only.
    pub async fn create_workspace(
        &self,
        tx: &mut Tx,
        caller: &Caller,
        req: &CreateWorkspace,
    ) -> Result<WorkspaceRecord> {
        caller.platform()?;
        required_text("name", &req.name, 200)?;
        let setting = RepositorySetting {
            repo_path: req.repo_path.clone(),
            repo_url: req.repo_url.clone(),
            default_branch: req.default_branch.clone(),
        };
        self.check_repository_setting(&setting)?;
        let now = self.clock.timestamp();
        let ws = tx
            .insert_workspace(&req.name, req.repo_path.as_deref(), now)
            .await?;
        if setting.repo_url.is_none() {
            return Ok(ws);
        }
        tx.set_repository(ws.id, &setting, now)
            .await?
            .ok_or_else(|| Error::not_found("workspace", ws.id))
    }

    /// Changes a workspace's name or repository. Admins of the workspace; `repo_path` only
    /// the platform. A repository given one way replaces the other.
    pub async fn update_workspace(
        &self,
        tx: &mut Tx,
        caller: &Caller,
        ws: &WorkspaceRecord,
        req: &UpdateWorkspace,
    ) -> Result<WorkspaceRecord> {
        caller.check(ws.id, Scope::Admin, "workspace", ws.id)?;
        if req.repo_path.is_some() {
            caller.platform().map_err(|e| e.with_param("repo_path"))?;
        }
        let now = self.clock.timestamp();
        let mut updated = ws.clone();
        if let Some(name) = &req.name {
            required_text("name", name, 200)?;
            updated = tx
                .rename_workspace(ws.id, name, now)
                .await?
                .ok_or_else(|| Error::not_found("workspace", ws.id))?;
        }
        let touches_repository =
            req.repo_path.is_some() || req.repo_url.is_some() || req.default_branch.is_some();
        if !touches_repository {
            return Ok(updated);
        }
        let mut setting = RepositorySetting {
            repo_path: ws.repo_path.clone(),
            repo_url: ws.repo_url.clone(),
            default_branch: ws.default_branch.clone(),
        };
        if let Some(path) = &req.repo_path {
            setting.repo_path = path.clone();
            if path.is_some() && req.repo_url.is_none() {
                setting.repo_url = None;
                setting.default_branch = None;
            }
        }
        if let Some(url) = &req.repo_url {
            setting.repo_url = url.clone();
            if url.is_some() && req.repo_path.is_none() {
                setting.repo_path = None;
            }
        }
        if let Some(branch) = &req.default_branch {
            setting.default_branch = branch.clone();
        }
        self.check_repository_setting(&setting)?;
        tx.set_repository(ws.id, &setting, now)
            .await?
            .ok_or_else(|| Error::not_found("workspace", ws.id))
    }

    /// One of a path and a URL; each valid; a default branch only with a URL.
    fn check_repository_setting(&self, setting: &RepositorySetting) -> Result<()> {
        if setting.repo_path.is_some() && setting.repo_url.is_some() {
            return Err(Error::validation(
                "repo_url",
                "A workspace has a repo_path or a repo_url, not both.",
            ));
        }
        if let Some(path) = &setting.repo_path {
            validate_repo_path(path)?;
        }
        if let Some(url) = &setting.repo_url {
            self.check_repo_url(url)?;
        }
        if let Some(branch) = &setting.default_branch {
            if setting.repo_url.is_none() {
                return Err(Error::validation(
                    "default_branch",
                    "default_branch is only for a workspace with a repo_url.",
                ));
            }
            crate::repositories::checked_branch(branch)?;
        }
        Ok(())
    }

    /// Deletes (deactivates) a workspace; deleting again answers the same workspace.
    pub async fn delete_workspace(
        &self,
        tx: &mut Tx,
        caller: &Caller,
        id: WorkspaceId,
    ) -> Result<WorkspaceRecord> {
        caller.check(id, Scope::Admin, "workspace", id)?;
        tx.deactivate_workspace(id, self.clock.timestamp())
            .await?
            .ok_or_else(|| Error::not_found("workspace", id))
    }
}
