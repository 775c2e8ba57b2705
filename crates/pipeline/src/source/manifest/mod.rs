//! The repository's manifest, `.content-pipeline/features.toml` at HEAD: which files,
//! surfaces and steps a feature is made of (declared, or implied by a path), and the
//! repository-wide settings (`[changelog]`, `[forge]`, read by `settings`). Stage `resolve`
//! (`run/resolve.rs`) reads it.

use domain::Surface;
use git2::{ObjectType, Repository, Tree};
use serde::{Deserialize, Serialize};
use std::path::Path;

mod changelog;
mod package;

use crate::error::PipelineError;
use crate::source::forge::ForgeConfig;
use crate::source::paths::{
    self, MODE_LINK, check_no_escaping_link, glob_escape, literal_prefix, normalize_relative,
};
use crate::source::repository;
pub use changelog::{ChangelogConfig, DEFAULT_RELEASES};
pub(crate) use package::{humanize, package, package_in, package_names, product_name};

pub const MANIFEST_PATH: &str = ".content-pipeline/features.toml";
/// A manifest is a few KiB; a larger one is refused before it is parsed.
const MAX_MANIFEST_BYTES: usize = 1024 * 1024;

/// A feature the manifest declares, as a picker lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeclaredFeature {
    pub id: String,
    /// The manifest's title, or the id when it has none.
    pub title: String,
}

/// The features `.content-pipeline/features.toml` declares at HEAD, in its order; none
/// without a manifest.
pub fn declared_features(repo: &Path) -> Result<Vec<DeclaredFeature>, PipelineError> {
    let repository = repository::open(repo)?;
    let tree = repository::head_commit(&repository)?.tree()?;
    Ok(read_manifest(&repository, &tree)?
        .map(|m| {
            m.features
                .into_iter()
                .map(|f| DeclaredFeature {
                    title: f.title.unwrap_or_else(|| f.id.clone()),
                    id: f.id,
                })
                .collect()
        })
        .unwrap_or_default())
}

/// A feature of the product, as the articles describe it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Feature {
    pub id: String,
    pub title: String,
    pub summary: String,
    /// Globs relative to the repository root (`**` crosses folders, `*` does not).
    pub paths: Vec<String>,
    pub surfaces: Vec<Surface>,
    /// Folder (relative to the repository root) holding the steps' capture images.
    pub captures: Option<String>,
    pub steps: Vec<Step>,
    /// What the repository is: the name its package manifest declares, else its folder's
    /// name ([`product_name`]). Release posts announce "`product` 1.2.3".
    #[serde(default)]
    pub product: String,
    /// For an implicit feature of a file or folder, its path (`src/macros.rs`).
    #[serde(default)]
    pub path: Option<String>,
    /// Declared in the manifest: its title and summary are its author's words, which the
    /// articles keep rather than what the docs call the project.
    #[serde(default)]
    pub declared: bool,
}

/// One step of the help-center walkthrough.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    pub title: String,
    /// Markdown.
    pub body: String,
    /// Image file name inside the feature's `captures` folder (or relative to the repository
    /// root when the feature has no `captures` folder).
    pub capture: Option<String>,
}

impl Feature {
    /// The repository path of a step's capture image.
    pub fn capture_path(&self, step: &Step) -> Option<String> {
        let capture = step.capture.as_deref()?;
        Some(match self.captures.as_deref() {
            Some(folder) if !folder.is_empty() => format!("{folder}/{capture}"),
            _ => capture.to_string(),
        })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestFile {
    #[serde(default)]
    features: Vec<ManifestFeature>,
    #[serde(default)]
    changelog: ChangelogConfig,
    forge: Option<ForgeConfig>,
}

/// The repository-wide settings of `features.toml` (its top-level tables).
#[derive(Clone, Debug, Default)]
pub(crate) struct Settings {
    pub changelog: ChangelogConfig,
    pub forge: Option<ForgeConfig>,
}

/// The top-level tables of `features.toml` at `tree`; defaults without a manifest.
pub(crate) fn settings(repo: &Repository, tree: &Tree) -> Result<Settings, PipelineError> {
    Ok(read_manifest(repo, tree)?
        .map(|m| Settings {
            changelog: m.changelog,
            forge: m.forge,
        })
        .unwrap_or_default())
}

#[derive(Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct ManifestFeature {
    pub(crate) id: String,
    title: Option<String>,
    #[serde(default)]
    summary: String,
    pub(crate) paths: Vec<String>,
    surfaces: Option<Vec<Surface>>,
    captures: Option<String>,
    #[serde(default)]
    steps: Vec<ManifestStep>,
}

#[derive(Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct ManifestStep {
    title: String,
    #[serde(default)]
    body: String,
    capture: Option<String>,
}

