-- Every other statement fails with a "not supported" error naming it; nothing is applied.
CREATE SCHEMA e;
USE e;
CREATE TABLE t (id INT);
INSERT INTO t SELECT 1;
UPDATE t SET id = 2 ORDER BY id LIMIT 1;
DELETE FROM t ORDER BY id LIMIT 1;
LOAD DATA INFILE 'x.csv' INTO TABLE t SET id = 1;
IMPORT INTO t FROM 'x.csv';
CREATE VIEW v AS SELECT 1;
CREATE FULLTEXT INDEX idx ON t (id);
CREATE SEQUENCE s;
GRANT SELECT ON t TO someone;
SET @x = 1;
SHOW STATUS;
SHOW PROCESSLIST;
ANALYZE TABLE t;
LOCK TABLES t READ;
SAVEPOINT sp;
SHOW TABLES;
-- Syntax errors name their line and column.
CREATE TABLE (id INT);
SHOW TABLES FORM e;
CREATE TABLE t2 (id INT,
  name TEXT,
  oops WHAT);
CREATE SCHEMA e WITH PROPERTIES (k 'v');
SELECT 'unterminated;
