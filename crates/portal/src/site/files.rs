//! The repository files an article shows (its images and captures), read from the git object
//! database at the commit its version was generated from: the version's run's
//! `source_commit`, in the workspace's repository. The working tree is never read, so neither
//! a later checkout nor a symlink in it can change or widen what is served.
//!
//! A file is served only when all of these hold, else it is not found (one answer for every
//! refusal, so that nothing about the repository shows through):
//! - the path is one the version's MDX references ([`crate::render::referenced_files`]), which
//!   only ever holds normalised paths inside the repository (no `..`, no leading `/`);
//! - its extension is on [`CONTENT_TYPES`] (images and videos);
//! - at that commit it is a regular file (a symlink is not followed, a submodule not entered)
//!   of at most [`MAX_FILE_BYTES`].
//!
//! [`render_version`] applies the same rules to the images of a rendered version, so that a
//! page shows an image exactly when [`referenced_file`] serves it (else its alt text).
use std::path::Path;

use git2::{ErrorCode, ObjectType, Oid, Repository, RepositoryOpenFlags};
use operations::{Error, Operations, Result};
use store::{ArticleRecord, ArticleVersionRecord};

use crate::render;

/// The largest file served. Captures are screenshots and short clips; a larger blob is more
/// likely a mistake than an image, and would be held in memory whole.
pub const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;

/// The extensions served (lower case) and their content types. SVG can hold script: it is
/// served with a Content-Security-Policy that runs nothing (`security::FILE_CSP`).
pub const CONTENT_TYPES: &[(&str, &str)] = &[
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
    ("avif", "image/avif"),
    ("svg", "image/svg+xml"),
    ("mp4", "video/mp4"),
    ("webm", "video/webm"),
];

/// A file of the repository, as served.
#[derive(Clone, Debug)]
pub struct RepositoryFile {
    pub content_type: &'static str,
    /// The git blob id: the same bytes have the same id, a validator for caches.
    pub blob_id: String,
    pub bytes: Vec<u8>,
}

/// Where a version's files are read from.
#[derive(Clone, Debug)]
struct Source {
    repository: String,
    commit: String,
}

/// The file at `path` of `version`'s commit, when `version` references it (see the module).
/// For the published site and for the portal's preview of any version alike.
pub async fn referenced_file(
    ops: &Operations,
    article: &ArticleRecord,
    version: &ArticleVersionRecord,
    path: &str,
) -> Result<RepositoryFile> {
    let missing = || Error::not_found("file", path);
    let content_type = content_type(path).ok_or_else(missing)?;
    let source = source(ops, article, version).await?.ok_or_else(missing)?;
    let (mdx, wanted) = (version.mdx_body.clone(), path.to_owned());
    blocking(move || {
        if !render::referenced_files(&mdx).contains(&wanted) {
            return Ok(None);
        }
        let Some(snapshot) = Snapshot::open(&source) else {
            return Ok(None);
        };
        snapshot.read(&wanted)
    })
    .await?
    .map(|(blob_id, bytes)| RepositoryFile {
        content_type,
        blob_id,
        bytes,
    })
    .ok_or_else(missing)
}

/// `version` rendered ([`render::article`]) with each image it shows at `file_url(path)` when
/// that file can be served, else as its alt text: what the published page and the portal's
/// preview show. The repository is opened once, the MDX parsed once, off the async threads.
pub async fn render_version(
    ops: &Operations,
    article: &ArticleRecord,
    version: &ArticleVersionRecord,
    file_url: impl Fn(&str) -> String + Send + 'static,
) -> Result<render::Rendered> {
    let source = source(ops, article, version).await?;
    let mdx = version.mdx_body.clone();
    blocking(move || {
        let snapshot = source.as_ref().and_then(Snapshot::open);
        let url = |path: &str| {
            let servable = content_type(path).is_some()
                && snapshot.as_ref().is_some_and(|s| s.blob(path).is_some());
            servable.then(|| file_url(path))
        };
        Ok(render::article(&mdx, &url))
    })
    .await
}

