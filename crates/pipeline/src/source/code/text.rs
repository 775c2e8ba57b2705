//! A repository file as the extract stage reads it: never inflated past `max_file_bytes`,
//! binary files told apart, bracket nesting bounded before tree-sitter sees the text.

use git2::{Oid, Repository};

use crate::error::PipelineError;
use crate::limits::Limits;

fn looks_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8000).any(|b| *b == 0)
}

/// A file of the repository as the extract stage reads it.
pub(crate) enum FileText {
    Text(String),
    /// Larger than [`Limits::max_file_bytes`]: the size from the object header.
    TooLarge(u64),
    Binary,
}

/// Reads a file worth parsing (`path`, named when its blob is missing), never inflating one
/// larger than `max_file_bytes`. Runs and drift checks both read with this, so the symbols
/// they hash are always made the same way.
pub(crate) fn read_text(
    repo: &Repository,
    path: &str,
    blob: Oid,
    limits: &Limits,
) -> Result<FileText, PipelineError> {
    let (bytes, _) = repo
        .odb()?
        .read_header(blob)
        .map_err(|e| PipelineError::reading(path, e))?;
    let bytes = bytes as u64;
    if bytes > limits.max_file_bytes {
        return Ok(FileText::TooLarge(bytes));
    }
    let blob = repo.find_blob(blob)?;
    let content = blob.content();
    Ok(if looks_binary(content) {
        FileText::Binary
    } else {
        FileText::Text(String::from_utf8_lossy(content).into_owned())
    })
}

/// The line (1-based) where bracket nesting first goes deeper than `max`, if it does: a cheap
/// bound taken before tree-sitter, which a file of unclosed brackets costs most. Brackets
/// inside a double-quoted string on one line do not count (`"\x1b[33m"` opens nothing); those
/// in comments and other kinds of strings do.
pub(crate) fn nesting_exceeded(text: &str, max: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut line = 1;
    let mut in_string = false;
    let mut escaped = false;
    for byte in text.bytes() {
        if in_string && byte != b'\n' {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return Some(line);
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'\n' => {
                line += 1;
                (in_string, escaped) = (false, false);
            }
            _ => {}
        }
    }
    None
}
