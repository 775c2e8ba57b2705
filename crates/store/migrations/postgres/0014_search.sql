-- Full-text search over articles (issue 33). One table serves both audiences: a row is an
-- article version someone can find, flagged `is_current` (members search the current version
-- of every article in the portal, drafts included) and `is_published` (readers search the
-- published versions on the published site). Usually the current version is the published
-- one, and then one row carries both flags: the text is indexed once, not twice as one table
-- per audience would index it. A version that is neither is deleted, so the index holds at
-- most two versions per article. `body` is what a reader reads (the MDX reduced to plain text
-- by the writer, `pipeline::plain_text`), not the MDX.
CREATE TABLE search_documents (
    id            BIGSERIAL PRIMARY KEY,
    article_id    TEXT NOT NULL REFERENCES articles (id),
    version       BIGINT NOT NULL,
    workspace_id  TEXT NOT NULL REFERENCES workspaces (id),
    is_current    BOOLEAN NOT NULL,
    is_published  BOOLEAN NOT NULL,
    title         TEXT NOT NULL,
    body          TEXT NOT NULL,
    -- English stemming, the title weighted above the body (ts_rank: A 1.0, B 0.4).
    document      tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', title), 'A') ||
        setweight(to_tsvector('english', body), 'B')
    ) STORED
);
CREATE UNIQUE INDEX search_documents_version ON search_documents (article_id, version);
CREATE INDEX search_documents_workspace ON search_documents (workspace_id);
CREATE INDEX search_documents_text ON search_documents USING GIN (document);

-- The articles written before this migration, indexed with their MDX as it is (SQL cannot
-- reduce it to plain text): the next version of each replaces it.
INSERT INTO search_documents (article_id, version, workspace_id, is_current, is_published,
                              title, body)
SELECT id, version, workspace_id, TRUE, published_version IS NOT NULL AND published_version = version,
       title, mdx_body
FROM articles;
INSERT INTO search_documents (article_id, version, workspace_id, is_current, is_published,
                              title, body)
SELECT a.id, v.version, a.workspace_id, FALSE, TRUE, v.title, v.mdx_body
FROM articles a JOIN article_versions v ON v.article_id = a.id AND v.version = a.published_version
WHERE a.published_version <> a.version;
