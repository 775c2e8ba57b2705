//! A workspace's publish target: a docs repository (URL, branch, folder) that publishing keeps
//! in sync, in one of the export layouts, with a write credential of the repository issue's
//! kinds (a token, or a deploy key generated here), sealed with the server key and never
//! shown. Publishing or unpublishing an article asks for a sync in the same transaction; the
//! publish worker (`workers::publish`) pushes what [`Operations::plan_publish_sync`] lays out.
//!
//! Which files are ours: the sync remembers the files it wrote (relative to the folder) and
//! the article versions they held. The next sync replaces exactly those: a page no longer
//! published goes, anything else in the repository (in the folder too) stays.

use std::collections::BTreeMap;

use domain::{ExportFormat, Scope, WorkspaceId};
use serde::{Deserialize, Serialize};
use store::{ArticleRecord, PublishTargetRecord, PublishTargetSetting, Tx, WorkspaceRecord};

pub use api_types::{PublishSync, PublishTarget, SetPublishTarget};

use crate::error::{Error, ErrorKind, Result};
use crate::repositories::{open_sealed, token_fingerprint};
use crate::{Caller, Operations};

/// The credential's encryption context: it opens only on its own workspace's target.
fn context(workspace: WorkspaceId) -> Vec<u8> {
    format!("publish-target-credential:{workspace}").into_bytes()
}

/// What a sync wrote, kept with the target (`synced_state`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SyncedState {
    /// The files written, relative to the folder.
    #[serde(default)]
    pub files: Vec<String>,
    /// The article versions they hold, by article id.
    #[serde(default)]
    pub articles: BTreeMap<String, SyncedArticle>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncedArticle {
    pub title: String,
    pub version: i64,
}

/// One sync, laid out: what to write, what was written before, the commit message.
pub struct SyncPlan {
    pub files: Vec<(String, Vec<u8>)>,
    pub previous: Vec<String>,
    pub message: String,
    pub credential: Option<mirrors::Credential>,
    /// What to remember once pushed.
    pub state: SyncedState,
}

/// The target as its workspace sees it (never the secret).
pub fn publish_target_view(r: PublishTargetRecord) -> PublishTarget {
    PublishTarget {
        workspace_id: r.workspace_id,
        url: r.url,
        branch: r.branch,
        folder: r.folder,
        format: r.format,
        credential: r
            .credential_kind
            .map(|kind| api_types::RepositoryCredential {
                kind,
                fingerprint: r.credential_fingerprint.unwrap_or_default(),
                public_key: r.public_key,
            }),
        sync: PublishSync {
            state: r.state,
            pending: r.sync_generation > r.synced_generation,
            attempts: r.attempts,
            next_attempt_at: r.next_attempt_at,
            last_attempt_at: r.last_attempt_at,
            last_sync_at: r.last_sync_at,
            last_commit: r.last_commit,
            last_error: r.last_error,
        },
        created_at: r.created_at,
        updated_at: r.updated_at,
    }
}

/// The commit message of a sync that publishes `published` and removes `removed`.
pub fn commit_message(published: &[SyncedArticle], removed: &[SyncedArticle]) -> String {
    match (published, removed) {
        ([one], []) => format!("docs: publish {} (v{})", one.title, one.version),
        ([], [one]) => format!("docs: remove {}", one.title),
        ([], []) => "docs: sync the published articles".to_owned(),
        _ => {
            let mut summary = Vec::new();
            if !published.is_empty() {
                summary.push(format!("publish {} articles", published.len()));
            }
            if !removed.is_empty() {
                summary.push(format!("remove {}", removed.len()));
            }
            let mut message = format!("docs: {}\n\n", summary.join(", "));
            for a in published {
                message.push_str(&format!("- publish {} (v{})\n", a.title, a.version));
            }
            for a in removed {
                message.push_str(&format!("- remove {}\n", a.title));
            }
            message
        }
    }
}

/// 422 unless `folder` is a relative path inside the repository; the folder as stored.
fn checked_folder(folder: Option<&str>) -> Result<String> {
    let folder = folder.unwrap_or("").trim_end_matches('/');
    if mirrors::is_valid_folder(folder) {
        Ok(folder.to_owned())
    } else {
        Err(Error::validation(
            "folder",
            "folder must be a relative path inside the repository (no '.', '..' or '.git' component, no absolute path).",
        ))
    }
}

