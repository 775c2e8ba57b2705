//! Stage `resolve`: the commit the run reads, the feature, the repository's settings, and the
//! surfaces to write.

use domain::{LogLevel, LogStage, Surface};
use git2::{Commit, Repository, Tree};
use serde_json::json;

use super::request::RunRequest;
use crate::error::PipelineError;
use crate::log::LogSink;
use crate::source::forge::Forge;
use crate::source::history::{self, Rules};
use crate::source::manifest::{self, Feature};
use crate::source::repository;

/// What the run reads and for which feature.
pub(super) struct Resolved<'r> {
    pub head: Commit<'r>,
    /// `head`'s id.
    pub commit: String,
    pub tree: Tree<'r>,
    pub feature: Feature,
    /// The run's forge: every surface links commits, pull requests and files with this one.
    pub forge: Option<Forge>,
    pub rules: Rules,
    pub surfaces: Vec<Surface>,
}

pub(super) fn resolve<'r>(
    repo: &'r Repository,
    req: &RunRequest,
    log: &mut dyn LogSink,
) -> Result<Resolved<'r>, PipelineError> {
    let head = match req.commit {
        Some(id) => repository::commit(repo, id)?,
        None => repository::head_commit(repo)?,
    };
    let commit = head.id().to_string();
    let tree = head.tree()?;
    let feature = manifest::resolve_in_tree(repo, &tree, req.feature_id)?;
    let settings = manifest::settings(repo, &tree)?;
    // The run's forge: every surface links commits, pull requests and files with this one.
    let forge = Forge::detect(repo, settings.forge.as_ref());
    let mut rules = Rules::new(&settings.changelog)?;
    if let Some(tool) = history::tool_rules(repo, &tree) {
        let path = tool.path;
        let count = tool.parsers.len();
        if rules.follow(tool.parsers) {
            log.log(
                LogLevel::Info,
                LogStage::Resolve,
                &format!("the changelog follows the rules of {path}"),
                json!({ "path": path, "parsers": count }),
            );
        }
    }
    let surfaces: Vec<Surface> = match req.surfaces {
        Some(list) => {
            let mut unique = Vec::new();
            for s in list {
                if !unique.contains(s) {
                    unique.push(*s);
                }
            }
            unique
        }
        None => feature.surfaces.clone(),
    };
    log.log(
        LogLevel::Info,
        LogStage::Resolve,
        "resolved feature",
        json!({
            "feature_id": feature.id,
            "title": feature.title,
            "paths": feature.paths,
            "surfaces": surfaces.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
            "steps": feature.steps.len(),
            "commit": commit,
        }),
    );
    Ok(Resolved {
        head,
        commit,
        tree,
        feature,
        forge,
        rules,
        surfaces,
    })
}
