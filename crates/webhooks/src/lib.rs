//! The parts of webhook delivery that need no HTTP server and no database: signing secrets
//! and their encryption at rest, the Standard Webhooks signature, the address policy that
//! keeps deliveries away from private networks, the retry schedule, and the HTTP sender that
//! makes one attempt.

mod address;
mod keys;
mod retry;
mod secret;
mod sender;
mod signature;

pub use address::{AddressPolicy, TargetError, parse_cidr_list};
pub use keys::{SECRETS_KEY_PURPOSE, derive_key};
pub use retry::{FailureKind, RetrySchedule, ScheduleError, parse_duration};
pub use secret::{SecretBox, SecretError, SigningSecret, parse_server_key};
pub use sender::{
    Attempt, AttemptOutcome, ERROR_MESSAGE_CAP, Exchange, RESPONSE_BODY_CAP, ResponseSample, Sender,
};
pub use signature::sign;
