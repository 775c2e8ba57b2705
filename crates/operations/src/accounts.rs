//! People in the portal: users with a password (argon2id), their role per workspace, one-time
//! sign-in links, password sign-in throttled per account and per client address, and
//! sessions. The portal calls these; the CLI creates users and reset links.
//!
//! SKELETON: the signatures the portal is written against; the bodies come with the storage.

use std::net::IpAddr;

use domain::{Scope, Timestamp, UserId, WorkspaceId};
use store::WorkspaceRecord;

use crate::error::{Error, Result};
use crate::{Caller, Operations};

/// A person, as the portal shows them.
#[derive(Clone, Debug)]
pub struct User {
    pub id: UserId,
    /// Lowercased.
    pub email: String,
    pub platform_admin: bool,
}

impl User {
    /// The platform's caller, for a platform admin: creating workspaces and seeing all.
    pub fn platform_caller(&self) -> Result<Caller> {
        if !self.platform_admin {
            return Err(Error::new(
                crate::ErrorKind::InsufficientScope { challenge: None },
                "Only a platform admin may do this.",
            ));
        }
        Ok(Caller {
            user_id: Some(self.id),
            ..Caller::operator()
        })
    }
}

/// Who to create (`content-pipeline users create`).
#[derive(Clone, Debug)]
pub struct NewUser {
    pub email: String,
    pub platform_admin: bool,
    /// A role in one workspace.
    pub membership: Option<(WorkspaceId, Scope)>,
}

/// A one-time link that lets its holder set the user's password; valid 24 h.
#[derive(Clone, Debug)]
pub struct SignInLink {
    pub user: User,
    /// `{base_url}/portal/password?token=…`
    pub url: String,
    pub expires_at: Timestamp,
}

/// A signed-in session, as found from its cookie.
#[derive(Clone, Debug)]
pub struct Session {
    pub user: User,
    /// Put in every form and checked on every state-changing request.
    pub csrf_token: String,
}

/// A session just started: `cookie` is the value to set (the only copy of the session id).
#[derive(Clone, Debug)]
pub struct StartedSession {
    pub cookie: String,
    pub session: Session,
}

/// 256 random bits, base64url without padding (43 characters): session ids, link tokens,
/// pre-session CSRF tokens.
pub fn random_token() -> String {
    use base64::Engine as _;
    use rand::RngExt as _;
    let bytes: [u8; 32] = rand::rng().random();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn pending() -> Error {
    Error::internal("accounts are not implemented yet")
}

impl Operations {
    /// Creates a user (or, for an existing email, adds the membership and the platform role)
    /// and a sign-in link for them.
    pub async fn create_user(&self, new: NewUser) -> Result<SignInLink> {
        let _ = new;
        Err(pending())
    }

    /// A fresh sign-in link for the user with `email` (a locked-out user); earlier unused
    /// links stop working.
    pub async fn reset_password_link(&self, email: &str) -> Result<SignInLink> {
        let _ = email;
        Err(pending())
    }

    /// The user a sign-in link is for, while it is unused and unexpired.
    pub async fn sign_in_link_user(&self, token: &str) -> Result<User> {
        let _ = token;
        Err(pending())
    }

    /// Sets the password through a sign-in link (used up), ends all the user's sessions and
    /// starts a new one.
    pub async fn set_password_with_link(
        &self,
        token: &str,
        password: &str,
    ) -> Result<StartedSession> {
        let _ = (token, password);
        Err(pending())
    }

    /// Signs in with email and password from `client`.
    pub async fn sign_in(
        &self,
        email: &str,
        password: &str,
        client: IpAddr,
    ) -> Result<StartedSession> {
        let _ = (email, password, client);
        Err(pending())
    }

    /// The live session a cookie names, if any (idle and absolute expiry applied).
    pub async fn session(&self, cookie: &str) -> Result<Option<Session>> {
        let _ = cookie;
        Err(pending())
    }

    /// Ends the session a cookie names.
    pub async fn sign_out(&self, cookie: &str) -> Result<()> {
        let _ = cookie;
        Err(pending())
    }

    /// The workspaces `user` may open, with their role; all of them, as admin, for a
    /// platform admin.
    pub async fn workspaces_of(&self, user: &User) -> Result<Vec<(WorkspaceRecord, Scope)>> {
        let _ = user;
        Err(pending())
    }

    /// The caller `user` is inside workspace `ws`: a platform admin is the platform; a member
    /// has their role; anyone else gets the 404 of a missing workspace.
    pub async fn portal_caller(&self, user: &User, ws: WorkspaceId) -> Result<Caller> {
        let _ = (user, ws);
        Err(pending())
    }
}
