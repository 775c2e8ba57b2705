//! Publish targets as sync jobs: changes asked for coalesce into one due sync; one worker at
//! a time holds a target (a second node finds nothing to claim until the lease ends); a change
//! asked for during a sync stays due after it; a refused credential stops the retries until
//! the target is set again.

use serde_json::json;
use store::{PublishTargetSetting, Store, SyncOutcome};

use super::{Db, at, open, workspace};

conformance!(
    syncs_coalesce_and_one_worker_holds_a_target,
    a_refused_credential_waits_for_a_new_setting,
);

fn setting() -> PublishTargetSetting {
    PublishTargetSetting {
        url: "https://docs.example.com/acme.git".into(),
        branch: "main".into(),
        folder: "docs".into(),
        format: "docusaurus".into(),
    }
}

async fn request(store: &Store, ws: domain::WorkspaceId, now: domain::Timestamp) -> bool {
    let mut tx = store.begin().await.expect("begin");
    let found = tx.request_publish_sync(ws, now).await.expect("request");
    tx.commit().await.expect("commit");
    found
}

async fn set(store: &Store, ws: domain::WorkspaceId, now: domain::Timestamp) {
    let mut tx = store.begin().await.expect("begin");
    tx.set_publish_target(ws, &setting(), None, now)
        .await
        .expect("set");
    tx.commit().await.expect("commit");
}

async fn syncs_coalesce_and_one_worker_holds_a_target(store: Db) {
    let ws = workspace(&store, "Docs", at(0)).await;
    assert!(
        !request(&store, ws, at(1)).await,
        "no target, nothing asked"
    );
    set(&store, ws, at(1)).await;
    assert!(request(&store, ws, at(2)).await);
    assert!(request(&store, ws, at(3)).await);

    // Another node on the same database, as `worker` processes are.
    let other = open(store.db.clone()).await;
    let claimed = store
        .claim_publish_sync("node-a", at(100), at(4))
        .await
        .expect("claim")
        .expect("a due target");
    assert_eq!(claimed.state, "syncing");
    assert_eq!(
        claimed.claimed_generation,
        Some(3),
        "three changes, one sync"
    );
    assert!(
        other
            .claim_publish_sync("node-b", at(100), at(5))
            .await
            .expect("claim")
            .is_none(),
        "one sync per target at a time"
    );
    // Published meanwhile: due again once this sync ends.
    assert!(request(&store, ws, at(6)).await);
    let synced = SyncOutcome::Synced {
        commit: Some("4f2a9c1e0b7d3a5f6e8c9b0a1d2e3f4a5b6c7d8e".into()),
        state: json!({"files": ["docs/a.mdx"]}),
    };
    assert!(
        !other
            .publish_sync_ended(ws, "node-b", &synced, at(7))
            .await
            .expect("end"),
        "only the holder records the end"
    );
    assert!(
        store
            .publish_sync_ended(ws, "node-a", &synced, at(7))
            .await
            .expect("end")
    );
    let target = store
        .publish_target(ws)
        .await
        .expect("read")
        .expect("target");
    assert_eq!(target.state, "pending");
    assert_eq!(target.synced_generation, 3);
    assert_eq!(
        target.last_commit.as_deref(),
        Some("4f2a9c1e0b7d3a5f6e8c9b0a1d2e3f4a5b6c7d8e")
    );
    assert_eq!(target.synced_state.0["files"][0], "docs/a.mdx");

    // The next node takes the change that waited, then nothing is due.
    let again = other
        .claim_publish_sync("node-b", at(200), at(8))
        .await
        .expect("claim")
        .expect("the change asked for during the sync");
    assert_eq!(again.claimed_generation, Some(4));
    assert!(
        other
            .publish_sync_ended(ws, "node-b", &synced, at(9))
            .await
            .expect("end")
    );
    let target = store
        .publish_target(ws)
        .await
        .expect("read")
        .expect("target");
    assert_eq!(target.state, "synced");
    assert_eq!(target.sync_generation, target.synced_generation);
    assert!(
        store
            .claim_publish_sync("node-a", at(300), at(10))
            .await
            .expect("claim")
            .is_none()
    );

    // A worker that died: its lease ends and another takes the target.
    assert!(request(&store, ws, at(11)).await);
    store
        .claim_publish_sync("node-a", at(20), at(12))
        .await
        .expect("claim")
        .expect("due");
    assert!(
        other
            .claim_publish_sync("node-b", at(300), at(19))
            .await
            .expect("claim")
            .is_none()
    );
    let taken = other
        .claim_publish_sync("node-b", at(300), at(21))
        .await
        .expect("claim");
    assert!(taken.is_some(), "taken over after the lease");
}

async fn a_refused_credential_waits_for_a_new_setting(store: Db) {
    let ws = workspace(&store, "Docs", at(0)).await;
    set(&store, ws, at(1)).await;
    store
        .claim_publish_sync("w", at(100), at(2))
        .await
        .expect("claim")
        .expect("due");
    let refused = SyncOutcome::Failed {
        error: "authentication failed".into(),
        retry_at: None,
    };
    assert!(
        store
            .publish_sync_ended(ws, "w", &refused, at(3))
            .await
            .expect("end")
    );
    assert!(request(&store, ws, at(4)).await, "a publish still counts");
    let target = store
        .publish_target(ws)
        .await
        .expect("read")
        .expect("target");
    assert_eq!(target.state, "auth_failed");
    assert!(target.next_attempt_at.is_none());
    assert!(
        target.sync_generation > target.synced_generation,
        "nothing lost"
    );
    assert!(
        store
            .claim_publish_sync("w", at(100), at(1_000))
            .await
            .expect("claim")
            .is_none()
    );

    // A failure worth retrying waits for its time.
    set(&store, ws, at(2_000)).await;
    store
        .claim_publish_sync("w", at(2_100), at(2_001))
        .await
        .expect("claim")
        .expect("due");
    let retry = SyncOutcome::Failed {
        error: "the host could not be reached".into(),
        retry_at: Some(at(2_010)),
    };
    assert!(
        store
            .publish_sync_ended(ws, "w", &retry, at(2_002))
            .await
            .expect("end")
    );
    assert_eq!(
        store
            .publish_target(ws)
            .await
            .expect("read")
            .expect("target")
            .state,
        "retrying"
    );
    assert!(
        store
            .claim_publish_sync("w", at(2_100), at(2_005))
            .await
            .expect("claim")
            .is_none()
    );
    assert!(request(&store, ws, at(2_006)).await);
    assert!(
        store
            .claim_publish_sync("w", at(2_100), at(2_007))
            .await
            .expect("claim")
            .is_none(),
        "a publish does not cut the back-off short"
    );
    assert!(
        store
            .claim_publish_sync("w", at(2_100), at(2_010))
            .await
            .expect("claim")
            .is_some()
    );
}