impl Operations {
    /// The workspace's publish target (read scope); 404 when it has none.
    pub async fn publish_target(
        &self,
        caller: &Caller,
        ws: &WorkspaceRecord,
    ) -> Result<PublishTarget> {
        caller.check(ws.id, Scope::Read, "workspace", ws.id)?;
        self.store
            .publish_target(ws.id)
            .await?
            .map(publish_target_view)
            .ok_or_else(|| no_target(ws.id))
    }

    /// Sets the workspace's target (admin scope) and asks for a sync of everything published.
    pub async fn set_publish_target(
        &self,
        tx: &mut Tx,
        caller: &Caller,
        ws: &WorkspaceRecord,
        req: &SetPublishTarget,
    ) -> Result<PublishTarget> {
        caller.check(ws.id, Scope::Admin, "workspace", ws.id)?;
        if req.url.is_empty() || req.url.len() > 2048 {
            return Err(Error::validation("url", "url must be 1–2048 characters."));
        }
        let url = mirrors::RepoUrl::parse(&req.url, &self.address_policy)
            .map_err(|e| Error::validation("url", e.to_string()))?;
        let branch = req.branch.clone().unwrap_or_else(|| "main".to_owned());
        let branch_fine = !branch.starts_with("refs/")
            && !mirrors::is_commit_id(&branch)
            && mirrors::validate_ref(&branch).is_ok();
        if !branch_fine {
            return Err(Error::validation(
                "branch",
                "branch must be a branch name (main, gh-pages, docs/site).",
            ));
        }
        let folder = checked_folder(req.folder.as_deref())?;
        let format: ExportFormat = crate::exports::parse_format(Some(&req.format))
            .map_err(|e| Error::validation("format", e.to_string()))?;
        let deploy_key = req.generate_deploy_key.unwrap_or(false);
        if deploy_key && req.token.is_some() {
            return Err(Error::validation(
                "generate_deploy_key",
                "Give a token or ask for a deploy key, not both.",
            ));
        }
        if req.username.is_some() && req.token.is_none() {
            return Err(Error::validation("username", "username goes with a token."));
        }
        let credential = if let Some(token) = &req.token {
            let printable = |t: &str| t.bytes().all(|b| b.is_ascii_graphic());
            if token.is_empty() || token.len() > 4096 || !printable(token) {
                return Err(Error::validation(
                    "token",
                    "token must be 1–4096 printable ASCII characters without spaces.",
                ));
            }
            if let Some(user) = &req.username
                && (user.is_empty() || user.len() > 200 || !printable(user) || user.contains(':'))
            {
                return Err(Error::validation(
                    "username",
                    "username must be 1–200 printable ASCII characters without spaces or ':'.",
                ));
            }
            let credential = mirrors::Credential::Token {
                username: req.username.clone(),
                token: token.clone(),
            };
            Some(self.seal_credential_in(
                &context(ws.id),
                &credential,
                token_fingerprint(token),
                None,
            )?)
        } else if deploy_key {
            let key = mirrors::generate_deploy_key(&format!("content-pipeline publish {}", ws.id))
                .map_err(Error::internal)?;
            let credential = mirrors::Credential::DeployKey {
                private_key: key.private_openssh,
            };
            Some(self.seal_credential_in(
                &context(ws.id),
                &credential,
                key.fingerprint,
                Some(key.public_openssh),
            )?)
        } else {
            None
        };
        let setting = PublishTargetSetting {
            url: url.text,
            branch,
            folder,
            format: format.as_str().to_owned(),
        };
        let record = tx
            .set_publish_target(ws.id, &setting, credential.as_ref(), self.clock.timestamp())
            .await?;
        Ok(publish_target_view(record))
    }

    /// Removes the workspace's target (admin scope): nothing more is pushed; the repository
    /// keeps what was pushed. Answers the target as it was.
    pub async fn delete_publish_target(
        &self,
        tx: &mut Tx,
        caller: &Caller,
        ws: &WorkspaceRecord,
    ) -> Result<PublishTarget> {
        caller.check(ws.id, Scope::Admin, "workspace", ws.id)?;
        tx.delete_publish_target(ws.id)
            .await?
            .map(publish_target_view)
            .ok_or_else(|| no_target(ws.id))
    }

