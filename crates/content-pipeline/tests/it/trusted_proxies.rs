//! Sign-in throttling per client address behind a reverse proxy: `X-Forwarded-For` is believed
//! only from the addresses in `trusted_proxies`, and read from the right, so a client cannot
//! choose the address it is counted under by writing the header itself.

use reqwest::StatusCode;
use reqwest::header::ORIGIN;

use crate::app;
use crate::helpers::TestApp;
use crate::portal::Person;

/// A wrong password for `email` through the portal's sign-in form, over HTTP from loopback,
/// with `forwarded` as `X-Forwarded-For` when given.
async fn wrong_password(app: &TestApp, email: &str, forwarded: Option<&str>) -> StatusCode {
    let person = Person::new(app, email);
    let csrf = person.csrf("/portal/sign-in").await;
    let mut request = person
        .client
        .post(format!("{}/portal/sign-in", app.base))
        .header(ORIGIN, app.base.as_str())
        .form(&[
            ("csrf", csrf.as_str()),
            ("email", email),
            ("password", "guess"),
        ]);
    if let Some(forwarded) = forwarded {
        request = request.header("x-forwarded-for", forwarded);
    }
    request.send().await.expect("POST").status()
}

/// 20 failed attempts, each for another email (so no account reaches its own limit of 5),
/// claiming to come from `forwarded`.
async fn use_up_an_address(app: &TestApp, prefix: &str, forwarded: &str) {
    for i in 0..20 {
        let status =
            wrong_password(app, &format!("{prefix}{i}@example.com"), Some(forwarded)).await;
        assert_eq!(
            status,
            StatusCode::UNAUTHORIZED,
            "attempt {i} from {forwarded}"
        );
    }
}

#[tokio::test]
async fn without_trusted_proxies_a_forwarded_address_is_ignored() {
    let app = app!();
    // Each attempt names another address; all of them come from loopback, and count there.
    for i in 0..20 {
        let status = wrong_password(
            &app,
            &format!("spoof{i}@example.com"),
            Some(&format!("198.51.100.{i}")),
        )
        .await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "attempt {i}");
    }
    let status = wrong_password(&app, "fresh@example.com", Some("203.0.113.77")).await;
    assert_eq!(
        status,
        StatusCode::TOO_MANY_REQUESTS,
        "loopback used up its attempts"
    );
}

#[tokio::test]
async fn a_trusted_proxy_s_forwarded_address_is_the_client() {
    let app = app!(TestApp::builder().configure(|c| {
        c.trusted_proxies = vec!["127.0.0.0/8".parse().expect("a range")];
    }));
    use_up_an_address(&app, "a", "203.0.113.7").await;
    let status = wrong_password(&app, "next@example.com", Some("203.0.113.7")).await;
    assert_eq!(
        status,
        StatusCode::TOO_MANY_REQUESTS,
        "203.0.113.7 is used up"
    );

    // Another client behind the same proxy, and the proxy's own requests, are not.
    let status = wrong_password(&app, "other@example.com", Some("203.0.113.8")).await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "203.0.113.8 has its own attempts"
    );
    let status = wrong_password(&app, "direct@example.com", None).await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "loopback has its own attempts"
    );

    // The proxy appends the address it saw: what the client wrote before it is not believed.
    let status = wrong_password(&app, "spoof@example.com", Some("203.0.113.8, 203.0.113.7")).await;
    assert_eq!(
        status,
        StatusCode::TOO_MANY_REQUESTS,
        "counted as 203.0.113.7"
    );
    // A chain of trusted proxies is walked from the right to the first address not trusted.
    let status = wrong_password(&app, "chain@example.com", Some("203.0.113.7, 127.0.0.5")).await;
    assert_eq!(
        status,
        StatusCode::TOO_MANY_REQUESTS,
        "counted as 203.0.113.7"
    );
    // A header that does not parse counts the request under the proxy's own address.
    let status = wrong_password(&app, "junk@example.com", Some("not an address")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "counted as loopback");
}
