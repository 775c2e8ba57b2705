-- Wake-ups instead of polling (crates/store/src/wakeups.rs). Each trigger sends a NOTIFY in
-- the transaction that writes the rows: PostgreSQL delivers it to every listening node when,
-- and only if, that transaction commits, and folds identical ones sent by one transaction.

-- Work was queued: the payload-less channel named by the trigger's argument.
CREATE FUNCTION cp_wake() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify(TG_ARGV[0], '');
    RETURN NULL;
END $$;

CREATE TRIGGER deliveries_queued AFTER INSERT ON deliveries
    FOR EACH STATEMENT EXECUTE FUNCTION cp_wake('cp_deliveries');
CREATE TRIGGER runs_queued AFTER INSERT ON runs
    FOR EACH STATEMENT EXECUTE FUNCTION cp_wake('cp_runs');
CREATE TRIGGER drift_checks_queued AFTER INSERT ON drift_checks
    FOR EACH STATEMENT EXECUTE FUNCTION cp_wake('cp_runs');
-- A run ended: the next queued run of its feature may start.
CREATE TRIGGER runs_finished AFTER UPDATE OF status ON runs
    FOR EACH ROW WHEN (OLD.status = 'running' AND NEW.status <> 'running')
    EXECUTE FUNCTION cp_wake('cp_runs');
-- A stopping worker hands a run back (its lease ends now; see Store::hand_back_run).
CREATE TRIGGER runs_handed_back AFTER UPDATE OF lease_owner ON runs
    FOR EACH ROW WHEN (NEW.status = 'running' AND NEW.lease_owner IS NULL)
    EXECUTE FUNCTION cp_wake('cp_runs');

-- A run's status or log changed: live-log followers on every node read again.
CREATE FUNCTION cp_run_event_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('cp_run_changed', NEW.run_id);
    RETURN NULL;
END $$;
CREATE FUNCTION cp_run_status_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('cp_run_changed', NEW.id);
    RETURN NULL;
END $$;
CREATE TRIGGER run_events_added AFTER INSERT ON run_events
    FOR EACH ROW EXECUTE FUNCTION cp_run_event_added();
CREATE TRIGGER runs_status_changed AFTER UPDATE OF status ON runs
    FOR EACH ROW EXECUTE FUNCTION cp_run_status_changed();

-- A token's row changed in a way that matters to authentication: nodes forget what they
-- cached of it. (last_used_at, written once a minute by each node, is not one of them.)
CREATE FUNCTION cp_token_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('cp_tokens', OLD.id);
    RETURN NULL;
END $$;
CREATE TRIGGER tokens_changed
    AFTER UPDATE OF workspace_id, scope, secret_hash, rate_limit, revoked_at, expires_at
        OR DELETE ON tokens
    FOR EACH ROW EXECUTE FUNCTION cp_token_changed();
