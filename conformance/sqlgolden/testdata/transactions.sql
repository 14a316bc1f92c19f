-- BEGIN ... COMMIT applies the collected changes in one atomic catalog commit.
BEGIN;
CREATE SCHEMA tx;
CREATE TABLE tx.t1 (id INT);
CREATE TABLE tx.t2 (id INT);
-- Reads inside the transaction see the committed catalog.
SHOW SCHEMAS;
COMMIT;
SHOW SCHEMAS;
SHOW TABLES FROM tx;
-- ROLLBACK discards them.
START TRANSACTION;
CREATE TABLE tx.t3 (id INT);
DROP TABLE tx.t1;
ROLLBACK;
SHOW TABLES FROM tx;
-- A change that fails at COMMIT makes the whole transaction apply nothing.
BEGIN;
CREATE TABLE tx.t4 (id INT);
CREATE TABLE tx.t1 (id INT);
COMMIT;
SHOW TABLES FROM tx;
-- IF NOT EXISTS / IF EXISTS see the transaction's own earlier changes.
BEGIN;
CREATE SCHEMA tx2;
CREATE SCHEMA IF NOT EXISTS tx2;
CREATE TABLE tx2.a (id INT);
CREATE TABLE IF NOT EXISTS tx2.a (id INT);
USE tx2;
RENAME TABLE tx.t2 TO tx2.b;
CALL declare_table('tx2.c');
COMMIT;
SHOW FULL TABLES;
SHOW TABLES FROM tx;
-- Statements that cannot join an atomic catalog commit are refused; the transaction stays open.
BEGIN;
DROP TABLE tx2.c;
CREATE INDEX ia ON tx2.a (id);
CALL vacuum_catalog('1h');
BEGIN;
COMMIT;
SHOW TABLES FROM tx2;
-- ALTER TABLE commits to the table's dataset at once (ROLLBACK keeps it, as MySQL's implicit commit
-- would); an INSERT into a table the transaction creates is applied by COMMIT, after the table exists.
BEGIN;
ALTER TABLE tx2.a ADD COLUMN c INT;
ROLLBACK;
DESCRIBE tx2.a;
BEGIN;
CREATE TABLE tx2.v (id BIGINT AUTO_INCREMENT, n INT, PRIMARY KEY (id));
INSERT INTO tx2.v (n) VALUES (7), (8);
INSERT INTO tx2.v (n) VALUES (9);
UPDATE tx2.v SET n = 1;
ALTER TABLE tx2.v ADD COLUMN c INT;
SHOW TABLES FROM tx2 LIKE 'v';
COMMIT;
SELECT id, n FROM tx2.v ORDER BY id;
BEGIN;
CREATE TABLE tx2.w (id INT);
INSERT INTO tx2.w VALUES (1);
DROP TABLE tx2.w;
COMMIT;
SHOW TABLES FROM tx2;
-- A READ ONLY transaction refuses changes.
START TRANSACTION READ ONLY;
SHOW TABLES FROM tx2;
CREATE TABLE tx2.ro (id INT);
COMMIT;
-- COMMIT and ROLLBACK without a transaction do nothing.
COMMIT;
ROLLBACK;
