-- Full-text search over articles (issue 33). One table serves both audiences: a row is an
-- article version someone can find, flagged `is_current` (members search the current version
-- of every article in the portal, drafts included) and `is_published` (readers search the
-- published versions on the published site). Usually the current version is the published
-- one, and then one row carries both flags: the text is indexed once, not twice as one table
-- per audience would index it. A version that is neither is deleted, so the index holds at
-- most two versions per article. `body` is what a reader reads (the MDX reduced to plain text
-- by the writer, `pipeline::plain_text`), not the MDX.
CREATE TABLE search_documents (
    id            INTEGER PRIMARY KEY,
    article_id    TEXT NOT NULL REFERENCES articles (id),
    version       BIGINT NOT NULL,
    workspace_id  TEXT NOT NULL REFERENCES workspaces (id),
    is_current    BOOLEAN NOT NULL,
    is_published  BOOLEAN NOT NULL,
    title         TEXT NOT NULL,
    body          TEXT NOT NULL
);
CREATE UNIQUE INDEX search_documents_version ON search_documents (article_id, version);
CREATE INDEX search_documents_workspace ON search_documents (workspace_id);

-- FTS5 over the table's text (external content: the text is stored once, in the table);
-- English stemming (porter) on Unicode words without diacritics. Triggers keep it in step.
CREATE VIRTUAL TABLE search_index USING fts5(
    title, body,
    content = 'search_documents', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER search_documents_inserted AFTER INSERT ON search_documents BEGIN
    INSERT INTO search_index (rowid, title, body) VALUES (new.id, new.title, new.body);
END;
CREATE TRIGGER search_documents_deleted AFTER DELETE ON search_documents BEGIN
    INSERT INTO search_index (search_index, rowid, title, body)
        VALUES ('delete', old.id, old.title, old.body);
END;
CREATE TRIGGER search_documents_rewritten AFTER UPDATE OF title, body ON search_documents BEGIN
    INSERT INTO search_index (search_index, rowid, title, body)
        VALUES ('delete', old.id, old.title, old.body);
    INSERT INTO search_index (rowid, title, body) VALUES (new.id, new.title, new.body);
END;

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
