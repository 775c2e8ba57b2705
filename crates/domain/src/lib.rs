//! The vocabulary every part of the Content Pipeline Service shares. Nothing here knows about
//! HTTP, SQL, git or the network: these are plain values that can only hold valid states.

mod clock;
mod enums;
mod ids;
mod scope;
#[cfg(feature = "sqlx")]
mod sql;
mod timestamp;

pub use clock::Clock;
pub use enums::{
    ArticleStatus, DeliveryStatus, EventType, ParseEnumError, RunSource, RunStatus, Surface, Tier,
};
pub use ids::{
    ArticleId, DeliveryId, EventId, IdParseError, RunId, TokenId, WebhookId, WorkspaceId,
};
pub use scope::Scope;
pub use timestamp::{Timestamp, TimestampRangeError};

/// RFC 3339 in UTC with a `Z` suffix and no sub-second noise beyond milliseconds, the one
/// timestamp format of the API.
pub fn format_timestamp(t: time::OffsetDateTime) -> String {
    let t = t.to_offset(time::UtcOffset::UTC);
    let fmt = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    t.format(&fmt)
        .unwrap_or_else(|_| t.unix_timestamp().to_string())
}
