//! The typed values of the configuration and how each is read from its text, once, when the
//! configuration loads. A parser's error says what was expected and what it got; the loader
//! prefixes the setting's names (see `Config::load`).

use std::time::Duration;

use domain::Secret;
use ipnet::IpNet;
use serde::de::{Deserialize, Deserializer, Error as _, Visitor};
use url::Url;
use webhooks::RetrySchedule;

/// The schemes `Store::connect_with` opens.
const DATABASE_SCHEMES: [&str; 3] = ["sqlite:", "postgres:", "postgresql:"];
/// The schemes the `redis` crate connects to.
const REDIS_SCHEMES: [&str; 7] = [
    "redis",
    "rediss",
    "redis+unix",
    "unix",
    "valkey",
    "valkeys",
    "valkey+unix",
];

/// A duration: a whole number with a unit (`250ms`, `15s`, `5m`, `2h`, `1d`), or a bare whole
/// number of seconds (`0`, `90`).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let parsed = match text.parse::<u64>() {
        Ok(seconds) => Ok(Duration::from_secs(seconds)),
        Err(_) => webhooks::parse_duration(text),
    };
    parsed.map_err(|_| {
        format!(
            "expected a duration such as 15s, 5m, or a number of seconds, got '{}'",
            quoted(text)
        )
    })
}

/// A duration that must not be zero (a timeout, a deadline, a lifetime).
pub fn parse_positive_duration(text: &str) -> Result<Duration, String> {
    match parse_duration(text)? {
        d if d.is_zero() => Err(format!(
            "expected a positive duration such as 15s or 5m, got '{}'",
            quoted(text)
        )),
        d => Ok(d),
    }
}

/// The delivery schedule: comma-separated durations, one per attempt (`0s,5s,5m`).
pub fn parse_retry_schedule(text: &str) -> Result<RetrySchedule, String> {
    let delays = text
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(parse_duration)
        .collect::<Result<Vec<_>, _>>()?;
    RetrySchedule::new(delays).map_err(|e| e.to_string())
}

/// The server key: 32 bytes in standard base64. The error never repeats the text.
pub fn parse_server_key(text: &str) -> Result<Secret<[u8; 32]>, String> {
    webhooks::parse_server_key(text)
        .map(Secret::new)
        .map_err(|e| e.to_string())
}

/// The database: `sqlite:…` or `postgres://…`, kept as written for its driver, shown with its
/// password hidden.
#[derive(Clone, PartialEq, Eq)]
pub struct DatabaseUrl(String);

impl DatabaseUrl {
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if DATABASE_SCHEMES.iter().any(|s| text.starts_with(s)) {
            Ok(Self(text.to_owned()))
        } else {
            Err(format!(
                "expected sqlite://<path> or postgres://<user>@<host>/<database>, got '{}'",
                shown(text)
            ))
        }
    }

    /// The URL as written, password included: for the database driver only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl Default for DatabaseUrl {
    fn default() -> Self {
        Self("sqlite://content-pipeline.db".into())
    }
}

impl std::fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", shown(&self.0))
    }
}

/// A URL of a service the server talks to or links to, parsed and scheme-checked when the
/// configuration loads. `Debug` hides its password.
#[derive(Clone, PartialEq, Eq)]
pub struct ServiceUrl(Url);

impl ServiceUrl {
    /// An `http` or `https` URL.
    pub fn http(text: &str) -> Result<Self, String> {
        Self::parse(text, &["http", "https"], "an http or https URL")
    }

    /// A Redis (or Valkey) URL such as `redis://cache:6379`.
    pub fn redis(text: &str) -> Result<Self, String> {
        Self::parse(text, &REDIS_SCHEMES, "a URL such as redis://cache:6379")
    }

    fn parse(text: &str, schemes: &[&str], expected: &str) -> Result<Self, String> {
        let text = text.trim();
        match Url::parse(text) {
            Ok(url) if schemes.contains(&url.scheme()) => Ok(Self(url)),
            _ => Err(format!("expected {expected}, got '{}'", shown(text))),
        }
    }

    pub fn url(&self) -> &Url {
        &self.0
    }
}

