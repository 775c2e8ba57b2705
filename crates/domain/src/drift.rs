//! What the drift checker reports: a source of an article that no longer matches the
//! repository's HEAD. The pipeline produces it; the API, the webhooks' `drift.detected` payload
//! and the client read it.

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    Modified,
    Deleted,
    Renamed,
    /// New public symbols in a documented file: the article does not show them yet.
    Added,
}

impl ChangeKind {
    /// As serialized: `modified`, `deleted`, `renamed`, `added`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Modified => "modified",
            ChangeKind::Deleted => "deleted",
            ChangeKind::Renamed => "renamed",
            ChangeKind::Added => "added",
        }
    }
}

/// One changed source of an article: a source that no longer matches HEAD.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, utoipa::ToSchema)]
#[schema(as = DriftChange)]
pub struct Change {
    /// The path recorded in the provenance.
    pub path: String,
    pub kind: ChangeKind,
    /// Documented symbols affected (changed, removed, or carried away by a rename); for
    /// `added`, the new public symbols.
    pub symbols: Vec<String>,
    /// Where a renamed file is now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_path: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::ChangeKind;

    #[test]
    fn change_kinds_read_as_they_serialize() {
        for kind in [
            ChangeKind::Modified,
            ChangeKind::Deleted,
            ChangeKind::Renamed,
            ChangeKind::Added,
        ] {
            assert_eq!(
                serde_json::to_value(kind).unwrap(),
                serde_json::json!(kind.as_str())
            );
        }
    }
}
