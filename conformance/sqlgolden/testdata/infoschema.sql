-- SELECT over information_schema.schemata, .tables and .columns; WHERE conditions on the
-- schema and table names are pushed down to catalog lookups (EXPLAIN shows the scan).
CREATE SCHEMA s1 COMMENT 'first';
CREATE SCHEMA s1.inner;
CREATE SCHEMA s2;
CREATE TABLE s1.alpha (id BIGINT NOT NULL, name TEXT, PRIMARY KEY (id)) COMMENT 'a table';
CREATE TABLE s1.beta (x DOUBLE);
CREATE TABLE s1.inner.gamma (y DATE);
CREATE TABLE s2.alpha (z BOOLEAN);
SELECT * FROM information_schema.schemata;
SELECT schema_name FROM information_schema.schemata WHERE schema_name = 's1.inner';
SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, TABLE_ROWS, TABLE_COMMENT FROM information_schema.tables;
SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = 's1';
SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.tables WHERE TABLE_NAME = 'alpha';
SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA IN ('s1', 's2') AND TABLE_NAME = 'alpha';
SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = 's1' AND TABLE_SCHEMA = 's2';
SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.tables WHERE TABLE_NAME LIKE '%a' AND NOT TABLE_SCHEMA = 's2' ORDER BY TABLE_NAME DESC;
SELECT TABLE_SCHEMA AS s, TABLE_NAME AS t FROM information_schema.tables ORDER BY t, s LIMIT 2;
SELECT TABLE_NAME FROM information_schema.tables ORDER BY 1 LIMIT 2 OFFSET 1;
SELECT COUNT(*) FROM information_schema.tables WHERE TABLE_SCHEMA = 's1';
SELECT TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_KEY FROM information_schema.columns WHERE TABLE_SCHEMA = 's1' ORDER BY TABLE_NAME, ORDINAL_POSITION;
SELECT table_name FROM information_schema.tables WHERE table_schema = 's1' AND (table_name = 'beta' OR table_name IS NULL);
EXPLAIN SELECT * FROM information_schema.tables;
EXPLAIN SELECT TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = 's1';
EXPLAIN SELECT TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = 's1' AND TABLE_NAME IN ('alpha', 'beta') ORDER BY TABLE_NAME LIMIT 1;
EXPLAIN SELECT TABLE_NAME, TABLE_ROWS FROM information_schema.tables WHERE TABLE_NAME = 'alpha';
EXPLAIN SELECT COLUMN_NAME FROM information_schema.columns WHERE TABLE_SCHEMA = 's1' AND TABLE_NAME = 'alpha';
EXPLAIN SELECT * FROM information_schema.schemata WHERE SCHEMA_NAME = 's1';
-- A LIKE 'prefix%' on the table name narrows a namespace listing to an object_id prefix; this
-- session wrote the catalog, so __manifest is answered from memory.
EXPLAIN SELECT TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = 's1' AND TABLE_NAME LIKE 'al%';
SELECT TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = 's1' AND TABLE_NAME LIKE 'al%';
SELECT DATABASE();
USE s1.inner;
SELECT DATABASE(), VERSION();
-- Errors.
SELECT nosuch FROM information_schema.tables;
SELECT * FROM information_schema.tables WHERE nosuch = 1;
SELECT * FROM information_schema.routines;
SELECT * FROM s1.alpha;
SELECT * FROM information_schema.tables t1 JOIN information_schema.schemata s ON t1.TABLE_SCHEMA = s.nosuch;
SELECT TABLE_SCHEMA, COUNT(*) FROM information_schema.tables GROUP BY TABLE_SCHEMA;
SELECT 1 UNION SELECT 1, 2;
EXPLAIN ANALYZE SELECT * FROM information_schema.tables;
-- EXPLAIN SHOW names how the SHOW reads the catalog (index or scan of __manifest) and its filter.
EXPLAIN SHOW TABLES FROM s1 LIKE 'al%';
DESCRIBE SHOW FULL TABLES FROM s1 WHERE Tables_in_s1 = 'x';
EXPLAIN SHOW SCHEMAS LIKE 'a%';
EXPLAIN SHOW TABLE STATUS FROM s1;
EXPLAIN SHOW COLUMNS FROM s1.alpha;
EXPLAIN SHOW INDEX FROM s1.alpha;
EXPLAIN SHOW CREATE TABLE s1.alpha;
EXPLAIN SHOW CREATE SCHEMA s1;
EXPLAIN SHOW VARIABLES;
EXPLAIN SHOW TABLES FROM;
