//! One loader per resource: it reads the resource, checks tenancy (another workspace's is a
//! 404) and then scope (403), once. For a change, it also reads the workspace and refuses a
//! deleted one (409): every write in a deleted workspace is refused.

use std::future::Future;

use domain::{ArticleId, DeliveryId, DriftCheckId, RunId, Scope, TokenId, WebhookId, WorkspaceId};
use store::{
    ArticleRecord, DeliveryRecord, DriftCheckRecord, RunRecord, Store, StoreError, TokenRecord,
    WebhookRecord, WorkspaceRecord,
};

use crate::error::{Error, Result};
use crate::{Caller, Operations};

/// A record a caller may load by its id.
pub trait Resource: Sized + Send {
    type Id: Copy + std::fmt::Display + Send + Sync;
    /// The noun in messages ("No such webhook: …").
    const WHAT: &'static str;

    fn fetch(
        store: &Store,
        id: Self::Id,
    ) -> impl Future<Output = Result<Option<Self>, StoreError>> + Send;

    /// The workspace it belongs to; `None` for the platform's own (platform tokens).
    fn owner(&self) -> Option<WorkspaceId>;
}

macro_rules! resource {
    ($record:ty, $id:ty, $what:literal, $fetch:ident, |$r:ident| $owner:expr) => {
        impl Resource for $record {
            type Id = $id;
            const WHAT: &'static str = $what;

            fn fetch(
                store: &Store,
                id: $id,
            ) -> impl Future<Output = Result<Option<Self>, StoreError>> + Send {
                store.$fetch(id)
            }

            fn owner(&self) -> Option<WorkspaceId> {
                let $r = self;
                $owner
            }
        }
    };
}

resource!(WorkspaceRecord, WorkspaceId, "workspace", workspace, |r| {
    Some(r.id)
});
resource!(TokenRecord, TokenId, "token", token, |r| r.workspace_id);
resource!(RunRecord, RunId, "run", run, |r| Some(r.workspace_id));
resource!(ArticleRecord, ArticleId, "article", article, |r| Some(
    r.workspace_id
));
resource!(WebhookRecord, WebhookId, "webhook", webhook, |r| Some(
    r.workspace_id
));
resource!(DeliveryRecord, DeliveryId, "delivery", delivery, |r| Some(
    r.workspace_id
));
resource!(
    DriftCheckRecord,
    DriftCheckId,
    "drift check",
    drift_check,
    |r| Some(r.workspace_id)
);

/// Refuses every write inside a deleted workspace.
pub fn ensure_active(ws: &WorkspaceRecord) -> Result<()> {
    if ws.active {
        Ok(())
    } else {
        Err(Error::conflict(format!(
            "Workspace '{}' has been deleted; it is read-only.",
            ws.id
        )))
    }
}

impl Operations {
    /// `id` as `caller` may see it with `needed`.
    pub async fn load<R: Resource>(&self, caller: &Caller, id: R::Id, needed: Scope) -> Result<R> {
        let found = R::fetch(&self.store, id)
            .await?
            .ok_or_else(|| Error::not_found(R::WHAT, id))?;
        match found.owner() {
            Some(ws) => caller.check(ws, needed, R::WHAT, id)?,
            // The platform's own tokens are the platform's business only.
            None if !caller.is_platform() => return Err(Error::not_found(R::WHAT, id)),
            None => caller.check_scope(needed)?,
        }
        Ok(found)
    }

    /// `id` and its workspace, for a change by `caller` with `needed`: the workspace must be
    /// active. (A platform token has no workspace: see `token_for_change`.)
    pub async fn load_for_change<R: Resource>(
        &self,
        caller: &Caller,
        id: R::Id,
        needed: Scope,
    ) -> Result<(R, WorkspaceRecord)> {
        let found: R = self.load(caller, id, needed).await?;
        let ws = self.workspace_of(&found, id).await?;
        Ok((found, ws))
    }

    /// The active workspace `found` belongs to.
    pub(crate) async fn workspace_of<R: Resource>(
        &self,
        found: &R,
        id: R::Id,
    ) -> Result<WorkspaceRecord> {
        let ws = match found.owner() {
            Some(ws_id) => self.store.workspace(ws_id).await?,
            None => None,
        }
        .ok_or_else(|| Error::not_found(R::WHAT, id))?;
        ensure_active(&ws)?;
        Ok(ws)
    }

    /// The workspace `id`, active, for a write by `caller` with `needed`.
    pub async fn active_workspace(
        &self,
        caller: &Caller,
        id: WorkspaceId,
        needed: Scope,
    ) -> Result<WorkspaceRecord> {
        let ws: WorkspaceRecord = self.load(caller, id, needed).await?;
        ensure_active(&ws)?;
        Ok(ws)
    }
}
