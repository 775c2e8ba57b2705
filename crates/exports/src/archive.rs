//! The archive: a tar stream gzip-compressed as it is written, so an export never holds the
//! whole archive (the writer it is given decides where the bytes go).

use std::io::{self, Write};

use flate2::Compression;
use flate2::write::GzEncoder;

/// Whether `path` may name a file of an archive, written or unpacked: relative, `/`-separated
/// plain segments (no `.`, `..`, empty segment, backslash, NUL or drive prefix).
pub fn is_safe_path(path: &str) -> bool {
    !path.is_empty()
        && path.len() <= 4096
        && !path.starts_with('/')
        && path.split('/').all(|segment| {
            !matches!(segment, "" | "." | "..")
                && !segment.contains(['\\', '\0', ':'])
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_paths_are_refused() {
        for path in ["docs/a.md", "a", "static/img/x-1.png"] {
            assert!(is_safe_path(path), "{path}");
        }
        for path in ["", "/etc/passwd", "../x", "a/../../x", "a//b", "./a", "a\\b", "C:/x", "a/"] {
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
                (long, "long name".to_owned())
            ]
        );
        Ok(())
    }
}
