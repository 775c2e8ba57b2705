-- Search ranks every matching row (`ts_rank` reads its whole `document`). Out of line, each
-- read of a document is a TOAST fetch, twice per row (the match, then the rank): a word in
-- all of 1,000 articles took 7.3 ms. Kept in the row itself (storage MAIN, and a tuple target
-- of a whole page so PostgreSQL does not move it out below 8 KB), it takes 1.7 ms. The body
-- stays out of line: only the page's rows read it, for their snippets.
ALTER TABLE search_documents ALTER COLUMN document SET STORAGE MAIN;
ALTER TABLE search_documents SET (toast_tuple_target = 8160);
-- Rows written before keep their old layout until rewritten: rewrite them now.
UPDATE search_documents SET is_current = is_current;
