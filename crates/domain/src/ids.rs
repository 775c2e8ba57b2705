use serde::{Deserialize, Deserializer, Serialize, Serializer};
use uuid::Uuid;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("not a valid {kind} id")]
pub struct IdParseError {
    pub kind: &'static str,
}

macro_rules! prefixed_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        ///
        /// Rendered as the prefix followed by a UUIDv7 in lowercase hex, so ids sort by creation time.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(Uuid);

        impl $name {
            pub const PREFIX: &'static str = $prefix;

            /// A fresh, time-ordered id: the one id generator of the service.
            pub fn generate() -> Self {
                Self(Uuid::now_v7())
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}{}", $prefix, self.0.simple())
            }
        }

        impl std::str::FromStr for $name {
            type Err = IdParseError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                let err = || IdParseError { kind: $prefix.trim_end_matches('_') };
                let body = s.strip_prefix($prefix).ok_or_else(err)?;
                if body.len() != 32 || !body.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
                    return Err(err());
                }
                Uuid::parse_str(body).map(Self).map_err(|_| err())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }

        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::String)
                    .pattern(Some(concat!("^", $prefix, "[0-9a-f]{32}$")))
                    .examples([serde_json::Value::String(concat!($prefix, "01933b5e8f7a7c3e9d1f2a4b6c8d0e1f").into())])
                    .into()
            }
        }

        impl utoipa::ToSchema for $name {}
    };
}

prefixed_id!(/// A workspace: one tenant.
    WorkspaceId, "ws_");
prefixed_id!(/// An article: one (workspace, feature, surface).
    ArticleId, "art_");
prefixed_id!(/// A pipeline run.
    RunId, "run_");
prefixed_id!(/// A webhook subscription.
    WebhookId, "wh_");
prefixed_id!(/// One delivery series of an event to a subscription.
    DeliveryId, "dlv_");
prefixed_id!(/// An event recorded in the outbox.
    EventId, "evt_");
prefixed_id!(/// An API token (its id, never its secret).
    TokenId, "tok_");
prefixed_id!(/// A drift check of a workspace, queued by the API and done by a worker.
    DriftCheckId, "dck_");
prefixed_id!(/// A person who signs in to the portal.
    UserId, "usr_");
prefixed_id!(/// One HTTP attempt of a delivery.
    AttemptId, "att_");
prefixed_id!(/// One webhook delivery a forge sent to a workspace (and the job that acts on it).
    ForgeDeliveryId, "fdl_");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_foreign_prefixes() {
        let id = RunId::generate();
        let text = id.to_string();
        assert!(text.starts_with("run_"));
        assert_eq!(text.parse::<RunId>(), Ok(id));
        assert!(text.replace("run_", "ws_").parse::<WorkspaceId>().is_ok());
        assert!(text.parse::<WorkspaceId>().is_err());
        assert!("run_xyz".parse::<RunId>().is_err());
        assert!(format!("{text}0").parse::<RunId>().is_err());
        assert!(text.to_uppercase().parse::<RunId>().is_err());
    }

    #[test]
    fn later_ids_sort_after_earlier_ones() {
        let a = ArticleId::generate().to_string();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = ArticleId::generate().to_string();
        assert!(a < b);
    }
}
