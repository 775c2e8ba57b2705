-- A workspace's docs repository that publishing keeps in sync (one per workspace): where
-- (url, branch, folder), in which export layout (format), with which write credential
-- (encrypted with the server key, as the repository's). The row is also the sync job:
-- sync_generation counts the changes asked for, synced_generation the last one pushed, so
-- any number of publishes coalesce into one due sync; a worker claims the row with a lease
-- (one sync per target at a time, across nodes) and retries it after next_attempt_at.
-- synced_state remembers which files the service wrote (only those are replaced or removed)
-- and which article versions they hold (for the commit message).
CREATE TABLE publish_targets (
    workspace_id            TEXT PRIMARY KEY REFERENCES workspaces (id),
    url                     TEXT NOT NULL,
    branch                  TEXT NOT NULL,
    folder                  TEXT NOT NULL,
    format                  TEXT NOT NULL,
    credential_kind         TEXT,
    credential              BYTEA,
    credential_fingerprint  TEXT,
    public_key              TEXT,
    sync_generation         BIGINT NOT NULL DEFAULT 0,
    synced_generation       BIGINT NOT NULL DEFAULT 0,
    claimed_generation      BIGINT,
    state                   TEXT NOT NULL,
    attempts                BIGINT NOT NULL DEFAULT 0,
    next_attempt_at         BIGINT,
    lease_owner             TEXT,
    lease_expires_at        BIGINT,
    last_attempt_at         BIGINT,
    last_sync_at            BIGINT,
    last_commit             TEXT,
    last_error              TEXT,
    synced_state            TEXT NOT NULL,
    created_at              BIGINT NOT NULL,
    updated_at              BIGINT NOT NULL
);
CREATE INDEX publish_targets_due ON publish_targets (next_attempt_at);

-- A sync asked for (or retried now) wakes the run workers, which push. Per row, so that a
-- statement that changes nothing (a claim that finds no target) wakes no one.
CREATE TRIGGER publish_targets_due AFTER INSERT OR UPDATE OF next_attempt_at ON publish_targets
    FOR EACH ROW WHEN (NEW.next_attempt_at IS NOT NULL)
    EXECUTE FUNCTION cp_wake('cp_runs');
