-- Forge webhooks in, commit statuses out. A workspace's forge connection: the secret its
-- forge signs deliveries with (and the previous one, until its grace period ends), and the
-- write-only API token and API root the commit statuses are posted with; both encrypted with
-- the server key.
CREATE TABLE forge_settings (
    workspace_id          TEXT PRIMARY KEY REFERENCES workspaces (id),
    secret                BLOB,
    previous_secret       BLOB,
    previous_expires_at   BIGINT,
    api_token             BLOB,
    api_token_fingerprint TEXT,
    api_url               TEXT,
    updated_at            BIGINT NOT NULL
);

-- Each verified delivery, once per (workspace, forge, delivery id): a redelivery within 24 h
-- meets the unique index and does nothing. A row is also the job that acts on the event,
-- claimed by a worker with a lease like runs; outcome says what it triggered.
CREATE TABLE forge_deliveries (
    id                TEXT PRIMARY KEY,
    workspace_id      TEXT NOT NULL REFERENCES workspaces (id),
    forge             TEXT NOT NULL,
    delivery          TEXT NOT NULL,
    event             TEXT NOT NULL,
    status            TEXT NOT NULL,
    request           TEXT NOT NULL,
    outcome           TEXT,
    received_at       BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL,
    attempts          BIGINT NOT NULL DEFAULT 0,
    lease_owner       TEXT,
    lease_expires_at  BIGINT
);
CREATE UNIQUE INDEX forge_deliveries_once ON forge_deliveries (workspace_id, forge, delivery);
CREATE INDEX forge_deliveries_claim ON forge_deliveries (status, received_at);
CREATE INDEX forge_deliveries_recent ON forge_deliveries (workspace_id, received_at);

-- The commit status of a pull request's drift check: what should be on the forge (state) and
-- what was last posted, retried with the webhook schedule until they agree.
CREATE TABLE commit_statuses (
    drift_check_id    TEXT PRIMARY KEY REFERENCES drift_checks (id),
    workspace_id      TEXT NOT NULL REFERENCES workspaces (id),
    forge             TEXT NOT NULL,
    repository        TEXT NOT NULL,
    sha               TEXT NOT NULL,
    pull_number       BIGINT NOT NULL,
    state             TEXT NOT NULL,
    description       TEXT NOT NULL,
    posted_state      TEXT,
    attempts          BIGINT NOT NULL DEFAULT 0,
    next_attempt_at   BIGINT,
    last_error        TEXT,
    lease_owner       TEXT,
    lease_expires_at  BIGINT,
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL
);
CREATE INDEX commit_statuses_due ON commit_statuses (next_attempt_at);
CREATE INDEX commit_statuses_recent ON commit_statuses (workspace_id, created_at);

-- What triggered a run, when it was not a plain API call (a forge push): JSON.
ALTER TABLE runs ADD COLUMN run_trigger TEXT;
