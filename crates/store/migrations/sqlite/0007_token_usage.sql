-- Token expiry and last use (issue 13). `expires_at` is fixed at creation and kept on reissue;
-- an expired token authenticates nobody. `last_used_at` is a hint written off the request
-- path, at most once a minute per token, so it is exact to about a minute.
ALTER TABLE tokens ADD COLUMN expires_at BIGINT;
ALTER TABLE tokens ADD COLUMN last_used_at BIGINT;
