//! Settings → API tokens and Members in headless Chromium.
