use serde::{Deserialize, Deserializer, Serialize, Serializer};
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

    pub fn plus(self, d: std::time::Duration) -> Self {
        Self(self.0 + d)
    }

    pub fn minus(self, d: std::time::Duration) -> Self {
        Self(self.0 - d)
    }

    /// How long after `earlier` this is; zero when it is not after it.
    pub fn duration_since(self, earlier: Timestamp) -> std::time::Duration {
        std::time::Duration::try_from(self.0 - earlier.0).unwrap_or_default()
    }
}

impl From<OffsetDateTime> for Timestamp {
    fn from(t: OffsetDateTime) -> Self {
        // Truncate to whole microseconds so a value survives a round trip through storage.
        let micros = i64::try_from(t.unix_timestamp_nanos() / 1_000).unwrap_or(i64::MAX);
        Self::from_micros(micros).unwrap_or(Self(t))
    }
}

/// RFC 3339 in UTC with milliseconds, `2026-11-22T08:15:30.123Z`; written field by field, as
/// it is on every response's hot path.
impl std::fmt::Display for Timestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let t = self.0.to_offset(time::UtcOffset::UTC);
        write!(
            f,
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
            t.year(),
            u8::from(t.month()),
            t.day(),
            t.hour(),
            t.minute(),
            t.second(),
            t.millisecond()
        )
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Any RFC 3339 instant, read as UTC (a query parameter such as `since`).
impl std::str::FromStr for Timestamp {
    type Err = time::error::Parse;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).map(Self::from)
    }
}

/// Any RFC 3339 instant, read back as UTC (what a client reads from a response).
impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        text.parse()
            .map_err(|e| serde::de::Error::custom(format!("not an RFC 3339 timestamp: {e}")))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_rfc3339_utc_with_milliseconds() {
        let t = Timestamp::from_micros(1_795_335_330_123_456).unwrap();
        assert_eq!(t.to_string(), "2026-11-22T08:15:30.123Z");
        let epoch = Timestamp::from_micros(5_000).unwrap();
        assert_eq!(epoch.to_string(), "1970-01-01T00:00:00.005Z");
        let parsed = OffsetDateTime::parse(
            &t.to_string(),
            &time::format_description::well_known::Rfc3339,
        )
        .unwrap();
        assert_eq!(parsed.unix_timestamp(), t.unix_seconds());
        let read: Timestamp = serde_json::from_value(serde_json::json!(t.to_string())).unwrap();
        assert_eq!(read.to_string(), t.to_string());
        assert!(serde_json::from_value::<Timestamp>(serde_json::json!("yesterday")).is_err());
    }
}
