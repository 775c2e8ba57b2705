//! This node's memory of the tokens it authenticated: token hash → the token's record, so that
//! a request with a known token costs no database read for it.
//!
//! How long a change to a token can go unseen, and why:
//! - a change committed through this process (revoke, reissue: [`Tx::revoke_token`],
//!   [`Tx::reissue_token`]) forgets the token the moment its transaction commits: the next
//!   request reads the row again;
//! - a change made elsewhere (another node, SQL by hand) is seen when the node is told
//!   ([`Store::forget_token`], [`Store::forget_all_tokens`]: what a `LISTEN` on the database
//!   calls) and, whatever happens to such notices, when the entry is older than its maximum
//!   age (`CONTENT_PIPELINE_PRINCIPAL_CACHE_TTL`, 250 ms by default; zero turns the cache off).
//!
//! A read that raced a change (it read the row before the change committed and would store it
//! after) is not kept: every forget moves a generation on, and a read stores its record only
//! if no forget happened since it started. Expiry (`expires_at`) is not the cache's business:
//! the caller checks it on every request against its clock. Only tokens that authenticated are
//! kept, so unknown tokens cannot fill it; it holds at most [`CAPACITY`] of them.
//!
//! [`Tx::revoke_token`]: crate::Tx::revoke_token
//! [`Tx::reissue_token`]: crate::Tx::reissue_token
//! [`Store::forget_token`]: crate::Store::forget_token
//! [`Store::forget_all_tokens`]: crate::Store::forget_all_tokens

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use domain::TokenId;

use crate::TokenRecord;

/// Tokens kept at most; past it the stale ones go, and if none is stale, all of them.
pub(crate) const CAPACITY: usize = 16_384;

/// The default maximum age of an entry.
pub const DEFAULT_PRINCIPAL_CACHE_TTL: Duration = Duration::from_millis(250);

#[derive(Debug)]
pub(crate) struct Principals {
    ttl: Duration,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Moves on with every forget: a read that started before it stores nothing.
    generation: u64,
    entries: HashMap<Vec<u8>, Entry>,
}

#[derive(Debug)]
struct Entry {
    record: Arc<TokenRecord>,
    read_at: Instant,
}

/// What a lookup found: the record, or the generation a read of the database starts at.
pub(crate) enum Lookup {
    Hit(Arc<TokenRecord>),
    Miss { generation: u64 },
    Disabled,
}

impl Principals {
    pub(crate) fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            state: Mutex::default(),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn get(&self, hash: &[u8]) -> Lookup {
        if self.ttl.is_zero() {
            return Lookup::Disabled;
        }
        let state = self.state();
        match state.entries.get(hash) {
            Some(entry) if entry.read_at.elapsed() < self.ttl => Lookup::Hit(entry.record.clone()),
            _ => Lookup::Miss {
                generation: state.generation,
            },
        }
    }

    /// Keeps `record`, read from the database by a lookup that missed at `generation`, unless
    /// a forget has happened since.
    pub(crate) fn put(&self, hash: &[u8], record: Arc<TokenRecord>, generation: u64) {
        let mut state = self.state();
        if state.generation != generation {
            return;
        }
        if state.entries.len() >= CAPACITY && !state.entries.contains_key(hash) {
            let ttl = self.ttl;
            state.entries.retain(|_, e| e.read_at.elapsed() < ttl);
            if state.entries.len() >= CAPACITY {
                state.entries.clear();
            }
        }
        state.entries.insert(
            hash.to_vec(),
            Entry {
                record,
                read_at: Instant::now(),
            },
        );
    }

    pub(crate) fn forget(&self, id: TokenId) {
        let mut state = self.state();
        state.generation = state.generation.wrapping_add(1);
        state.entries.retain(|_, e| e.record.id != id);
    }

    pub(crate) fn forget_all(&self) {
        let mut state = self.state();
        state.generation = state.generation.wrapping_add(1);
        state.entries.clear();
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.state().entries.len()
    }
}

#[cfg(test)]
mod tests {
    use domain::{Scope, Timestamp};

    use super::*;

    fn token(id: TokenId, hash: &[u8]) -> Arc<TokenRecord> {
        Arc::new(TokenRecord {
            id,
            workspace_id: None,
            name: "t".into(),
            scope: Scope::Read,
            secret_hash: hash.to_vec(),
            rate_limit: None,
            created_at: Timestamp::from_micros(0).expect("a timestamp"),
            revoked_at: None,
            expires_at: None,
            last_used_at: None,
        })
    }

    fn generation(p: &Principals, hash: &[u8]) -> u64 {
        match p.get(hash) {
            Lookup::Miss { generation } => generation,
            _ => panic!("expected a miss"),
        }
    }

    #[test]
    fn a_read_that_raced_a_forget_is_not_kept() {
        let p = Principals::new(Duration::from_secs(60));
        let id = TokenId::generate();
        let g = generation(&p, b"h");
        p.forget(id);
        p.put(b"h", token(id, b"h"), g);
        assert!(matches!(p.get(b"h"), Lookup::Miss { .. }));
        let g = generation(&p, b"h");
        p.put(b"h", token(id, b"h"), g);
        assert!(matches!(p.get(b"h"), Lookup::Hit(_)));
        p.forget(id);
        assert!(matches!(p.get(b"h"), Lookup::Miss { .. }));
    }

    #[test]
    fn entries_age_out_and_zero_turns_it_off() {
        let p = Principals::new(Duration::from_millis(20));
        let id = TokenId::generate();
        let g = generation(&p, b"h");
        p.put(b"h", token(id, b"h"), g);
        assert!(matches!(p.get(b"h"), Lookup::Hit(_)));
        std::thread::sleep(Duration::from_millis(30));
        assert!(matches!(p.get(b"h"), Lookup::Miss { .. }));
        assert!(matches!(
            Principals::new(Duration::ZERO).get(b"h"),
            Lookup::Disabled
        ));
    }

    #[test]
    fn it_holds_at_most_its_capacity() {
        let p = Principals::new(Duration::from_secs(60));
        for i in 0..CAPACITY + 10 {
            let hash = i.to_le_bytes();
            let g = generation(&p, &hash);
            p.put(&hash, token(TokenId::generate(), &hash), g);
            assert!(p.len() <= CAPACITY);
        }
        p.forget_all();
        assert_eq!(p.len(), 0);
    }
}
