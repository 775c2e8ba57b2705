-- Idempotency records now belong to the token that made the request (owner = its token id,
-- no longer its workspace) and keep their response bodies encrypted. Rows written before
-- could never be replayed under the new owners, and their bodies may hold token and webhook
-- secrets in clear: forget them.
DELETE FROM idempotency_keys;
