//! One run: resolve → collect → extract → render → validate. Each stage is a function of
//! its module (`resolve`, `collect`, `extract`, `render`; validate is the last lines of
//! `run_stages`, a check of every article); `request` is what a run is asked and returns,
//! `provenance` what each article depends on. This module runs the stages in order and logs
//! where a failure happened. The caller stores the articles and
//! sends notifications.

mod collect;
mod details;
mod example;
mod extract;
mod provenance;
mod removed;
mod render;
mod request;
mod resolve;
mod titles;
mod toolchain;
mod typescript;
mod written;

use domain::{LogLevel, LogStage};
use serde_json::json;
use std::time::Instant;

use crate::error::PipelineError;
use crate::log::LogSink;
use crate::render::mdx::validate;
use crate::source::repository;
pub use request::{GeneratedArticle, RunOutput, RunRequest};

/// Runs stages resolve, collect, extract, render and validate, logging each to `log`. A
/// failure is logged at level error in the stage where it happened before it is returned.
pub fn run(req: &RunRequest, log: &mut dyn LogSink) -> Result<RunOutput, PipelineError> {
    let mut stage = LogStage::Resolve;
    let started = Instant::now();
    let result = run_stages(req, log, &mut stage);
    match &result {
        Ok(output) => log.log(
            LogLevel::Info,
            LogStage::Validate,
            "run finished",
            json!({
                "commit": output.commit,
                "articles": output.articles.len(),
                "elapsed_ms": started.elapsed().as_millis() as u64,
            }),
        ),
        Err(e) => log.log(
            LogLevel::Error,
            stage,
            &e.to_string(),
            json!({ "elapsed_ms": started.elapsed().as_millis() as u64 }),
        ),
    }
    result
}

fn run_stages(
    req: &RunRequest,
    log: &mut dyn LogSink,
    stage: &mut LogStage,
) -> Result<RunOutput, PipelineError> {
    log.log(
        LogLevel::Info,
        LogStage::Resolve,
        "resolving feature",
        json!({ "feature_id": req.feature_id }),
    );
    let repo = repository::open(req.repo)?;
    let resolved = resolve::resolve(&repo, req, log)?;
    *stage = LogStage::Collect;
    let collected = collect::collect(&repo, &resolved, req, log)?;
    *stage = LogStage::Extract;
    let extracted = extract::extract(&repo, &resolved, &collected, req, log)?;
    *stage = LogStage::Render;
    let articles = render::render(&repo, &resolved, &collected, &extracted, req, log)?;
    *stage = LogStage::Validate;
    for article in &articles {
        validate::check_article(article.surface, &article.mdx_body, req.limits)?;
    }
    log.log(
        LogLevel::Info,
        LogStage::Validate,
        "every article parses as MDX and holds no code",
        json!({ "articles": articles.len() }),
    );
    Ok(RunOutput {
        commit: resolved.commit,
        feature: resolved.feature,
        articles,
    })
}
