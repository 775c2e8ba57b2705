use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The scope ladder: each level contains every level below it.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Read,
    Write,
    Publish,
    Admin,
}

impl Scope {
    pub const ALL: [Scope; 4] = [Scope::Read, Scope::Write, Scope::Publish, Scope::Admin];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Write => "write",
            Scope::Publish => "publish",
            Scope::Admin => "admin",
        }
    }

    /// True when a token holding `self` may perform an operation that needs `needed`.
    pub fn includes(self, needed: Scope) -> bool {
        self >= needed
    }
}

impl std::str::FromStr for Scope {
    type Err = crate::ParseEnumError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Scope::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| crate::ParseEnumError::new("scope", s))
    }
}

impl std::fmt::Display for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ladder_contains_lower_levels_only() {
        assert!(Scope::Admin.includes(Scope::Read));
        assert!(Scope::Publish.includes(Scope::Write));
        assert!(Scope::Write.includes(Scope::Write));
        assert!(!Scope::Write.includes(Scope::Publish));
        assert!(!Scope::Read.includes(Scope::Write));
    }
}
