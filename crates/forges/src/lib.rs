//! What the service says to code forges, with no HTTP server or database in it:
//!
//! - `verify`: whether a webhook delivery comes from the forge that holds the workspace's
//!   secret (GitHub's and Gitea's HMAC signature, GitLab's token), and its delivery id;
//! - `events`: the push and pull-request events read from the forges' payloads, one shape for
//!   all three;
//! - `status`: the commit-status request that reports a drift check on a pull request's head.
//!
//! Forgejo speaks Gitea's format (with `X-Forgejo-*` headers beside or instead of Gitea's).

mod events;
mod status;
mod verify;

pub use events::{ForgeEvent, PullRequest, Push, RepositoryRef, parse_event};
pub use status::{CommitState, StatusRequest, StatusUpdate, status_request};
pub use verify::{Delivery, Refusal, delivery_of, generate_secret, verify};

use serde::{Deserialize, Serialize};

/// The forges whose webhooks the service takes.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ForgeKind {
    Github,
    Gitlab,
    /// Gitea and Forgejo.
    Gitea,
}

impl ForgeKind {
    pub const ALL: [ForgeKind; 3] = [ForgeKind::Github, ForgeKind::Gitlab, ForgeKind::Gitea];

    pub fn as_str(self) -> &'static str {
        match self {
            ForgeKind::Github => "github",
            ForgeKind::Gitlab => "gitlab",
            ForgeKind::Gitea => "gitea",
        }
    }

    /// The default API root of the public instance (`None`: a self-hosted forge has no
    /// default, its API URL must be configured).
    pub fn public_api(self) -> Option<&'static str> {
        match self {
            ForgeKind::Github => Some("https://api.github.com"),
            ForgeKind::Gitlab => Some("https://gitlab.com/api/v4"),
            ForgeKind::Gitea => None,
        }
    }
}

impl std::str::FromStr for ForgeKind {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "github" => Ok(ForgeKind::Github),
            "gitlab" => Ok(ForgeKind::Gitlab),
            "gitea" | "forgejo" => Ok(ForgeKind::Gitea),
            _ => Err(()),
        }
    }
}

impl std::fmt::Display for ForgeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