impl std::fmt::Debug for ServiceUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", redacted(&self.0))
    }
}

/// A URL as it may appear in a message or a log: its password and any `password` query
/// parameter replaced; a text that is no URL is shown only when it cannot hold one.
fn shown(text: &str) -> String {
    match Url::parse(text) {
        Ok(url) => redacted(&url),
        Err(_) if text.contains('@') || text.to_ascii_lowercase().contains("password") => {
            "[redacted]".into()
        }
        Err(_) => quoted(text),
    }
}

fn redacted(url: &Url) -> String {
    let mut text = url.as_str().to_owned();
    if let Some(password) = url.password() {
        text = text.replacen(&format!(":{password}@"), ":[redacted]@", 1);
    }
    if let Some(query) = url.query() {
        let hidden: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((key, _)) if key.eq_ignore_ascii_case("password") => {
                    format!("{key}=[redacted]")
                }
                _ => pair.to_owned(),
            })
            .collect();
        text = text.replacen(&format!("?{query}"), &format!("?{}", hidden.join("&")), 1);
    }
    text
}

/// At most 64 characters of a value, for a message.
fn quoted(text: &str) -> String {
    text.chars().take(64).collect()
}

/// A setting as written: text, or in TOML also a whole number (`drift_interval = 0`,
/// `polish_model = 4`). The environment is read as text (see `config::Environment`).
struct Written(String);

impl<'de> Deserialize<'de> for Written {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Text;
        impl Visitor<'_> for Text {
            type Value = Written;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("text or a whole number")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Written, E> {
                Ok(Written(v.to_owned()))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Written, E> {
                Ok(Written(v.to_string()))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Written, E> {
                Ok(Written(v.to_string()))
            }
        }
        d.deserialize_any(Text)
    }
}

/// Reads a setting through `parse`.
fn read<'de, D: Deserializer<'de>, T>(
    d: D,
    parse: impl FnOnce(&str) -> Result<T, String>,
) -> Result<T, D::Error> {
    let Written(text) = Written::deserialize(d)?;
    parse(text.trim()).map_err(D::Error::custom)
}

/// Reads an optional setting through `parse`; empty text means unset.
fn read_optional<'de, D: Deserializer<'de>, T>(
    d: D,
    parse: impl FnOnce(&str) -> Result<T, String>,
) -> Result<Option<T>, D::Error> {
    match Option::<Written>::deserialize(d)? {
        Some(Written(text)) if !text.trim().is_empty() => {
            parse(text.trim()).map(Some).map_err(D::Error::custom)
        }
        _ => Ok(None),
    }
}

// The readers named in `Config`'s `#[serde(deserialize_with = …)]`.

pub(super) fn text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    read(d, |t| Ok(t.to_owned()))
}

pub(super) fn email<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    read(d, |t| {
        operations::accounts::normalize_email(t).map_err(|_| {
            format!(
                "expected an email address such as name@example.com, got '{}'",
                quoted(t)
            )
        })
    })
}

pub(super) fn duration<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    read(d, parse_duration)
}

pub(super) fn positive_duration<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    read(d, parse_positive_duration)
}

pub(super) fn retry_schedule<'de, D: Deserializer<'de>>(d: D) -> Result<RetrySchedule, D::Error> {
    read(d, parse_retry_schedule)
}

pub(super) fn cidr_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<IpNet>, D::Error> {
    read(d, webhooks::parse_cidr_list)
}

pub(super) fn database_url<'de, D: Deserializer<'de>>(d: D) -> Result<DatabaseUrl, D::Error> {
    read(d, DatabaseUrl::parse)
}

pub(super) fn http_url<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ServiceUrl>, D::Error> {
    read_optional(d, ServiceUrl::http)
}

pub(super) fn redis_url<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ServiceUrl>, D::Error> {
    read_optional(d, ServiceUrl::redis)
}

pub(super) fn server_key<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Secret<[u8; 32]>>, D::Error> {
    read_optional(d, parse_server_key)
}

pub(super) fn secret<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Secret>, D::Error> {
    read_optional(d, |t| Ok(Secret::new(t.to_owned())))
}
