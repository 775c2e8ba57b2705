use serde::{Deserialize, Serialize};

/// What an article version was built from; stored as JSON beside it and compared with HEAD
/// by the drift checker.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Provenance {
    /// The source commit.
    pub commit: String,
    pub files: Vec<FileSource>,
    /// Every symbol the article set documents.
    pub symbols: Vec<SymbolSource>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct FileSource {
    pub path: String,
    /// Git blob id (hex).
    pub blob: String,
    #[serde(default)]
    pub role: FileRole,
}

/// How an article used a file, which decides what counts as drift when its blob changes.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum FileRole {
    /// Source code: drift only when a documented symbol changed or disappeared.
    #[default]
    Code,
    /// Markdown used as prose: any change is drift.
    Prose,
    /// A step's capture image: any change is drift.
    Capture,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct SymbolSource {
    pub path: String,
    pub name: String,
    pub kind: String,
    /// Normalised token hash (see [`crate::Symbol::hash`]).
    pub hash: String,
}
