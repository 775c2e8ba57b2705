-- Mirrors migrations/sqlite: timestamps are integer microseconds since the Unix epoch,
-- ids and enums are text, JSON is text, so both engines share SQL and keyset order.

CREATE TABLE workspaces (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    repo_path   TEXT,
    active      BOOLEAN NOT NULL DEFAULT TRUE,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
CREATE INDEX workspaces_page ON workspaces (created_at DESC, id DESC);

CREATE TABLE tokens (
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT REFERENCES workspaces (id),
    name          TEXT NOT NULL,
    scope         TEXT NOT NULL,
    secret_hash   BYTEA NOT NULL UNIQUE,
    rate_limit    BIGINT,
    created_at    BIGINT NOT NULL,
    revoked_at    BIGINT
);
CREATE INDEX tokens_page ON tokens (workspace_id, created_at DESC, id DESC);

CREATE TABLE runs (
    id                  TEXT PRIMARY KEY,
    workspace_id        TEXT NOT NULL REFERENCES workspaces (id),
    feature_id          TEXT NOT NULL,
    surfaces            TEXT,
    status              TEXT NOT NULL,
    source              TEXT NOT NULL,
    tier                TEXT NOT NULL,
    notify_on_complete  BOOLEAN NOT NULL,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL,
    started_at          BIGINT,
    finished_at         BIGINT,
    source_commit       TEXT,
    artifacts           TEXT NOT NULL DEFAULT '[]',
    error               TEXT,
    attempts            BIGINT NOT NULL DEFAULT 0,
    lease_owner         TEXT,
    lease_expires_at    BIGINT
);
CREATE INDEX runs_page ON runs (workspace_id, created_at DESC, id DESC);
CREATE INDEX runs_claim ON runs (status, tier, created_at);
CREATE UNIQUE INDEX runs_one_queued_per_feature ON runs (workspace_id, feature_id) WHERE status = 'queued';

CREATE TABLE run_events (
    run_id   TEXT NOT NULL REFERENCES runs (id),
    seq      BIGINT NOT NULL,
    ts       BIGINT NOT NULL,
    level    TEXT NOT NULL,
    stage    TEXT NOT NULL,
    message  TEXT NOT NULL,
    data     TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);

CREATE TABLE articles (
    id                 TEXT PRIMARY KEY,
    workspace_id       TEXT NOT NULL REFERENCES workspaces (id),
    feature_id         TEXT NOT NULL,
    surface            TEXT NOT NULL,
    title              TEXT NOT NULL,
    status             TEXT NOT NULL,
    version            BIGINT NOT NULL,
    run_id             TEXT NOT NULL,
    mdx_body           TEXT NOT NULL,
    public_url         TEXT,
    published_version  BIGINT,
    created_at         BIGINT NOT NULL,
    updated_at         BIGINT NOT NULL,
    UNIQUE (workspace_id, feature_id, surface)
);
CREATE INDEX articles_page ON articles (workspace_id, created_at DESC, id DESC);

CREATE TABLE article_versions (
    article_id  TEXT NOT NULL REFERENCES articles (id),
    version     BIGINT NOT NULL,
    run_id      TEXT NOT NULL,
    title       TEXT NOT NULL,
    status      TEXT NOT NULL,
    mdx_body    TEXT NOT NULL,
    provenance  TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (article_id, version),
    UNIQUE (article_id, run_id)
);

CREATE TABLE webhooks (
    id                          TEXT PRIMARY KEY,
    workspace_id                TEXT NOT NULL REFERENCES workspaces (id),
    url                         TEXT NOT NULL,
    events                      TEXT NOT NULL,
    active                      BOOLEAN NOT NULL,
    description                 TEXT,
    created_at                  BIGINT NOT NULL,
    updated_at                  BIGINT NOT NULL,
    last_delivery_at            BIGINT,
    failure_count               BIGINT NOT NULL DEFAULT 0,
    failing_since               BIGINT,
    secret                      BYTEA NOT NULL,
    previous_secret             BYTEA,
    previous_secret_expires_at  BIGINT,
    deleted_at                  BIGINT
);
CREATE INDEX webhooks_page ON webhooks (workspace_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX webhooks_active_url ON webhooks (workspace_id, url) WHERE active AND deleted_at IS NULL;

CREATE TABLE events (
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL REFERENCES workspaces (id),
    event_type    TEXT NOT NULL,
    payload       TEXT NOT NULL,
    created_at    BIGINT NOT NULL
);

CREATE TABLE deliveries (
    id                TEXT PRIMARY KEY,
    subscription_id   TEXT NOT NULL REFERENCES webhooks (id),
    workspace_id      TEXT NOT NULL REFERENCES workspaces (id),
    event_id          TEXT NOT NULL REFERENCES events (id),
    event_type        TEXT NOT NULL,
    status            TEXT NOT NULL,
    attempts          BIGINT NOT NULL DEFAULT 0,
    last_status_code  BIGINT,
    target_url        TEXT NOT NULL,
    is_replay         BOOLEAN NOT NULL,
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL,
    next_attempt_at   BIGINT,
    lease_expires_at  BIGINT
);
CREATE INDEX deliveries_page ON deliveries (subscription_id, created_at DESC, id DESC);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status IN ('pending', 'failed');

CREATE TABLE idempotency_keys (
    owner             TEXT NOT NULL,
    idempotency_key   TEXT NOT NULL,
    fingerprint       TEXT NOT NULL,
    status_code       BIGINT,
    response_headers  TEXT,
    response_body     BYTEA,
    created_at        BIGINT NOT NULL,
    PRIMARY KEY (owner, idempotency_key)
);
CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at);

CREATE TABLE drift_notices (
    article_id   TEXT NOT NULL REFERENCES articles (id),
    head_commit  TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    PRIMARY KEY (article_id, head_commit)
);
