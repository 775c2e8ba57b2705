//! The webhook address policy on the API: a URL that reaches a refused IPv4 address through
//! an IPv6 form (IPv4-compatible, IPv4-translated, site-local, Teredo, ISATAP) is refused when a
//! subscription is created or changed, and the subscription stays as it was.

use serde_json::json;

use crate::app;

const EMBEDDED_IPV4_URLS: [&str; 6] = [
    "http://[::127.0.0.1]/hook",
    "http://[::10.0.0.1]:8080/hook",
    "http://[fec0::1]/hook",
    "http://[2001::7f00:1]/hook",
    "http://[::ffff:0:127.0.0.1]/hook",
    "http://[2606:4700::5efe:127.0.0.1]/hook",
];

#[tokio::test]
async fn webhook_urls_reaching_a_refused_address_through_ipv6_are_422() {
    let app = app!();
    let ws = app.workspace("addresses").await;
    let hook = app
        .webhook(&ws, "https://example.com/fine", &["run.completed"])
        .await;
    let hook_path = format!("/v1/webhooks/{}", hook["id"].as_str().expect("id"));
    for url in EMBEDDED_IPV4_URLS {
        let v = app
            .post(&format!("/v1/workspaces/{ws}/webhooks"))
            .json(&json!({"url": url, "events": ["run.completed"]}))
            .expect_error(422, "validation_failed")
            .await;
        assert_eq!(v["error"]["param"], "url", "create {url}");
        let v = app
            .patch(&hook_path)
            .json(&json!({"url": url}))
            .expect_error(422, "validation_failed")
            .await;
        assert_eq!(v["error"]["param"], "url", "patch {url}");
    }
    let unchanged = app.get(&hook_path).expect(200).await;
    assert_eq!(unchanged["url"], "https://example.com/fine");
}
