//! Idempotency records belong to the token that made the request: another token sending the
//! same key (a lower scope in the same workspace, another admin) is processed on its own and
//! never receives the first token's response; the secrets those responses carry are stored
//! encrypted.

use serde_json::{Value, json};
use testkit::TestDatabase;

use crate::app;
use crate::helpers::{TestApp, body, expect_error};

async fn keyed(
    app: &TestApp,
    path: &str,
    token: &str,
    key: &str,
    payload: Option<&Value>,
) -> reqwest::Response {
    let call = app.post(path).token(token).header("idempotency-key", key);
    match payload {
        Some(p) => call.json(p).send().await,
        None => call.send().await,
    }
}

/// One request made with an idempotency key, and what its first response said.
struct Done {
    path: String,
    payload: Option<Value>,
    key: String,
    status: reqwest::StatusCode,
    body: Vec<u8>,
}

/// The four operations whose response carries a secret, each done once by `owner` with a key
/// of its own (`create-ci-token-1`, `create-ci-token-2`, …).
async fn secret_bearing_requests(app: &TestApp, ws: &str, owner: &str) -> Vec<Done> {
    let hook = app
        .webhook(ws, "https://example.com/rotating", &["run.completed"])
        .await;
    let victim = app
        .post(&format!("/v1/workspaces/{ws}/tokens"))
        .json(&json!({"scope": "read", "name": "victim"}))
        .expect(201)
        .await;
    let requests = [
        (
            format!("/v1/workspaces/{ws}/tokens"),
            Some(json!({"scope": "admin", "name": "ci"})),
        ),
        (
            format!("/v1/workspaces/{ws}/webhooks"),
            Some(json!({"url": "https://example.com/hook", "events": ["run.failed"]})),
        ),
        (
            format!(
                "/v1/webhooks/{}/rotate-secret",
                hook["id"].as_str().expect("id")
            ),
            None,
        ),
        (
            format!("/v1/tokens/{}/reissue", victim["id"].as_str().expect("id")),
            None,
        ),
    ];
    let mut done = Vec::new();
    for (n, (path, payload)) in requests.into_iter().enumerate() {
        let key = format!("create-ci-token-{n}");
        let res = keyed(app, &path, owner, &key, payload.as_ref()).await;
        let status = res.status();
        let bytes = res.bytes().await.expect("body").to_vec();
        assert!(
            status.is_success(),
            "{path}: {status} {}",
            String::from_utf8_lossy(&bytes)
        );
        done.push(Done {
            path,
            payload,
            key,
            status,
            body: bytes,
        });
    }
    done
}

#[tokio::test]
async fn a_lower_scope_token_never_receives_the_response_stored_for_an_admin() {
    let app = app!();
    let ws = app.workspace("tenant").await;
    let admin = app.token(&ws, "admin").await;
    let reader = app.token(&ws, "read").await;
    let done = secret_bearing_requests(&app, &ws, &admin).await;
    for d in &done {
        let res = keyed(&app, &d.path, &reader, &d.key, d.payload.as_ref()).await;
        assert!(
            res.headers().get("idempotent-replayed").is_none(),
            "{} replayed to a read token",
            d.path
        );
        let text = expect_error(res, 403, "insufficient_scope")
            .await
            .to_string();
        assert!(!text.contains("cpt_") && !text.contains("whsec_"), "{text}");
    }
    // The owner still gets its own responses back, byte for byte.
    for d in &done {
        let res = keyed(&app, &d.path, &admin, &d.key, d.payload.as_ref()).await;
        assert_eq!(res.status(), d.status);
        assert_eq!(res.headers()["idempotent-replayed"], "true");
        assert_eq!(
            res.bytes().await.expect("body").to_vec(),
            d.body,
            "{}",
            d.path
        );
    }
}

#[tokio::test]
async fn another_token_with_the_same_key_gets_its_own_processing() {
    let app = app!();
    let ws = app.workspace("two-admins").await;
    let first_admin = app.token(&ws, "admin").await;
    let second_admin = app.token(&ws, "admin").await;
    let path = format!("/v1/workspaces/{ws}/tokens");
    let req = json!({"scope": "write", "name": "ci"});
    let mut ids = Vec::new();
    for token in [&first_admin, &second_admin, &app.platform_token] {
        let res = keyed(&app, &path, token, "shared-key", Some(&req)).await;
        assert_eq!(res.status(), 201);
        assert!(res.headers().get("idempotent-replayed").is_none());
        ids.push(body(res).await["id"].clone());
    }
    let distinct: std::collections::HashSet<String> = ids.iter().map(Value::to_string).collect();
    assert_eq!(distinct.len(), 3, "three tokens, three new tokens: {ids:?}");
    // Each record is its own: a different request under the same key is a reuse only for the
    // token that made the first one.
    let other = json!({"scope": "read"});
    expect_error(
        keyed(&app, &path, &first_admin, "shared-key", Some(&other)).await,
        422,
        "idempotency_key_reused",
    )
    .await;
    let fresh = app.token(&ws, "admin").await;
    assert_eq!(
        keyed(&app, &path, &fresh, "shared-key", Some(&other))
            .await
            .status(),
        201
    );
}

/// Every byte of every idempotency record, as the database holds it.
async fn raw_records(db: &TestDatabase) -> Vec<Vec<u8>> {
    type Row = (String, String, String, Option<String>, Option<Vec<u8>>);
    let rows: Vec<Row> = db
        .rows(
            "SELECT owner, idempotency_key, fingerprint, response_headers, response_body
             FROM idempotency_keys",
        )
        .await;
    rows.into_iter()
        .map(|(owner, key, print, headers, body)| {
            [
                owner.into_bytes(),
                key.into_bytes(),
                print.into_bytes(),
                headers.unwrap_or_default().into_bytes(),
                body.unwrap_or_default(),
            ]
            .concat()
        })
        .collect()
}

#[tokio::test]
async fn stored_responses_keep_no_secret_in_clear() {
    let app = app!();
    let ws = app.workspace("at-rest").await;
    let admin = app.token(&ws, "admin").await;
    let done = secret_bearing_requests(&app, &ws, &admin).await;
    let secrets: Vec<String> = done
        .iter()
        .map(|d| {
            let v: Value = serde_json::from_slice(&d.body).expect("json");
            v["token"]
                .as_str()
                .or(v["secret"].as_str())
                .expect("a secret")
                .to_owned()
        })
        .collect();
    let records = raw_records(&app.db).await;
    assert!(
        records.len() >= done.len(),
        "the records exist: {}",
        records.len()
    );
    for record in &records {
        for needle in ["cpt_", "whsec_"] {
            assert!(
                !record.windows(needle.len()).any(|w| w == needle.as_bytes()),
                "{needle} in clear in an idempotency record"
            );
        }
    }
    // Encrypted, yet replayed with the very secrets the first responses showed.
    for (d, secret) in done.iter().zip(&secrets) {
        let res = keyed(&app, &d.path, &admin, &d.key, d.payload.as_ref()).await;
        assert_eq!(res.headers()["idempotent-replayed"], "true");
        assert!(res.text().await.expect("body").contains(secret.as_str()));
    }
}
