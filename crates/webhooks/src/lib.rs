//! The parts of webhook delivery that need neither an HTTP server nor a database: signing
//! secrets and their encryption at rest, the Standard Webhooks signature, and the address
//! policy that keeps deliveries away from private networks.

mod address;
mod secret;
mod signature;

pub use address::{AddressPolicy, TargetError};
pub use secret::{SecretBox, SecretError, SigningSecret};
pub use signature::sign;
