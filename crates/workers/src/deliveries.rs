//! The webhook delivery worker: claims due deliveries in batches under a lease, sends each
//! attempt in its own task (bounded concurrency, per-attempt timeout, so one slow receiver
//! only ever holds its own attempts), and records outcomes in batched transactions.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use domain::{Clock, Timestamp, WebhookId, WorkspaceId};
use store::{AttemptLog, AttemptRecord, ClaimedDelivery, NextStep, Queue, Saturated, Store};
use tokio::sync::{Notify, Semaphore, mpsc};
use webhooks::{
    AddressPolicy, Attempt, AttemptOutcome, Exchange, FailureKind, RetrySchedule,
    SECRETS_KEY_PURPOSE, SecretBox, Sender, SigningSecret, derive_key,
};

use crate::{Shutdown, WorkerContext, WorkerError};

/// How the delivery worker behaves; built from configuration.
#[derive(Clone, Debug)]
pub struct DeliverySettings {
    pub schedule: RetrySchedule,
    /// The whole-attempt timeout.
    pub timeout: Duration,
    pub address_policy: AddressPolicy,
    /// Attempts in flight at once in this process.
    pub concurrency: usize,
    /// Attempts in flight at once to one subscription in this process: a receiver that hangs
    /// holds at most this many slots, the others stay free for everyone else.
    pub per_subscription: usize,
    /// Attempts in flight at once for one workspace in this process, across its
    /// subscriptions: a tenant whose receivers all hang leaves the other slots to the others.
    pub per_workspace: usize,
    /// How often an idle worker looks for due deliveries without being woken: new
    /// deliveries wake it (see `store::Wakeup`) and it sleeps until the next one falls due,
    /// so this only bounds how late a missed wake-up is made up for.
    pub safety_poll: Duration,
}

impl DeliverySettings {
    pub fn new(schedule: RetrySchedule, timeout: Duration, address_policy: AddressPolicy) -> Self {
        Self {
            schedule,
            timeout,
            address_policy,
            concurrency: 256,
            per_subscription: 64,
            per_workspace: 128,
            safety_poll: Duration::from_secs(5),
        }
    }

    /// How long a claim is held: the attempt's timeout, time to record it, and a margin. A
    /// worker that died is replaced after this long.
    pub fn lease(&self) -> Duration {
        self.timeout * 2 + Duration::from_secs(5)
    }

    /// How long a delivery goes back to the queue for when it could not start in this worker:
    /// it waited for its subscription's (or workspace's) slot longer than `HOLD_LIMIT`, found
    /// the hold full (`MAX_HELD`), or the worker stopped (see `Held`).
    fn deferral(&self) -> Duration {
        DEFERRAL
    }
}

/// The most attempts in flight at once in this process, per subscription and per workspace.
#[derive(Clone, Copy, Debug)]
struct Caps {
    subscription: usize,
    workspace: usize,
}

/// Attempts in flight in this process, per subscription and per workspace.
#[derive(Clone, Default)]
struct InFlight(Arc<Mutex<Counts>>);

#[derive(Default)]
struct Counts {
    subscriptions: HashMap<WebhookId, usize>,
    workspaces: HashMap<WorkspaceId, usize>,
}

impl InFlight {
    fn counts(&self) -> std::sync::MutexGuard<'_, Counts> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn try_enter(&self, d: &ClaimedDelivery, caps: Caps) -> bool {
        let mut counts = self.counts();
        let subscription = counts.subscriptions.get(&d.subscription_id).copied();
        let workspace = counts.workspaces.get(&d.workspace_id).copied();
        if subscription.unwrap_or(0) >= caps.subscription
            || workspace.unwrap_or(0) >= caps.workspace
        {
            return false;
        }
        *counts.subscriptions.entry(d.subscription_id).or_default() += 1;
        *counts.workspaces.entry(d.workspace_id).or_default() += 1;
        true
    }

    /// The subscriptions and workspaces at their cap: the next claim leaves their deliveries
    /// alone.
    fn saturated(&self, caps: Caps) -> Saturated {
        let counts = self.counts();
        let full = |n: &usize, cap: usize| *n >= cap;
        Saturated {
            subscriptions: counts
                .subscriptions
                .iter()
                .filter(|(_, n)| full(n, caps.subscription))
                .map(|(id, _)| *id)
                .collect(),
            workspaces: counts
                .workspaces
                .iter()
                .filter(|(_, n)| full(n, caps.workspace))
                .map(|(id, _)| *id)
                .collect(),
        }
    }

    fn leave(&self, subscription: WebhookId, workspace: WorkspaceId) {
        let mut counts = self.counts();
        release(&mut counts.subscriptions, subscription);
        release(&mut counts.workspaces, workspace);
    }
}

