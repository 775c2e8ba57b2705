//! Where a workspace's code is: a server path (`repo_path`, the platform's) or a remote
//! (`repo_url`, the workspace admin's) with its write-only credential; refs runs may ask for.

pub use api_types::{Repository, RepositoryCredential, SetRepositoryToken};

/// A credential to set: a token given by the admin, or a deploy key generated here.
pub enum NewCredential {
    Token(SetRepositoryToken),
    DeployKey,
}
use domain::{Scope, WorkspaceId};
use sha2::{Digest, Sha256};
use store::{RepositoryRecord, StoredCredential, Tx, WorkspaceRecord};
use webhooks::SecretBox;

use crate::error::{Error, Result};
use crate::{Caller, Operations};

/// 422 unless the workspace has a repository (a path or a URL).
pub fn require_repository(ws: &WorkspaceRecord) -> Result<()> {
    if ws.repo_path.is_none() && ws.repo_url.is_none() {
        return Err(Error::validation(
            "repo_path",
            "The workspace has no repository: set its repo_url (or, as the platform, its repo_path).",
        ));
    }
    Ok(())
}

/// The `ref` as stored: '' for the default branch; 422 with `param: "ref"` when it is not a
/// ref a run may read.
pub fn checked_ref(git_ref: Option<&str>) -> Result<String> {
    match git_ref {
        None => Ok(String::new()),
        Some(r) => mirrors::validate_ref(r)
            .map(|()| r.to_owned())
            .map_err(|message| Error::validation("ref", message)),
    }
}

/// Checks a default branch name.
pub fn checked_branch(branch: &str) -> Result<()> {
    let fine = !branch.starts_with("refs/")
        && !mirrors::is_commit_id(branch)
        && mirrors::validate_ref(branch).is_ok();
    if fine {
        Ok(())
    } else {
        Err(Error::validation(
            "default_branch",
            "default_branch must be a branch name (main, release/2.x).",
        ))
    }
}

/// The credential's encryption context: it opens only on its own workspace's row.
fn context(workspace: WorkspaceId) -> Vec<u8> {
    format!("repository-credential:{workspace}").into_bytes()
}

/// The stored credential of a workspace, decrypted for the process that fetches.
pub fn open_credential(
    secrets: &SecretBox,
    record: &RepositoryRecord,
) -> std::result::Result<Option<mirrors::Credential>, String> {
    let Some(sealed) = &record.credential else {
        return Ok(None);
    };
    let plain = secrets
        .open_bytes(sealed, &context(record.workspace_id))
        .map_err(|_| "the repository's credential could not be decrypted with the server key")?;
    serde_json::from_slice(&plain)
        .map(Some)
        .map_err(|_| "the repository's stored credential is unreadable".to_owned())
}

/// The repository as its admins see it (never the secret).
pub fn repository_view(ws: &WorkspaceRecord, r: Option<RepositoryRecord>) -> Repository {
    let r = r.unwrap_or(RepositoryRecord {
        workspace_id: ws.id,
        credential_kind: None,
        credential: None,
        credential_fingerprint: None,
        public_key: None,
        fetched_at: None,
        fetched_head: None,
        fetched_branch: None,
        fetch_error: None,
        updated_at: ws.updated_at,
    });
    Repository {
        workspace_id: ws.id,
        url: ws.repo_url.clone(),
        default_branch: ws.default_branch.clone().or(r.fetched_branch),
        credential: r.credential_kind.map(|kind| RepositoryCredential {
            kind,
            fingerprint: r.credential_fingerprint.unwrap_or_default(),
            public_key: r.public_key,
        }),
        last_fetch_at: r.fetched_at,
        fetched_head: r.fetched_head,
        last_fetch_error: r.fetch_error,
    }
}

/// A sealed credential opened for `context`.
pub(crate) fn open_sealed(
    secrets: &SecretBox,
    sealed: &[u8],
    context: &[u8],
) -> std::result::Result<mirrors::Credential, String> {
    let plain = secrets
        .open_bytes(sealed, context)
        .map_err(|_| "the credential could not be decrypted with the server key")?;
    serde_json::from_slice(&plain).map_err(|_| "the stored credential is unreadable".to_owned())
}

