-- Repositories by URL (CONTRACT 3b): a workspace's repository is either repo_path (a server
-- path) or repo_url, which each node fetches into a mirror of its own. The credential (a token
-- or a deploy key's private half) is encrypted with the server key; the rest of the row is
-- what the last fetch saw.
ALTER TABLE workspaces ADD COLUMN repo_url TEXT;
ALTER TABLE workspaces ADD COLUMN default_branch TEXT;

CREATE TABLE repositories (
    workspace_id            TEXT PRIMARY KEY REFERENCES workspaces (id),
    credential_kind         TEXT,
    credential              BLOB,
    credential_fingerprint  TEXT,
    public_key              TEXT,
    fetched_at              BIGINT,
    fetched_head            TEXT,
    fetched_branch          TEXT,
    fetch_error             TEXT,
    updated_at              BIGINT NOT NULL
);

-- Runs and drift checks at a ref: '' is the default branch. Queued runs coalesce per feature
-- and ref, queued drift checks per ref.
ALTER TABLE runs ADD COLUMN git_ref TEXT NOT NULL DEFAULT '';
DROP INDEX runs_one_queued_per_feature;
CREATE UNIQUE INDEX runs_one_queued_per_feature_ref ON runs (workspace_id, feature_id, git_ref)
    WHERE status = 'queued';
ALTER TABLE drift_checks ADD COLUMN git_ref TEXT NOT NULL DEFAULT '';
DROP INDEX drift_checks_one_queued;
CREATE UNIQUE INDEX drift_checks_one_queued_ref ON drift_checks (workspace_id, git_ref)
    WHERE status = 'queued';
