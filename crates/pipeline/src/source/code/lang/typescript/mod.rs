//! TypeScript and JavaScript: declarations and their signatures (`items`), what each file
//! exports (`exports`), a package's entry points (`package`), and which declarations its
//! users reach through them (`reach`).

mod exports;
mod inherit;
mod items;
mod package;
mod reach;

pub(crate) use exports::{TsModuleFacts, typescript_module_facts};
pub(crate) use items::typescript;
pub(crate) use reach::{TsFiles, typescript_public_api};
