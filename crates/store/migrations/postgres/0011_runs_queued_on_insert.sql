-- A trigger that joins the run already queued for its feature (INSERT … ON CONFLICT DO UPDATE)
-- adds no work, so it wakes no worker: `runs_queued` fires for rows actually inserted, not for
-- every INSERT statement as in 0010. A NOTIFY is not free: PostgreSQL serialises the commits of
-- notifying transactions (a database-wide lock from the NOTIFY's pre-commit to the end of the
-- commit, WAL flush included), and signals every listening backend.
DROP TRIGGER runs_queued ON runs;
CREATE TRIGGER runs_queued AFTER INSERT ON runs
    FOR EACH ROW EXECUTE FUNCTION cp_wake('cp_runs');
