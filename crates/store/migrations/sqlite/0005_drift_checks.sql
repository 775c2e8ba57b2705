-- Drift checks asked for over the API are jobs: queued by the request, claimed by a worker with
-- a lease (like runs), and read back by id. At most one queued check per workspace: asking
-- again while one waits joins it.
CREATE TABLE drift_checks (
    id                TEXT PRIMARY KEY,
    workspace_id      TEXT NOT NULL REFERENCES workspaces (id),
    status            TEXT NOT NULL,
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL,
    started_at        BIGINT,
    finished_at       BIGINT,
    result            TEXT,
    error             TEXT,
    attempts          BIGINT NOT NULL DEFAULT 0,
    lease_owner       TEXT,
    lease_expires_at  BIGINT
);
CREATE INDEX drift_checks_claim ON drift_checks (status, created_at);
CREATE UNIQUE INDEX drift_checks_one_queued ON drift_checks (workspace_id) WHERE status = 'queued';
