//! The commit status that reports a drift check where reviewers look: on the pull request's
//! head commit, with the context `content-pipeline/docs`, as each forge's API takes it.

use serde::{Deserialize, Serialize};

use crate::{ForgeKind, RepositoryRef};

/// The status's name on the forge.
pub const CONTEXT: &str = "content-pipeline/docs";
/// GitHub cuts descriptions longer than this; every forge gets the same text.
const MAX_DESCRIPTION: usize = 140;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum CommitState {
    Pending,
    Success,
    Failure,
    /// The check could not run (the repository could not be fetched…).
    Error,
}

impl CommitState {
    pub fn as_str(self) -> &'static str {
        match self {
            CommitState::Pending => "pending",
            CommitState::Success => "success",
            CommitState::Failure => "failure",
            CommitState::Error => "error",
        }
    }

    /// GitLab's words: `failed` for a failure, `canceled` for an error.
    fn gitlab(self) -> &'static str {
        match self {
            CommitState::Pending => "pending",
            CommitState::Success => "success",
            CommitState::Failure => "failed",
            CommitState::Error => "canceled",
        }
    }
}

impl std::str::FromStr for CommitState {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "pending" => Ok(CommitState::Pending),
            "success" => Ok(CommitState::Success),
            "failure" => Ok(CommitState::Failure),
            "error" => Ok(CommitState::Error),
            _ => Err(()),
        }
    }
}

/// One status call: where it goes, its headers (the token among them) and its JSON body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusRequest {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// What one status says, on which commit.
#[derive(Clone, Copy, Debug)]
pub struct StatusUpdate<'a> {
    pub sha: &'a str,
    pub state: CommitState,
    pub description: &'a str,
    /// Where the status links (the portal's page of the check).
    pub target_url: &'a str,
}

/// The call that sets `update` on `repo`, with `token`, through the forge API at `api_root`
/// (`https://api.github.com`, `https://gitlab.example/api/v4`, `https://gitea.example/api/v1`).
pub fn status_request(
    kind: ForgeKind,
    api_root: &str,
    token: &str,
    repo: &RepositoryRef,
    update: &StatusUpdate<'_>,
) -> Result<StatusRequest, String> {
    let StatusUpdate {
        sha,
        state,
        description,
        target_url,
    } = *update;
    let mut url = url::Url::parse(api_root.trim_end_matches('/'))
        .map_err(|e| format!("the forge API URL is not a URL: {e}"))?;
    let description: String = description.chars().take(MAX_DESCRIPTION).collect();
    let (headers, body) = {
        let mut segments = url
            .path_segments_mut()
            .map_err(|()| "the forge API URL cannot have a path".to_owned())?;
        segments.pop_if_empty();
        match kind {
            ForgeKind::Github | ForgeKind::Gitea => {
                let (owner, name) = repo
                    .path
                    .split_once('/')
                    .ok_or("the repository is not named owner/name")?;
                segments.extend(["repos", owner, name, "statuses", sha]);
                let auth = if kind == ForgeKind::Github {
                    format!("Bearer {token}")
                } else {
                    format!("token {token}")
                };
                let mut headers = vec![("authorization".to_owned(), auth)];
                if kind == ForgeKind::Github {
                    headers.push(("accept".into(), "application/vnd.github+json".into()));
                    headers.push(("x-github-api-version".into(), "2022-11-28".into()));
                }
                let body = serde_json::json!({
                    "state": state.as_str(),
                    "target_url": target_url,
                    "description": description,
                    "context": CONTEXT,
                });
                (headers, body)
            }
            ForgeKind::Gitlab => {
                let project = match repo.id {
                    Some(id) => id.to_string(),
                    None => repo.path.clone(),
                };
                segments.extend(["projects", &project, "statuses", sha]);
                let headers = vec![("private-token".to_owned(), token.to_owned())];
                let body = serde_json::json!({
                    "state": state.gitlab(),
                    "target_url": target_url,
                    "description": description,
                    "name": CONTEXT,
                });
                (headers, body)
            }
        }
    };
    let mut headers = headers;
    headers.push(("content-type".into(), "application/json".into()));
    headers.push((
        "user-agent".into(),
        concat!("content-pipeline/", env!("CARGO_PKG_VERSION")).into(),
    ));
    Ok(StatusRequest {
        url: url.to_string(),
        headers,
        body: body.to_string().into_bytes(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_forge_gets_its_own_path_words_and_token_header() {
        let repo = RepositoryRef {
            path: "o/r".into(),
            id: Some(42),
        };
        let update = |state| StatusUpdate {
            sha: "abc",
            state,
            description: "x",
            target_url: "https://p",
        };
        let r = |kind, root| {
            status_request(kind, root, "t", &repo, &update(CommitState::Failure)).unwrap()
        };
        let gh = r(ForgeKind::Github, "https://api.github.com/");
        assert_eq!(gh.url, "https://api.github.com/repos/o/r/statuses/abc");
        assert!(
            gh.headers
                .contains(&("authorization".into(), "Bearer t".into()))
        );
        let gl = r(ForgeKind::Gitlab, "https://gitlab.example/api/v4");
        assert_eq!(
            gl.url,
            "https://gitlab.example/api/v4/projects/42/statuses/abc"
        );
        assert!(
            String::from_utf8(gl.body)
                .unwrap()
                .contains(r#""state":"failed""#)
        );
        let gt = r(ForgeKind::Gitea, "http://127.0.0.1:3000/api/v1");
        assert_eq!(
            gt.url,
            "http://127.0.0.1:3000/api/v1/repos/o/r/statuses/abc"
        );
        let nested = RepositoryRef {
            path: "group/sub/project".into(),
            id: None,
        };
        let gl = status_request(
            ForgeKind::Gitlab,
            "https://g/api/v4",
            "t",
            &nested,
            &update(CommitState::Success),
        )
        .unwrap();
        assert_eq!(
            gl.url,
            "https://g/api/v4/projects/group%2Fsub%2Fproject/statuses/abc"
        );
    }
}
