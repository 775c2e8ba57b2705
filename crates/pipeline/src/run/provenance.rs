//! What each article depends on, which is what can make it drift, and the hash that tells the
//! service whether a new version says anything new.

use domain::Surface;
use std::collections::BTreeSet;

use super::extract::{Capture, Extracted};
use crate::provenance::{FileRole, FileSource, Provenance, SymbolSource, sha256_hex};
use crate::source::files::RepoFile;

pub(super) fn provenance(
    surface: Surface,
    commit: &str,
    extracted: &Extracted,
    prose_shown: &BTreeSet<&str>,
    captures: &[Capture],
) -> Provenance {
    let (code, captures): (&[RepoFile], &[Capture]) = match surface {
        Surface::DevDocs => (&extracted.code, &[]),
        Surface::HelpCenter => (&[], captures),
        Surface::Changelog | Surface::Blog => {
            return Provenance {
                commit: commit.to_string(),
                files: Vec::new(),
                symbols: Vec::new(),
                body_hash: None,
                steps: None,
            };
        }
    };
    let modules: &[(String, git2::Oid)] = if code.is_empty() {
        &[]
    } else {
        &extracted.module_files
    };
    let mut files: Vec<FileSource> = code
        .iter()
        .map(|f| (f, FileRole::Code))
        .chain(
            extracted
                .prose_files
                .iter()
                .filter(|f| prose_shown.contains(f.path.as_str()))
                .map(|f| (f, FileRole::Prose)),
        )
        .map(|(f, role)| FileSource {
            path: f.path.clone(),
            blob: f.blob.to_string(),
            role,
        })
        .collect();
    for (path, blob) in modules {
        files.push(FileSource {
            path: path.clone(),
            blob: blob.to_string(),
            role: FileRole::Module,
        });
    }
    for capture in captures {
        if let (Some(path), Some(blob)) = (&capture.path, capture.blob)
            && !files.iter().any(|f| &f.path == path)
        {
            files.push(FileSource {
                path: path.clone(),
                blob: blob.to_string(),
                role: FileRole::Capture,
            });
        }
    }
    let symbols = if code.is_empty() {
        Vec::new()
    } else {
        extracted
            .symbols
            .iter()
            .map(|s| SymbolSource {
                path: s.path.clone(),
                name: s.name.clone(),
                kind: s.kind.as_str().to_string(),
                hash: s.hash.clone(),
            })
            .collect()
    };
    Provenance {
        commit: commit.to_string(),
        files,
        symbols,
        body_hash: None,
        steps: None,
    }
}

/// SHA-256 (hex) of a generated article without its frontmatter `version` line, so that the
/// same content rendered for the next version number hashes the same.
pub(super) fn body_hash(mdx_body: &str, version: i64) -> String {
    let version_line = format!("\nversion: {version}\n");
    match mdx_body.split_once(&version_line) {
        Some((before, after)) => sha256_hex(&[before, after]),
        None => sha256_hex(&[mdx_body]),
    }
}
