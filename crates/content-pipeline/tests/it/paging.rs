//! The pager: limits, cursors, the end of a list, and paging while rows are inserted.

use std::collections::HashSet;

use serde_json::{Value, json};

use crate::app;
use crate::helpers::TestApp;

async fn trigger(app: &TestApp, ws: &str, feature: &str) {
    app.post(&format!("/v1/workspaces/{ws}/runs"))
        .json(&json!({"feature_id": feature}))
        .expect(201)
        .await;
}

fn ids(v: &Value) -> Vec<String> {
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn limits_default_clamp_and_reject() {
    let app = app!();
    let ws = app.workspace("paging").await;
    for i in 0..105 {
        trigger(&app, &ws, &format!("f{i}")).await;
    }
    let runs = format!("/v1/workspaces/{ws}/runs");
    let first = app.get(&runs).expect(200).await;
    assert_eq!(ids(&first).len(), 20, "default limit");
    assert!(first["next_cursor"].is_string());
    let clamped = app.get(&format!("{runs}?limit=1000")).expect(200).await;
    assert_eq!(ids(&clamped).len(), 100, "clamped to 100");
    let rest = app
        .get(&format!(
            "{runs}?limit=100&cursor={}",
            clamped["next_cursor"].as_str().unwrap()
        ))
        .expect(200)
        .await;
    assert_eq!(ids(&rest).len(), 5);
    assert!(rest["next_cursor"].is_null());
    for bad in ["0", "-1", "abc", "1.5", ""] {
        let v = app
            .get(&format!("{runs}?limit={bad}"))
            .expect_error(400, "invalid_request")
            .await;
        assert_eq!(v["error"]["param"], "limit", "limit={bad}");
    }
    // Newest first: created_at descending.
    let times: Vec<&str> = first["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["created_at"].as_str().unwrap())
        .collect();
    let mut sorted = times.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(times, sorted);
}

#[tokio::test]
async fn next_cursor_is_null_exactly_at_the_end() {
    let app = app!();
    let ws = app.workspace("end").await;
    for i in 0..20 {
        trigger(&app, &ws, &format!("f{i}")).await;
    }
    let runs = format!("/v1/workspaces/{ws}/runs?limit=10");
    let one = app.get(&runs).expect(200).await;
    assert!(one["next_cursor"].is_string());
    let two = app
        .get(&format!(
            "{runs}&cursor={}",
            one["next_cursor"].as_str().unwrap()
        ))
        .expect(200)
        .await;
    assert_eq!(ids(&two).len(), 10);
    assert!(two["next_cursor"].is_null(), "no item follows the 20th");
    let empty_ws = app.workspace("empty").await;
    let empty = app
        .get(&format!("/v1/workspaces/{empty_ws}/runs"))
        .expect(200)
        .await;
    assert_eq!(empty, json!({"data": [], "next_cursor": null}));
}

#[tokio::test]
async fn forged_and_foreign_cursors_are_rejected() {
    let app = app!();
    let a = app.workspace("a").await;
    let b = app.workspace("b").await;
    for i in 0..3 {
        trigger(&app, &a, &format!("f{i}")).await;
        trigger(&app, &b, &format!("f{i}")).await;
    }
    let first = app
        .get(&format!("/v1/workspaces/{a}/runs?limit=1"))
        .expect(200)
        .await;
    let cursor = first["next_cursor"].as_str().unwrap().to_owned();
    let mut forged = cursor.clone().into_bytes();
    forged[2] = if forged[2] == b'A' { b'B' } else { b'A' };
    let forged = String::from_utf8(forged).unwrap();
    for path in [
        format!("/v1/workspaces/{a}/runs?cursor={forged}"),
        format!("/v1/workspaces/{a}/runs?cursor=not-a-cursor"),
        format!("/v1/workspaces/{b}/runs?cursor={cursor}"),
        format!("/v1/workspaces/{a}/webhooks?cursor={cursor}"),
        format!("/v1/workspaces/{a}/articles?cursor={cursor}"),
    ] {
        let v = app.get(&path).expect_error(400, "invalid_request").await;
        assert_eq!(v["error"]["param"], "cursor", "{path}");
    }
}

#[tokio::test]
async fn paging_during_inserts_never_repeats_or_skips() {
    let app = app!();
    let ws = app.workspace("busy").await;
    for i in 0..60 {
        trigger(&app, &ws, &format!("old{i}")).await;
    }
    let existing: HashSet<String> = ids(&app
        .get(&format!("/v1/workspaces/{ws}/runs?limit=100"))
        .expect(200)
        .await)
    .into_iter()
    .collect();
    assert_eq!(existing.len(), 60);

    let writer = async {
        for i in 0..40 {
            trigger(&app, &ws, &format!("new{i}")).await;
        }
    };
    let reader = async {
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let path = match &cursor {
                None => format!("/v1/workspaces/{ws}/runs?limit=7"),
                Some(c) => format!("/v1/workspaces/{ws}/runs?limit=7&cursor={c}"),
            };
            let v = app.get(&path).expect(200).await;
            seen.extend(ids(&v));
            tokio::task::yield_now().await;
            match v["next_cursor"].as_str() {
                Some(c) => cursor = Some(c.to_owned()),
                None => break seen,
            }
        }
    };
    let ((), seen) = tokio::join!(writer, reader);
    let unique: HashSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "an item was returned twice");
    assert!(
        existing.iter().all(|id| unique.contains(id)),
        "an item that existed was skipped"
    );
}
