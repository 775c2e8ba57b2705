/// The stages of a run, in order. The pipeline performs resolve to validate; the caller
/// performs store and notify and logs them with the same vocabulary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    Resolve,
    Collect,
    Extract,
    Render,
    Validate,
    Store,
    Notify,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Resolve => "resolve",
            Stage::Collect => "collect",
            Stage::Extract => "extract",
            Stage::Render => "render",
            Stage::Validate => "validate",
            Stage::Store => "store",
            Stage::Notify => "notify",
        }
    }
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Debug,
    Info,
    Warn,
    Error,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
        }
    }
}

/// Receives the structured events of a run as they happen (the run log of the API).
pub trait LogSink {
    fn log(&mut self, level: Level, stage: Stage, message: &str, data: serde_json::Value);
}

/// A sink that drops everything, for callers that only want the articles.
pub struct DiscardLog;

impl LogSink for DiscardLog {
    fn log(&mut self, _: Level, _: Stage, _: &str, _: serde_json::Value) {}
}
