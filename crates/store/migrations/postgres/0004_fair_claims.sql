-- Run claims go round-robin across workspaces: among eligible runs, the workspace with the
-- fewest runs under a live lease goes first, then the one whose last run started longest ago.
-- These two indexes answer both questions per candidate with one seek each.
CREATE INDEX runs_running_per_workspace ON runs (workspace_id, lease_expires_at)
    WHERE status = 'running';
CREATE INDEX runs_started_per_workspace ON runs (workspace_id, started_at);
