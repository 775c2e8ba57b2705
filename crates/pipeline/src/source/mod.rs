//! What the repository says, read from git objects at HEAD: its manifest (features, changelog
//! and forge settings), its files and what each is for, its history (commits, release tags,
//! pull requests, commits read as release notes), its code (public symbols, one module per
//! language) and its documents (Markdown as prose, walkthroughs). Nothing here renders
//! anything: `render` reads this model, never the reverse.

pub(crate) mod code;
pub(crate) mod docs;
pub(crate) mod files;
pub mod forge;
pub(crate) mod history;
pub(crate) mod manifest;
pub(crate) mod paths;
pub(crate) mod repository;
pub(crate) mod sentences;
