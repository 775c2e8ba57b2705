//! Fixtures shared by the tests of the workspace; a dev-dependency only.
//!
//! - [`TestDatabase`]: a database of its own per test, on SQLite (a file in a temp dir) or
//!   PostgreSQL (a clone of a migrated template database), with plain SQL for what the store's
//!   API does not show.
//! - [`Repo`]: a real git repository in a temp dir, with commits at a fixed clock.
//! - [`eventually`]: polls until a condition holds, or fails the test after a deadline.
//! - [`subscribed_workspace`]: a workspace with webhook subscriptions, written through the store.

mod database;
mod git;
mod seed;
mod wait;

pub use database::{TestDatabase, selected_engine};
pub use git::Repo;
pub use seed::subscribed_workspace;
pub use wait::eventually;
