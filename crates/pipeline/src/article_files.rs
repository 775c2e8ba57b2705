//! The repository files an article shows (its images and captures), read from the git object
//! database at the commit its version was generated from. One rule for every reader of them:
//! the published site serves them (`portal::site::files`) and the exports copy them into the
//! framework's static folder (`exports`, through `operations::exports`). The working tree is
//! never read, so neither a later checkout nor a symlink in it can change or widen what is
//! read.
//!
//! A file is read only when all of these hold, else it is not there (one answer for every
//! refusal, so that nothing about the repository shows through):
//! - an image source of the article names it ([`repository_path`]: a normalised path inside
//!   the repository, no `..`, no leading `/`, no scheme or host);
//! - its extension is on [`CONTENT_TYPES`] (images and videos);
//! - at that commit it is a regular file (a symlink is not followed, a submodule not entered)
//!   of at most [`MAX_FILE_BYTES`].

use std::path::Path;

use git2::{ErrorCode, ObjectType, Oid, Repository, RepositoryOpenFlags};
use percent_encoding::percent_decode_str;

/// The largest file read. Captures are screenshots and short clips; a larger blob is more
/// likely a mistake than an image, and would be held in memory whole.
pub const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;

/// The extensions read (lower case) and their content types. SVG can hold script: the
/// published site serves it with a Content-Security-Policy that runs nothing.
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

/// Longest repository path accepted; git itself refuses none, but no real image path is
/// longer and a longer one would only make work.
const MAX_PATH_BYTES: usize = 1024;

/// The content type of a path's extension, if it is read at all.
pub fn content_type(path: &str) -> Option<&'static str> {
    let (_, extension) = path.rsplit_once('.')?;
    let extension = extension.to_ascii_lowercase();
    CONTENT_TYPES
        .iter()
        .find(|(e, _)| *e == extension)
        .map(|(_, t)| *t)
}

/// The normalised repository path an image source names, or `None` when it names none: a URL
/// with a scheme or a host (`https://…`, `//host/…`, `data:…`), a path that climbs above the
/// repository root, or one holding a backslash or a control character (never a file a
/// repository links to, often a trick). Articles point at repository files by root-relative
/// paths (`/docs/a%20b.png`: the pipeline's `served_url` for repositories without a known
/// forge); a relative source (`docs/a.png`) is read from the repository root too, as the
/// pipeline writes none and a hand-made template means nothing else by it.
/// `/docs/a%20b.png`, `docs/a b.png` and `./docs/x/../a%20b.png?raw=1#top` all name
/// `docs/a b.png`.
pub fn repository_path(src: &str) -> Option<String> {
    let src = src.trim();
    if src.starts_with("//") || src.len() > 3 * MAX_PATH_BYTES {
        return None;
    }
    let end = src.find(['?', '#']).unwrap_or(src.len());
    let src = &src[..end];
    let scheme_end = src.find('/').unwrap_or(src.len());
    if src[..scheme_end].contains(':') {
        return None;
    }
    let decoded = percent_decode_str(src).decode_utf8().ok()?;
    if decoded.contains('\\') || decoded.chars().any(char::is_control) {
        return None;
    }
    let mut segments: Vec<&str> = Vec::new();
    for segment in decoded.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop()?;
            }
            name => segments.push(name),
        }
    }
    let path = segments.join("/");
    (!path.is_empty() && path.len() <= MAX_PATH_BYTES).then_some(path)
}

/// Where a version's files are read from: the workspace's repository and the commit of the
/// run that wrote the version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitSource {
    pub repository: String,
    pub commit: String,
}

/// A repository's tree at a commit, for blocking reads.
pub struct CommitFiles {
    repo: Repository,
    tree: Oid,
}

/// A file read: its git blob id (the same bytes have the same id) and its bytes.
#[derive(Clone, Debug)]
pub struct ArticleFile {
    pub content_type: &'static str,
    pub blob_id: String,
    pub bytes: Vec<u8>,
}

impl CommitFiles {
    /// `None` when the repository or the commit is gone: its files are then not there.
    pub fn open(source: &CommitSource) -> Option<Self> {
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

    /// The blob id of the file at repository path `path` if it may be read (see the module):
    /// a path of plain segments (checked again here, whatever the caller checked), an
    /// extension on [`CONTENT_TYPES`], a blob that is no symlink, at most [`MAX_FILE_BYTES`].
    /// An error is a broken repository, not a refusal.
    pub fn blob_id(&self, path: &str) -> Result<Option<String>, git2::Error> {
        Ok(self.blob(path)?.map(|id| id.to_string()))
    }

    /// The file at repository path `path`, if it may be read.
    pub fn read(&self, path: &str) -> Result<Option<ArticleFile>, git2::Error> {
        let (Some(id), Some(content_type)) = (self.blob(path)?, content_type(path)) else {
            return Ok(None);
        };
        let blob = self.repo.find_blob(id)?;
        Ok(Some(ArticleFile {
            content_type,
            blob_id: id.to_string(),
            bytes: blob.content().to_vec(),
        }))
    }

    fn blob(&self, path: &str) -> Result<Option<Oid>, git2::Error> {
        let plain = !path.is_empty()
            && path
                .split('/')
                .all(|s| !matches!(s, "" | "." | "..") && !s.contains(['\\', '\0']));
        if !plain || content_type(path).is_none() {
            return Ok(None);
        }
        let tree = self.repo.find_tree(self.tree)?;
        let entry = match tree.get_path(Path::new(path)) {
            Ok(entry) => entry,
            Err(e) if e.code() == ErrorCode::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        // 0o100644 and 0o100755; a symlink is 0o120000, a submodule 0o160000.
        let regular = matches!(entry.filemode(), 0o100644 | 0o100755);
        if !regular || entry.kind() != Some(ObjectType::Blob) {
            return Ok(None);
        }
        let (size, _) = self.repo.odb()?.read_header(entry.id())?;
        Ok((size as u64 <= MAX_FILE_BYTES).then_some(entry.id()))
    }
}

#[cfg(test)]
mod tests {
    use super::{content_type, repository_path};

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

    #[test]
    fn sources_name_normalised_repository_paths() {
        for src in [
            "/docs/a%20b.png",
            "docs/a b.png",
            "./docs/x/../a%20b.png?raw=1#top",
            " /docs//a b.png ",
        ] {
            assert_eq!(
                repository_path(src).as_deref(),
                Some("docs/a b.png"),
                "{src}"
            );
        }
        assert_eq!(repository_path("/é.png").as_deref(), Some("é.png"));
        assert_eq!(repository_path("/a:b.png").as_deref(), Some("a:b.png"));
    }

    #[test]
    fn urls_and_escapes_name_no_file() {
        for src in [
            "https://example.com/a.png",
            "HTTP://x/a.png",
            "//evil.example/a.png",
            "data:image/png;base64,AAAA",
            "javascript:alert(1)",
            "../secret.png",
            "/docs/../../etc/passwd",
            "/docs/%2e%2e/%2e%2e/etc/passwd",
            "a\\..\\b.png",
            "/a%00.png",
            "/a%0a.png",
            "/%ff.png",
            "",
            "/",
            "?x",
        ] {
            assert_eq!(repository_path(src), None, "{src}");
        }
        assert_eq!(repository_path(&format!("/{}", "a".repeat(2000))), None);
    }
}