/// Reads `.content-pipeline/features.toml` (or an implicit feature: a `feature_id` naming a
/// file or folder of the repository) at the repository's HEAD.
pub fn resolve_feature(repo: &Path, feature_id: &str) -> Result<Feature, PipelineError> {
    let repository = repository::open(repo)?;
    let commit = repository::head_commit(&repository)?;
    let tree = commit.tree()?;
    resolve_in_tree(&repository, &tree, feature_id)
}

pub(crate) fn resolve_in_tree(
    repo: &Repository,
    tree: &Tree,
    feature_id: &str,
) -> Result<Feature, PipelineError> {
    if let Some(manifest) = read_manifest(repo, tree)? {
        let mut seen = std::collections::BTreeSet::new();
        for f in &manifest.features {
            if !seen.insert(f.id.as_str()) {
                return Err(PipelineError::InvalidManifest(format!(
                    "feature id '{}' is declared more than once",
                    f.id
                )));
            }
        }
        if let Some(entry) = manifest.features.into_iter().find(|f| f.id == feature_id) {
            return declared_feature(repo, tree, entry);
        }
    }
    implicit_feature(repo, tree, feature_id)
}

/// The feature entries of the manifest at `tree`, as written; none without a manifest.
pub(crate) fn manifest_features(
    repo: &Repository,
    tree: &Tree,
) -> Result<Vec<ManifestFeature>, PipelineError> {
    Ok(read_manifest(repo, tree)?
        .map(|m| m.features)
        .unwrap_or_default())
}

fn read_manifest(repo: &Repository, tree: &Tree) -> Result<Option<ManifestFile>, PipelineError> {
    let Ok(entry) = tree.get_path(Path::new(MANIFEST_PATH)) else {
        return Ok(None);
    };
    if entry.filemode() == MODE_LINK || entry.kind() != Some(ObjectType::Blob) {
        return Err(PipelineError::InvalidManifest(
            "it must be a regular file, not a symlink or a folder".into(),
        ));
    }
    // Without the manifest the features are unknown: a missing blob fails the run, named.
    let blob = repo.find_blob(entry.id()).map_err(|e| {
        if crate::error::is_missing_object(&e) {
            PipelineError::InvalidManifest(
                "its content is missing from the repository's object store".into(),
            )
        } else {
            e.into()
        }
    })?;
    if blob.size() > MAX_MANIFEST_BYTES {
        return Err(PipelineError::InvalidManifest(format!(
            "it is larger than {} KiB",
            MAX_MANIFEST_BYTES / 1024
        )));
    }
    let text = std::str::from_utf8(blob.content())
        .map_err(|_| PipelineError::InvalidManifest("it is not valid UTF-8".into()))?;
    toml::from_str(text)
        .map(Some)
        .map_err(|e| PipelineError::InvalidManifest(e.to_string().trim().to_string()))
}

