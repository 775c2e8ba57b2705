//! The events the service acts on, read from each forge's payload into one shape. Only what
//! is needed is read (refs, commits, the pull request's number and head); the file lists of a
//! push are not, since forges truncate them: the worker diffs the fetched commits instead.

use serde::{Deserialize, Serialize};

use crate::ForgeKind;

/// What a verified delivery asks of the service.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ForgeEvent {
    /// The forge checks the hook (GitHub's `ping`): answered, nothing done.
    Ping,
    Push(Push),
    /// A pull (merge) request opened, given new commits, or reopened.
    PullRequest(PullRequest),
    /// An event or action the service does not act on, with what it was.
    Ignored {
        what: String,
    },
}

/// The repository an event concerns, as the forge's API names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepositoryRef {
    /// `owner/name` (GitHub, Gitea) or `group/project` (GitLab).
    pub path: String,
    /// GitLab's numeric project id (its status API is addressed by it).
    pub id: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Push {
    /// `refs/heads/main`.
    pub git_ref: String,
    /// `None` when the push created the branch.
    pub before: Option<String>,
    /// `None` when the push deleted the branch.
    pub after: Option<String>,
    pub repository: RepositoryRef,
}

impl Push {
    /// The branch pushed to, when it is one.
    pub fn branch(&self) -> Option<&str> {
        self.git_ref.strip_prefix("refs/heads/")
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PullRequest {
    /// `opened`, `synchronize`, `reopened` (as the forge words it).
    pub action: String,
    pub number: u64,
    /// The commit the check reads and the status is posted on.
    pub head_sha: String,
    /// The branch it would merge into.
    pub base_branch: String,
    pub repository: RepositoryRef,
}

/// A full commit id (SHA-1 or SHA-256), lowercase hex; `None` for the all-zero id forges send
/// for "no commit".
fn commit_id(text: Option<String>) -> Result<Option<String>, String> {
    let Some(text) = text else { return Ok(None) };
    let hex = matches!(text.len(), 40 | 64) && text.bytes().all(|b| b.is_ascii_hexdigit());
    if !hex {
        return Err("a commit id in the payload is not a full hexadecimal id".into());
    }
    Ok(Some(text.to_ascii_lowercase()).filter(|t| t.bytes().any(|b| b != b'0')))
}

fn short_text(what: &str, text: String) -> Result<String, String> {
    if text.is_empty() || text.len() > 1000 || text.chars().any(char::is_control) {
        return Err(format!(
            "the payload's {what} is not a short printable text"
        ));
    }
    Ok(text)
}

#[derive(Deserialize)]
struct Repo {
    full_name: Option<String>,
    path_with_namespace: Option<String>,
    id: Option<u64>,
}

impl Repo {
    fn into_ref(self, kind: ForgeKind) -> Result<RepositoryRef, String> {
        let path = self
            .full_name
            .or(self.path_with_namespace)
            .ok_or("the payload names no repository")?;
        Ok(RepositoryRef {
            path: short_text("repository", path)?,
            id: self.id.filter(|_| kind == ForgeKind::Gitlab),
        })
    }
}

#[derive(Deserialize)]
struct PushPayload {
    #[serde(rename = "ref")]
    git_ref: String,
    before: Option<String>,
    after: Option<String>,
    /// GitHub and Gitea.
    repository: Option<Repo>,
    /// GitLab.
    project: Option<Repo>,
}

#[derive(Deserialize)]
struct Head {
    sha: String,
}

#[derive(Deserialize)]
struct Base {
    #[serde(rename = "ref")]
    git_ref: String,
}

#[derive(Deserialize)]
struct PullPayload {
    action: String,
    number: u64,
    pull_request: PullBody,
    repository: Repo,
}

#[derive(Deserialize)]
struct PullBody {
    head: Head,
    base: Base,
}

#[derive(Deserialize)]
struct MergePayload {
    object_attributes: MergeAttributes,
    project: Repo,
}

#[derive(Deserialize)]
struct MergeAttributes {
    iid: u64,
    action: Option<String>,
    target_branch: String,
    last_commit: LastCommit,
    /// Present on an `update` that brought new commits.
    oldrev: Option<String>,
}

#[derive(Deserialize)]
struct LastCommit {
    id: String,
}

fn json<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, String> {
    serde_json::from_slice(body).map_err(|e| format!("the payload is not the event's JSON: {e}"))
}

/// The event a verified delivery carries. An error is a payload the service cannot read
/// (answered 400, recorded as failed).
pub fn parse_event(kind: ForgeKind, event: &str, body: &[u8]) -> Result<ForgeEvent, String> {
    match (kind, event) {
        (ForgeKind::Github, "ping") => Ok(ForgeEvent::Ping),
        (ForgeKind::Github | ForgeKind::Gitea, "push") | (ForgeKind::Gitlab, "Push Hook") => {
            push(kind, json(body)?)
        }
        (ForgeKind::Github | ForgeKind::Gitea, "pull_request") => pull(kind, json(body)?),
        (ForgeKind::Gitlab, "Merge Request Hook") => merge_request(json(body)?),
        (_, other) => Ok(ForgeEvent::Ignored {
            what: format!("event {other}"),
        }),
    }
}

fn push(kind: ForgeKind, p: PushPayload) -> Result<ForgeEvent, String> {
    let repo = p
        .repository
        .or(p.project)
        .ok_or("the payload names no repository")?;
    Ok(ForgeEvent::Push(Push {
        git_ref: short_text("ref", p.git_ref)?,
        before: commit_id(p.before)?,
        after: commit_id(p.after)?,
        repository: repo.into_ref(kind)?,
    }))
}

fn pull(kind: ForgeKind, p: PullPayload) -> Result<ForgeEvent, String> {
    if !matches!(
        p.action.as_str(),
        "opened" | "synchronize" | "synchronized" | "reopened"
    ) {
        return Ok(ForgeEvent::Ignored {
            what: format!(
                "pull_request action {}",
                p.action.chars().take(40).collect::<String>()
            ),
        });
    }
    Ok(ForgeEvent::PullRequest(PullRequest {
        action: p.action,
        number: p.number,
        head_sha: commit_id(Some(p.pull_request.head.sha))?
            .ok_or("the pull request's head is not a commit")?,
        base_branch: short_text("base branch", p.pull_request.base.git_ref)?,
        repository: p.repository.into_ref(kind)?,
    }))
}

fn merge_request(p: MergePayload) -> Result<ForgeEvent, String> {
    let a = p.object_attributes;
    let action = a.action.unwrap_or_default();
    let acted = match action.as_str() {
        "open" | "reopen" => true,
        "update" => a.oldrev.is_some(),
        _ => false,
    };
    if !acted {
        return Ok(ForgeEvent::Ignored {
            what: format!(
                "merge request action {}",
                action.chars().take(40).collect::<String>()
            ),
        });
    }
    Ok(ForgeEvent::PullRequest(PullRequest {
        action,
        number: a.iid,
        head_sha: commit_id(Some(a.last_commit.id))?
            .ok_or("the merge request's head is not a commit")?,
        base_branch: short_text("target branch", a.target_branch)?,
        repository: p.project.into_ref(ForgeKind::Gitlab)?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";

    #[test]
    fn pushes_read_alike_on_every_forge() {
        let github = format!(
            r#"{{"ref":"refs/heads/main","before":"{A}","after":"{B}","repository":{{"full_name":"o/r","id":7}},"commits":[]}}"#
        );
        let gitlab = format!(
            r#"{{"object_kind":"push","ref":"refs/heads/main","before":"{A}","after":"{B}","project":{{"id":15,"path_with_namespace":"g/p"}}}}"#
        );
        let Ok(ForgeEvent::Push(p)) = parse_event(ForgeKind::Github, "push", github.as_bytes())
        else {
            panic!("not a push")
        };
        assert_eq!((p.branch(), p.repository.id), (Some("main"), None));
        let Ok(ForgeEvent::Push(p)) =
            parse_event(ForgeKind::Gitlab, "Push Hook", gitlab.as_bytes())
        else {
            panic!("not a push")
        };
        assert_eq!(
            (p.repository.path.as_str(), p.repository.id),
            ("g/p", Some(15))
        );
        let created = github.replace(A, &"0".repeat(40));
        let Ok(ForgeEvent::Push(p)) = parse_event(ForgeKind::Gitea, "push", created.as_bytes())
        else {
            panic!("not a push")
        };
        assert_eq!(p.before, None);
    }

    #[test]
    fn only_pull_requests_with_new_heads_are_acted_on() {
        let pr = |action: &str| {
            format!(
                r#"{{"action":"{action}","number":4,"pull_request":{{"head":{{"sha":"{B}"}},"base":{{"ref":"main"}}}},"repository":{{"full_name":"o/r"}}}}"#
            )
        };
        assert!(matches!(
            parse_event(
                ForgeKind::Github,
                "pull_request",
                pr("synchronize").as_bytes()
            ),
            Ok(ForgeEvent::PullRequest(PullRequest { number: 4, .. }))
        ));
        assert!(matches!(
            parse_event(ForgeKind::Github, "pull_request", pr("labeled").as_bytes()),
            Ok(ForgeEvent::Ignored { .. })
        ));
        let mr = format!(
            r#"{{"object_attributes":{{"iid":9,"action":"update","target_branch":"main","last_commit":{{"id":"{B}"}}}},"project":{{"id":3,"path_with_namespace":"g/p"}}}}"#
        );
        assert!(matches!(
            parse_event(ForgeKind::Gitlab, "Merge Request Hook", mr.as_bytes()),
            Ok(ForgeEvent::Ignored { .. })
        ));
        assert!(parse_event(ForgeKind::Github, "push", b"[1]").is_err());
        assert_eq!(
            parse_event(ForgeKind::Github, "issues", b"{}"),
            Ok(ForgeEvent::Ignored {
                what: "event issues".into()
            })
        );
    }
}
