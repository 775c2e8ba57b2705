-- People of the portal (issue 12). A user signs in with an email and an argon2id password
-- (a PHC string; NULL until they first set one through a sign-in link) and holds a role per
-- workspace on the scope ladder; a platform admin sees every workspace.
CREATE TABLE users (
    id                   TEXT PRIMARY KEY,
    -- Trimmed and lowercased by the use cases, so UNIQUE is case-insensitive.
    email                TEXT NOT NULL UNIQUE,
    password_hash        TEXT,
    platform_admin       BOOLEAN NOT NULL DEFAULT FALSE,
    created_at           BIGINT NOT NULL,
    password_changed_at  BIGINT
);

CREATE TABLE memberships (
    user_id       TEXT NOT NULL REFERENCES users (id),
    workspace_id  TEXT NOT NULL REFERENCES workspaces (id),
    role          TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    PRIMARY KEY (user_id, workspace_id)
);
CREATE INDEX memberships_of_workspace ON memberships (workspace_id, created_at);

-- Only the SHA-256 of a session id or a link token is stored: a copy of the database signs
-- nobody in.
CREATE TABLE sessions (
    id_hash       BLOB PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users (id),
    created_at    BIGINT NOT NULL,
    last_seen_at  BIGINT NOT NULL,
    -- Absolute expiry; the idle expiry is counted from last_seen_at.
    expires_at    BIGINT NOT NULL
);
CREATE INDEX sessions_of_user ON sessions (user_id);
CREATE INDEX sessions_expiry ON sessions (expires_at);

CREATE TABLE sign_in_links (
    token_hash  BLOB PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id),
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    used_at     BIGINT
);
CREATE INDEX sign_in_links_of_user ON sign_in_links (user_id);

-- Sign-in attempts per key (`account:<email>`, `addr:<ip>`) in a fixed window that starts
-- with the first attempt: shared by every node through the database.
CREATE TABLE sign_in_attempts (
    key           TEXT PRIMARY KEY,
    window_start  BIGINT NOT NULL,
    attempts      BIGINT NOT NULL
);
CREATE INDEX sign_in_attempts_expiry ON sign_in_attempts (window_start);
