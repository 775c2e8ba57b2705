//! The webhook console's API: event catalog, test events, attempts, recovery.
