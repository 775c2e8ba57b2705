use domain::Timestamp;

/// A keyset position: the sort key of the last item a client has seen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub created_at: Timestamp,
    pub id: String,
}

/// One page request of a newest-first list: at most `limit` items strictly after `after`.
/// Stores fetch `limit + 1` rows so the caller knows whether another page exists.
#[derive(Clone, Debug)]
pub struct KeysetPage {
    pub limit: i64,
    pub after: Option<Position>,
}

impl KeysetPage {
    pub fn first(limit: i64) -> Self {
        Self { limit, after: None }
    }

    pub(crate) fn fetch(&self) -> i64 {
        self.limit + 1
    }

    /// Bind values for `(created_at, id) < ($a, $b)`; the first page uses a position past
    /// every real row, so one SQL text serves every page.
    pub(crate) fn bounds(&self) -> (i64, String) {
        match &self.after {
            Some(p) => (p.created_at.micros(), p.id.clone()),
            None => (i64::MAX, "~".to_owned()),
        }
    }
}
