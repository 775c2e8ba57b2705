-- A statement-level trigger on UPDATE OF status fires for every such statement, also one that
-- changes no row. The run workers' claim of a forge delivery is two such statements: each
-- claim, finding nothing, woke every run worker, which claimed again: an idle cluster made
-- about 14,000 transactions per second. Wake only when a delivery is queued.
DROP TRIGGER forge_deliveries_queued ON forge_deliveries;
CREATE TRIGGER forge_deliveries_queued AFTER INSERT OR UPDATE OF status ON forge_deliveries
    FOR EACH ROW WHEN (NEW.status = 'queued')
    EXECUTE FUNCTION cp_wake('cp_runs');