fn declared_feature(
    repo: &Repository,
    tree: &Tree,
    entry: ManifestFeature,
) -> Result<Feature, PipelineError> {
    let invalid =
        |msg: String| PipelineError::InvalidManifest(format!("feature '{}': {msg}", entry.id));
    if entry.paths.is_empty() {
        return Err(invalid("`paths` must list at least one glob".into()));
    }
    let mut globs = Vec::with_capacity(entry.paths.len());
    for raw in &entry.paths {
        let pattern = normalize_relative(raw)?;
        if pattern.is_empty() {
            return Err(invalid(format!("path '{raw}' names no file")));
        }
        paths::glob(&pattern)
            .map_err(|e| invalid(format!("invalid glob '{raw}': {}", e.kind())))?;
        check_no_escaping_link(repo, tree, &literal_prefix(&pattern))?;
        globs.push(pattern);
    }
    let surfaces = match entry.surfaces {
        None => Surface::ALL.to_vec(),
        Some(list) if list.is_empty() => {
            return Err(invalid(
                "`surfaces` must not be empty (omit it for all four)".into(),
            ));
        }
        Some(list) => {
            let mut unique = Vec::new();
            for s in list {
                if !unique.contains(&s) {
                    unique.push(s);
                }
            }
            unique
        }
    };
    let captures = match entry.captures.as_deref() {
        None => None,
        Some(raw) => {
            let folder = normalize_relative(raw)?;
            check_no_escaping_link(repo, tree, &folder)?;
            Some(folder)
        }
    };
    let mut steps = Vec::with_capacity(entry.steps.len());
    for step in entry.steps {
        let capture = match step.capture.as_deref() {
            None => None,
            Some(raw) => {
                let file = normalize_relative(raw)?;
                if file.is_empty() {
                    return Err(invalid(format!(
                        "step '{}' has an empty capture",
                        step.title
                    )));
                }
                let full = match captures.as_deref() {
                    Some(folder) if !folder.is_empty() => format!("{folder}/{file}"),
                    _ => file.clone(),
                };
                check_no_escaping_link(repo, tree, &full)?;
                Some(file)
            }
        };
        steps.push(Step {
            title: step.title,
            body: step.body,
            capture,
        });
    }
    let title = entry
        .title
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| humanize(&entry.id));
    Ok(Feature {
        id: entry.id,
        title,
        summary: entry.summary,
        paths: globs,
        surfaces,
        captures,
        steps,
        product: product_name(repo, tree),
        path: None,
        declared: true,
    })
}

fn implicit_feature(
    repo: &Repository,
    tree: &Tree,
    feature_id: &str,
) -> Result<Feature, PipelineError> {
    let unknown = || PipelineError::UnknownFeature {
        feature_id: feature_id.chars().take(300).collect(),
    };
    let path = normalize_relative(feature_id)?;
    if path.is_empty() {
        return if feature_id.trim().is_empty() {
            Err(unknown())
        } else {
            Ok(root_feature(repo, tree, feature_id))
        };
    }
    check_no_escaping_link(repo, tree, &path)?;
    let entry = tree.get_path(Path::new(&path)).map_err(|_| unknown())?;
    let pattern = match (entry.kind(), entry.filemode()) {
        (_, MODE_LINK) | (_, paths::MODE_SUBMODULE) => return Err(unknown()),
        (Some(ObjectType::Tree), _) => format!("{}/**", glob_escape(&path)),
        (Some(ObjectType::Blob), _) => glob_escape(&path),
        _ => return Err(unknown()),
    };
    // A folder with its own package manifest (a monorepo's package) is that package.
    let own = (entry.kind() == Some(ObjectType::Tree))
        .then(|| package_in(repo, tree, &path))
        .flatten();
    let (product, description) = own.clone().unwrap_or_else(|| package(repo, tree));
    // The package's source folder (`src`, `source`, `lib`, or the folder named as the
    // package: `tenacity`, `src/cachetools`) is the package: its name and description.
    let source_root = {
        let last = path.rsplit('/').next().unwrap_or(&path);
        let same = |a: &str, b: &str| {
            a.to_lowercase().replace('-', "_") == b.to_lowercase().replace('-', "_")
        };
        own.is_some()
            || entry.kind() == Some(ObjectType::Tree)
                && (matches!(last, "src" | "source" | "lib") || same(last, &product))
    };
    let (title, summary) = if source_root {
        (product.clone(), description)
    } else {
        // "log/src/macros.rs": the path as the reader finds it in the repository, under the
        // package's name; a humanised file stem ("Macros", "Lib", "Version7") says less.
        (format!("{product}/{path}"), String::new())
    };
    Ok(Feature {
        id: feature_id.to_string(),
        title,
        summary,
        paths: vec![pattern],
        surfaces: Surface::ALL.to_vec(),
        captures: None,
        steps: Vec::new(),
        product,
        path: Some(path),
        declared: false,
    })
}

/// Feature `.`: every file of the repository (still bounded by the limits), titled with
/// [`product_name`] and summarised by the package's own description.
fn root_feature(repo: &Repository, tree: &Tree, feature_id: &str) -> Feature {
    let (product, summary) = package(repo, tree);
    Feature {
        id: feature_id.to_string(),
        title: product.clone(),
        summary,
        paths: vec!["**".to_owned()],
        surfaces: Surface::ALL.to_vec(),
        captures: None,
        steps: Vec::new(),
        product,
        path: None,
        declared: false,
    }
}
