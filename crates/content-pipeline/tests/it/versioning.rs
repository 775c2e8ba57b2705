//! Deprecation signalling (RFC 9745, RFC 8594) and the OpenAPI marking that goes with it.

use reqwest::Method;
use time::macros::datetime;

use crate::app;
use crate::helpers::TestApp;

#[tokio::test]
async fn a_deprecated_operation_announces_deprecation_and_sunset() {
    let app = app!(TestApp::builder().deprecated(
        Method::GET,
        "/v1/workspaces/{id}",
        datetime!(2026-11-01 00:00 UTC),
        datetime!(2027-12-01 00:00 UTC),
        "https://docs.example.com/migrate-workspaces",
    ));
    let ws = app.workspace("old").await;
    let res = app.get(&format!("/v1/workspaces/{ws}")).send().await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["deprecation"], "@1793491200");
    assert_eq!(res.headers()["sunset"], "Wed, 01 Dec 2027 00:00:00 GMT");
    assert_eq!(
        res.headers()["link"],
        "<https://docs.example.com/migrate-workspaces>; rel=\"deprecation\""
    );
    let other = app.get("/v1/workspaces").send().await;
    assert!(
        other.headers().get("deprecation").is_none(),
        "only the listed operation"
    );
    let doc = app.get("/openapi.json").anonymous().expect(200).await;
    assert_eq!(
        doc["paths"]["/v1/workspaces/{id}"]["get"]["deprecated"],
        true
    );
    assert!(
        doc["paths"]["/v1/workspaces"]["get"]
            .get("deprecated")
            .is_none()
    );
}
