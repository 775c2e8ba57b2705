//! Settings → API tokens and Members over HTTP.
