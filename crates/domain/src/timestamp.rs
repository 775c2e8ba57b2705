use serde::{Serialize, Serializer};
use time::OffsetDateTime;

/// A UTC instant with microsecond precision, rendered as RFC 3339 with `Z`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(OffsetDateTime);

#[derive(Debug, thiserror::Error)]
#[error("timestamp out of range")]
pub struct TimestampRangeError;

impl Timestamp {
    pub fn from_micros(micros: i64) -> Result<Self, TimestampRangeError> {
        OffsetDateTime::from_unix_timestamp_nanos(i128::from(micros) * 1_000)
            .map(Self)
            .map_err(|_| TimestampRangeError)
    }

    pub fn micros(self) -> i64 {
        i64::try_from(self.0.unix_timestamp_nanos() / 1_000).unwrap_or(i64::MAX)
    }

    pub fn unix_seconds(self) -> i64 {
        self.0.unix_timestamp()
    }

    pub fn as_offset(self) -> OffsetDateTime {
        self.0
    }

    pub fn plus(self, d: std::time::Duration) -> Self {
        Self(self.0 + d)
    }

    pub fn minus(self, d: std::time::Duration) -> Self {
        Self(self.0 - d)
    }
}

impl From<OffsetDateTime> for Timestamp {
    fn from(t: OffsetDateTime) -> Self {
        // Truncate to whole microseconds so a value survives a round trip through storage.
        let micros = i64::try_from(t.unix_timestamp_nanos() / 1_000).unwrap_or(i64::MAX);
        Self::from_micros(micros).unwrap_or(Self(t))
    }
}

impl std::fmt::Display for Timestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::format_timestamp(self.0))
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl utoipa::PartialSchema for Timestamp {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                utoipa::openapi::KnownFormat::DateTime,
            )))
            .examples([serde_json::Value::String("2026-11-22T08:15:30.123Z".into())])
            .into()
    }
}

impl utoipa::ToSchema for Timestamp {}
