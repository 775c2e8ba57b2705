-- When an article's published version was published: the published site's "last updated".
-- Articles published before this column existed have none; the site then shows when the
-- published version was written.
ALTER TABLE articles ADD COLUMN published_at BIGINT;
