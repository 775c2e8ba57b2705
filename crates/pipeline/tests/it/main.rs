//! Integration tests on real git repositories; one binary (see STYLE.md).

mod big;
mod changelog;
mod changelog_tools;
mod devdocs;
mod doc_comments;
mod drift;
mod fixture;
mod go_order;
mod golden;
mod helpcenter;
mod hostile;
mod layers;
mod limits;
mod mdx_js;
mod non_api;
mod pending;
mod posts;
mod prose;
mod python_autodoc;
mod reexports_python;
mod reexports_typescript;
mod releases;
mod resolve;
mod run;
mod site_path;
mod tool_order;
mod touched;
mod type_members;
mod upgrade_notes;
mod walkthrough;

use domain::{LogLevel, LogStage};
use pipeline::LogSink;

/// Records a run's log events.
#[derive(Default)]
pub struct Recorded(pub Vec<(LogLevel, LogStage, String, serde_json::Value)>);

impl LogSink for Recorded {
    fn log(&mut self, level: LogLevel, stage: LogStage, message: &str, data: serde_json::Value) {
        self.0.push((level, stage, message.to_string(), data));
    }
}
