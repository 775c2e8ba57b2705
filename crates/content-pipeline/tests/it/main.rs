//! Black-box tests: each starts the real service on port 0 against a real database and talks
//! to it over HTTP. One binary for all of them (faster to build and link).

mod helpers;
mod receiver;

mod nothing_lost;
mod smoke;
mod webhook_delivery;
