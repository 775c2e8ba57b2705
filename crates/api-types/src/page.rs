//! One page of a list (Google AIP-158): the items and the opaque cursor of the next page.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One page of a list: `data` and `next_cursor` are always present; `next_cursor` is null
/// exactly when there is no further item.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Page<T> {
    pub data: Vec<T>,
    pub next_cursor: Option<String>,
}
