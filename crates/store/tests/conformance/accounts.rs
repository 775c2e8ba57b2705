//! The portal's accounts: users, memberships, sessions, sign-in links and the shared sign-in
//! attempt counters, on both engines.

use std::time::Duration;

use domain::{Scope, UserId, WorkspaceId};
use store::{KeysetPage, Position, SignInAttempts, Store, StoreError, UserRecord};

use super::{Db, at, open, workspace};

conformance!(
    users_are_one_per_email_and_stay_platform_admins,
    memberships_give_one_role_per_workspace,
    sessions_are_found_by_hash_touched_forward_and_ended,
    a_new_sign_in_link_revokes_the_unused_ones_and_a_link_works_once,
    sign_in_attempts_are_counted_per_key_in_a_window,
    concurrent_sign_in_attempts_are_each_counted,
    purging_forgets_only_what_has_expired,
);

async fn put_user(store: &Store, email: &str, admin: bool, seconds: i64) -> UserRecord {
    let mut tx = store.begin().await.expect("begin");
    let user = tx
        .put_user(email, admin, at(seconds))
        .await
        .expect("put user");
    tx.commit().await.expect("commit");
    user
}

async fn put_membership(store: &Store, user: UserId, ws: WorkspaceId, role: Scope, seconds: i64) {
    let mut tx = store.begin().await.expect("begin");
    tx.put_membership(user, ws, role, at(seconds))
        .await
        .expect("put membership");
    tx.commit().await.expect("commit");
}

async fn insert_session(store: &Store, hash: &[u8], user: UserId, seconds: i64, ends: i64) {
    let mut tx = store.begin().await.expect("begin");
    tx.insert_session(hash, user, at(seconds), at(ends))
        .await
        .expect("insert session");
    tx.commit().await.expect("commit");
}

async fn issue_link(store: &Store, user: UserId, hash: &[u8], seconds: i64, ends: i64) {
    let mut tx = store.begin().await.expect("begin");
    tx.issue_sign_in_link(user, hash, at(seconds), at(ends))
        .await
        .expect("issue link");
    tx.commit().await.expect("commit");
}

async fn use_link(store: &Store, hash: &[u8], seconds: i64) -> Option<UserId> {
    let mut tx = store.begin().await.expect("begin");
    let user = tx
        .use_sign_in_link(hash, at(seconds))
        .await
        .expect("use link");
    tx.commit().await.expect("commit");
    user
}

async fn users_are_one_per_email_and_stay_platform_admins(store: Db) {
    let ada = put_user(&store, "ada@example.com", false, 1).await;
    assert!(!ada.platform_admin);
    assert!(ada.password_hash.is_none() && ada.password_changed_at.is_none());
    assert_eq!(ada.created_at, at(1));

    let again = put_user(&store, "ada@example.com", true, 2).await;
    assert_eq!(again.id, ada.id, "the same email is the same user");
    assert_eq!(again.created_at, at(1));
    assert!(again.platform_admin, "made a platform admin");
    let later = put_user(&store, "ada@example.com", false, 3).await;
    assert!(later.platform_admin, "stays one");

    let mut tx = store.begin().await.expect("begin");
    let with_password = tx
        .set_password(
            ada.id,
            "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA",
            at(4),
        )
        .await
        .expect("set password");
    tx.commit().await.expect("commit");
    assert_eq!(with_password.password_changed_at, Some(at(4)));

    // The point read (in-thread on SQLite) and the read by email decode the same row.
    let by_id = store.user(ada.id).await.expect("user").expect("found");
    let by_email = store
        .user_by_email("ada@example.com")
        .await
        .expect("by email")
        .expect("found");
    assert_eq!(format!("{by_id:?}"), format!("{with_password:?}"));
    assert_eq!(format!("{by_email:?}"), format!("{with_password:?}"));
    assert!(
        store
            .user(UserId::generate())
            .await
            .expect("user")
            .is_none()
    );
    assert!(
        store
            .user_by_email("ADA@example.com")
            .await
            .expect("by email")
            .is_none(),
        "emails are stored as given (the use cases lowercase them)"
    );
}

