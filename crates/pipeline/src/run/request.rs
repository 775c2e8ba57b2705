//! What a run is asked for and what it returns.

use domain::{ArticleStatus, Surface};
use std::collections::BTreeMap;
use std::path::Path;

use crate::provenance::Provenance;
use crate::source::manifest::Feature;

pub struct RunRequest<'a> {
    pub repo: &'a Path,
    /// The commit to read (a full id); `None`: HEAD.
    pub commit: Option<&'a str>,
    pub feature_id: &'a str,
    /// Commit of this feature's previous successful run; `None` = whole history (capped).
    pub since_commit: Option<&'a str>,
    /// `Some` = only these surfaces (regenerating one article); `None` = the feature's.
    pub surfaces: Option<&'a [Surface]>,
    /// Version number each generated article will carry (frontmatter `version`); missing = 1.
    pub versions: &'a BTreeMap<Surface, i64>,
    /// The bounds of this run's work.
    pub limits: &'a crate::limits::Limits,
}

#[derive(Clone, Debug)]
pub struct RunOutput {
    /// The source commit (the one asked for, else HEAD when the run started).
    pub commit: String,
    pub feature: Feature,
    pub articles: Vec<GeneratedArticle>,
}

#[derive(Clone, Debug)]
pub struct GeneratedArticle {
    pub surface: Surface,
    pub title: String,
    pub description: String,
    /// Frontmatter and body; parses as MDX.
    pub mdx_body: String,
    /// Help center only: every step has a capture file that exists at the source commit.
    pub capture_grounded: bool,
    pub provenance: Provenance,
}

impl GeneratedArticle {
    /// The status a new version of this article gets.
    pub fn status(&self) -> ArticleStatus {
        if self.capture_grounded {
            ArticleStatus::CaptureGrounded
        } else {
            ArticleStatus::Draft
        }
    }
}
