//! Bare mirrors of the workspaces' remote repositories.
//!
//! - [`RepoUrl`]: a repository URL a workspace may connect (`https://`, `ssh://`,
//!   `git@host:path`), with no credentials in it.
//! - [`fetch`]: brings a workspace's mirror up to date, in the process that calls it (the
//!   run's sandboxed child), under bounds of wall time, bytes received, objects and disk, one
//!   fetch per workspace at a time on a node, every address the host resolves to checked
//!   against the outbound address policy and pinned for the connection.
//! - [`push_files`]: writes the service's files into a folder of a remote branch (a publish
//!   target), committed on the fetched tip and pushed; a rejected push is redone on the new
//!   tip, touching only the service's own files.
//! - [`resolve_ref`]: a branch, tag, pull/merge request head or commit id to a commit.
//!
//! Fetching uses the `git` program, not libgit2: the service's libgit2 is built without
//! network transports, and the program lets the connection be pinned to the addresses checked
//! here (`http.curloptResolve`, ssh's `HostName`), redirects be followed only after they are
//! checked (`redirect`), and a fetch be
//! stopped at any point by killing it (its pack is written to a temporary file and its refs
//! updated last, so an interrupted fetch leaves the mirror as it was).

mod credential;
mod fetch;
mod git;
mod publish;
mod redirect;
mod refs;
mod remote;

pub use credential::{Credential, DeployKey, generate_deploy_key};
pub use fetch::{FetchError, FetchLimits, FetchRequest, Fetched, fetch, mirror_path};
pub use publish::{Author, PushError, PushRequest, Pushed, is_valid_folder, push_files};
pub use refs::{ResolvedRef, is_commit_id, resolve_ref, validate_ref};
pub use remote::{RepoUrl, UrlError};