fn release<K: std::hash::Hash + Eq>(map: &mut HashMap<K, usize>, key: K) {
    if let Some(n) = map.get_mut(&key) {
        *n = n.saturating_sub(1);
        if *n == 0 {
            map.remove(&key);
        }
    }
}

/// Deliveries this worker claimed beyond their subscription's or workspace's cap. They start
/// here as soon as a slot frees, rather than going back to the queue through the outcome
/// recorder to be claimed again: in a burst to one workspace that round trip through the
/// database was most of the recorder's work and most of the lag. A held delivery is still
/// leased to this worker; it goes back to the queue after `HOLD_LIMIT`, past `MAX_HELD`, or
/// when the worker stops. (Held for its subscription's cap, it does not hold up the rest of its
/// workspace: only what is at its cap is left out of claims.)
#[derive(Default)]
struct Held(std::collections::VecDeque<(ClaimedDelivery, String, std::time::Instant)>);

impl Held {
    /// True when a delivery of `subscription` is held: a later one of it waits behind.
    fn holds(&self, subscription: WebhookId) -> bool {
        self.0
            .iter()
            .any(|(d, _, _)| d.subscription_id == subscription)
    }

    /// When the oldest goes back to the queue.
    fn next_expiry(&self) -> Option<std::time::Instant> {
        self.0.front().map(|(_, _, since)| *since + HOLD_LIMIT)
    }
}

/// What starting an attempt takes: a slot of the process, room under its subscription's and
/// workspace's caps, and where its outcome goes.
struct Slots {
    permits: Arc<Semaphore>,
    in_flight: InFlight,
    caps: Caps,
    outcomes: mpsc::UnboundedSender<AttemptRecord>,
    finished: Arc<Notify>,
}

/// Whether an attempt may start now.
enum Admission {
    /// Every slot of the process is taken.
    NoSlot,
    /// Its subscription or workspace is at its cap.
    Full,
    Admitted(tokio::sync::OwnedSemaphorePermit),
}

impl Slots {
    fn admit(&self, d: &ClaimedDelivery) -> Admission {
        let Ok(permit) = self.permits.clone().try_acquire_owned() else {
            return Admission::NoSlot;
        };
        match self.in_flight.try_enter(d, self.caps) {
            true => Admission::Admitted(permit),
            false => Admission::Full,
        }
    }

    /// Starts a claimed delivery's attempt, or holds it until its subscription and workspace
    /// have room (back to the queue when the hold is full). False when no slot of the process
    /// was free.
    fn start_claimed(
        &self,
        worker: &Arc<DeliveryWorker>,
        delivery: ClaimedDelivery,
        lease_owner: String,
        held: &mut Held,
    ) -> bool {
        // A delivery of a subscription with one held goes behind it, even if the slot freed
        // while this was being claimed: the held one is older.
        let admission = match held.holds(delivery.subscription_id) {
            true => Admission::Full,
            false => self.admit(&delivery),
        };
        match admission {
            Admission::Admitted(permit) => self.spawn(worker, delivery, lease_owner, permit),
            Admission::Full if held.0.len() < MAX_HELD => {
                held.0
                    .push_back((delivery, lease_owner, std::time::Instant::now()));
            }
            Admission::Full => {
                let _ = self.outcomes.send(worker.defer(&delivery, lease_owner));
            }
            Admission::NoSlot => return false,
        }
        true
    }

    /// Starts the held deliveries that now have room, oldest first, and sends those held too
    /// long back to the queue.
    fn start_held(&self, worker: &Arc<DeliveryWorker>, held: &mut Held) {
        let now = std::time::Instant::now();
        for (delivery, lease_owner, since) in std::mem::take(&mut held.0) {
            if now.duration_since(since) >= HOLD_LIMIT {
                let _ = self.outcomes.send(worker.defer(&delivery, lease_owner));
                continue;
            }
            match self.admit(&delivery) {
                Admission::Admitted(permit) => self.spawn(worker, delivery, lease_owner, permit),
                Admission::Full | Admission::NoSlot => {
                    held.0.push_back((delivery, lease_owner, since))
                }
            }
        }
    }

