//! Rust: items and their signatures (`items`), which of them a crate's users reach (`reach`),
//! and the crate features they need (`cfg`).

pub(crate) mod cfg;
mod items;
mod nested_macro;
pub(crate) mod reach;

pub(crate) use cfg::Gate;
pub use cfg::Requires;
pub(crate) use items::*;
pub(crate) use reach::{
    CrateManifest, RustModuleFacts, rust_crate_root, rust_manifest, rust_public_api,
};
