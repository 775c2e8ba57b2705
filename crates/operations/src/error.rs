//! The one error of the use cases. Front ends render it their own way: the API as the
//! contract's envelope (`api::error`), the CLI as a message and an exit code.

use domain::Scope;

/// What kind of failure, in the contract's vocabulary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// No such resource, or one of another workspace: the two are indistinguishable.
    NotFound,
    /// The caller's scope is below what the operation needs; `challenge` is the scope to
    /// name in the answer (none when no token could do it, e.g. minting above one's own).
    InsufficientScope { challenge: Option<Scope> },
    /// The request conflicts with the resource's state (a deleted workspace, a quota, …).
    Conflict,
    /// An input value is refused; `param` names it.
    Validation,
    /// The credentials presented (a password, a sign-in link) are not right.
    Unauthenticated,
    /// Too many attempts (sign-ins); the same request may succeed after `retry_after_secs`.
    Throttled { retry_after_secs: u64 },
    /// The database cannot give a connection right now (down, restarting, or every slot
    /// taken): the same request may succeed in a moment.
    Unavailable,
    /// Something failed on our side; the message is the cause, for the logs only.
    Internal,
}

#[derive(Clone, Debug, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    /// The input to blame, when one is.
    pub param: Option<String>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            param: None,
        }
    }

    pub fn with_param(mut self, param: impl Into<String>) -> Self {
        self.param = Some(param.into());
        self
    }

    /// `what` (a resource noun) named `id` does not exist for this caller.
    pub fn not_found(what: &str, id: impl std::fmt::Display) -> Self {
        let shown: String = id.to_string().chars().take(64).collect();
        Self::new(ErrorKind::NotFound, format!("No such {what}: '{shown}'"))
    }

    pub fn validation(param: &str, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Validation, message).with_param(param)
    }

    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Conflict, message)
    }

    pub fn insufficient_scope(needed: Scope) -> Self {
        Self::new(
            ErrorKind::InsufficientScope {
                challenge: Some(needed),
            },
            format!("This operation needs a token with the '{needed}' scope."),
        )
    }

    pub fn unauthenticated(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unauthenticated, message)
    }

    /// Refused for now; `retry_after` is rounded up to whole seconds, at least one.
    pub fn throttled(retry_after: std::time::Duration, message: impl Into<String>) -> Self {
        let secs = retry_after
            .as_secs()
            .saturating_add(u64::from(retry_after.subsec_nanos() > 0))
            .max(1);
        Self::new(
            ErrorKind::Throttled {
                retry_after_secs: secs,
            },
            message,
        )
    }

    pub fn internal(cause: impl std::fmt::Display) -> Self {
        Self::new(ErrorKind::Internal, cause.to_string())
    }
}

impl From<store::StoreError> for Error {
    fn from(e: store::StoreError) -> Self {
        match e.is_unavailable() {
            true => Self::new(ErrorKind::Unavailable, e.to_string()),
            false => Error::internal(e),
        }
    }
}

/// Checks a string field's length in characters.
pub fn bounded(param: &str, value: &str, max: usize) -> Result<()> {
    if value.chars().count() > max {
        return Err(Error::validation(
            param,
            format!("{param} must be at most {max} characters."),
        ));
    }
    Ok(())
}

/// A required, non-blank, bounded string.
pub fn required_text(param: &str, value: &str, max: usize) -> Result<()> {
    if value.trim().is_empty() {
        return Err(Error::validation(
            param,
            format!("{param} must not be empty."),
        ));
    }
    bounded(param, value, max)
}
