//! Runs the pipeline on a repository without the service, for reading what it writes:
//!
//! ```sh
//! cargo run -p pipeline --example generate -- /abs/path/to/clone FEATURE OUT_DIR [SINCE_COMMIT]
//! ```
//!
//! writes `OUT_DIR/<surface>.mdx` for each article and prints the run log as JSON lines on
//! stderr. The comparison scripts under `bench/compare/` call it.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use domain::{LogLevel, LogStage};
use pipeline::{Limits, LogSink, RunRequest};

struct StderrLog;

impl LogSink for StderrLog {
    fn log(&mut self, level: LogLevel, stage: LogStage, message: &str, data: serde_json::Value) {
        let line = serde_json::json!({
            "level": level, "stage": stage, "message": message, "data": data,
        });
        eprintln!("{line}");
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [repo, feature, out, rest @ ..] = args.as_slice() else {
        eprintln!("usage: generate REPO FEATURE OUT_DIR [SINCE_COMMIT]");
        return ExitCode::from(2);
    };
    let repo = match std::fs::canonicalize(repo) {
        Ok(path) => path,
        Err(e) => {
            eprintln!("{repo}: {e}");
            return ExitCode::from(2);
        }
    };
    let limits = Limits::default();
    let versions = BTreeMap::new();
    let request = RunRequest {
        commit: None,
        repo: &repo,
        feature_id: feature,
        since_commit: rest.first().map(String::as_str),
        surfaces: None,
        versions: &versions,
        limits: &limits,
    };
    let output = match pipeline::run(&request, &mut StderrLog) {
        Ok(output) => output,
        Err(e) => {
            eprintln!("run failed: {e}");
            return ExitCode::FAILURE;
        }
    };
    let out = PathBuf::from(out);
    if let Err(e) = std::fs::create_dir_all(&out) {
        eprintln!("{}: {e}", out.display());
        return ExitCode::FAILURE;
    }
    for article in &output.articles {
        let path = out.join(format!("{}.mdx", article.surface.as_str()));
        if let Err(e) = std::fs::write(&path, &article.mdx_body) {
            eprintln!("{}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("{}", path.display());
    }
    ExitCode::SUCCESS
}
