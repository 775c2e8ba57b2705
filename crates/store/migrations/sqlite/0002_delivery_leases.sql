-- Delivery workers claim due deliveries with a lease. `lease_owner` is the claim token of the
-- worker that holds an attempt in flight: only that worker may record its outcome, so an
-- attempt taken over after its lease expired can never be recorded twice.
ALTER TABLE deliveries ADD COLUMN lease_owner TEXT;
CREATE INDEX deliveries_in_flight ON deliveries (lease_expires_at) WHERE status = 'delivering';
CREATE INDEX deliveries_lease_owner ON deliveries (lease_owner) WHERE status = 'delivering';
