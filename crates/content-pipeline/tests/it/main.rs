//! Black-box tests: each starts the real service on port 0 against a real database and talks
//! to it over HTTP. One binary for all of them (faster to build and link). The `browser_*`
//! tests look at the pages in headless Chromium (the harness: `browser.rs`).

mod browser;
mod helpers;

mod accounts;
mod articles;
mod auth;
mod browser_docs;
mod ci_commands;
mod configuration;
mod connections;
mod drift;
mod errors;
mod fairness;
mod forge_events;
mod framework_builds;
mod framework_exports;
mod idempotency;
mod idempotency_by_token;
mod isolation;
mod keyboard_browser;
mod lifecycle;
mod meta;
mod nothing_lost;
mod openapi_document;
mod paging;
mod pipeline_runs;
mod polish;
mod portal;
mod portal_browser;
mod portal_webhooks;
mod principal_cache;
mod published_site;
mod quotas;
mod ratelimit;
mod receiver;
mod remote_killed;
mod remote_repositories;
mod remote_ssh;
mod repository_browser;
mod runs;
mod search;
mod search_browser;
mod settings;
mod settings_browser;
mod small_hardening;
mod smoke;
mod tokens;
mod typed_client;
mod versioning;
mod webhook_console;
mod webhook_console_browser;
mod webhook_delivery;
mod webhooks_api;
mod workspaces;
