//! Where a run or a drift check reads the code: the workspace's `repo_path` as it is, or its
//! `repo_url`, which the child fetches into this node's mirror before it reads it.

use domain::{Clock, WorkspaceId};
use store::{FetchNote, Store, WorkspaceRecord};
use webhooks::{SECRETS_KEY_PURPOSE, SecretBox, derive_key};

use crate::sandbox::{FetchOutcome, MirrorSettings, Source};

/// Opens the repositories' stored credentials (the key the API sealed them with).
pub fn credentials_box(server_key: &[u8; 32]) -> SecretBox {
    SecretBox::new(&derive_key(server_key, SECRETS_KEY_PURPOSE))
}

/// The source of `ws`'s code for work at `git_ref` ('' = the default branch). The message of
/// an error is the failed run's.
pub async fn source_of(
    store: &Store,
    secrets: &SecretBox,
    settings: &MirrorSettings,
    ws: &WorkspaceRecord,
    git_ref: &str,
) -> Result<Source, String> {
    if let Some(url) = &ws.repo_url {
        let record = store
            .repository(ws.id)
            .await
            .map_err(|e| format!("The repository's settings could not be read: {e}"))?;
        let credential = match &record {
            Some(r) => operations::repositories::open_credential(secrets, r)?,
            None => None,
        };
        return Ok(Source::Remote {
            fetch: Box::new(mirrors::FetchRequest {
                git: settings.git.clone(),
                cache_dir: settings.cache_dir.clone(),
                key: ws.id.to_string(),
                url: url.clone(),
                credential,
                default_branch: ws.default_branch.clone(),
                allowed_cidrs: settings.allowed_cidrs.clone(),
                limits: settings.limits.clone(),
                want: mirrors::is_commit_id(git_ref).then(|| git_ref.to_owned()),
            }),
        });
    }
    match &ws.repo_path {
        Some(path) => Ok(Source::Path { path: path.into() }),
        None => Err("The workspace has no repository (repo_url or repo_path).".into()),
    }
}

/// Records what the child's fetch saw on the workspace's repository.
pub async fn note_fetch(
    store: &Store,
    clock: &Clock,
    workspace: WorkspaceId,
    outcome: FetchOutcome,
) {
    let note = match outcome {
        None => return,
        Some(Ok(fetched)) => FetchNote::Fetched {
            branch: fetched.default_branch,
            head: fetched.head,
        },
        Some(Err(message)) => FetchNote::Failed(message),
    };
    if let Err(e) = store.note_fetch(workspace, &note, clock.timestamp()).await {
        tracing::warn!(%workspace, error = %e, "could not record a fetch");
    }
}
