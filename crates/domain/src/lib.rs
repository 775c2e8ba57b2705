//! The vocabulary every part of the Content Pipeline Service shares. Nothing here knows about
//! HTTP, SQL, git or the network: these are plain values that can only hold valid states.

/// Calls `$m!` with every type stored as its text (prefixed ids, wire enums, scopes): the one
/// list both storage encodings (`sql`, `sql_rusqlite`) implement.
#[cfg(any(feature = "sqlx", feature = "rusqlite"))]
macro_rules! stored_as_text_types {
    ($m:ident) => {
        $m!(
            crate::WorkspaceId,
            crate::ArticleId,
            crate::RunId,
            crate::WebhookId,
            crate::DeliveryId,
            crate::EventId,
            crate::TokenId,
            crate::DriftCheckId,
            crate::UserId,
            crate::AttemptId,
            crate::ForgeDeliveryId,
            crate::Scope,
            crate::Surface,
            crate::ArticleStatus,
            crate::RunStatus,
            crate::RunSource,
            crate::Tier,
            crate::DeliveryStatus,
            crate::EventType,
            crate::LogLevel,
            crate::LogStage,
            crate::AttemptError,
        );
    };
}

mod clock;
mod drift;
mod enums;
mod ids;
mod scope;
mod secret;
#[cfg(feature = "sqlx")]
mod sql;
#[cfg(feature = "rusqlite")]
mod sql_rusqlite;
mod timestamp;

pub use clock::Clock;
pub use drift::{Change, ChangeKind};
pub use enums::{
    ArticleStatus, AttemptError, DeliveryStatus, EventType, ExportFormat, LogLevel, LogStage,
    ParseEnumError, RunSource, RunStatus, Surface, Tier,
};
pub use ids::{
    ArticleId, AttemptId, DeliveryId, DriftCheckId, EventId, ForgeDeliveryId, IdParseError, RunId,
    TokenId, UserId, WebhookId, WorkspaceId,
};
pub use scope::Scope;
pub use secret::Secret;
pub use timestamp::{Timestamp, TimestampRangeError};
