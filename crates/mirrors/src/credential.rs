//! What the service authenticates to a repository's host with. Stored encrypted with the
//! server key; reaches only the child process that fetches, through its stdin.

use serde::{Deserialize, Serialize};

/// A repository credential. `Debug` never shows the secret.
#[derive(Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Credential {
    /// An access token, sent as HTTP basic auth (`username`, default `x-access-token`, with
    /// the token as password), as GitHub, GitLab, Gitea and Bitbucket take it.
    Token {
        username: Option<String>,
        token: String,
    },
    /// The private half of a deploy key, in the OpenSSH format.
    DeployKey { private_key: String },
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Token { .. } => f.write_str("Credential::Token([redacted])"),
            Self::DeployKey { .. } => f.write_str("Credential::DeployKey([redacted])"),
        }
    }
}

impl Credential {
    /// The secret texts a message must never contain (the token, and the forms it is sent in).
    pub(crate) fn secrets(&self) -> Vec<String> {
        match self {
            Self::Token { username, token } => vec![token.clone(), basic_auth(username, token)],
            Self::DeployKey { private_key } => vec![private_key.clone()],
        }
    }
}

/// The value of the `Authorization` header for a token.
pub(crate) fn basic_auth(username: &Option<String>, token: &str) -> String {
    use base64::Engine as _;
    let user = username.as_deref().unwrap_or("x-access-token");
    let pair = format!("{user}:{token}");
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    )
}

/// A generated deploy key: the private half to store (encrypted), the public half to paste
/// into the forge, and the public key's SHA-256 fingerprint as ssh-keygen prints it.
pub struct DeployKey {
    pub private_openssh: String,
    pub public_openssh: String,
    pub fingerprint: String,
}

/// A new ed25519 deploy key, commented `comment`.
pub fn generate_deploy_key(comment: &str) -> Result<DeployKey, String> {
    let mut seed = [0u8; 32];
    rand::fill(&mut seed);
    let pair = ssh_key::private::Ed25519Keypair::from_seed(&seed);
    let mut key = ssh_key::PrivateKey::from(pair);
    key.set_comment(comment);
    let private_openssh = key
        .to_openssh(ssh_key::LineEnding::LF)
        .map_err(|e| format!("the deploy key could not be written: {e}"))?
        .to_string();
    let public = key.public_key();
    let public_openssh = public
        .to_openssh()
        .map_err(|e| format!("the deploy key could not be written: {e}"))?;
    let fingerprint = public.fingerprint(ssh_key::HashAlg::Sha256).to_string();
    Ok(DeployKey {
        private_openssh,
        public_openssh,
        fingerprint,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_the_secret() {
        let c = Credential::Token {
            username: None,
            token: "ghp_secret".into(),
        };
        assert!(!format!("{c:?}").contains("ghp_secret"));
    }

    #[test]
    fn deploy_keys_are_ed25519_in_openssh_form() {
        let key = generate_deploy_key("content-pipeline ws_1").expect("key");
        assert!(key.public_openssh.starts_with("ssh-ed25519 "));
        assert!(key.public_openssh.ends_with("content-pipeline ws_1"));
        assert!(key.private_openssh.contains("BEGIN OPENSSH PRIVATE KEY"));
        assert!(key.fingerprint.starts_with("SHA256:"));
    }
}
