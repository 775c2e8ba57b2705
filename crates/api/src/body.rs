//! The one JSON body extractor. It only collects the bytes; handlers parse after they have
//! checked tenancy and scope, so a foreign resource is a 404 whatever the body says.
//! Parsing rejects a non-JSON content type (415), bad syntax, wrong types, missing and
//! unknown fields (422, with `param` naming the field).

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::header::CONTENT_TYPE;
use serde::de::DeserializeOwned;

use crate::error::{ApiError, ErrorType};
use crate::idempotency::BODY_LIMIT;

/// The body of an operation that takes no options: absent, or `{}`.
#[derive(serde::Deserialize, utoipa::ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct EmptyBody {}

pub struct JsonBody {
    content_type: Option<String>,
    bytes: Bytes,
}

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, Self::Rejection> {
        let content_type = req
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let bytes = axum::body::to_bytes(req.into_body(), BODY_LIMIT)
            .await
            .map_err(|_| {
                ApiError::new(
                    ErrorType::PayloadTooLarge,
                    "The request body exceeds the 1 MiB limit.",
                )
            })?;
        Ok(Self {
            content_type,
            bytes,
        })
    }
}

/// The body with every integral float (`2.0`, `1e3`) in i64's range made an integer; `None`
/// when it is not JSON or has no such number.
fn integral_floats(bytes: &[u8]) -> Option<serde_json::Value> {
    fn walk(value: &mut serde_json::Value) -> bool {
        use serde_json::Value;
        match value {
            Value::Number(n) => match n.as_f64() {
                Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 9.2e18 => {
                    *value = Value::from(f as i64);
                    true
                }
                _ => false,
            },
            // Every element is walked: no short circuit.
            Value::Array(items) => {
                items
                    .iter_mut()
                    .map(walk)
                    .filter(|changed| *changed)
                    .count()
                    > 0
            }
            Value::Object(fields) => fields.values_mut().map(walk).filter(|c| *c).count() > 0,
            _ => false,
        }
    }
    let mut value = serde_json::from_slice(bytes).ok()?;
    walk(&mut value).then_some(value)
}

fn is_json(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or("").trim();
    essence.eq_ignore_ascii_case("application/json")
        || (essence.len() > 5 && essence.to_ascii_lowercase().ends_with("+json"))
}

/// The backticked name serde puts in "missing field `x`" / "unknown field `x`".
fn field_in(message: &str) -> Option<String> {
    let start = message.find('`')? + 1;
    let len = message[start..].find('`')?;
    Some(message[start..start + len].to_owned())
}

impl JsonBody {
    fn check_media_type(&self) -> Result<(), ApiError> {
        match &self.content_type {
            Some(ct) if is_json(ct) => Ok(()),
            _ => Err(ApiError::new(
                ErrorType::UnsupportedMediaType,
                "Send the body as application/json.",
            )),
        }
    }

    /// A required body.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, ApiError> {
        self.check_media_type()?;
        // Every body is an object; serde would also fill a struct from an array of its fields.
        if self.bytes.trim_ascii_start().first() == Some(&b'[') {
            return Err(ApiError::new(
                ErrorType::ValidationFailed,
                "Invalid body: expected a JSON object.",
            ));
        }
        match self.parse_exact() {
            Ok(value) => Ok(value),
            // JSON has one number type: `269.0` is the integer 269 to JSON Schema (and to the
            // document's readers), while serde refuses it for an integer field.
            Err(err) => integral_floats(&self.bytes)
                .and_then(|value| serde_json::from_value(value).ok())
                .ok_or(err),
        }
    }

    fn parse_exact<T: DeserializeOwned>(&self) -> Result<T, ApiError> {
        let mut de = serde_json::Deserializer::from_slice(&self.bytes);
        let value: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let message = inner.to_string();
            let param =
                if message.starts_with("missing field") || message.starts_with("unknown field") {
                    let field = field_in(&message).unwrap_or_default();
                    if path == "." {
                        field
                    } else if path.ends_with(&field) {
                        path
                    } else {
                        format!("{path}.{field}")
                    }
                } else {
                    path
                };
            let err = ApiError::new(
                ErrorType::ValidationFailed,
                format!("Invalid body: {message}"),
            );
            if param.is_empty() || param == "." {
                err
            } else {
                err.with_param(param)
            }
        })?;
        // Anything but whitespace after the value is a syntax error too: `{…} xx` is not JSON.
        de.end().map_err(|e| {
            ApiError::new(ErrorType::ValidationFailed, format!("Invalid body: {e}"))
        })?;
        Ok(value)
    }

    /// A body that may be absent: an empty body without Content-Type means the defaults, and
    /// so does JSON `null` (the document's `T | null`, what a typed client sends for "none").
    pub fn parse_optional<T: DeserializeOwned + Default>(&self) -> Result<T, ApiError> {
        if self.bytes.is_empty() && self.content_type.is_none() {
            return Ok(T::default());
        }
        Ok(self.parse::<Option<T>>()?.unwrap_or_default())
    }
}
