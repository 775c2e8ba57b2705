use domain::{LogLevel, LogStage};

/// Receives the structured events of a run as they happen (the run log of the API).
pub trait LogSink {
    fn log(&mut self, level: LogLevel, stage: LogStage, message: &str, data: serde_json::Value);
}

/// A sink that drops everything, for callers that only want the articles.
pub struct DiscardLog;

impl LogSink for DiscardLog {
    fn log(&mut self, _: LogLevel, _: LogStage, _: &str, _: serde_json::Value) {}
}
