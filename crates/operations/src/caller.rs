//! Who is asking. Every use case takes the caller and checks tenancy before scope, so another
//! workspace's resource answers exactly like a missing one.

use domain::{Scope, TokenId, UserId, WorkspaceId};

use crate::error::{Error, ErrorKind, Result};

/// The identity a front end established: the API from a bearer token, the CLI as the
/// platform's operator.
#[derive(Clone, Debug)]
pub struct Caller {
    /// The token that made the request; `None` for the operator at the console and for a
    /// person in the portal.
    pub token_id: Option<TokenId>,
    /// The person signed in to the portal; `None` for a token and for the operator.
    pub user_id: Option<UserId>,
    /// `None` for the platform.
    pub workspace: Option<WorkspaceId>,
    pub scope: Scope,
    /// Requests per 300 s this caller may make.
    pub quota: u32,
}

impl Caller {
    /// The platform's operator, acting from the command line on the server itself.
    pub fn operator() -> Self {
        Self {
            token_id: None,
            user_id: None,
            workspace: None,
            scope: Scope::Admin,
            quota: u32::MAX,
        }
    }

    pub fn is_platform(&self) -> bool {
        self.workspace.is_none()
    }

    /// May this caller do something needing `needed` inside `workspace`? `what` and `id`
    /// name the resource in the 404 a foreign one gets.
    pub fn check(
        &self,
        workspace: WorkspaceId,
        needed: Scope,
        what: &str,
        id: impl std::fmt::Display,
    ) -> Result<()> {
        if self.workspace.is_some_and(|own| own != workspace) {
            return Err(Error::not_found(what, id));
        }
        self.check_scope(needed)
    }

    /// Is this caller's scope at least `needed`?
    pub fn check_scope(&self, needed: Scope) -> Result<()> {
        if self.scope.includes(needed) {
            Ok(())
        } else {
            Err(Error::insufficient_scope(needed))
        }
    }

    /// Operations only a platform token may perform.
    pub fn platform(&self) -> Result<()> {
        if self.is_platform() {
            Ok(())
        } else {
            Err(Error::new(
                ErrorKind::InsufficientScope {
                    challenge: Some(Scope::Admin),
                },
                "This operation needs a platform admin token.",
            ))
        }
    }
}