pub(crate) fn token_fingerprint(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

impl Operations {
    /// Checks a `repo_url` against the URL rules and the outbound address policy.
    pub fn check_repo_url(&self, raw: &str) -> Result<()> {
        mirrors::RepoUrl::parse(raw, &self.address_policy)
            .map(|_| ())
            .map_err(|e| Error::validation("repo_url", e.to_string()))
    }

    /// The workspace's repository; admins only.
    pub async fn repository(&self, caller: &Caller, ws: &WorkspaceRecord) -> Result<Repository> {
        caller.check(ws.id, Scope::Admin, "workspace", ws.id)?;
        let record = self.store.repository(ws.id).await?;
        Ok(repository_view(ws, record))
    }

    /// Sets (or, with `None`, removes) the credential the remote is fetched with. A deploy key
    /// is generated here; its public half is in the answer.
    pub async fn set_repository_credential(
        &self,
        tx: &mut Tx,
        caller: &Caller,
        ws: &WorkspaceRecord,
        req: Option<&NewCredential>,
    ) -> Result<Repository> {
        caller.check(ws.id, Scope::Admin, "workspace", ws.id)?;
        let stored = match req {
            None => None,
            Some(NewCredential::Token(SetRepositoryToken { token, username })) => {
                let printable = |t: &str| t.bytes().all(|b| b.is_ascii_graphic());
                if token.is_empty() || token.len() > 4096 || !printable(token) {
                    return Err(Error::validation(
                        "token",
                        "token must be 1–4096 printable ASCII characters without spaces.",
                    ));
                }
                if let Some(user) = username
                    && (user.is_empty()
                        || user.len() > 200
                        || !printable(user)
                        || user.contains(':'))
                {
                    return Err(Error::validation(
                        "username",
                        "username must be 1–200 printable ASCII characters without spaces or ':'.",
                    ));
                }
                let credential = mirrors::Credential::Token {
                    username: username.clone(),
                    token: token.clone(),
                };
                Some(self.seal_credential(ws.id, &credential, token_fingerprint(token), None)?)
            }
            Some(NewCredential::DeployKey) => {
                let key = mirrors::generate_deploy_key(&format!("content-pipeline {}", ws.id))
                    .map_err(Error::internal)?;
                let credential = mirrors::Credential::DeployKey {
                    private_key: key.private_openssh,
                };
                Some(self.seal_credential(
                    ws.id,
                    &credential,
                    key.fingerprint,
                    Some(key.public_openssh),
                )?)
            }
        };
        let record = tx
            .set_repository_credential(ws.id, stored.as_ref(), self.clock.timestamp())
            .await?;
        Ok(repository_view(ws, Some(record)))
    }

    fn seal_credential(
        &self,
        workspace: WorkspaceId,
        credential: &mirrors::Credential,
        fingerprint: String,
        public_key: Option<String>,
    ) -> Result<StoredCredential> {
        self.seal_credential_in(&context(workspace), credential, fingerprint, public_key)
    }

    /// Seals `credential` with the server key for `context` (the row it may be opened on).
    pub(crate) fn seal_credential_in(
        &self,
        context: &[u8],
        credential: &mirrors::Credential,
        fingerprint: String,
        public_key: Option<String>,
    ) -> Result<StoredCredential> {
        let plain = serde_json::to_vec(credential).map_err(Error::internal)?;
        let encrypted = self
            .secrets
            .seal_bytes(&plain, context)
            .map_err(Error::internal)?;
        Ok(StoredCredential {
            kind: match credential {
                mirrors::Credential::Token { .. } => "token",
                mirrors::Credential::DeployKey { .. } => "deploy_key",
            }
            .to_owned(),
            encrypted,
            fingerprint,
            public_key,
        })
    }
}
