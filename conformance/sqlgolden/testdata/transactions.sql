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
ALTER TABLE tx2.a ADD COLUMN c INT;
CALL vacuum_catalog('1h');
BEGIN;
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
