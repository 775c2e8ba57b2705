//! The webhook console in headless Chromium.
