//! The storage conformance suite: every test runs against SQLite (a temp file) and PostgreSQL
//! (a fresh database per test, see `testkit::TestDatabase`). Both engines must behave the same.
//!
//! PostgreSQL: `postgres://postgres@127.0.0.1:5432/postgres`, or
//! `CONTENT_PIPELINE_TEST_POSTGRES_URL`. When it is unreachable the PostgreSQL variants print
//! "SKIPPED" and pass, unless `CONTENT_PIPELINE_REQUIRE_POSTGRES=1`.

use std::time::Duration;

use domain::{
    ArticleId, ArticleStatus, DeliveryStatus, EventType, LogLevel, LogStage, RunId, RunSource,
    RunStatus, Scope, Surface, Tier, Timestamp, WebhookId, WorkspaceId,
};
use serde_json::json;
use store::{
    Claim, ClaimOutcome, DeliveryFilter, KeysetPage, NewArticleVersion, NewRun, NewWebhook,
    Position, Store, StoreError, StoredResponse, TriggerOutcome, WebhookChanges,
};
use testkit::TestDatabase;

/// A store under test and its database (for SQL that bypasses the store).
#[derive(Clone)]
struct Db {
    store: Store,
    db: TestDatabase,
}

impl std::ops::Deref for Db {
    type Target = Store;
    fn deref(&self) -> &Store {
        &self.store
    }
}

/// A migrated store on `db`.
async fn open(db: TestDatabase) -> Db {
    let store = Store::connect(db.url()).await.expect("connect");
    store.migrate().await.expect("migrate");
    // A node that hears the others from the start, as `serve` and `worker` are (PostgreSQL
    // opens its LISTEN connection on first need: see `a_store_listens_once_it_needs_to`).
    assert!(
        store.listening(std::time::Duration::from_secs(10)).await,
        "LISTEN in place"
    );
    Db { store, db }
}

/// Declares each test once and runs it on both engines.
macro_rules! conformance {
    ($($name:ident),+ $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test]
                async fn $name() {
                    super::$name(super::open(testkit::TestDatabase::sqlite()).await).await;
                }
            )+
        }
        mod postgres {
            $(
                #[tokio::test]
                async fn $name() {
                    let Some(db) = testkit::TestDatabase::postgres().await else { return };
                    super::$name(super::open(db).await).await;
                }
            )+
        }
    };
}

conformance!(
    workspaces_insert_get_list_and_deactivate,
    tokens_are_found_by_hash_until_revoked,
    reissue_replaces_the_hash,
    token_expiry_is_kept_and_last_use_moves_forward_at_most_once_an_interval,
    trigger_creates_then_coalesces,
    one_queued_run_per_feature_is_enforced_by_the_schema,
    concurrent_triggers_never_queue_two_runs,
    run_events_are_numbered_in_order,
    article_versions_accumulate,
    a_run_cannot_write_an_article_version_twice,
    publishing_changes_the_article_once,
    published_articles_list_their_published_versions,
    active_webhook_urls_are_unique_per_workspace,
    webhook_updates_and_deletion,
    record_event_fans_out_to_matching_active_subscriptions,
    replay_creates_a_new_delivery_of_the_same_event,
    idempotency_claim_outcomes,
    a_run_waiting_to_be_taken_again_shows_queued,
    idempotency_claims_beat_and_fence_their_takeover,
    idempotency_records_expire_and_can_be_released,
    keyset_pages_are_newest_first_without_gaps_or_repeats,
    point_reads_decode_every_column_as_the_other_reads_do,
    run_claims_take_turns_across_workspaces,
    followers_of_a_run_wake_when_its_changes_commit,
    the_current_version_of_an_article_is_found_by_its_key,
    drift_reads_the_provenances_of_one_feature_or_all,
    the_two_latest_distinct_successful_commits_of_a_feature,
    a_transaction_that_does_not_commit_leaves_nothing_behind,
    statements_run_in_place_and_on_sqlx_share_one_transaction,
);

#[path = "conformance/accounts.rs"]
mod accounts;
#[path = "conformance/console.rs"]
mod console;
#[path = "conformance/outbox.rs"]
mod outbox;
#[path = "conformance/publish_targets.rs"]
mod publish_targets;
#[path = "conformance/search.rs"]
mod search;
#[path = "conformance/wakeups.rs"]
mod wakeups;

fn at(seconds: i64) -> Timestamp {
    Timestamp::from_micros(1_700_000_000_000_000 + seconds * 1_000_000).expect("timestamp")
}

async fn workspace(store: &Store, name: &str, now: Timestamp) -> WorkspaceId {
    let mut tx = store.begin().await.expect("begin");
    let ws = tx
        .insert_workspace(name, Some("/srv/repo"), now)
        .await
        .expect("insert workspace");
    tx.commit().await.expect("commit");
    ws.id
}

fn new_run(ws: WorkspaceId, feature: &str, tier: Tier, notify: bool) -> NewRun {
    NewRun {
        workspace_id: ws,
        feature_id: feature.to_owned(),
        surfaces: None,
        source: RunSource::Api,
        tier,
        notify_on_complete: notify,
        git_ref: String::new(),
        trigger: None,
    }
}

async fn trigger(store: &Store, new: NewRun, now: Timestamp) -> Result<TriggerOutcome, StoreError> {
    let mut tx = store.begin().await?;
    let outcome = tx.trigger_run(new, now).await?;
    tx.commit().await?;
    Ok(outcome)
}

fn version(
    ws: WorkspaceId,
    feature: &str,
    surface: Surface,
    run: RunId,
    body: &str,
) -> NewArticleVersion {
    NewArticleVersion {
        workspace_id: ws,
        feature_id: feature.to_owned(),
        surface,
        title: format!("{feature} {surface}"),
        status: ArticleStatus::Draft,
        mdx_body: body.to_owned(),
        plain_text: body.to_owned(),
        provenance: json!({"commit": "abc"}),
        run_id: run,
    }
}

async fn write_version(
    store: &Store,
    new: &NewArticleVersion,
    now: Timestamp,
) -> Result<store::ArticleRecord, StoreError> {
    let mut tx = store.begin().await?;
    let article = tx.write_article_version(new, now).await?;
    tx.commit().await?;
    Ok(article)
}

fn hook(ws: WorkspaceId, url: &str, events: &[EventType], active: bool) -> NewWebhook {
    NewWebhook {
        workspace_id: ws,
        url: url.to_owned(),
        events: events.to_vec(),
        description: None,
        active,
        secret: vec![1, 2, 3],
    }
}

async fn insert_hook(
    store: &Store,
    new: &NewWebhook,
    now: Timestamp,
) -> Result<store::WebhookRecord, StoreError> {
    let mut tx = store.begin().await?;
    let record = tx.insert_webhook(new, now).await?;
    tx.commit().await?;
    Ok(record)
}

async fn record(
    store: &Store,
    ws: WorkspaceId,
    event: EventType,
    now: Timestamp,
) -> store::EventRecord {
    let mut tx = store.begin().await.expect("begin");
    let e = tx
        .record_event(ws, event, json!({"n": 1}), now)
        .await
        .expect("record event");
    tx.commit().await.expect("commit");
    e
}

fn status_filter(status: DeliveryStatus) -> DeliveryFilter {
    DeliveryFilter {
        status: Some(status),
        ..DeliveryFilter::default()
    }
}

async fn deliveries_of(store: &Store, hook: WebhookId) -> Vec<store::DeliveryRecord> {
    store
        .deliveries(hook, &DeliveryFilter::default(), &KeysetPage::first(100))
        .await
        .expect("deliveries")
}

// ---- Workspaces and tokens ----

