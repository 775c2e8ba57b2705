//! Fixtures shared by the tests of the workspace; a dev-dependency only.
//!
//! - [`TestDatabase`]: a database of its own per test, on SQLite (a file in a temp dir) or
//!   PostgreSQL (a clone of a migrated template database), with plain SQL for what the store's
//!   API does not show.
//! - [`Repo`]: a real git repository in a temp dir, with commits at a fixed clock.
//! - [`GitServer`]: a real git server over HTTP on loopback (`git http-backend` behind axum),
//!   with basic auth, slow responses and redirects to switch on; [`push_to_bare`] and
//!   [`delete_ref`] change its repositories.
//! - [`SshServer`]: a real OpenSSH server on loopback (Debian's `sshd`, when installed) that
//!   serves the repositories on disk to a key it is told to authorize.
//! - [`eventually`]: polls until a condition holds, or fails the test after a deadline.
//! - [`subscribed_workspace`]: a workspace with webhook subscriptions, written through the store.

mod database;
mod git;
mod git_server;
mod seed;
mod ssh_server;
mod wait;

pub use database::{TestDatabase, selected_engine};
pub use git::Repo;
pub use git_server::{GitServer, delete_ref, push_to_bare};
pub use seed::subscribed_workspace;
pub use ssh_server::SshServer;
pub use wait::eventually;
