//! One request of the API, sent when awaited: `client.get_run(&id).await`, or with an
//! Idempotency-Key of one's own: `client.trigger_run(&ws, &body).idempotency_key("build-42").await`.

use std::future::{Future, IntoFuture};
use std::marker::PhantomData;
use std::pin::Pin;
use std::time::Duration;

use api_types::ErrorEnvelope;
use reqwest::header::{ACCEPT, HeaderMap, RETRY_AFTER};
use reqwest::{Method, StatusCode};
use serde::de::DeserializeOwned;

use crate::Client;
use crate::error::{Error, Result};

/// How an answer's body becomes the call's value.
pub(crate) type Decoder<T> = fn(&[u8]) -> Result<T>;

pub(crate) fn json<T: DeserializeOwned>(body: &[u8]) -> Result<T> {
    serde_json::from_slice(body).map_err(Error::Decode)
}

pub(crate) fn bytes(body: &[u8]) -> Result<Vec<u8>> {
    Ok(body.to_vec())
}

pub(crate) fn text(body: &[u8]) -> Result<String> {
    Ok(String::from_utf8_lossy(body).into_owned())
}

/// A request of the API; awaiting it sends it (with retries, see [`crate::RetryPolicy`]).
#[must_use = "a call does nothing until it is awaited"]
pub struct Call<T> {
    client: Client,
    method: Method,
    path: String,
    query: Vec<(&'static str, String)>,
    body: Option<Vec<u8>>,
    idempotency_key: Option<String>,
    accept: &'static str,
    decode: Decoder<T>,
    _answer: PhantomData<fn() -> T>,
}

impl<T> Call<T> {
    pub(crate) fn new(client: &Client, method: Method, path: String, decode: Decoder<T>) -> Self {
        Self {
            client: client.clone(),
            method,
            path,
            query: Vec::new(),
            body: None,
            idempotency_key: None,
            accept: "application/json",
            decode,
            _answer: PhantomData,
        }
    }

    pub(crate) fn query(mut self, name: &'static str, value: Option<impl ToString>) -> Self {
        if let Some(value) = value {
            self.query.push((name, value.to_string()));
        }
        self
    }

    pub(crate) fn body(mut self, body: &impl serde::Serialize) -> Self {
        // Our request types always serialize; an empty body is what the API reads as "no body".
        self.body = serde_json::to_vec(body).ok();
        self
    }

    pub(crate) fn accept(mut self, accept: &'static str) -> Self {
        self.accept = accept;
        self
    }

    /// Sends this Idempotency-Key instead of a generated one (POST and PATCH only): a retry
    /// with the same key replays the first answer instead of acting twice.
    pub fn idempotency_key(mut self, key: impl Into<String>) -> Self {
        self.idempotency_key = Some(key.into());
        self
    }

    fn keyed(&self) -> bool {
        self.method == Method::POST || self.method == Method::PATCH
    }

    async fn send(mut self) -> Result<T> {
        if self.keyed() && self.idempotency_key.is_none() {
            self.idempotency_key = Some(format!("cpc_{}", uuid::Uuid::now_v7().simple()));
        }
        let repeatable = self.method == Method::GET || self.idempotency_key.is_some();
        let mut retry = 0;
        loop {
            let error = match self.attempt().await {
                Ok(value) => return Ok(value),
                Err(e) => e,
            };
            retry += 1;
            match self.client.inner.retry.delay(retry, &error, repeatable) {
                Some(wait) => tokio::time::sleep(wait).await,
                None => return Err(error),
            }
        }
    }

    async fn attempt(&self) -> Result<T> {
        let inner = &self.client.inner;
        let mut request = inner
            .http
            .request(
                self.method.clone(),
                format!("{}{}", inner.base_url, self.path),
            )
            .bearer_auth(&inner.token)
            .header(ACCEPT, self.accept)
            .query(&self.query);
        if let Some(key) = &self.idempotency_key {
            request = request.header("Idempotency-Key", key);
        }
        if let Some(body) = &self.body {
            request = request
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body.clone());
        }
        let response = request.send().await?;
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.bytes().await?;
        if status.is_success() {
            return (self.decode)(&bytes);
        }
        Err(error_of(status, &headers, &bytes))
    }
}

/// The error a non-2xx answer stands for.
pub(crate) fn error_of(status: StatusCode, headers: &HeaderMap, body: &[u8]) -> Error {
    match serde_json::from_slice::<ErrorEnvelope>(body) {
        Ok(envelope) => Error::Api {
            status: status.as_u16(),
            error: envelope.error,
            retry_after: headers
                .get(RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_secs),
        },
        Err(_) => Error::Http {
            status: status.as_u16(),
            body: String::from_utf8_lossy(&body[..body.len().min(512)]).into_owned(),
        },
    }
}

impl<T: Send + 'static> IntoFuture for Call<T> {
    type Output = Result<T>;
    type IntoFuture = Pin<Box<dyn Future<Output = Result<T>> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.send())
    }
}