async fn memberships_give_one_role_per_workspace(store: Db) {
    let a = workspace(&store, "A", at(1)).await;
    let b = workspace(&store, "B", at(2)).await;
    let gone = workspace(&store, "Gone", at(3)).await;
    let ada = put_user(&store, "ada@example.com", false, 4).await;
    let bob = put_user(&store, "bob@example.com", false, 4).await;

    put_membership(&store, ada.id, a, Scope::Read, 5).await;
    put_membership(&store, ada.id, b, Scope::Publish, 5).await;
    put_membership(&store, ada.id, gone, Scope::Admin, 5).await;
    put_membership(&store, bob.id, a, Scope::Admin, 6).await;
    put_membership(&store, ada.id, a, Scope::Write, 7).await;

    let mine = store
        .membership(ada.id, a)
        .await
        .expect("membership")
        .expect("found");
    assert_eq!(
        mine.role,
        Scope::Write,
        "the second role replaced the first"
    );
    assert_eq!(mine.created_at, at(5), "since the first");
    assert!(
        store
            .membership(ada.id, WorkspaceId::generate())
            .await
            .expect("membership")
            .is_none()
    );

    let mut tx = store.begin().await.expect("begin");
    tx.deactivate_workspace(gone, at(8)).await.expect("delete");
    tx.commit().await.expect("commit");
    let listed: Vec<_> = store
        .workspaces_of_member(ada.id, 100)
        .await
        .expect("list")
        .into_iter()
        .map(|m| (m.workspace.id, m.role))
        .collect();
    assert_eq!(
        listed,
        [(b, Scope::Publish), (a, Scope::Write)],
        "active ones, newest first"
    );
    assert_eq!(
        store
            .workspaces_of_member(ada.id, 1)
            .await
            .expect("list")
            .len(),
        1
    );

    let members: Vec<_> = store
        .members(a, &KeysetPage::first(100))
        .await
        .expect("members")
        .into_iter()
        .map(|m| (m.user.email, m.role, m.member_since))
        .collect();
    assert_eq!(
        members,
        [
            ("bob@example.com".to_owned(), Scope::Admin, at(6)),
            ("ada@example.com".to_owned(), Scope::Write, at(5)),
        ],
        "newest membership first"
    );
    let after_bob = KeysetPage {
        limit: 100,
        after: Some(Position {
            created_at: at(6),
            id: bob.id.to_string(),
        }),
    };
    let rest = store.members(a, &after_bob).await.expect("next page");
    assert_eq!(rest.len(), 1);
    assert_eq!(rest[0].user.id, ada.id);

    let mut tx = store.begin().await.expect("begin");
    let again = tx
        .insert_membership(bob.id, a, Scope::Read, at(9))
        .await
        .expect("insert");
    assert!(again.is_none(), "a member is not added twice");
    assert!(
        tx.set_membership_role(bob.id, a, Scope::Read)
            .await
            .expect("role")
    );
    assert!(
        !tx.set_membership_role(bob.id, gone, Scope::Read)
            .await
            .expect("role")
    );
    let bob_in_a = tx.member(bob.id, a).await.expect("member").expect("found");
    assert_eq!(
        (
            bob_in_a.user.email.as_str(),
            bob_in_a.role,
            bob_in_a.member_since
        ),
        ("bob@example.com", Scope::Read, at(6))
    );
    assert!(tx.member(bob.id, b).await.expect("member").is_none());
    let added = tx
        .insert_membership(bob.id, b, Scope::Write, at(9))
        .await
        .expect("insert")
        .expect("new");
    assert_eq!((added.role, added.created_at), (Scope::Write, at(9)));
    tx.commit().await.expect("commit");

    let mut tx = store.begin().await.expect("begin");
    assert!(tx.delete_membership(ada.id, a).await.expect("delete"));
    assert!(!tx.delete_membership(ada.id, a).await.expect("again"));
    tx.commit().await.expect("commit");
    assert!(store.membership(ada.id, a).await.expect("read").is_none());
    assert_eq!(
        store
            .members(a, &KeysetPage::first(100))
            .await
            .expect("members")
            .len(),
        1
    );
}

