//! Per-token rate limits: the exact sliding window, headers, overrides.

use std::time::Duration;

use crate::app;
use crate::helpers::{TestApp, expect_error};

fn header(res: &reqwest::Response, name: &str) -> String {
    res.headers()[name].to_str().unwrap().to_owned()
}

async fn hit(app: &TestApp, token: &str) -> reqwest::Response {
    app.get("/v1/workspaces", token).await
}

#[tokio::test]
async fn the_601st_request_in_the_window_is_refused_and_refusals_cost_nothing() {
    let app = app!();
    let ws = app.workspace("limits").await;
    let res = app
        .post(
            &format!("/v1/workspaces/{ws}/tokens"),
            &app.platform_token,
            &serde_json::json!({"scope": "read"}),
        )
        .await;
    let token = crate::helpers::body(res).await["token"]
        .as_str()
        .unwrap()
        .to_owned();
    for i in 0..600 {
        let res = hit(&app, &token).await;
        assert_eq!(res.status(), 200, "request {}", i + 1);
        assert_eq!(header(&res, "x-ratelimit-remaining"), (599 - i).to_string());
    }
    for _ in 0..20 {
        let res = hit(&app, &token).await;
        let retry: i64 = header(&res, "retry-after").parse().unwrap();
        assert!((1..=300).contains(&retry));
        assert_eq!(header(&res, "ratelimit-policy"), "\"default\";q=600;w=300");
        assert!(header(&res, "ratelimit").starts_with("\"default\";r=0;t="));
        expect_error(res, 429, "rate_limited").await;
    }
    // 300 s later every accepted request has left the window; the refused ones never entered it.
    app.clock.advance(Duration::from_secs(300));
    let res = hit(&app, &token).await;
    assert_eq!(res.status(), 200);
    assert_eq!(header(&res, "x-ratelimit-remaining"), "599");
}

#[tokio::test]
async fn every_authenticated_response_carries_the_headers() {
    let app = app!();
    let ws = app.workspace("headers").await;
    let token = app.token_with_limit(&ws, "read", 5).await;
    for path in [
        "/v1/workspaces".to_owned(),
        format!("/v1/workspaces/{ws}/runs"),
        "/v1/runs/run_nope".into(),
    ] {
        let res = app.get(&path, &token).await;
        assert_eq!(
            header(&res, "ratelimit-policy"),
            "\"default\";q=5;w=300",
            "{path}"
        );
        assert!(header(&res, "ratelimit").starts_with("\"default\";r="));
        assert_eq!(header(&res, "x-ratelimit-limit"), "5");
        let reset: i64 = header(&res, "x-ratelimit-reset").parse().unwrap();
        assert!(reset >= app.clock.now().unix_timestamp());
    }
}

#[tokio::test]
async fn quotas_are_per_token_and_overridable() {
    let app = app!();
    let ws = app.workspace("override").await;
    let small = app.token_with_limit(&ws, "read", 3).await;
    let other = app.token_with_limit(&ws, "read", 3).await;
    for _ in 0..3 {
        assert_eq!(hit(&app, &small).await.status(), 200);
    }
    let refused = hit(&app, &small).await;
    expect_error(refused, 429, "rate_limited").await;
    assert_eq!(
        hit(&app, &other).await.status(),
        200,
        "another token has its own window"
    );
    app.clock.advance(Duration::from_secs(299));
    assert_eq!(
        hit(&app, &small).await.status(),
        429,
        "still inside the window"
    );
    app.clock.advance(Duration::from_secs(2));
    assert_eq!(hit(&app, &small).await.status(), 200);
}
