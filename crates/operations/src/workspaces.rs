//! Workspaces: the tenants. Only the platform creates them; deleting one is a soft delete.

use std::path::Path;

pub use api_types::CreateWorkspace;
use domain::{Scope, WorkspaceId};
use store::{Tx, WorkspaceRecord};

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
        if let Some(repo) = &req.repo_path {
            validate_repo_path(repo)?;
        }
        Ok(tx
            .insert_workspace(&req.name, req.repo_path.as_deref(), self.clock.timestamp())
            .await?)
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
