-- The report each drift notice raised (the `data` of its `drift.detected` event), so that an
-- article's page reads its notices by key instead of scanning the workspace's events. Notices
-- written before this column have none and are not shown.
ALTER TABLE drift_notices ADD COLUMN report TEXT;
