//! Writes everything the pipeline generates for a repository, for comparing two builds of it
//! byte for byte (`bench/compare/golden.sh` runs it on a corpus of repositories):
//!
//! ```sh
//! cargo run --release -p pipeline --example golden -- REPO OUT_DIR [EXTRA_FEATURE ...]
//! ```
//!
//! runs feature `.`, each feature the repository's manifest declares and each EXTRA_FEATURE
//! (a file or folder), with the whole history, no earlier versions, the default limits and
//! every surface, and writes `OUT_DIR/features.json` (the declared features) and, per feature,
//! `OUT_DIR/<slug>/`:
//!
//! - `<surface>.mdx`: each article as generated;
//! - `run.json`: the rest of the output (commit, feature, titles, descriptions, statuses,
//!   provenances);
//! - `log.jsonl`: the run log, object keys sorted and `elapsed_ms` left out;
//! - `error.txt`: the error, when the run fails (a failure is an outcome, not an error here).
//!
//! Only the public API is used, so the same file builds against any version of the crate.
//! The time each run took goes to stdout (`feature<TAB>seconds<TAB>articles`), not to OUT_DIR.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use domain::{LogLevel, LogStage};
use pipeline::{Limits, LogSink, RunOutput, RunRequest};
use serde_json::{Value, json};

/// Log data that differs from run to run of the same build.
const UNSTABLE_KEYS: &[&str] = &["elapsed_ms"];

/// The run log as JSON lines, made comparable.
#[derive(Default)]
struct Lines(String);

impl LogSink for Lines {
    fn log(&mut self, level: LogLevel, stage: LogStage, message: &str, data: Value) {
        let line = json!({
            "level": level, "stage": stage, "message": message, "data": canonical(data),
        });
        self.0.push_str(&format!("{line}\n"));
    }
}

/// `value` with the keys of its objects sorted and [`UNSTABLE_KEYS`] removed.
fn canonical(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let sorted: BTreeMap<String, Value> = map
                .into_iter()
                .filter(|(key, _)| !UNSTABLE_KEYS.contains(&key.as_str()))
                .map(|(key, value)| (key, canonical(value)))
                .collect();
            Value::Object(sorted.into_iter().collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(canonical).collect()),
        other => other,
    }
}

/// A folder name for a feature id, distinct for distinct ids: `.` is `_root`, `/` is `__`,
/// ASCII letters, digits, `-` and (not leading) `.` stay, any other byte is `_` and two hex
/// digits (`_5f` for `_`).
fn slug(feature: &str) -> String {
    if feature == "." {
        return "_root".to_string();
    }
    let mut out = String::new();
    for (i, byte) in feature.bytes().enumerate() {
        match byte {
            b'/' => out.push_str("__"),
            b'.' if i > 0 => out.push('.'),
            b if b.is_ascii_alphanumeric() || b == b'-' => out.push(b as char),
            b => out.push_str(&format!("_{b:02x}")),
        }
    }
    if out.is_empty() { "_empty".into() } else { out }
}

/// Everything a successful run returned but the article bodies, which are written beside it;
/// object keys sorted.
fn summary(output: &RunOutput) -> Value {
    let articles: Vec<Value> = output
        .articles
        .iter()
        .map(|a| {
            json!({
                "surface": a.surface,
                "file": format!("{}.mdx", a.surface.as_str()),
                "title": a.title,
                "description": a.description,
                "capture_grounded": a.capture_grounded,
                "status": a.status(),
                "provenance": a.provenance,
            })
        })
        .collect();
    canonical(json!({ "commit": output.commit, "feature": output.feature, "articles": articles }))
}

fn write(path: &Path, content: impl AsRef<[u8]>) -> Result<(), String> {
    std::fs::write(path, content).map_err(|e| format!("{}: {e}", path.display()))
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).expect("a JSON value serializes") + "\n"
}

/// Runs `feature` and writes what it gave under `out`.
fn generate(repo: &Path, feature: &str, out: &Path) -> Result<(), String> {
    let dir = out.join(slug(feature));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let limits = Limits::default();
    let versions = BTreeMap::new();
    let request = RunRequest {
        commit: None,
        repo,
        feature_id: feature,
        since_commit: None,
        surfaces: None,
        versions: &versions,
        limits: &limits,
    };
    let mut log = Lines::default();
    let started = Instant::now();
    let result = pipeline::run(&request, &mut log);
    let seconds = started.elapsed().as_secs_f64();
    write(&dir.join("log.jsonl"), &log.0)?;
    match result {
        Ok(output) => {
            for article in &output.articles {
                let name = format!("{}.mdx", article.surface.as_str());
                write(&dir.join(name), &article.mdx_body)?;
            }
            write(&dir.join("run.json"), pretty(&summary(&output)))?;
            println!("{feature}\t{seconds:.3}\t{}", output.articles.len());
        }
        Err(e) => {
            write(&dir.join("error.txt"), format!("{e}\n\n{e:?}\n"))?;
            println!("{feature}\t{seconds:.3}\terror");
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [repo, out, extra @ ..] = args.as_slice() else {
        eprintln!("usage: golden REPO OUT_DIR [EXTRA_FEATURE ...]");
        return ExitCode::from(2);
    };
    let repo = match std::fs::canonicalize(repo) {
        Ok(path) => path,
        Err(e) => {
            eprintln!("{repo}: {e}");
            return ExitCode::from(2);
        }
    };
    let out = PathBuf::from(out);
    if let Err(e) = std::fs::create_dir_all(&out) {
        eprintln!("{}: {e}", out.display());
        return ExitCode::FAILURE;
    }
    let mut features = vec![".".to_string()];
    let declared = match pipeline::declared_features(&repo) {
        Ok(declared) => {
            features.extend(declared.iter().map(|f| f.id.clone()));
            let list: Vec<Value> = declared
                .iter()
                .map(|f| json!({ "id": f.id, "title": f.title }))
                .collect();
            pretty(&Value::Array(list))
        }
        Err(e) => pretty(&json!({ "error": e.to_string() })),
    };
    features.extend(extra.iter().cloned());
    let mut seen = std::collections::BTreeSet::new();
    features.retain(|f| seen.insert(f.clone()));
    let written = write(&out.join("features.json"), declared).and_then(|()| {
        features
            .iter()
            .try_for_each(|feature| generate(&repo, feature, &out))
    });
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