    fn spawn(
        &self,
        worker: &Arc<DeliveryWorker>,
        delivery: ClaimedDelivery,
        lease_owner: String,
        permit: tokio::sync::OwnedSemaphorePermit,
    ) {
        let worker = Arc::clone(worker);
        let outcomes = self.outcomes.clone();
        let in_flight = self.in_flight.clone();
        let finished = Arc::clone(&self.finished);
        tokio::spawn(async move {
            let (subscription, workspace) = (delivery.subscription_id, delivery.workspace_id);
            let record = worker.attempt(delivery, lease_owner).await;
            let _ = outcomes.send(record);
            in_flight.leave(subscription, workspace);
            drop(permit);
            finished.notify_one();
        });
    }
}

/// Resolves at `at`, or never.
async fn sleep_until(at: Option<std::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

/// How long a delivery left out of a claim by its subscription's or workspace's cap waits.
const DEFERRAL: Duration = Duration::from_millis(50);
/// How long a claimed delivery over its subscription's or workspace's cap waits in this
/// worker for a slot before it goes back to the queue (far inside its lease).
const HOLD_LIMIT: Duration = Duration::from_secs(1);
/// Most deliveries waiting in this worker for a slot; past it they go back to the queue.
const MAX_HELD: usize = 2 * CLAIM_BATCH;
/// Most deliveries claimed in one statement.
const CLAIM_BATCH: usize = 200;
/// Most outcomes recorded in one transaction.
const RECORD_BATCH: usize = 500;

pub struct DeliveryWorker {
    store: Store,
    clock: Clock,
    secrets: SecretBox,
    sender: Sender,
    settings: DeliverySettings,
}

impl DeliveryWorker {
    pub fn new(ctx: &WorkerContext) -> Result<Self, WorkerError> {
        let settings = ctx.deliveries.clone();
        let sender = Sender::new(settings.address_policy.clone(), settings.timeout)
            .map_err(|e| WorkerError::HttpClient(e.to_string()))?;
        Ok(Self {
            store: ctx.store.clone(),
            clock: ctx.clock.clone(),
            secrets: SecretBox::new(&derive_key(&ctx.server_key, SECRETS_KEY_PURPOSE)),
            sender,
            settings,
        })
    }

    /// Runs until `shutdown`; then claims nothing more, lets the attempts in flight finish
    /// (each is bounded by the timeout) and records them before returning.
    pub async fn run(self, mut shutdown: Shutdown) {
        let concurrency = self.settings.concurrency.max(1);
        let permits = Arc::new(Semaphore::new(concurrency));
        let (outcomes, inbox) = mpsc::unbounded_channel();
        let recorder = tokio::spawn(record_outcomes(
            self.store.clone(),
            self.clock.clone(),
            inbox,
        ));
        let in_flight = InFlight::default();
        let caps = Caps {
            subscription: self.settings.per_subscription.max(1),
            workspace: self.settings.per_workspace.max(1),
        };
        let this = Arc::new(self);
        tracing::info!(
            concurrency,
            lease_ms = this.settings.lease().as_millis() as u64,
            "delivery worker started"
        );
        let mut wakeup = this.store.wakeup(Queue::Deliveries);
        // Told each time an attempt ends, freeing its subscription's and workspace's slot.
        let finished = Arc::new(Notify::new());
        let slots = Slots {
            permits: permits.clone(),
            in_flight,
            caps,
            outcomes: outcomes.clone(),
            finished: finished.clone(),
        };
        let mut held = Held::default();
        while !shutdown.is_triggered() {
            slots.start_held(&this, &mut held);
            let free = permits.available_permits().min(CLAIM_BATCH);
            if free == 0 {
                // Every slot is busy: wait for one to free up.
                tokio::select! {
                    p = permits.clone().acquire_owned() => drop(p),
                    _ = shutdown.wait() => {}
                }
                continue;
            }
            // Wake-ups from here on are not missed while this looks for work.
            wakeup.arm();
            let now = this.clock.timestamp();
            let due = match this.store.next_delivery_due().await {
                Ok(due) => due,
                Err(e) => {
                    tracing::warn!(error = %e, "could not look for due deliveries");
                    shutdown.sleep(Duration::from_secs(1)).await;
                    continue;
                }
            };
            match due {
                Some(at) if at <= now => {}
                next => {
                    // Nothing is due: sleep until the next one is, until new ones come, or
                    // until an attempt ends while deliveries are held for its slot.
                    let safety = crate::safety_poll(&this.store, this.settings.safety_poll);
                    let until = next.map_or(safety, |at| at.duration_since(now).min(safety));
                    tokio::select! {
                        () = wakeup.woken() => {}
                        () = tokio::time::sleep(until) => {}
                        () = finished.notified(), if !held.0.is_empty() => {}
                        () = sleep_until(held.next_expiry()) => {}
                        () = shutdown.wait() => {}
                    }
                    continue;
                }
            }
            // What is still held after `start_held` waits for a subscription or workspace at its
            // cap, so it is in here too: the claim takes no more of them.
            let saturated = slots.in_flight.saturated(caps);
            let claimed = match this.claim(now, free, &saturated).await {
                Ok(c) => c,
                Err(e) => {
                    tracing::warn!(error = %e, "could not claim deliveries");
                    shutdown.sleep(Duration::from_secs(1)).await;
                    continue;
                }
            };
            let full = claimed.len() == free;
            let none = claimed.is_empty();
            for (delivery, lease_owner) in claimed {
                if !slots.start_claimed(&this, delivery, lease_owner, &mut held) {
                    // Only this loop takes permits, and it claimed no more than were free.
                    tracing::error!("delivery slot accounting is off; the lease will expire");
                    break;
                }
            }
            if none && !full {
                // Due deliveries this claim could not take: their subscriptions or workspaces
                // are at their cap here, or another worker is taking them. Try again once an
                // attempt ends, new work comes, or a deferral has passed; never in a loop.
                tokio::select! {
                    () = finished.notified() => {}
                    () = wakeup.woken() => {}
                    () = tokio::time::sleep(DEFERRAL) => {}
                    () = shutdown.wait() => {}
                }
            }
        }
        // What waits here for a slot goes back to the queue; wait for the attempts in flight,
        // then let the recorder drain and stop.
        for (delivery, lease_owner, _) in held.0.drain(..) {
            let _ = outcomes.send(this.defer(&delivery, lease_owner));
        }
        drop(slots);
        let _ = permits.acquire_many(concurrency as u32).await;
        drop(outcomes);
        let _ = recorder.await;
        tracing::info!("delivery worker stopped");
    }

    async fn claim(
        &self,
        now: Timestamp,
        limit: usize,
        skip: &Saturated,
    ) -> Result<Vec<(ClaimedDelivery, String)>, store::StoreError> {
        let lease_owner = claim_token();
        let claimed = self
            .store
            .claim_deliveries(
                now,
                &lease_owner,
                now.plus(self.settings.lease()),
                i64::try_from(limit).unwrap_or(1),
                skip,
            )
            .await?;
        Ok(claimed
            .into_iter()
            .map(|d| (d, lease_owner.clone()))
            .collect())
    }

    /// Puts a delivery back in the queue without an attempt: its subscription's (or its
    /// workspace's) slots in this worker are all taken.
    fn defer(&self, d: &ClaimedDelivery, lease_owner: String) -> AttemptRecord {
        let at = self.clock.timestamp();
        AttemptRecord {
            delivery: d.id,
            subscription: d.subscription_id,
            workspace: d.workspace_id,
            lease_owner,
            at,
            status_code: None,
            target_url: d.url.clone(),
            next: NextStep::Deferred(at.plus(self.settings.deferral())),
            log: None,
        }
    }

    /// Makes one attempt (or none, for a subscription that is no longer active) and decides
    /// what happens next.
    async fn attempt(&self, d: ClaimedDelivery, lease_owner: String) -> AttemptRecord {
        let mut record = AttemptRecord {
            delivery: d.id,
            subscription: d.subscription_id,
            workspace: d.workspace_id,
            lease_owner,
            at: self.clock.timestamp(),
            status_code: None,
            target_url: d.url.clone(),
            next: NextStep::Abandoned,
            log: None,
        };
        if !d.subscription_active {
            return record;
        }
        let attempts_made = usize::try_from(d.attempts).unwrap_or(usize::MAX - 1) + 1;
        let started_at = self.clock.timestamp();
        let started = std::time::Instant::now();
        let exchange = match self.signing_secrets(&d) {
            Ok(secrets) => {
                let event_id = d.event_id.to_string();
                let attempt = Attempt {
                    url: &d.url,
                    event_id: &event_id,
                    timestamp: self.clock.now().unix_timestamp(),
                    body: d.payload.as_bytes(),
                    secrets: &secrets,
                };
                self.sender.send(&attempt).await
            }
            Err(e) => {
                tracing::error!(delivery = %d.id, error = %e, "cannot open the signing secret");
                Exchange {
                    outcome: AttemptOutcome::connection("the signing secret cannot be opened"),
                    request_headers: Default::default(),
                    response: None,
                }
            }
        };
        let elapsed = started.elapsed();
        let outcome = &exchange.outcome;
        let at = self.clock.timestamp();
        let next = match outcome.failure_kind() {
            None if *outcome == AttemptOutcome::Gone => NextStep::Gone,
            None => NextStep::Delivered,
            Some(kind) => self.after_failure(attempts_made, kind, outcome, at),
        };
        let result = match next {
            NextStep::Delivered => "delivered",
            NextStep::RetryAt(_) => "retry",
            NextStep::Dead => "dead",
            NextStep::Gone => "gone",
            NextStep::Abandoned | NextStep::Deferred(_) => "skipped",
        };
        metrics::counter!("webhook_delivery_attempts_total", "result" => result).increment(1);
        metrics::histogram!("webhook_delivery_attempt_duration_seconds")
            .record(elapsed.as_secs_f64());
        match (outcome, next) {
            (_, NextStep::Delivered) => {
                tracing::debug!(delivery = %d.id, attempt = attempts_made, "delivered")
            }
            (_, NextStep::Gone) => tracing::info!(
                delivery = %d.id, subscription = %d.subscription_id,
                "receiver answered 410 Gone: delivery dead, subscription deactivated"
            ),
            (o, NextStep::Dead) => tracing::info!(
                delivery = %d.id, attempt = attempts_made, outcome = ?o,
                "last attempt failed: delivery dead"
            ),
            (o, _) => tracing::debug!(
                delivery = %d.id, attempt = attempts_made, outcome = ?o, "attempt failed"
            ),
        }
        record.at = at;
        record.next = next;
        record.status_code = outcome.status_code();
        record.log = Some(attempt_log(
            exchange,
            i64::try_from(attempts_made).unwrap_or(i64::MAX),
            started_at,
            elapsed,
        ));
        record
    }

    fn after_failure(
        &self,
        attempts_made: usize,
        kind: FailureKind,
        outcome: &AttemptOutcome,
        at: Timestamp,
    ) -> NextStep {
        match self
            .settings
            .schedule
            .next_delay(attempts_made, kind, outcome.retry_after())
        {
            Some(delay) => NextStep::RetryAt(at.plus(delay)),
            None => NextStep::Dead,
        }
    }

    /// The current secret, then the previous one while its grace period lasts.
    fn signing_secrets(
        &self,
        d: &ClaimedDelivery,
    ) -> Result<Vec<SigningSecret>, webhooks::SecretError> {
        let mut secrets = vec![self.secrets.open(&d.secret)?];
        let now = self.clock.timestamp();
        if let (Some(previous), Some(until)) = (&d.previous_secret, d.previous_secret_expires_at)
            && until > now
        {
            secrets.push(self.secrets.open(previous)?);
        }
        Ok(secrets)
    }
}

/// What the attempt log keeps of an exchange.
fn attempt_log(
    exchange: Exchange,
    number: i64,
    started_at: Timestamp,
    elapsed: Duration,
) -> AttemptLog {
    let error_kind = exchange.outcome.error();
    let error_message = exchange.error_message();
    let (response_status, response_headers, response_body, response_body_truncated) =
        match exchange.response {
            Some(r) => (
                Some(r.status),
                Some(r.headers),
                Some(r.body),
                r.body_truncated,
            ),
            None => (None, None, None, false),
        };
    AttemptLog {
        number,
        started_at,
        duration_ms: i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX),
        request_headers: exchange.request_headers,
        response_status,
        response_headers,
        response_body,
        response_body_truncated,
        error_kind,
        error_message,
    }
}

/// Records outcomes as they arrive, as many per transaction as are waiting.
async fn record_outcomes(
    store: Store,
    clock: Clock,
    mut inbox: mpsc::UnboundedReceiver<AttemptRecord>,
) {
    let mut batch = Vec::with_capacity(RECORD_BATCH);
    while inbox.recv_many(&mut batch, RECORD_BATCH).await > 0 {
        let mut tries = 0;
        loop {
            match store.record_attempts(&batch, clock.timestamp()).await {
                Ok(0) => break,
                Ok(lost) => {
                    tracing::warn!(lost, "outcomes dropped: their lease had expired");
                    break;
                }
                Err(e) if tries < 5 => {
                    tries += 1;
                    tracing::warn!(error = %e, "could not record delivery outcomes; retrying");
                    tokio::time::sleep(Duration::from_millis(200 * tries)).await;
                }
                Err(e) => {
                    // The leases expire and the attempts are made again: at least once.
                    tracing::error!(error = %e, count = batch.len(), "delivery outcomes lost");
                    break;
                }
            }
        }
        batch.clear();
    }
}

/// A fresh token per claim: only the claimer may record the outcome.
fn claim_token() -> String {
    let mut bytes = [0u8; 16];
    rand::fill(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