async fn sessions_are_found_by_hash_touched_forward_and_ended(store: Db) {
    let ada = put_user(&store, "ada@example.com", false, 1).await;
    insert_session(&store, b"session-1", ada.id, 10, 1_000).await;
    insert_session(&store, b"session-2", ada.id, 11, 1_000).await;

    let found = store
        .session_by_hash(b"session-1")
        .await
        .expect("read")
        .expect("found");
    assert_eq!(found.user_id, ada.id);
    assert_eq!((found.created_at, found.last_seen_at), (at(10), at(10)));
    assert_eq!(found.expires_at, at(1_000));
    assert!(
        store
            .session_by_hash(b"nope")
            .await
            .expect("read")
            .is_none()
    );

    let mut tx = store.begin().await.expect("begin");
    let duplicate = tx
        .insert_session(b"session-1", ada.id, at(12), at(99))
        .await;
    assert!(
        matches!(duplicate, Err(StoreError::Conflict)),
        "{duplicate:?}"
    );
    drop(tx);

    store
        .touch_session(b"session-1", at(70))
        .await
        .expect("touch");
    store
        .touch_session(b"session-1", at(40))
        .await
        .expect("touch");
    let touched = store
        .session_by_hash(b"session-1")
        .await
        .expect("read")
        .expect("found");
    assert_eq!(touched.last_seen_at, at(70), "never moved back");

    store.delete_session(b"session-1").await.expect("end");
    store.delete_session(b"session-1").await.expect("end again");
    assert!(
        store
            .session_by_hash(b"session-1")
            .await
            .expect("read")
            .is_none()
    );

    insert_session(&store, b"session-3", ada.id, 12, 1_000).await;
    let mut tx = store.begin().await.expect("begin");
    assert_eq!(tx.delete_sessions_of(ada.id).await.expect("end all"), 2);
    tx.commit().await.expect("commit");
    for hash in [&b"session-2"[..], b"session-3"] {
        assert!(store.session_by_hash(hash).await.expect("read").is_none());
    }
}

async fn a_new_sign_in_link_revokes_the_unused_ones_and_a_link_works_once(store: Db) {
    let ada = put_user(&store, "ada@example.com", false, 1).await;
    let bob = put_user(&store, "bob@example.com", false, 1).await;
    issue_link(&store, ada.id, b"first", 10, 100).await;
    issue_link(&store, bob.id, b"bobs", 10, 100).await;
    let first = store
        .sign_in_link(b"first")
        .await
        .expect("read")
        .expect("found");
    assert_eq!((first.user_id, first.expires_at), (ada.id, at(100)));
    assert!(first.used_at.is_none());

    issue_link(&store, ada.id, b"second", 20, 120).await;
    assert!(
        store.sign_in_link(b"first").await.expect("read").is_none(),
        "revoked by the newer link"
    );
    assert!(
        store.sign_in_link(b"bobs").await.expect("read").is_some(),
        "another user's link stays"
    );
    assert_eq!(use_link(&store, b"first", 30).await, None);

    assert_eq!(use_link(&store, b"second", 30).await, Some(ada.id));
    assert_eq!(use_link(&store, b"second", 31).await, None, "used up");
    let used = store
        .sign_in_link(b"second")
        .await
        .expect("read")
        .expect("kept");
    assert_eq!(used.used_at, Some(at(30)));
    issue_link(&store, ada.id, b"third", 40, 140).await;
    assert!(
        store.sign_in_link(b"second").await.expect("read").is_some(),
        "a used link is kept as a record"
    );

    assert_eq!(use_link(&store, b"bobs", 100).await, None, "expired");
    assert_eq!(use_link(&store, b"bobs", 99).await, Some(bob.id));
}

