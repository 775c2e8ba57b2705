-- Idempotency claims beat while their request runs (issue 35). A claim is taken over when its
-- node has stopped beating for a few seconds, instead of a minute after it was made, and
-- `claim_token` fences the old claimant: its answer is stored only while the claim is still
-- its own, so a key taken over is never run twice. Claims made before this migration have no
-- beat: their `created_at` counts as one.
ALTER TABLE idempotency_keys ADD COLUMN claim_token TEXT;
ALTER TABLE idempotency_keys ADD COLUMN beat_at BIGINT;
