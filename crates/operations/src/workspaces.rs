//! Workspaces: the tenants. Only the platform creates them; deleting one is a soft delete.

use std::path::Path;

use domain::{Scope, WorkspaceId};
use serde::Deserialize;
use store::{Tx, WorkspaceRecord};
use utoipa::ToSchema;

use crate::error::{Error, Result, bounded, required_text};
use crate::{Caller, Operations};

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "Acme docs", "repo_path": "/srv/repositories/acme"}))]
pub struct CreateWorkspace {
    /// 1–200 characters, not only blanks (the pattern spells out Rust's white space, so that
    /// every regex dialect agrees, and is anchored: fuzzers negate it as a whole-string match).
    #[schema(
        min_length = 1,
        max_length = 200,
        pattern = "^[\\s\\S]*[^\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][\\s\\S]*$"
    )]
    pub name: String,
    /// Absolute path to a readable git repository on the server; platform tokens only.
    #[schema(min_length = 1, max_length = 4096, pattern = "^/")]
    pub repo_path: Option<String>,
}

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
