//! The Content Pipeline Service as a program: configuration, start-up and the CLI commands.
//! The parts it assembles live in their own crates: `domain`, `store`, `api`, `webhooks`, `workers`.

pub mod ci;
pub mod config;
pub mod server;
pub mod startup;

pub use config::Config;
pub use startup::Application;
