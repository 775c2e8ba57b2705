//! The archive: a tar stream gzip-compressed as it is written, so an export never holds the
//! whole archive (the writer it is given decides where the bytes go); and its unpacking, which
//! writes regular files only and none outside the folder it is given.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::write::GzEncoder;

/// Whether `path` may name a file of an archive, written or unpacked: relative, `/`-separated
/// plain segments (no `.`, `..`, empty segment, backslash, NUL or drive prefix).
pub fn is_safe_path(path: &str) -> bool {
    !path.is_empty()
        && path.len() <= 4096
        && !path.starts_with('/')
        && path.split('/').all(|segment| {
            !matches!(segment, "" | "." | "..") && !segment.contains(['\\', '\0', ':'])
        })
}

/// Writes regular files into a `tar.gz`.
pub struct ArchiveWriter<W: Write> {
    tar: tar::Builder<GzEncoder<W>>,
    mtime: u64,
}

impl<W: Write> ArchiveWriter<W> {
    /// Every entry gets `mtime` (seconds since the epoch): the same articles give the same
    /// archive.
    pub fn new(out: W, mtime: u64) -> Self {
        let mut tar = tar::Builder::new(GzEncoder::new(out, Compression::fast()));
        tar.mode(tar::HeaderMode::Deterministic);
        Self { tar, mtime }
    }

    /// Adds a regular file (mode 0644).
    pub fn add(&mut self, path: &str, bytes: &[u8]) -> io::Result<()> {
        if !is_safe_path(path) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("not an archive path: {path:?}"),
            ));
        }
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Regular);
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(self.mtime);
        self.tar.append_data(&mut header, path, bytes)
    }

    /// Ends the tar stream and the gzip member; gives the writer back.
    pub fn finish(self) -> io::Result<W> {
        self.tar.into_inner()?.finish()
    }
}

/// Unpacks a `tar.gz` into `dir` (created if missing): regular files only, each at a path
/// [`is_safe_path`] accepts, never through a symbolic link; anything else (a link, a device,
/// an absolute or climbing path) stops the unpacking with an error. Returns the paths
/// written. Files already there are replaced.
pub fn unpack(archive: impl Read, dir: &Path) -> io::Result<Vec<String>> {
    let refuse = |what: String| io::Error::new(io::ErrorKind::InvalidData, what);
    fs::create_dir_all(dir)?;
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(archive));
    let mut written = Vec::new();
    for entry in tar.entries()? {
        let mut entry = entry?;
        let kind = entry.header().entry_type();
        let path = entry.path()?;
        let path = path
            .to_str()
            .map(|p| p.trim_end_matches('/').to_owned())
            .ok_or_else(|| refuse("an entry's path is not UTF-8".to_owned()))?;
        if kind.is_dir() && is_safe_path(&path) {
            continue;
        }
        if !kind.is_file() || !is_safe_path(&path) {
            return Err(refuse(format!(
                "refusing archive entry {path:?} ({kind:?}): only regular files inside the folder are unpacked"
            )));
        }
        let target = inside(dir, &path)?;
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent)?;
        }
        inside(dir, &path)?;
        let mut file = fs::File::create(&target)?;
        io::copy(&mut entry, &mut file)?;
        written.push(path);
    }
    Ok(written)
}

/// `dir/path`, when no part of it that exists is a symbolic link.
fn inside(dir: &Path, path: &str) -> io::Result<PathBuf> {
    let mut target = dir.to_path_buf();
    for segment in path.split('/') {
        target.push(segment);
        if fs::symlink_metadata(&target).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "refusing to write through the symbolic link {}",
                    target.display()
                ),
            ));
        }
    }
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_paths_are_refused() {
        for path in ["docs/a.md", "a", "static/img/x-1.png"] {
            assert!(is_safe_path(path), "{path}");
        }
        for path in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../x",
            "a//b",
            "./a",
            "a\\b",
            "C:/x",
            "a/",
        ] {
            assert!(!is_safe_path(path), "{path}");
        }
    }

    #[test]
    fn an_archive_round_trips() -> io::Result<()> {
        let mut writer = ArchiveWriter::new(Vec::new(), 1_700_000_000);
        writer.add("docs/a.md", b"hello")?;
        let long = format!("docs/{}/b.md", "x".repeat(150));
        writer.add(&long, b"long name")?;
        assert!(writer.add("../escape", b"no").is_err());
        let bytes = writer.finish()?;
        let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes.as_slice()));
        let mut seen = Vec::new();
        for entry in archive.entries()? {
            let mut entry = entry?;
            let path = entry.path()?.to_string_lossy().into_owned();
            let mut text = String::new();
            io::Read::read_to_string(&mut entry, &mut text)?;
            seen.push((path, text));
        }
        assert_eq!(
            seen,
            vec![
                ("docs/a.md".to_owned(), "hello".to_owned()),
                (long.clone(), "long name".to_owned())
            ]
        );
        Ok(())
    }

    /// A tar.gz written by the `tar` crate directly, so that it can hold what ours never
    /// writes.
    fn raw_archive(entries: &[(&str, tar::EntryType, &[u8])]) -> io::Result<Vec<u8>> {
        let mut tar = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::fast()));
        for (path, kind, bytes) in entries {
            let mut header = tar::Header::new_gnu();
            header.set_entry_type(*kind);
            header.set_size(bytes.len() as u64);
            header.set_mode(0o644);
            // Written into the header as is: `append_data` would refuse `..` itself.
            let name = header.as_old_mut();
            name.name[..path.len()].copy_from_slice(path.as_bytes());
            if *kind == tar::EntryType::Symlink {
                header.set_link_name("/etc")?;
            }
            header.set_cksum();
            tar.append(&header, *bytes)?;
        }
        tar.into_inner()?.finish()
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("exports-unpack-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn unpacking_writes_regular_files_inside_the_folder_only() -> io::Result<()> {
        let dir = temp_dir("ok");
        let mut writer = ArchiveWriter::new(Vec::new(), 0);
        writer.add("docs/a.md", b"a")?;
        writer.add("mkdocs.yml", b"nav")?;
        let written = unpack(writer.finish()?.as_slice(), &dir)?;
        assert_eq!(written, vec!["docs/a.md", "mkdocs.yml"]);
        assert_eq!(fs::read_to_string(dir.join("docs/a.md"))?, "a");

        for (name, entries) in [
            (
                "climb",
                vec![("../escaped.md", tar::EntryType::Regular, &b"x"[..])],
            ),
            (
                "absolute",
                vec![("/tmp/escaped.md", tar::EntryType::Regular, &b"x"[..])],
            ),
            ("link", vec![("docs", tar::EntryType::Symlink, &b""[..])]),
        ] {
            let target = temp_dir(name);
            let archive = raw_archive(&entries)?;
            let refused = unpack(archive.as_slice(), &target.join("out"));
            assert!(refused.is_err(), "{name}");
            assert!(!target.join("escaped.md").exists(), "{name}");
            assert!(!Path::new("/tmp/escaped.md").exists(), "{name}");
        }

        // A link already in the folder is not written through.
        #[cfg(unix)]
        {
            let outside = temp_dir("outside");
            fs::create_dir_all(&outside)?;
            let linked = temp_dir("linked");
            fs::create_dir_all(&linked)?;
            std::os::unix::fs::symlink(&outside, linked.join("docs"))?;
            let mut writer = ArchiveWriter::new(Vec::new(), 0);
            writer.add("docs/a.md", b"a")?;
            assert!(unpack(writer.finish()?.as_slice(), &linked).is_err());
            assert!(!outside.join("a.md").exists());
        }
        Ok(())
    }
}
