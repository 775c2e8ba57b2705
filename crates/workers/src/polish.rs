//! Optional prose polish through an OpenAI-compatible chat endpoint. Only the body after the
//! frontmatter is sent; the answer must still parse as MDX. Any failure (network, status,
//! timeout, shape, invalid MDX) keeps the deterministic text: polishing can never fail a run.

use std::time::Duration;

use domain::Secret;
use serde_json::json;

const INSTRUCTIONS: &str = "You edit documentation written in MDX. Improve the prose for \
clarity and flow. Keep every heading, code block, JSX component, link and fact exactly as it \
is; do not add facts. Answer with the edited MDX only.";

/// Where and how to polish; configured by the operator, never by API users.
#[derive(Clone)]
pub struct PolishConfig {
    /// The chat-completions URL, e.g. `https://api.example.com/v1/chat/completions`.
    pub url: reqwest::Url,
    pub model: String,
    pub api_key: Option<Secret>,
    pub timeout: Duration,
}

/// Without the URL's password (the API key is a `Secret` already).
impl std::fmt::Debug for PolishConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut url = self.url.clone();
        if url.password().is_some() {
            let _ = url.set_password(Some("[redacted]"));
        }
        f.debug_struct("PolishConfig")
            .field("url", &url.as_str())
            .field("model", &self.model)
            .field("api_key", &self.api_key)
            .field("timeout", &self.timeout)
            .finish()
    }
}

#[derive(Clone, Debug)]
pub struct Polisher {
    config: PolishConfig,
    client: reqwest::Client,
}

impl Polisher {
    pub fn new(config: PolishConfig) -> Result<Self, String> {
        let client = reqwest::Client::builder()
            .timeout(config.timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Self { config, client })
    }

    /// The polished article, or `Err` with why the deterministic text was kept.
    pub async fn polish(&self, mdx: &str) -> Result<String, String> {
        let (frontmatter, body) =
            pipeline::Frontmatter::split(mdx).ok_or("the article has no frontmatter")?;
        let mut request = self.client.post(self.config.url.clone()).json(&json!({
            "model": self.config.model,
            "messages": [
                {"role": "system", "content": INSTRUCTIONS},
                {"role": "user", "content": body},
            ],
        }));
        if let Some(key) = &self.config.api_key {
            request = request.bearer_auth(key.expose());
        }
        let response = request
            .send()
            .await
            .map_err(|e| format!("request failed: {e}"))?;
        if !response.status().is_success() {
            return Err(format!("the endpoint answered {}", response.status()));
        }
        let answer: serde_json::Value = response
            .json()
            .await
            .map_err(|e| format!("unreadable answer: {e}"))?;
        let text = answer["choices"][0]["message"]["content"]
            .as_str()
            .filter(|t| !t.trim().is_empty())
            .ok_or("the answer has no message content")?;
        let polished = format!("{frontmatter}{}\n", text.trim_end());
        pipeline::validate_mdx(&polished)
            .map_err(|e| format!("the answer is not valid MDX: {e}"))?;
        Ok(polished)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_the_url_password() {
        let config = PolishConfig {
            url: reqwest::Url::parse("https://user:hunter2@llm.example/v1/chat/completions")
                .expect("url"),
            model: "m".into(),
            api_key: None,
            timeout: Duration::from_secs(1),
        };
        let shown = format!("{config:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("llm.example"), "{shown}");
    }
}
