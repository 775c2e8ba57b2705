use std::ops::Deref;
use std::sync::Arc;

use operations::Operations;

/// What the portal needs from configuration besides what its operations have.
#[derive(Clone, Debug, Default)]
pub struct PortalConfig {}

pub struct Inner {
    /// The use cases every page calls.
    pub ops: Operations,
    pub config: PortalConfig,
}

/// Shared by every page; cheap to clone.
#[derive(Clone)]
pub struct Portal(Arc<Inner>);

impl Deref for Portal {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl Portal {
    pub fn new(ops: Operations, config: PortalConfig) -> Self {
        Self(Arc::new(Inner { ops, config }))
    }
}
