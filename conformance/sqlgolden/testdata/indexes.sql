-- Lance scalar indices on user tables: CREATE INDEX, DROP INDEX, SHOW INDEX, and SELECT through them.
CREATE SCHEMA ix;
CREATE SCHEMA ix.deep;
USE ix.deep;
CREATE TABLE goods (id INT NOT NULL, name VARCHAR(20), kind VARCHAR(10), ok BOOLEAN, price DECIMAL(6,2), emb VECTOR(2), PRIMARY KEY (id));
INSERT INTO goods (id, name, kind, ok, price) VALUES (1, 'apple', 'fruit', TRUE, 0.50), (2, 'apricot', 'fruit', FALSE, 1.25), (3, 'bean', 'veg', TRUE, 2.00), (4, NULL, NULL, NULL, NULL), (5, '', 'veg', FALSE, 0.10);
CREATE INDEX id_idx ON ix.deep.goods (id);
CREATE INDEX name_idx ON goods (name) USING BTREE;
CREATE INDEX kind_bm USING BITMAP ON goods (kind);
CREATE INDEX IF NOT EXISTS kind_bm ON goods (name);
SHOW INDEX FROM goods;
SELECT id, name FROM goods WHERE id IN (1, 3, 99);
SELECT id, name FROM goods WHERE name LIKE 'ap%' ORDER BY id DESC;
SELECT id FROM goods WHERE kind = 'veg' AND ok = FALSE;
SELECT COUNT(*) FROM goods WHERE name = '';
EXPLAIN SELECT id FROM goods WHERE id = 3 AND kind = 'veg';
EXPLAIN SELECT id FROM goods WHERE kind LIKE 'fr%';
-- Ranges and IS NULL go through the indices too; every pushed conjunct's answer is intersected.
SELECT id, name FROM goods WHERE id BETWEEN 2 AND 4 AND name >= 'apricot' ORDER BY id;
SELECT id FROM goods WHERE 3 > id AND kind IS NULL;
SELECT id FROM goods WHERE kind <=> NULL OR id = 5 ORDER BY id;
EXPLAIN SELECT id, name FROM goods WHERE id BETWEEN 2 AND 4 AND name >= 'apricot' AND price > 1;
-- A fragment no index covers is scanned in full.
INSERT INTO goods (id, name, kind) VALUES (6, 'apex', 'tool'), (7, 'bean2', 'veg');
SHOW INDEX FROM ix.deep.goods WHERE Key_name = 'id_idx';
SELECT id, name FROM goods WHERE id IN (3, 7);
SELECT id, name FROM goods WHERE name LIKE 'ap%';
EXPLAIN SELECT id FROM goods WHERE name IN ('apex', 'bean');
EXPLAIN SELECT id FROM goods WHERE id > 2 AND kind IS NULL;
DROP INDEX name_idx ON goods;
DROP INDEX IF EXISTS name_idx ON goods;
SHOW INDEX FROM goods;
EXPLAIN SELECT id FROM goods WHERE name = 'apex';
-- Errors.
CREATE INDEX id_idx ON goods (name);
CREATE INDEX i ON goods (nosuch);
CREATE INDEX i ON goods (id) USING HASH;
CREATE INDEX i ON goods (kind) USING LABEL_LIST;
CREATE INDEX i ON goods (emb);
CREATE INDEX i ON goods (price);
CREATE INDEX i ON goods (id, name);
CREATE UNIQUE INDEX i ON goods (kind);
CREATE INDEX i ON nosuch (id);
DROP INDEX nosuch ON goods;
BEGIN;
CREATE INDEX i ON goods (ok);
DROP INDEX id_idx ON goods;
ROLLBACK;