async fn workspaces_insert_get_list_and_deactivate(store: Db) {
    let a = workspace(&store, "A", at(1)).await;
    let b = workspace(&store, "B", at(2)).await;
    let got = store.workspace(a).await.expect("get").expect("exists");
    assert_eq!(got.name, "A");
    assert_eq!(got.repo_path.as_deref(), Some("/srv/repo"));
    assert!(got.active);
    assert_eq!(got.created_at, at(1));
    assert!(
        store
            .workspace(WorkspaceId::generate())
            .await
            .expect("get")
            .is_none()
    );

    let all = store
        .workspaces(None, &KeysetPage::first(10))
        .await
        .expect("list");
    assert_eq!(all.iter().map(|w| w.id).collect::<Vec<_>>(), [b, a]);
    let only = store
        .workspaces(Some(a), &KeysetPage::first(10))
        .await
        .expect("list");
    assert_eq!(only.iter().map(|w| w.id).collect::<Vec<_>>(), [a]);

    let mut tx = store.begin().await.expect("begin");
    let gone = tx
        .deactivate_workspace(a, at(5))
        .await
        .expect("deactivate")
        .expect("exists");
    tx.commit().await.expect("commit");
    assert!(!gone.active);
    assert_eq!(gone.updated_at, at(5));
    let mut tx = store.begin().await.expect("begin");
    let again = tx
        .deactivate_workspace(a, at(9))
        .await
        .expect("deactivate")
        .expect("exists");
    let missing = tx
        .deactivate_workspace(WorkspaceId::generate(), at(9))
        .await
        .expect("deactivate");
    tx.commit().await.expect("commit");
    assert_eq!(again.updated_at, at(5), "repeating changes nothing");
    assert!(missing.is_none());
    let all = store
        .workspaces(None, &KeysetPage::first(10))
        .await
        .expect("list");
    assert_eq!(all.len(), 2, "a deactivated workspace is kept");
    assert!(!store.workspace(a).await.expect("get").expect("kept").active);
}

async fn tokens_are_found_by_hash_until_revoked(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    assert!(!store.has_platform_token().await.expect("has"));
    let mut tx = store.begin().await.expect("begin");
    let token = tx
        .insert_token(
            Some(ws),
            "ci",
            Scope::Write,
            b"hash-1",
            Some(50),
            None,
            at(2),
        )
        .await
        .expect("insert");
    let platform = tx
        .insert_token(None, "root", Scope::Admin, b"hash-2", None, None, at(2))
        .await
        .expect("insert platform");
    tx.commit().await.expect("commit");
    assert!(store.has_platform_token().await.expect("has"));

    let found = store
        .token_by_hash(b"hash-1")
        .await
        .expect("by hash")
        .expect("found");
    assert_eq!(found.id, token.id);
    assert_eq!(found.workspace_id, Some(ws));
    assert_eq!(found.scope, Scope::Write);
    assert_eq!(found.rate_limit, Some(50));
    assert!(
        store
            .token_by_hash(b"nope")
            .await
            .expect("by hash")
            .is_none()
    );

    let mut tx = store.begin().await.expect("begin");
    let dup = tx
        .insert_token(Some(ws), "dup", Scope::Read, b"hash-1", None, None, at(3))
        .await;
    assert!(matches!(dup, Err(StoreError::Conflict)), "{dup:?}");
    drop(tx);

    let mut tx = store.begin().await.expect("begin");
    let revoked = tx
        .revoke_token(token.id, at(4))
        .await
        .expect("revoke")
        .expect("exists");
    tx.commit().await.expect("commit");
    assert_eq!(revoked.revoked_at, Some(at(4)));
    assert!(
        store
            .token_by_hash(b"hash-1")
            .await
            .expect("by hash")
            .is_none()
    );
    let mut tx = store.begin().await.expect("begin");
    let again = tx
        .revoke_token(token.id, at(8))
        .await
        .expect("revoke")
        .expect("exists");
    tx.commit().await.expect("commit");
    assert_eq!(
        again.revoked_at,
        Some(at(4)),
        "the first revocation time stays"
    );
    let kept = store.token(token.id).await.expect("token").expect("kept");
    assert_eq!(kept.revoked_at, Some(at(4)));
    let listed = store
        .tokens(ws, &KeysetPage::first(10))
        .await
        .expect("tokens");
    assert_eq!(
        listed.len(),
        1,
        "only the workspace's tokens, revoked included"
    );
    assert_eq!(listed[0].id, token.id);
    assert!(
        store
            .token_by_hash(b"hash-2")
            .await
            .expect("hash")
            .is_some()
    );
    assert_eq!(platform.workspace_id, None);
}

async fn reissue_replaces_the_hash(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let mut tx = store.begin().await.expect("begin");
    let token = tx
        .insert_token(Some(ws), "ci", Scope::Read, b"old", None, None, at(2))
        .await
        .expect("insert");
    let reissued = tx
        .reissue_token(token.id, b"new")
        .await
        .expect("reissue")
        .expect("live");
    tx.commit().await.expect("commit");
    assert_eq!(reissued.id, token.id);
    assert!(store.token_by_hash(b"old").await.expect("hash").is_none());
    assert_eq!(
        store
            .token_by_hash(b"new")
            .await
            .expect("hash")
            .map(|t| t.id),
        Some(token.id)
    );
    let mut tx = store.begin().await.expect("begin");
    tx.revoke_token(token.id, at(3)).await.expect("revoke");
    let dead = tx.reissue_token(token.id, b"newer").await.expect("reissue");
    tx.commit().await.expect("commit");
    assert!(dead.is_none(), "a revoked token cannot be reissued");
    assert!(store.token_by_hash(b"newer").await.expect("hash").is_none());
}

async fn token_expiry_is_kept_and_last_use_moves_forward_at_most_once_an_interval(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let mut tx = store.begin().await.expect("begin");
    let token = tx
        .insert_token(
            Some(ws),
            "ci",
            Scope::Read,
            b"old",
            None,
            Some(at(1_000)),
            at(2),
        )
        .await
        .expect("insert");
    let forever = tx
        .insert_token(Some(ws), "cd", Scope::Read, b"other", None, None, at(2))
        .await
        .expect("insert");
    assert_eq!(tx.live_tokens(ws, at(999)).await.expect("count"), 2);
    assert_eq!(
        tx.live_tokens(ws, at(1_000)).await.expect("count"),
        1,
        "an expired token leaves the quota"
    );
    let reissued = tx
        .reissue_token(token.id, b"new")
        .await
        .expect("reissue")
        .expect("live");
    tx.commit().await.expect("commit");
    assert_eq!(token.expires_at, Some(at(1_000)));
    assert_eq!(
        reissued.expires_at,
        Some(at(1_000)),
        "reissue keeps the expiry"
    );
    assert_eq!(forever.expires_at, None);
    assert_eq!(token.last_used_at, None);

    let note = |id, seconds: i64| {
        let store = store.store.clone();
        async move {
            let mut tx = store.begin().await.expect("begin");
            let changed = tx
                .note_token_used(id, at(seconds), at(seconds - 60))
                .await
                .expect("note");
            tx.commit().await.expect("commit");
            changed
        }
    };
    let last_used = |hash: &'static [u8]| {
        let store = store.store.clone();
        async move {
            store
                .token_by_hash(hash)
                .await
                .expect("by hash")
                .expect("found")
                .last_used_at
        }
    };
    assert!(note(token.id, 100).await, "a first use is written");
    assert_eq!(last_used(b"new").await, Some(at(100)));
    assert!(!note(token.id, 130).await, "not again within the interval");
    assert!(!note(token.id, 160).await, "nor at its end");
    assert_eq!(last_used(b"new").await, Some(at(100)));
    assert!(note(token.id, 161).await, "after it");
    assert_eq!(last_used(b"new").await, Some(at(161)));
    assert_eq!(last_used(b"other").await, None, "other tokens untouched");
}

// ---- Runs ----