    /// Takes an article off the published site (and out of the next sync of the publish
    /// target, which removes its page); unpublishing one that is not published changes nothing.
    pub async fn unpublish_article(
        &self,
        tx: &mut Tx,
        article: &ArticleRecord,
    ) -> Result<ArticleRecord> {
        let now = self.clock.timestamp();
        match tx.unpublish_article(article.id, now).await? {
            Some(unpublished) => {
                tx.request_publish_sync(unpublished.workspace_id, now)
                    .await?;
                Ok(unpublished)
            }
            None => Ok(article.clone()),
        }
    }

    /// What the sync of `target` writes: the whole export layout of what its workspace has
    /// published (so the navigation files stay right), the files the last sync wrote, and the
    /// commit message naming what changed. An error says why it cannot be laid out.
    pub async fn plan_publish_sync(
        &self,
        target: &PublishTargetRecord,
    ) -> std::result::Result<SyncPlan, String> {
        let ws = self
            .store
            .workspace(target.workspace_id)
            .await
            .map_err(|e| e.to_string())?
            .ok_or("the workspace no longer exists")?;
        let format: ExportFormat = target
            .format
            .parse()
            .map_err(|_| format!("unknown export format '{}'", target.format))?;
        let (listed, layout) = self.layout(&ws, format).await.map_err(|e| e.to_string())?;
        let files = self
            .export_files(&ws, layout)
            .await
            .map_err(|e| e.to_string())?;
        let previous: SyncedState =
            serde_json::from_value(target.synced_state.0.clone()).unwrap_or_default();
        let articles: BTreeMap<String, SyncedArticle> = listed
            .iter()
            .map(|a| {
                (
                    a.article_id.to_string(),
                    SyncedArticle {
                        title: a.title.clone(),
                        version: a.version,
                    },
                )
            })
            .collect();
        let published: Vec<SyncedArticle> = articles
            .iter()
            .filter(|(id, a)| previous.articles.get(*id) != Some(*a))
            .map(|(_, a)| a.clone())
            .collect();
        let removed: Vec<SyncedArticle> = previous
            .articles
            .iter()
            .filter(|(id, _)| !articles.contains_key(*id))
            .map(|(_, a)| a.clone())
            .collect();
        let credential = match &target.credential {
            Some(sealed) => Some(open_sealed(&self.secrets, sealed, &context(ws.id))?),
            None => None,
        };
        let state = SyncedState {
            files: files.iter().map(|f| f.path.clone()).collect(),
            articles,
        };
        Ok(SyncPlan {
            files: files.into_iter().map(|f| (f.path, f.bytes)).collect(),
            previous: previous.files,
            message: commit_message(&published, &removed),
            credential,
            state,
        })
    }
}

fn no_target(ws: WorkspaceId) -> Error {
    Error::new(
        ErrorKind::NotFound,
        format!("The workspace '{ws}' has no publish target."),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(title: &str, version: i64) -> SyncedArticle {
        SyncedArticle {
            title: title.into(),
            version,
        }
    }

    #[test]
    fn messages_name_what_changed() {
        assert_eq!(
            commit_message(&[a("CSV export", 3)], &[]),
            "docs: publish CSV export (v3)"
        );
        assert_eq!(commit_message(&[], &[a("Old", 1)]), "docs: remove Old");
        let both = commit_message(&[a("A", 1), a("B", 2)], &[a("C", 1)]);
        assert!(
            both.starts_with("docs: publish 2 articles, remove 1\n\n"),
            "{both}"
        );
        assert!(both.contains("- publish B (v2)\n") && both.contains("- remove C\n"));
    }

    #[test]
    fn folders_are_relative() {
        assert_eq!(checked_folder(Some("docs/")).ok().as_deref(), Some("docs"));
        assert!(checked_folder(Some("/docs")).is_err());
        assert_eq!(checked_folder(None).ok().as_deref(), Some(""));
        assert!(checked_folder(Some("../x")).is_err());
        assert!(checked_folder(Some("a/../b")).is_err());
    }
}
