//! The repository's files: which belong to a feature (`listing`), and what each one is for
//! (`roles`: a test, housekeeping, a project document, generated code…), decided in one
//! place.

mod documents;
mod listing;
mod roles;

pub(crate) use documents::*;
pub(crate) use listing::{FeatureMatcher, Listing, RepoFile, files};
pub(crate) use roles::*;