async fn sign_in_attempts_are_counted_per_key_in_a_window(store: Db) {
    let window = Duration::from_secs(900);
    let count = |key: &'static str, seconds: i64| {
        let store = store.store.clone();
        async move {
            let now = at(seconds);
            store
                .count_sign_in_attempt(key, now, now.minus(window))
                .await
                .expect("count")
        }
    };
    let opened = |seconds, attempts| SignInAttempts {
        window_start: at(seconds),
        attempts,
    };
    assert_eq!(count("account:a", 0).await, opened(0, 1));
    assert_eq!(count("account:a", 10).await, opened(0, 2));
    assert_eq!(count("addr:192.0.2.1", 10).await, opened(10, 1));
    assert_eq!(count("account:a", 899).await, opened(0, 3));
    store
        .take_back_sign_in_attempt("account:a")
        .await
        .expect("take back");
    assert_eq!(count("account:a", 899).await, opened(0, 3));
    assert_eq!(
        count("account:a", 900).await,
        opened(900, 1),
        "the window ended: a new one opens"
    );
    for _ in 0..3 {
        store
            .take_back_sign_in_attempt("account:a")
            .await
            .expect("take back");
    }
    assert_eq!(
        count("account:a", 901).await,
        opened(900, 1),
        "never below zero"
    );
    store
        .take_back_sign_in_attempt("account:unknown")
        .await
        .expect("nothing to take back");
}

/// Nodes counting the same key at once each see their own count: the counter is one atomic
/// statement, never a read followed by a write.
async fn concurrent_sign_in_attempts_are_each_counted(store: Db) {
    let tasks: Vec<_> = (0..16)
        .map(|_| {
            let store = store.store.clone();
            tokio::spawn(async move {
                store
                    .count_sign_in_attempt("addr:198.51.100.7", at(5), at(-900))
                    .await
                    .expect("count")
                    .attempts
            })
        })
        .collect();
    let mut seen = Vec::new();
    for task in tasks {
        seen.push(task.await.expect("task"));
    }
    seen.sort_unstable();
    assert_eq!(seen, (1..=16).collect::<Vec<i64>>());
}

async fn purging_forgets_only_what_has_expired(store: Db) {
    let ada = put_user(&store, "ada@example.com", false, 1).await;
    insert_session(&store, b"live", ada.id, 100, 1_000).await;
    insert_session(&store, b"past-lifetime", ada.id, 10, 150).await;
    insert_session(&store, b"idle", ada.id, 10, 1_000).await;
    store.touch_session(b"live", at(190)).await.expect("touch");
    issue_link(&store, ada.id, b"expired-link", 10, 150).await;
    let bob = put_user(&store, "bob@example.com", false, 1).await;
    issue_link(&store, bob.id, b"live-link", 10, 1_000).await;
    store
        .count_sign_in_attempt("account:old", at(10), at(-890))
        .await
        .expect("count");
    store
        .count_sign_in_attempt("account:new", at(150), at(-750))
        .await
        .expect("count");

    // At 200, with sessions idle since before 100 ended and windows opened by 50 over.
    let purged = store
        .purge_accounts(at(200), at(100), at(50))
        .await
        .expect("purge");
    assert_eq!(purged, 4);
    assert!(
        store
            .session_by_hash(b"live")
            .await
            .expect("read")
            .is_some()
    );
    assert!(
        store
            .session_by_hash(b"past-lifetime")
            .await
            .expect("read")
            .is_none()
    );
    assert!(
        store
            .session_by_hash(b"idle")
            .await
            .expect("read")
            .is_none()
    );
    assert!(
        store
            .sign_in_link(b"expired-link")
            .await
            .expect("read")
            .is_none()
    );
    assert!(
        store
            .sign_in_link(b"live-link")
            .await
            .expect("read")
            .is_some()
    );
    let now = at(160);
    assert_eq!(
        store
            .count_sign_in_attempt("account:new", now, at(-740))
            .await
            .expect("count")
            .attempts,
        2,
        "a live window is kept"
    );
}
