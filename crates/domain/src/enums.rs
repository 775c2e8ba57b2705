use serde::{Deserialize, Serialize};

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("'{value}' is not a valid {kind}")]
pub struct ParseEnumError {
    pub kind: &'static str,
    pub value: String,
}

impl ParseEnumError {
    pub fn new(kind: &'static str, value: &str) -> Self {
        Self {
            kind,
            value: value.chars().take(64).collect(),
        }
    }
}

/// Declares a closed set of wire strings with `as_str`, `FromStr`, `Display`, serde and schema.
/// The schema is written here rather than derived: utoipa's derive does not see a `rename`
/// whose text comes from a macro argument, and would list the Rust variant names.
macro_rules! wire_enum {
    ($(#[doc = $doc:literal])* $name:ident, $kind:literal { $($variant:ident = $text:literal),+ $(,)? }) => {
        $(#[doc = $doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum $name {
            $(#[serde(rename = $text)] $variant),+
        }

        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::String)
                    .description(Some(concat!($($doc, "\n"),*).trim()))
                    .enum_values(Some([$($text),+]))
                    .into()
            }
        }

        impl utoipa::ToSchema for $name {}

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl std::str::FromStr for $name {
            type Err = ParseEnumError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($text => Ok($name::$variant),)+
                    _ => Err(ParseEnumError::new($kind, s)),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

wire_enum!(
    /// The four places an article is published to.
    Surface, "surface" {
        HelpCenter = "help-center",
        DevDocs = "dev-docs",
        Changelog = "changelog",
        Blog = "blog",
    }
);

impl Surface {
    /// The surface's name for readers: a published site's sidebar, an export's navigation.
    pub fn title(self) -> &'static str {
        match self {
            Surface::HelpCenter => "Help center",
            Surface::DevDocs => "Developer docs",
            Surface::Changelog => "Changelog",
            Surface::Blog => "Blog",
        }
    }
}

wire_enum!(
    /// The docs frameworks a workspace's published articles are exported for.
    ExportFormat, "export format" {
        Docusaurus = "docusaurus",
        Mintlify = "mintlify",
        Starlight = "starlight",
        MkdocsMaterial = "mkdocs-material",
    }
);

wire_enum!(
    /// `draft` and `capture_grounded` are written by runs; `published` only by publish.
    ArticleStatus, "article status" {
        Draft = "draft",
        Published = "published",
        CaptureGrounded = "capture_grounded",
    }
);

wire_enum!(
    /// queued → running → succeeded | failed.
    RunStatus, "run status" {
        Queued = "queued",
        Running = "running",
        Succeeded = "succeeded",
        Failed = "failed",
    }
);

wire_enum!(
    /// Who asked for a run.
    RunSource, "run source" {
        Api = "api",
        Portal = "portal",
        Manual = "manual",
    }
);

wire_enum!(
    /// `priority` runs are claimed before any `standard` run.
    Tier, "tier" {
        Standard = "standard",
        Priority = "priority",
    }
);

wire_enum!(
    /// pending → delivering → delivered | failed (→ pending again) | dead.
    DeliveryStatus, "delivery status" {
        Pending = "pending",
        Delivering = "delivering",
        Delivered = "delivered",
        Failed = "failed",
        Dead = "dead",
    }
);

wire_enum!(
    /// The events a webhook subscription can ask for.
    EventType, "event type" {
        RunCompleted = "run.completed",
        RunFailed = "run.failed",
        ArticleDrafted = "article.drafted",
        ArticlePublished = "article.published",
        DriftDetected = "drift.detected",
    }
);

wire_enum!(
    /// Why a delivery attempt got no HTTP answer: it ran out of time, every address of the
    /// target is refused by the private-address policy, the connection could not be made or
    /// broke, or the TLS handshake failed.
    AttemptError, "attempt error" {
        Timeout = "timeout",
        RefusedAddress = "refused_address",
        Connection = "connection",
        Tls = "tls",
    }
);

impl RunStatus {
    pub fn is_finished(self) -> bool {
        matches!(self, RunStatus::Succeeded | RunStatus::Failed)
    }
}

wire_enum!(
    /// How much a run-log event matters.
    LogLevel, "log level" {
        Debug = "debug",
        Info = "info",
        Warn = "warn",
        Error = "error",
    }
);

wire_enum!(
    /// The stages of a run, in order. The pipeline performs resolve to validate; the run
    /// worker performs store and notify and logs them with the same vocabulary.
    LogStage, "log stage" {
        Resolve = "resolve",
        Collect = "collect",
        Extract = "extract",
        Render = "render",
        Validate = "validate",
        Store = "store",
        Notify = "notify",
    }
);

// `wire_enum!` fixes the derive list, so the default is spelled out.
#[allow(clippy::derivable_impls)]
impl Default for Tier {
    fn default() -> Self {
        Tier::Standard
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_strings_round_trip() {
        for s in Surface::ALL {
            assert_eq!(s.as_str().parse::<Surface>(), Ok(*s));
        }
        assert_eq!(
            serde_json::to_string(&EventType::DriftDetected)
                .ok()
                .as_deref(),
            Some("\"drift.detected\"")
        );
        assert!("Help-Center".parse::<Surface>().is_err());
    }
}
