use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use time::OffsetDateTime;

/// The one source of "now". Production uses the system clock; tests shift it to cross a
/// 24-hour idempotency window or a 300-second rate window without sleeping.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    offset_ms: Arc<AtomicI64>,
}

impl Clock {
    pub fn system() -> Self {
        Self::default()
    }

    pub fn now(&self) -> OffsetDateTime {
        let offset = self.offset_ms.load(Ordering::Relaxed);
        OffsetDateTime::now_utc() + time::Duration::milliseconds(offset)
    }

    pub fn timestamp(&self) -> crate::Timestamp {
        self.now().into()
    }

    /// Moves this clock (and every clone of it) forward.
    pub fn advance(&self, by: std::time::Duration) {
        let ms = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        self.offset_ms.fetch_add(ms, Ordering::Relaxed);
    }
}
