//! Stage `collect`: the feature's files at the commit, and the commits that touched them,
//! split at the release tags.

use domain::{LogLevel, LogStage};
use git2::Repository;
use serde_json::json;

use super::request::RunRequest;
use super::resolve::Resolved;
use crate::error::PipelineError;
use crate::log::LogSink;
use crate::source::files::{self, FeatureMatcher, RepoFile};
use crate::source::history::{self, History, MAX_TAGS, Range, Tags};
use crate::source::manifest::package_names;

pub(super) struct Collected {
    pub matcher: FeatureMatcher,
    pub files: Vec<RepoFile>,
    pub history: History,
    /// The versions of the feature's package's release tags, lowest first.
    pub tag_versions: Vec<semver::Version>,
    /// Their names, in the same order.
    pub tag_names: Vec<String>,
    /// Their release days (`Tag::date`), in the same order.
    pub tag_dates: Vec<String>,
}

pub(super) fn collect(
    repo: &Repository,
    resolved: &Resolved,
    req: &RunRequest,
    log: &mut dyn LogSink,
) -> Result<Collected, PipelineError> {
    let Resolved {
        head,
        tree,
        feature,
        rules,
        ..
    } = resolved;
    let matcher = FeatureMatcher::new(feature, tree)?;
    let files::Listing {
        files,
        missing,
        tests_left_out,
    } = files::files(repo, tree, &matcher, &feature.id, req.limits)?;
    if tests_left_out > 0 {
        log.log(
            LogLevel::Warn,
            LogStage::Collect,
            "the feature has more files than max_feature_files: files in test, fixture and \
             snapshot folders past the limit are left out",
            json!({ "left_out": tests_left_out, "max_feature_files": req.limits.max_feature_files }),
        );
    }
    for path in &missing {
        log.log(
            LogLevel::Warn,
            LogStage::Collect,
            "skipped a file whose content is missing from the repository's object store",
            json!({ "path": path }),
        );
    }
    if files.is_empty() {
        log.log(
            LogLevel::Warn,
            LogStage::Collect,
            "no file of the repository matches the feature's paths",
            json!({ "paths": feature.paths }),
        );
    }
    let packages = if matcher.prefixes.is_empty() {
        package_names(repo, tree, &[String::new()])
    } else {
        package_names(repo, tree, &matcher.prefixes)
    };
    let tags = Tags::read(repo, &rules.tags, &packages)?;
    if tags.other_packages > 0 {
        log.log(
            LogLevel::Info,
            LogStage::Collect,
            "release tags of other packages are left out",
            json!({ "package": tags.package, "other_packages": tags.other_packages }),
        );
    }
    if tags.capped {
        log.log(
            LogLevel::Warn,
            LogStage::Collect,
            "the repository has more tags than are read; releases are found among the first",
            json!({ "max_tags": MAX_TAGS }),
        );
    }
    let range = Range {
        since: req.since_commit,
        releases: rules.releases,
        tags: &tags,
        listed: &|commit| history::entry(commit, rules, None).group.is_some(),
    };
    let history = history::history(
        repo,
        head,
        &range,
        &matcher,
        req.limits.max_commit_message_bytes,
    )?;
    if !history.since_found {
        log.log(
            LogLevel::Warn,
            LogStage::Collect,
            "the previous run's commit is not in the repository; reading the whole history",
            json!({ "since_commit": req.since_commit }),
        );
    }
    if history.cut > 0 {
        log.log(
            LogLevel::Warn,
            LogStage::Collect,
            "cut commit messages or author names longer than max_commit_message_bytes",
            json!({
                "commits": history.cut,
                "max_commit_message_bytes": req.limits.max_commit_message_bytes,
            }),
        );
    }
    log.log(
        LogLevel::Info,
        LogStage::Collect,
        "collected files and commits",
        json!({
            "files": files.len(),
            "bytes": files.iter().map(|f| f.bytes).sum::<u64>(),
            "commits": history.commits().count(),
            "commits_walked": history.walked,
            "truncated": history.truncated,
            "release_tags": tags.count,
            "releases": history.releases.iter().filter(|r| r.tag.is_some()).count(),
            "renames_followed": history.renames,
            "cherry_picks_left_out": history.cherry_picks,
            "since_commit": req.since_commit.filter(|_| history.since_found),
        }),
    );
    Ok(Collected {
        matcher,
        files,
        history,
        tag_versions: tags.list.iter().map(|t| t.semver.clone()).collect(),
        tag_names: tags.list.iter().map(|t| t.name.clone()).collect(),
        tag_dates: tags.list.iter().map(|t| t.date.clone()).collect(),
    })
}