/// The content type of a path's extension, if it is served at all.
pub fn content_type(path: &str) -> Option<&'static str> {
    let (_, extension) = path.rsplit_once('.')?;
    let extension = extension.to_ascii_lowercase();
    CONTENT_TYPES
        .iter()
        .find(|(e, _)| *e == extension)
        .map(|(_, t)| *t)
}

/// The repository and commit of `version`: `None` when the workspace has no repository or
/// the version no run with a commit (a version written by hand).
async fn source(
    ops: &Operations,
    article: &ArticleRecord,
    version: &ArticleVersionRecord,
) -> Result<Option<Source>> {
    let Some(repository) = ops
        .store
        .workspace(article.workspace_id)
        .await?
        .and_then(|w| w.repo_path)
    else {
        return Ok(None);
    };
    let commit = ops
        .store
        .run(version.run_id)
        .await?
        .filter(|run| run.workspace_id == article.workspace_id)
        .and_then(|run| run.source_commit);
    Ok(commit.map(|commit| Source { repository, commit }))
}

/// Runs git work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(Error::internal)?
}

/// A repository's tree at a commit, for blocking reads.
struct Snapshot {
    repo: Repository,
    tree: Oid,
}

impl Snapshot {
    /// `None` when the repository or the commit is gone: its files are then not found.
    fn open(source: &Source) -> Option<Self> {
        // The repository at that path itself: no search upwards for another one, and none
        // at all when the path is not absolute (the workspace's path always is).
        let path = Path::new(&source.repository);
        if !path.is_absolute() {
            return None;
        }
        let repo =
            Repository::open_ext(path, RepositoryOpenFlags::NO_SEARCH, [] as [&str; 0]).ok()?;
        let commit = Oid::from_str(&source.commit).ok()?;
        let tree = repo.find_commit(commit).ok()?.tree_id();
        Some(Self { repo, tree })
    }

    /// The id of the regular file at `path` if it may be served: a path of plain segments
    /// (checked again here, whatever the caller checked), a blob that is no symlink, at most
    /// [`MAX_FILE_BYTES`].
    fn blob(&self, path: &str) -> Option<Oid> {
        let plain = !path.is_empty()
            && path
                .split('/')
                .all(|s| !matches!(s, "" | "." | "..") && !s.contains(['\\', '\0']));
        if !plain {
            return None;
        }
        let tree = self.repo.find_tree(self.tree).ok()?;
        let entry = match tree.get_path(Path::new(path)) {
            Ok(entry) => entry,
            Err(e) if e.code() == ErrorCode::NotFound => return None,
            Err(e) => {
                tracing::warn!(error = %e, "reading a repository tree");
                return None;
            }
        };
        // 0o100644 and 0o100755; a symlink is 0o120000, a submodule 0o160000.
        let regular = matches!(entry.filemode(), 0o100644 | 0o100755);
        if !regular || entry.kind() != Some(ObjectType::Blob) {
            return None;
        }
        let (size, _) = self.repo.odb().ok()?.read_header(entry.id()).ok()?;
        (size as u64 <= MAX_FILE_BYTES).then_some(entry.id())
    }

    /// The blob id and bytes of the file at `path`, if it may be served.
    fn read(&self, path: &str) -> Result<Option<(String, Vec<u8>)>> {
        let Some(id) = self.blob(path) else {
            return Ok(None);
        };
        let blob = self.repo.find_blob(id).map_err(Error::internal)?;
        Ok(Some((id.to_string(), blob.content().to_vec())))
    }
}

#[cfg(test)]
mod tests {
    use super::content_type;

    #[test]
    fn only_images_and_videos_have_a_content_type() {
        assert_eq!(content_type("docs/a.PNG"), Some("image/png"));
        assert_eq!(content_type("a.jpeg"), Some("image/jpeg"));
        assert_eq!(content_type("a.svg"), Some("image/svg+xml"));
        assert_eq!(content_type("clip.webm"), Some("video/webm"));
        for path in ["src/lib.rs", "a.html", "png", ".env", "a.png.exe", "README"] {
            assert_eq!(content_type(path), None, "{path}");
        }
    }
}