async fn trigger_creates_then_coalesces(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let created = trigger(&store, new_run(ws, "export", Tier::Standard, false), at(2))
        .await
        .expect("trigger");
    let TriggerOutcome::Created(run) = created else {
        panic!("first trigger must create: {created:?}")
    };
    assert_eq!(run.status, domain::RunStatus::Queued);
    assert_eq!(run.source, RunSource::Api);
    assert_eq!(run.tier, Tier::Standard);
    assert!(!run.notify_on_complete);
    assert!(run.surfaces.is_none());
    assert!(run.artifacts.0.is_empty());

    let mut regenerate = new_run(ws, "export", Tier::Priority, true);
    regenerate.surfaces = Some(vec![Surface::Blog]);
    let joined = trigger(&store, regenerate, at(3)).await.expect("trigger");
    let TriggerOutcome::Coalesced(joined) = joined else {
        panic!("second trigger must coalesce: {joined:?}")
    };
    assert_eq!(joined.id, run.id);
    assert_eq!(joined.tier, Tier::Priority);
    assert!(joined.notify_on_complete);
    assert!(joined.surfaces.is_none(), "all surfaces absorb one surface");
    assert_eq!(joined.updated_at, at(3));
    assert_eq!(joined.created_at, at(2));

    let later = trigger(&store, new_run(ws, "export", Tier::Standard, false), at(4))
        .await
        .expect("trigger");
    assert_eq!(later.run().tier, Tier::Priority, "never downgraded");
    assert!(later.run().notify_on_complete);

    let other = trigger(&store, new_run(ws, "import", Tier::Standard, true), at(5))
        .await
        .expect("trigger");
    assert!(matches!(other, TriggerOutcome::Created(_)));
    let stored = store.run(run.id).await.expect("run").expect("exists");
    assert_eq!(stored.tier, Tier::Priority);
    let listed = store.runs(ws, &KeysetPage::first(10)).await.expect("runs");
    assert_eq!(
        listed.iter().map(|r| r.id).collect::<Vec<_>>(),
        [other.run().id, run.id]
    );
}

/// The partial unique index itself, bypassing the store's check-then-insert.
/// A running run whose lease ended (handed back, or its worker died) shows queued, and the
/// status filter agrees with what is shown.
async fn a_run_waiting_to_be_taken_again_shows_queued(store: Db) {
    let ws = workspace(&store, "handed back", at(0)).await;
    let queued = trigger(&store, new_run(ws, "a", Tier::Standard, false), at(0))
        .await
        .expect("trigger");
    let id = queued.run().id;
    let shown = |status: RunStatus, now: i64| {
        let store = store.clone();
        async move {
            let filter = store::RunFilter {
                status: Some(status),
                feature_id: None,
            };
            store
                .runs_filtered(ws, &filter, &KeysetPage::first(10), at(now))
                .await
                .expect("runs")
                .iter()
                .map(|r| r.id)
                .collect::<Vec<_>>()
        }
    };
    store
        .claim_run("w1", at(60), at(1), 3)
        .await
        .expect("claim")
        .expect("claimed");
    let held = store.run(id).await.expect("run").expect("found");
    assert_eq!(held.status_at(at(2)), RunStatus::Running);
    assert_eq!(shown(RunStatus::Running, 2).await, vec![id]);
    assert!(shown(RunStatus::Queued, 2).await.is_empty());
    // Its worker died: past the lease it waits for another one, attempt counted.
    let expired = store.run(id).await.expect("run").expect("found");
    assert_eq!(expired.status_at(at(61)), RunStatus::Queued);
    assert_eq!(expired.attempts, 1);
    assert_eq!(shown(RunStatus::Queued, 61).await, vec![id]);
    assert!(shown(RunStatus::Running, 61).await.is_empty());
    // Handed back at a shutdown: queued at once, the attempt not counted.
    assert!(
        store
            .hand_back_run(id, "w1", at(3))
            .await
            .expect("hand back")
    );
    let handed = store.run(id).await.expect("run").expect("found");
    assert_eq!(handed.status_at(at(3)), RunStatus::Queued);
    assert_eq!(handed.attempts, 0);
    assert_eq!(shown(RunStatus::Queued, 3).await, vec![id]);
    // Taken again: running.
    store
        .claim_run("w2", at(90), at(4), 3)
        .await
        .expect("claim")
        .expect("claimed again");
    let again = store.run(id).await.expect("run").expect("found");
    assert_eq!(again.status_at(at(5)), RunStatus::Running);
    assert_eq!(again.attempts, 1);
    assert_eq!(shown(RunStatus::Running, 5).await, vec![id]);
}

async fn one_queued_run_per_feature_is_enforced_by_the_schema(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let first = trigger(&store, new_run(ws, "export", Tier::Standard, true), at(2))
        .await
        .expect("trigger");
    let insert = "INSERT INTO runs (id, workspace_id, feature_id, status, source, tier,
             notify_on_complete, created_at, updated_at)
         VALUES ($1, $2, 'export', $3, 'api', 'standard', TRUE, 3, 3)";
    let db = &store.db;
    let attempt = |status: &'static str| async move {
        let (id, ws) = (RunId::generate().to_string(), ws.to_string());
        db.try_execute(insert, &[&id, &ws, status]).await
    };
    match attempt("queued").await {
        Err(sqlx::Error::Database(db)) => assert!(db.is_unique_violation(), "{db}"),
        other => panic!("a second queued run must violate the unique index: {other:?}"),
    }
    attempt("running")
        .await
        .expect("runs in other states are not limited");
    attempt("succeeded")
        .await
        .expect("runs in other states are not limited");
    assert!(matches!(first, TriggerOutcome::Created(_)));
}

