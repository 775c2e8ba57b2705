-- The attempt log of the webhook console: one row per HTTP attempt of a delivery, written in
-- the transaction that records the attempt's outcome. The request body is not copied: it is
-- the event's payload (`events.payload`), the same for every attempt. Rows older than the
-- configured retention (30 days by default) are purged by the periodic housekeeping.
CREATE TABLE delivery_attempts (
    id                      TEXT PRIMARY KEY,
    delivery_id             TEXT NOT NULL REFERENCES deliveries (id),
    subscription_id         TEXT NOT NULL REFERENCES webhooks (id),
    workspace_id            TEXT NOT NULL REFERENCES workspaces (id),
    attempt                 BIGINT NOT NULL,
    started_at              BIGINT NOT NULL,
    duration_ms             BIGINT NOT NULL,
    url                     TEXT NOT NULL,
    request_headers         TEXT NOT NULL,
    response_status         BIGINT,
    response_headers        TEXT,
    response_body           TEXT,
    response_body_truncated BOOLEAN NOT NULL DEFAULT FALSE,
    error_kind              TEXT,
    error_message           TEXT,
    next_attempt_at         BIGINT
);
CREATE INDEX delivery_attempts_page ON delivery_attempts (delivery_id, started_at DESC, id DESC);
CREATE INDEX delivery_attempts_age ON delivery_attempts (started_at);

-- "Recover failed deliveries since …" replays each failed or dead delivery once: the original
-- is marked when its replay is queued.
ALTER TABLE deliveries ADD COLUMN recovered_at BIGINT;
