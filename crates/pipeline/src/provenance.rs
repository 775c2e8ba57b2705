use serde::{Deserialize, Serialize};

/// What an article version was built from; stored as JSON beside it and compared with HEAD
/// by the drift checker. Each surface records only what its content depends on: dev-docs their
/// code (symbols) and prose, help-center its prose and captures, changelog and blog nothing
/// (they record a range of history and never drift).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Provenance {
    /// The source commit.
    pub commit: String,
    pub files: Vec<FileSource>,
    /// Every symbol the article documents.
    pub symbols: Vec<SymbolSource>,
    /// SHA-256 (hex) of the article as generated, before any polish, with its frontmatter
    /// `version` left out: two runs that produce the same article have the same hash, so the
    /// second writes no new version. Absent in provenances recorded before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_hash: Option<String>,
    /// Help center only: the manifest steps the walkthrough shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<StepsSource>,
}

/// A feature's manifest steps, as a hash of what the walkthrough shows of them.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct StepsSource {
    pub feature: String,
    /// SHA-256 (hex) of the steps' titles, bodies and captures.
    pub hash: String,
}

impl StepsSource {
    pub(crate) fn of(feature: &crate::source::manifest::Feature) -> Option<Self> {
        if feature.steps.is_empty() {
            return None;
        }
        let mut parts: Vec<&str> = feature
            .steps
            .iter()
            .flat_map(|s| [&s.title, &s.body, s.capture.as_deref().unwrap_or("")])
            .collect();
        parts.extend(feature.captures.as_deref());
        Some(Self {
            feature: feature.id.clone(),
            hash: sha256_hex(&parts),
        })
    }
}

/// SHA-256 (hex) of `parts`, each ended by a NUL so that moving text between parts changes it.
pub(crate) fn sha256_hex(parts: &[&str]) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
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
    /// A Rust module file outside the feature whose `mod` and `pub use` say which of the
    /// feature's items are public: when it changes, the feature's Rust files are compared
    /// again, so that an item made private (or public) drifts although its own file did not
    /// change.
    Module,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct SymbolSource {
    pub path: String,
    pub name: String,
    pub kind: String,
    /// Normalised token hash (see [`crate::Symbol::hash`]).
    pub hash: String,
}