/// Two transactions trigger the same feature at once. The trigger is one upsert on the "one
/// queued run per feature" index: on PostgreSQL the second waits for the first to commit and
/// then joins its run; on SQLite writers are serialised, so the second one coalesces too.
/// Either way there is exactly one queued run, and it carries the raised tier.
async fn concurrent_triggers_never_queue_two_runs(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let mut first = store.begin().await.expect("begin");
    let created = first
        .trigger_run(new_run(ws, "export", Tier::Standard, true), at(2))
        .await
        .expect("trigger");
    let racer = {
        let store = store.clone();
        tokio::spawn(async move {
            trigger(&store, new_run(ws, "export", Tier::Priority, true), at(3)).await
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    first.commit().await.expect("commit");
    let raced = racer.await.expect("join");
    match &raced {
        Ok(TriggerOutcome::Coalesced(r)) => {
            assert_eq!(r.id, created.run().id);
            assert_eq!(r.tier, Tier::Priority);
        }
        other => panic!("the second trigger joins the first run: {other:?}"),
    }
    let retried = trigger(&store, new_run(ws, "export", Tier::Priority, true), at(4))
        .await
        .expect("retry");
    let TriggerOutcome::Coalesced(run) = retried else {
        panic!("a retry coalesces: {retried:?}")
    };
    assert_eq!(run.id, created.run().id);
    assert_eq!(run.tier, Tier::Priority);
    let runs = store.runs(ws, &KeysetPage::first(10)).await.expect("runs");
    assert_eq!(runs.len(), 1, "exactly one queued run");
}

async fn run_events_are_numbered_in_order(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let run = trigger(&store, new_run(ws, "export", Tier::Standard, true), at(2))
        .await
        .expect("trigger")
        .run()
        .id;
    let mut tx = store.begin().await.expect("begin");
    for (i, stage) in [LogStage::Resolve, LogStage::Collect, LogStage::Render]
        .into_iter()
        .enumerate()
    {
        let seq = tx
            .append_run_event(run, LogLevel::Info, stage, "step", &json!({"i": i}), at(3))
            .await
            .expect("append");
        assert_eq!(seq, i as i64 + 1);
    }
    tx.commit().await.expect("commit");
    let all = store.run_events(run, 0, 10).await.expect("events");
    assert_eq!(
        all.iter().map(|e| e.stage.as_str()).collect::<Vec<_>>(),
        ["resolve", "collect", "render"]
    );
    assert_eq!(all[1].data.0, json!({"i": 1}));
    let after = store.run_events(run, 1, 1).await.expect("events");
    assert_eq!(after.len(), 1);
    assert_eq!(after[0].seq, 2);
}

// ---- Articles ----

async fn article_versions_accumulate(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let (r1, r2) = (RunId::generate(), RunId::generate());
    let first = write_version(
        &store,
        &version(ws, "export", Surface::Blog, r1, "one"),
        at(2),
    )
    .await
    .expect("write");
    let second = write_version(
        &store,
        &version(ws, "export", Surface::Blog, r2, "two"),
        at(3),
    )
    .await
    .expect("write");
    let other = write_version(
        &store,
        &version(ws, "export", Surface::DevDocs, r1, "docs"),
        at(4),
    )
    .await
    .expect("a run writes each surface once");
    assert_eq!(second.id, first.id, "the article id is stable");
    assert_ne!(other.id, first.id);
    assert_eq!((first.version, second.version), (1, 2));
    assert_eq!(second.run_id, r2);
    assert_eq!(second.mdx_body, "two");
    assert_eq!(second.created_at, at(2));
    assert_eq!(second.updated_at, at(3));

    let versions = store
        .article_versions(first.id, None, 10)
        .await
        .expect("versions");
    assert_eq!(
        versions
            .iter()
            .map(|v| (v.version, v.mdx_body.as_str(), v.run_id))
            .collect::<Vec<_>>(),
        [(2, "two", r2), (1, "one", r1)]
    );
    let older = store
        .article_versions(first.id, Some(2), 10)
        .await
        .expect("versions");
    assert_eq!(older.len(), 1);
    assert_eq!(older[0].version, 1);

    let filter = store::ArticleFilter {
        surface: Some(Surface::Blog),
        ..Default::default()
    };
    let blogs = store
        .articles(ws, &filter, &KeysetPage::first(10))
        .await
        .expect("articles");
    assert_eq!(blogs.iter().map(|a| a.id).collect::<Vec<_>>(), [first.id]);
    let all = store
        .articles(ws, &store::ArticleFilter::default(), &KeysetPage::first(10))
        .await
        .expect("articles");
    assert_eq!(
        all.iter().map(|a| a.id).collect::<Vec<_>>(),
        [other.id, first.id]
    );
}

async fn a_run_cannot_write_an_article_version_twice(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let run = RunId::generate();
    let new = version(ws, "export", Surface::Changelog, run, "once");
    let first = write_version(&store, &new, at(2)).await.expect("write");
    let again = write_version(&store, &new, at(3)).await;
    assert!(matches!(again, Err(StoreError::Conflict)), "{again:?}");
    let article = store.article(first.id).await.expect("get").expect("exists");
    assert_eq!(article.version, 1, "the failed write left nothing behind");
    let versions = store
        .article_versions(first.id, None, 10)
        .await
        .expect("versions");
    assert_eq!(versions.len(), 1);
}

async fn publishing_changes_the_article_once(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let article = write_version(
        &store,
        &version(ws, "export", Surface::Blog, RunId::generate(), "v1"),
        at(2),
    )
    .await
    .expect("write");
    let mut tx = store.begin().await.expect("begin");
    let (published, changed) = tx
        .publish_article(article.id, "https://docs.example/p", at(3))
        .await
        .expect("publish")
        .expect("exists");
    let (again, changed_again) = tx
        .publish_article(article.id, "https://docs.example/p", at(4))
        .await
        .expect("publish")
        .expect("exists");
    let missing = tx
        .publish_article(domain::ArticleId::generate(), "x", at(4))
        .await
        .expect("publish");
    tx.commit().await.expect("commit");
    assert!(changed);
    assert_eq!(published.status, ArticleStatus::Published);
    assert_eq!(
        published.public_url.as_deref(),
        Some("https://docs.example/p")
    );
    assert_eq!(published.published_version, Some(1));
    assert!(
        !changed_again,
        "an already published version is not published again"
    );
    assert_eq!(again.updated_at, at(3));
    assert!(missing.is_none());
}

async fn published_articles_list_their_published_versions(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let other = workspace(&store, "B", at(1)).await;
    let publish = |id| {
        let store = store.clone();
        async move {
            let mut tx = store.begin().await.expect("begin");
            tx.publish_article(id, "https://docs.example/p", at(10))
                .await
                .expect("publish");
            tx.commit().await.expect("commit");
        }
    };
    let changelog = |ws, feature: &str, body: &str| {
        version(ws, feature, Surface::Changelog, RunId::generate(), body)
    };
    let a = write_version(&store, &changelog(ws, "a", "a v1"), at(2))
        .await
        .expect("a");
    publish(a.id).await;
    // A newer draft does not replace the published version in the lists.
    write_version(&store, &changelog(ws, "a", "a v2"), at(5))
        .await
        .expect("a v2");
    let b = write_version(&store, &changelog(ws, "b", "b v1"), at(3))
        .await
        .expect("b");
    publish(b.id).await;
    let blog = write_version(
        &store,
        &version(ws, "a", Surface::Blog, RunId::generate(), "post"),
        at(4),
    )
    .await
    .expect("blog");
    publish(blog.id).await;
    write_version(&store, &changelog(ws, "draft", "never published"), at(6))
        .await
        .expect("draft");
    let elsewhere = write_version(&store, &changelog(other, "a", "other"), at(7))
        .await
        .expect("other");
    publish(elsewhere.id).await;

    let listed = store.published_articles(ws, 10).await.expect("list");
    let ids: Vec<_> = listed.iter().map(|p| p.article_id).collect();
    assert_eq!(ids, [blog.id, b.id, a.id], "newest published version first");
    assert_eq!(listed[2].version, 1);
    assert_eq!(listed[2].created_at, at(2));
    assert_eq!(listed[2].surface, Surface::Changelog);
    assert_eq!(listed[2].feature_id, "a");
    assert_eq!(
        store.published_articles(ws, 2).await.expect("limit").len(),
        2
    );

    let feed = store
        .published_versions(ws, Surface::Changelog, 10)
        .await
        .expect("versions");
    let bodies: Vec<_> = feed.iter().map(|v| v.mdx_body.as_str()).collect();
    assert_eq!(bodies, ["b v1", "a v1"]);
    assert_eq!(
        store
            .published_versions(ws, Surface::Changelog, 1)
            .await
            .expect("limit")
            .len(),
        1
    );
}

// ---- Webhooks, events and deliveries ----

async fn active_webhook_urls_are_unique_per_workspace(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let other_ws = workspace(&store, "B", at(1)).await;
    let url = "https://example.com/hook";
    let first = insert_hook(
        &store,
        &hook(ws, url, &[EventType::RunCompleted], true),
        at(2),
    )
    .await
    .expect("insert");
    let dup = insert_hook(&store, &hook(ws, url, &[EventType::RunFailed], true), at(3)).await;
    assert!(matches!(dup, Err(StoreError::Conflict)), "{dup:?}");
    insert_hook(
        &store,
        &hook(other_ws, url, &[EventType::RunFailed], true),
        at(3),
    )
    .await
    .expect("another workspace may use the url");
    let inactive = insert_hook(
        &store,
        &hook(ws, url, &[EventType::RunFailed], false),
        at(3),
    )
    .await
    .expect("an inactive duplicate is allowed");

    let mut tx = store.begin().await.expect("begin");
    let activate = WebhookChanges {
        active: Some(true),
        ..Default::default()
    };
    let clash = tx.update_webhook(inactive.id, &activate, at(4)).await;
    assert!(matches!(clash, Err(StoreError::Conflict)), "{clash:?}");
    drop(tx);

    let mut tx = store.begin().await.expect("begin");
    tx.delete_webhook(first.id, at(5))
        .await
        .expect("delete")
        .expect("exists");
    let now_active = tx
        .update_webhook(inactive.id, &activate, at(5))
        .await
        .expect("update")
        .expect("exists");
    tx.commit().await.expect("commit");
    assert!(now_active.active, "a deleted subscription frees its url");
}

async fn webhook_updates_and_deletion(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let mut new = hook(
        ws,
        "https://example.com/a",
        &[EventType::RunCompleted],
        true,
    );
    new.description = Some("first".into());
    let h = insert_hook(&store, &new, at(2)).await.expect("insert");
    assert_eq!(h.failure_count, 0);
    assert_eq!(h.secret, vec![1, 2, 3]);

    let mut tx = store.begin().await.expect("begin");
    let url_only = WebhookChanges {
        url: Some("https://example.com/b".into()),
        ..Default::default()
    };
    let v = tx
        .update_webhook(h.id, &url_only, at(3))
        .await
        .expect("update")
        .expect("exists");
    assert_eq!(v.url, "https://example.com/b");
    assert_eq!(v.description.as_deref(), Some("first"));
    assert_eq!(v.events.0, [EventType::RunCompleted]);
    let clear = WebhookChanges {
        description: Some(None),
        events: Some(vec![EventType::RunFailed, EventType::DriftDetected]),
        active: Some(false),
        ..Default::default()
    };
    let v = tx
        .update_webhook(h.id, &clear, at(4))
        .await
        .expect("update")
        .expect("exists");
    assert!(v.description.is_none());
    assert!(!v.active);
    assert_eq!(v.events.0, [EventType::RunFailed, EventType::DriftDetected]);

    let rotated = tx
        .rotate_webhook_secret(h.id, &[9, 9], at(100), at(5))
        .await
        .expect("rotate")
        .expect("exists");
    assert_eq!(rotated.secret, vec![9, 9]);
    assert_eq!(rotated.previous_secret, Some(vec![1, 2, 3]));
    assert_eq!(rotated.previous_secret_expires_at, Some(at(100)));

    let deleted = tx
        .delete_webhook(h.id, at(6))
        .await
        .expect("delete")
        .expect("exists");
    assert_eq!(deleted.deleted_at, Some(at(6)));
    let twice = tx.delete_webhook(h.id, at(7)).await.expect("delete");
    assert!(twice.is_none());
    let after = tx
        .update_webhook(h.id, &url_only, at(7))
        .await
        .expect("update");
    assert!(after.is_none(), "a deleted subscription cannot be updated");
    tx.commit().await.expect("commit");
    assert!(store.webhook(h.id).await.expect("get").is_none());
    assert!(
        store
            .webhooks(ws, &KeysetPage::first(10))
            .await
            .expect("list")
            .is_empty()
    );
}

async fn record_event_fans_out_to_matching_active_subscriptions(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let other_ws = workspace(&store, "B", at(1)).await;
    let published = [EventType::ArticlePublished];
    let matching = insert_hook(
        &store,
        &hook(ws, "https://e.com/1", &published, true),
        at(2),
    )
    .await
    .expect("insert");
    let both = insert_hook(
        &store,
        &hook(
            ws,
            "https://e.com/2",
            &[EventType::RunCompleted, EventType::ArticlePublished],
            true,
        ),
        at(2),
    )
    .await
    .expect("insert");
    let other_type = insert_hook(
        &store,
        &hook(ws, "https://e.com/3", &[EventType::RunCompleted], true),
        at(2),
    )
    .await
    .expect("insert");
    let inactive = insert_hook(
        &store,
        &hook(ws, "https://e.com/4", &published, false),
        at(2),
    )
    .await
    .expect("insert");
    let deleted = insert_hook(
        &store,
        &hook(ws, "https://e.com/5", &published, true),
        at(2),
    )
    .await
    .expect("insert");
    let foreign = insert_hook(
        &store,
        &hook(other_ws, "https://e.com/1", &published, true),
        at(2),
    )
    .await
    .expect("insert");
    let mut tx = store.begin().await.expect("begin");
    tx.delete_webhook(deleted.id, at(3)).await.expect("delete");
    tx.commit().await.expect("commit");

    let event = record(&store, ws, EventType::ArticlePublished, at(4)).await;
    assert_eq!(event.workspace_id, ws);
    let payload: serde_json::Value = serde_json::from_str(&event.payload).expect("payload");
    assert_eq!(payload["id"], event.id.to_string());
    assert_eq!(payload["type"], "article.published");
    assert_eq!(payload["workspace_id"], ws.to_string());
    assert_eq!(payload["data"], json!({"n": 1}));

    for sub in [&matching, &both] {
        let d = deliveries_of(&store, sub.id).await;
        assert_eq!(d.len(), 1, "one delivery for {}", sub.url);
        assert_eq!(d[0].event_id, event.id);
        assert_eq!(d[0].event_type, EventType::ArticlePublished);
        assert_eq!(d[0].status, DeliveryStatus::Pending);
        assert_eq!(d[0].attempts, 0);
        assert_eq!(d[0].target_url, sub.url);
        assert!(!d[0].is_replay);
        assert_eq!(d[0].next_attempt_at, Some(at(4)));
    }
    for sub in [&other_type, &inactive, &deleted, &foreign] {
        assert!(
            deliveries_of(&store, sub.id).await.is_empty(),
            "no delivery for {} (active {}, workspace {})",
            sub.url,
            sub.active,
            sub.workspace_id
        );
    }

    // An event recorded in a transaction that rolls back leaves nothing.
    let mut tx = store.begin().await.expect("begin");
    tx.record_event(ws, EventType::ArticlePublished, json!({}), at(5))
        .await
        .expect("record");
    drop(tx);
    assert_eq!(deliveries_of(&store, matching.id).await.len(), 1);
}

async fn replay_creates_a_new_delivery_of_the_same_event(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let h = insert_hook(
        &store,
        &hook(ws, "https://e.com/old", &[EventType::RunFailed], true),
        at(2),
    )
    .await
    .expect("insert");
    let event = record(&store, ws, EventType::RunFailed, at(3)).await;
    let original = deliveries_of(&store, h.id).await.remove(0);
    let mut tx = store.begin().await.expect("begin");
    let moved = tx
        .update_webhook(
            h.id,
            &WebhookChanges {
                url: Some("https://e.com/new".into()),
                ..Default::default()
            },
            at(4),
        )
        .await
        .expect("update")
        .expect("exists");
    let copy = tx
        .replay_delivery(&moved, &original, at(5))
        .await
        .expect("replay");
    tx.commit().await.expect("commit");
    assert_ne!(copy.id, original.id);
    assert!(copy.is_replay);
    assert_eq!(copy.event_id, event.id);
    assert_eq!(copy.target_url, "https://e.com/new");
    assert_eq!(copy.status, DeliveryStatus::Pending);
    assert_eq!(
        store.delivery(copy.id).await.expect("get").map(|d| d.id),
        Some(copy.id)
    );
    let pending = store
        .deliveries(
            h.id,
            &status_filter(DeliveryStatus::Pending),
            &KeysetPage::first(10),
        )
        .await
        .expect("list");
    assert_eq!(
        pending.iter().map(|d| d.id).collect::<Vec<_>>(),
        [copy.id, original.id]
    );
    let dead = store
        .deliveries(
            h.id,
            &status_filter(DeliveryStatus::Dead),
            &KeysetPage::first(10),
        )
        .await
        .expect("list");
    assert!(dead.is_empty());

    let mut tx = store.begin().await.expect("begin");
    tx.delete_webhook(h.id, at(6)).await.expect("delete");
    tx.commit().await.expect("commit");
    let dead = store
        .deliveries(
            h.id,
            &status_filter(DeliveryStatus::Dead),
            &KeysetPage::first(10),
        )
        .await
        .expect("list");
    assert_eq!(
        dead.len(),
        2,
        "deleting a subscription kills its pending deliveries"
    );
}

// ---- Idempotency ----

fn claim(owner: &str, key: &str) -> Claim {
    Claim {
        owner: owner.to_owned(),
        key: key.to_owned(),
        token: format!("{owner}/{key}"),
    }
}

/// The same key claimed again by another request (another node, after the first one died).
fn takeover(c: &Claim) -> Claim {
    Claim {
        token: format!("{}'", c.token),
        ..c.clone()
    }
}

/// Claims with a 24-hour window and a 60-second abandonment threshold as of `now`.
async fn claim_at(store: &Store, c: Claim, fingerprint: &str, now: Timestamp) -> ClaimOutcome {
    store
        .claim_idempotency_key(
            c,
            fingerprint,
            now,
            now.minus(Duration::from_secs(24 * 3600)),
            now.minus(Duration::from_secs(60)),
        )
        .await
        .expect("claim")
}

async fn idempotency_claim_outcomes(store: Db) {
    let c = claim("ws_a", "key-1");
    assert_eq!(
        claim_at(&store, c.clone(), "fp", at(0)).await,
        ClaimOutcome::Claimed(c.clone())
    );
    assert_eq!(
        claim_at(&store, c.clone(), "fp", at(1)).await,
        ClaimOutcome::InProgress
    );
    assert_eq!(
        claim_at(&store, c.clone(), "other", at(1)).await,
        ClaimOutcome::Mismatch
    );
    let elsewhere = claim("ws_b", "key-1");
    assert_eq!(
        claim_at(&store, elsewhere.clone(), "other", at(1)).await,
        ClaimOutcome::Claimed(elsewhere),
        "keys are scoped to their owner"
    );

    let response = StoredResponse {
        status: 201,
        headers: vec![("location".into(), "http://x/v1/runs/1".into())],
        body: b"{\"id\":\"run_1\"}".to_vec(),
    };
    let mut tx = store.begin().await.expect("begin");
    tx.complete_idempotency(&c, &response)
        .await
        .expect("complete");
    tx.commit().await.expect("commit");
    assert_eq!(
        claim_at(&store, c.clone(), "fp", at(2)).await,
        ClaimOutcome::Replay(response.clone())
    );
    assert_eq!(
        claim_at(&store, c.clone(), "other", at(2)).await,
        ClaimOutcome::Mismatch
    );

    // A completion rolled back with its transaction leaves the claim in progress.
    let c2 = claim("ws_a", "key-2");
    assert!(matches!(
        claim_at(&store, c2.clone(), "fp", at(3)).await,
        ClaimOutcome::Claimed(_)
    ));
    let mut tx = store.begin().await.expect("begin");
    tx.complete_idempotency(&c2, &response)
        .await
        .expect("complete");
    drop(tx);
    assert_eq!(
        claim_at(&store, c2.clone(), "fp", at(4)).await,
        ClaimOutcome::InProgress
    );
    store
        .complete_idempotency(
            &c2,
            &StoredResponse {
                status: 422,
                headers: vec![],
                body: b"{}".to_vec(),
            },
        )
        .await
        .expect("complete without a transaction");
    match claim_at(&store, c2, "fp", at(5)).await {
        ClaimOutcome::Replay(r) => {
            assert_eq!(r.status, 422);
            assert_eq!(r.body, b"{}");
        }
        other => panic!("a stored 4xx replays: {other:?}"),
    }
}

async fn idempotency_claims_beat_and_fence_their_takeover(store: Db) {
    let first = claim("platform", "beating");
    claim_at(&store, first.clone(), "fp", at(0)).await;
    // Beating keeps the claim its own past the threshold counted from its start.
    assert!(store.beat_idempotency(&first, at(50)).await.expect("beat"));
    assert_eq!(
        claim_at(&store, takeover(&first), "fp", at(100)).await,
        ClaimOutcome::InProgress,
        "a claim that beat 50 s ago is alive for a 60 s threshold"
    );
    // It stops beating (its node died): taken over.
    let second = takeover(&first);
    assert_eq!(
        claim_at(&store, second.clone(), "fp", at(111)).await,
        ClaimOutcome::Claimed(second.clone())
    );
    // The first claimant wakes up: it can neither beat, nor store its answer, nor release the
    // key under the one that runs now.
    assert!(!store.beat_idempotency(&first, at(112)).await.expect("beat"));
    let response = StoredResponse {
        status: 201,
        headers: vec![],
        body: b"first".to_vec(),
    };
    let mut tx = store.begin().await.expect("begin");
    assert!(matches!(
        tx.complete_idempotency(&first, &response).await,
        Err(StoreError::ClaimLost)
    ));
    drop(tx);
    assert!(matches!(
        store.complete_idempotency(&first, &response).await,
        Err(StoreError::ClaimLost)
    ));
    store.release_idempotency(&first).await.expect("release");
    assert_eq!(
        claim_at(&store, claim("platform", "beating"), "fp", at(113)).await,
        ClaimOutcome::InProgress,
        "the old claimant's release leaves the new claim in place"
    );
    let mut tx = store.begin().await.expect("begin");
    tx.complete_idempotency(
        &second,
        &StoredResponse {
            status: 201,
            headers: vec![],
            body: b"second".to_vec(),
        },
    )
    .await
    .expect("the claim's owner completes it");
    tx.commit().await.expect("commit");
    match claim_at(&store, first, "fp", at(114)).await {
        ClaimOutcome::Replay(r) => assert_eq!(r.body, b"second"),
        other => panic!("the second answer replays: {other:?}"),
    }
}

async fn idempotency_records_expire_and_can_be_released(store: Db) {
    let done = claim("platform", "done");
    claim_at(&store, done.clone(), "fp", at(0)).await;
    store
        .complete_idempotency(
            &done,
            &StoredResponse {
                status: 200,
                headers: vec![],
                body: vec![],
            },
        )
        .await
        .expect("complete");
    let day = 24 * 3600;
    assert!(matches!(
        claim_at(&store, done.clone(), "fp", at(day - 1)).await,
        ClaimOutcome::Replay(_)
    ));
    assert_eq!(
        claim_at(&store, done.clone(), "different", at(day + 1)).await,
        ClaimOutcome::Claimed(done.clone()),
        "after 24 hours the key is forgotten"
    );

    let released = claim("platform", "released");
    claim_at(&store, released.clone(), "fp", at(0)).await;
    store.release_idempotency(&released).await.expect("release");
    assert_eq!(
        claim_at(&store, released.clone(), "fp", at(1)).await,
        ClaimOutcome::Claimed(released.clone()),
        "a released key runs again"
    );

    let abandoned = claim("platform", "abandoned");
    claim_at(&store, abandoned.clone(), "fp", at(0)).await;
    assert_eq!(
        claim_at(&store, takeover(&abandoned), "fp", at(30)).await,
        ClaimOutcome::InProgress
    );
    assert_eq!(
        claim_at(&store, takeover(&abandoned), "fp", at(61)).await,
        ClaimOutcome::Claimed(takeover(&abandoned)),
        "an unfinished claim of a dead process is taken over"
    );

    // Release never forgets a finished record.
    let finished = claim("platform", "finished");
    claim_at(&store, finished.clone(), "fp", at(0)).await;
    store
        .complete_idempotency(
            &finished,
            &StoredResponse {
                status: 201,
                headers: vec![],
                body: vec![],
            },
        )
        .await
        .expect("complete");
    store.release_idempotency(&finished).await.expect("release");
    assert!(matches!(
        claim_at(&store, finished, "fp", at(1)).await,
        ClaimOutcome::Replay(_)
    ));

    let purged = store.purge_idempotency(at(day + 10)).await.expect("purge");
    assert!(purged >= 1);
}

// ---- Paging ----

async fn keyset_pages_are_newest_first_without_gaps_or_repeats(store: Db) {
    // Seven workspaces, some sharing a created_at: ties are ordered by id, descending.
    let mut expected = Vec::new();
    for (i, second) in [1, 2, 2, 2, 3, 4, 4].iter().enumerate() {
        let id = workspace(&store, &format!("w{i}"), at(*second)).await;
        expected.push((at(*second), id));
    }
    expected.sort_by(|a, b| b.cmp(a));
    let expected: Vec<WorkspaceId> = expected.into_iter().map(|(_, id)| id).collect();

    let mut seen = Vec::new();
    let mut page = KeysetPage::first(3);
    loop {
        let rows = store.workspaces(None, &page).await.expect("page");
        assert!(rows.len() <= 4, "at most limit + 1 rows");
        let more = rows.len() > 3;
        let shown: Vec<_> = rows.into_iter().take(3).collect();
        seen.extend(shown.iter().map(|w| w.id));
        if !more {
            break;
        }
        let last = shown.last().expect("a full page");
        page = KeysetPage {
            limit: 3,
            after: Some(Position {
                created_at: last.created_at,
                id: last.id.to_string(),
            }),
        };
        // A row inserted while paging is newer than every position, so it never shows up
        // on a later page and nothing is skipped.
        workspace(&store, "late", at(10)).await;
    }
    assert_eq!(seen, expected);
}

/// On SQLite the point reads on the request path (workspace, token by hash, run) go through
/// rusqlite rather than sqlx: every column must decode exactly as sqlx decodes it elsewhere.
async fn point_reads_decode_every_column_as_the_other_reads_do(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let listed = store
        .workspaces(Some(ws), &KeysetPage::first(1))
        .await
        .expect("list");
    let got = store.workspace(ws).await.expect("get").expect("found");
    assert_eq!(format!("{got:?}"), format!("{:?}", listed[0]));

    let mut tx = store.begin().await.expect("begin");
    let token = tx
        .insert_token(
            Some(ws),
            "ci",
            Scope::Publish,
            b"hash-p",
            Some(75),
            None,
            at(2),
        )
        .await
        .expect("insert");
    tx.commit().await.expect("commit");
    let by_hash = store.token_by_hash(b"hash-p").await.expect("by hash");
    let by_id = store.token(token.id).await.expect("by id");
    assert_eq!(format!("{by_hash:?}"), format!("{by_id:?}"));

    // A run with every column set: narrowed surfaces, claimed, finished with artifacts.
    let mut run = new_run(ws, "export", Tier::Priority, false);
    run.surfaces = Some(vec![Surface::Blog, Surface::Changelog]);
    let queued = trigger(&store, run, at(3)).await.expect("trigger");
    let claimed = store
        .claim_run("w1", at(60), at(4), 3)
        .await
        .expect("claim")
        .expect("claimed");
    assert_eq!(claimed.id, queued.run().id);
    let ending = store::RunEnding {
        status: RunStatus::Failed,
        source_commit: Some("abc123".into()),
        artifacts: vec![store::Artifact {
            article_id: ArticleId::generate(),
            surface: Surface::Blog,
            version: 2,
            unchanged: true,
        }],
        error: Some("render failed".into()),
    };
    let mut tx = store.begin().await.expect("begin");
    let finished = tx
        .finish_run(claimed.id, Some("w1"), &ending, at(5))
        .await
        .expect("finish")
        .expect("held");
    tx.commit().await.expect("commit");
    let read = store.run(claimed.id).await.expect("run").expect("found");
    assert_eq!(format!("{read:?}"), format!("{finished:?}"));
    assert!(read.started_at.is_some() && read.finished_at.is_some());
}

/// One tenant's backlog cannot hold every run slot: the workspace with fewer runs in flight,
/// then the one served longest ago, goes first; `priority` still beats everything.
async fn run_claims_take_turns_across_workspaces(store: Db) {
    let a = workspace(&store, "A", at(1)).await;
    let b = workspace(&store, "B", at(1)).await;
    let mut a_runs = Vec::new();
    for i in 0..5 {
        let run = trigger(
            &store,
            new_run(a, &format!("a{i}"), Tier::Standard, false),
            at(2 + i),
        )
        .await
        .expect("trigger");
        a_runs.push(run.run().id);
    }
    let b_run = trigger(&store, new_run(b, "b0", Tier::Standard, false), at(10))
        .await
        .expect("trigger")
        .run()
        .id;
    let claim = |worker: &'static str, now: i64| {
        let store = store.clone();
        async move {
            store
                .claim_run(worker, at(now + 600), at(now), 3)
                .await
                .expect("claim")
                .map(|r| r.id)
        }
    };

    assert_eq!(claim("w1", 20).await, Some(a_runs[0]), "oldest first");
    assert_eq!(
        claim("w2", 21).await,
        Some(b_run),
        "A already runs one: B's later run goes before A's four older ones"
    );
    assert_eq!(claim("w3", 22).await, Some(a_runs[1]));

    // One slot turning over: A's run finished, and A's next run still waits for B's turn.
    let c = workspace(&store, "C", at(23)).await;
    let c_run = trigger(&store, new_run(c, "c0", Tier::Standard, false), at(24))
        .await
        .expect("trigger")
        .run()
        .id;
    let ending = store::RunEnding {
        status: RunStatus::Succeeded,
        source_commit: None,
        artifacts: Vec::new(),
        error: None,
    };
    for (run, worker) in [(a_runs[0], "w1"), (a_runs[1], "w3")] {
        let mut tx = store.begin().await.expect("begin");
        tx.finish_run(run, Some(worker), &ending, at(25))
            .await
            .expect("finish")
            .expect("held");
        tx.commit().await.expect("commit");
    }
    assert_eq!(
        claim("w4", 26).await,
        Some(c_run),
        "C never ran: it goes before A, which has nothing running but was served recently"
    );

    // Priority first, whoever has more in flight.
    let urgent = trigger(&store, new_run(a, "urgent", Tier::Priority, false), at(27))
        .await
        .expect("trigger")
        .run()
        .id;
    let late_b = trigger(&store, new_run(b, "b1", Tier::Standard, false), at(28))
        .await
        .expect("trigger")
        .run()
        .id;
    assert_eq!(claim("w5", 29).await, Some(urgent));
    assert_eq!(
        claim("w6", 30).await,
        Some(late_b),
        "A, B and C run one each: B was served longer ago than A"
    );
}

/// A follower of a run is woken by each change once it is committed (never before, when a
/// reader could not see it yet): appended events, a claim, the end of the run.
async fn followers_of_a_run_wake_when_its_changes_commit(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let run = trigger(&store, new_run(ws, "f", Tier::Standard, false), at(2))
        .await
        .expect("trigger")
        .run()
        .id;
    let mut follower = store.follow_run(run);
    let quiet = Duration::from_millis(100);
    let woken = Duration::from_secs(2);

    let mut tx = store.begin().await.expect("begin");
    tx.append_run_event(
        run,
        LogLevel::Info,
        LogStage::Resolve,
        "one",
        &json!({}),
        at(3),
    )
    .await
    .expect("append");
    assert!(
        tokio::time::timeout(quiet, follower.changed())
            .await
            .is_err(),
        "not before the commit"
    );
    tx.commit().await.expect("commit");
    tokio::time::timeout(woken, follower.changed())
        .await
        .expect("woken by the committed event");

    let claimed = store
        .claim_run("w1", at(600), at(4), 3)
        .await
        .expect("claim")
        .expect("claimed");
    assert_eq!(claimed.id, run);
    tokio::time::timeout(woken, follower.changed())
        .await
        .expect("woken by the claim");
    // On PostgreSQL this node hears its own NOTIFY of the claim too, a moment later.
    tokio::time::sleep(Duration::from_millis(100)).await;
    follower.arm();

    let other = trigger(&store, new_run(ws, "g", Tier::Standard, false), at(5))
        .await
        .expect("trigger")
        .run()
        .id;
    store
        .log_run_event(
            other,
            LogLevel::Info,
            LogStage::Resolve,
            "elsewhere",
            &json!({}),
            at(5),
        )
        .await
        .expect("log");
    assert!(
        tokio::time::timeout(quiet, follower.changed())
            .await
            .is_err(),
        "another run's event does not wake this follower"
    );

    let mut tx = store.begin().await.expect("begin");
    let ending = store::RunEnding {
        status: RunStatus::Succeeded,
        source_commit: None,
        artifacts: Vec::new(),
        error: None,
    };
    tx.finish_run(run, Some("w1"), &ending, at(6))
        .await
        .expect("finish")
        .expect("held");
    tx.commit().await.expect("commit");
    tokio::time::timeout(woken, follower.changed())
        .await
        .expect("woken by the end of the run");
}

/// `sqlite::memory:` keeps every read on sqlx (a second library cannot open sqlx's in-memory
/// database), and still answers the point reads of the request path.
#[tokio::test]
async fn an_in_memory_sqlite_store_answers_point_reads() {
    let store = Store::connect("sqlite::memory:").await.expect("connect");
    store.migrate().await.expect("migrate");
    let ws = workspace(&store, "memory", at(1)).await;
    let found = store.workspace(ws).await.expect("read").expect("found");
    assert_eq!(found.name, "memory");
}

// ---- Files (SQLite only) ----

/// The database, its WAL and its shared-memory file hold every tenant's data: only the
/// service's user may read them, whatever the umask.
#[tokio::test]
async fn sqlite_files_are_created_readable_by_their_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let store = open(TestDatabase::sqlite()).await;
    workspace(&store, "private", at(0)).await;
    let file = store.db.sqlite_file().expect("a SQLite file");
    let mode = |name: &str| {
        std::fs::metadata(name)
            .map(|m| m.permissions().mode() & 0o777)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    for suffix in ["", "-wal", "-shm"] {
        let name = format!("{}{suffix}", file.display());
        assert_eq!(mode(&name), 0o600, "{name} is {:o}", mode(&name));
    }
}

async fn the_current_version_of_an_article_is_found_by_its_key(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    let mut tx = store.begin().await.expect("begin");
    let none = tx
        .current_article_version(ws, "export", Surface::Blog)
        .await
        .expect("read");
    assert!(none.is_none());
    tx.commit().await.expect("commit");
    let mut second = version(ws, "export", Surface::Blog, RunId::generate(), "two");
    second.provenance = json!({"commit": "def", "body_hash": "h2"});
    write_version(
        &store,
        &version(ws, "export", Surface::Blog, RunId::generate(), "one"),
        at(2),
    )
    .await
    .expect("write");
    let article = write_version(&store, &second, at(3)).await.expect("write");
    write_version(
        &store,
        &version(ws, "export", Surface::DevDocs, RunId::generate(), "docs"),
        at(4),
    )
    .await
    .expect("write");
    let mut tx = store.begin().await.expect("begin");
    let current = tx
        .current_article_version(ws, "export", Surface::Blog)
        .await
        .expect("read")
        .expect("the blog article exists");
    tx.commit().await.expect("commit");
    assert_eq!(current.article_id, article.id);
    assert_eq!(current.version, 2);
    assert_eq!(current.mdx_body, "two");
    assert_eq!(current.provenance.0["body_hash"], "h2");
    let other = workspace(&store, "B", at(5)).await;
    let mut tx = store.begin().await.expect("begin");
    assert!(
        tx.current_article_version(other, "export", Surface::Blog)
            .await
            .expect("read")
            .is_none(),
        "another workspace's article is not this one's"
    );
    tx.commit().await.expect("commit");
}

async fn drift_reads_the_provenances_of_one_feature_or_all(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    for (i, feature) in ["export", "import", "export"].into_iter().enumerate() {
        let surface = if i == 2 {
            Surface::DevDocs
        } else {
            Surface::Blog
        };
        write_version(
            &store,
            &version(ws, feature, surface, RunId::generate(), "body"),
            at(2 + i as i64),
        )
        .await
        .expect("write");
    }
    let all = store.article_provenances(ws, None).await.expect("all");
    assert_eq!(all.len(), 3);
    let export = store
        .article_provenances(ws, Some("export"))
        .await
        .expect("one feature");
    assert_eq!(
        export
            .iter()
            .map(|a| (a.feature_id.as_str(), a.surface))
            .collect::<Vec<_>>(),
        [("export", Surface::Blog), ("export", Surface::DevDocs)]
    );
    assert_eq!(export[0].provenance.0["commit"], "abc");
    assert!(
        store
            .article_provenances(ws, Some("missing"))
            .await
            .expect("none")
            .is_empty()
    );
}

async fn the_two_latest_distinct_successful_commits_of_a_feature(store: Db) {
    let ws = workspace(&store, "A", at(1)).await;
    assert!(
        store
            .last_successful_commits(ws, "export")
            .await
            .expect("read")
            .is_empty()
    );
    // Runs at commits a, b, b (the last a re-run at the same HEAD) and one failed run at c.
    for (i, (commit, status)) in [
        ("a", RunStatus::Succeeded),
        ("b", RunStatus::Succeeded),
        ("b", RunStatus::Succeeded),
        ("c", RunStatus::Failed),
    ]
    .into_iter()
    .enumerate()
    {
        let now = 10 * (i as i64 + 1);
        trigger(
            &store,
            new_run(ws, "export", Tier::Standard, false),
            at(now),
        )
        .await
        .expect("trigger");
        let claimed = store
            .claim_run("w1", at(now + 60), at(now + 1), 3)
            .await
            .expect("claim")
            .expect("claimed");
        let ending = store::RunEnding {
            status,
            source_commit: Some(commit.into()),
            artifacts: Vec::new(),
            error: None,
        };
        let mut tx = store.begin().await.expect("begin");
        tx.finish_run(claimed.id, Some("w1"), &ending, at(now + 2))
            .await
            .expect("finish")
            .expect("ours");
        tx.commit().await.expect("commit");
    }
    assert_eq!(
        store
            .last_successful_commits(ws, "export")
            .await
            .expect("read"),
        ["b", "a"]
    );
    assert!(
        store
            .last_successful_commits(ws, "import")
            .await
            .expect("read")
            .is_empty()
    );
}

/// A transaction whose work failed is rolled back, one dropped before it committed (its
/// caller gone) is undone with its connection, one dropped while `BEGIN` was in flight as
/// well; after each the next transaction takes the same (single, on SQLite) writer at once.
async fn a_transaction_that_does_not_commit_leaves_nothing_behind(store: Db) {
    let now = at(0);
    let failed: Result<(), StoreError> = store
        .write(move |tx| {
            Box::pin(async move {
                tx.insert_workspace("failed", None, now).await?;
                Err(StoreError::Corrupt("the work failed".into()))
            })
        })
        .await;
    assert!(failed.is_err());

    let mut tx = store.begin().await.expect("begin");
    let dropped = tx
        .insert_workspace("dropped", None, now)
        .await
        .expect("insert");
    drop(tx);

    for _ in 0..20 {
        let begun = tokio::time::timeout(Duration::from_micros(50), store.begin()).await;
        drop(begun);
    }

    let started = std::time::Instant::now();
    let kept = workspace(&store, "kept", now).await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "the writer was free again at once"
    );
    assert!(store.workspace(dropped.id).await.expect("read").is_none());
    assert!(store.workspace(kept).await.expect("read").is_some());
    let names: Vec<String> = store
        .workspaces(None, &KeysetPage::first(100))
        .await
        .expect("list")
        .into_iter()
        .map(|w| w.name)
        .collect();
    assert_eq!(names, ["kept"], "only the committed workspace exists");
}

/// On SQLite a transaction's hot statements run in place on the writer thread and the others on
/// sqlx's thread (`store::direct`): whichever order they come in, they are one transaction,
/// committed or undone together, and a transaction dropped while it holds the handle (its work
/// panicked right after a statement in place) is undone with its connection and frees the
/// writer at once. The same sequences on PostgreSQL, where every statement runs on sqlx.
async fn statements_run_in_place_and_on_sqlx_share_one_transaction(store: Db) {
    let now = at(0);
    let ws = workspace(&store, "mixed", now).await;

    // In place, sqlx, in place again, then COMMIT (in place).
    mixed(&store, ws, ["a", "b"], "second", End::Commit)
        .await
        .expect("committed");
    // The same, failed: ROLLBACK in place, and nothing of either kind stays.
    assert!(
        mixed(&store, ws, ["c", "d"], "failed", End::Fail)
            .await
            .is_err()
    );
    // sqlx last, then COMMIT on sqlx.
    store
        .write(move |tx| {
            Box::pin(async move {
                tx.trigger_run(new_run(ws, "e", Tier::Standard, false), now)
                    .await?;
                tx.insert_workspace("third", None, now).await?;
                Ok::<_, StoreError>(())
            })
        })
        .await
        .expect("committed");
    // Dropped right after a statement in place, twice in a row.
    for features in [["f", "g"], ["i", "j"]] {
        assert!(
            mixed(&store, ws, features, "dropped", End::Panic)
                .await
                .is_err()
        );
    }
    let started = std::time::Instant::now();
    store
        .write(move |tx| {
            Box::pin(async move {
                tx.trigger_run(new_run(ws, "h", Tier::Standard, false), now)
                    .await
            })
        })
        .await
        .expect("h");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "the writer was free again at once"
    );

    let page = KeysetPage::first(100);
    let runs = store.runs(ws, &page).await.expect("runs");
    let workspaces = store.workspaces(None, &page).await.expect("workspaces");
    assert_eq!(
        sorted(runs.into_iter().map(|r| r.feature_id)),
        ["a", "b", "e", "h"]
    );
    assert_eq!(
        sorted(workspaces.into_iter().map(|w| w.name)),
        ["mixed", "second", "third"]
    );
}

fn sorted(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut items: Vec<String> = items.collect();
    items.sort();
    items
}

/// How [`mixed`]'s work ends.
#[derive(Clone, Copy)]
enum End {
    Commit,
    Fail,
    Panic,
}

/// One `Store::write` (on SQLite, on the writer thread, where the hot statements run in place)
/// that triggers `features[0]` (in place), inserts workspace `name` (on sqlx), triggers
/// `features[1]` (in place again), and ends as `end` says.
async fn mixed(
    store: &Store,
    ws: WorkspaceId,
    features: [&'static str; 2],
    name: &'static str,
    end: End,
) -> Result<(), StoreError> {
    let now = at(0);
    store
        .write(move |tx| {
            Box::pin(async move {
                tx.trigger_run(new_run(ws, features[0], Tier::Standard, false), now)
                    .await?;
                tx.insert_workspace(name, None, now).await?;
                tx.trigger_run(new_run(ws, features[1], Tier::Standard, false), now)
                    .await?;
                match end {
                    End::Commit => Ok(()),
                    End::Fail => Err(StoreError::Corrupt("the work failed".into())),
                    End::Panic => panic!("the work panicked holding the writer's handle"),
                }
            })
        })
        .await
}
