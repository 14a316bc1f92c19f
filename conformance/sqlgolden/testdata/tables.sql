-- Tables: CREATE / DROP / RENAME / ALTER TABLE and the SHOW statements about them.
-- A session starts in the root namespace: root tables (compatibility mode stores them as <name>.lance).
CREATE TABLE root_t (id INT);
SHOW TABLES;
SHOW TABLE STATUS;
CREATE SCHEMA a;
CREATE SCHEMA a.b;
CREATE TABLE a.b.events (
  id BIGINT NOT NULL COMMENT 'event id',
  kind VARCHAR(20) NOT NULL,
  payload JSON,
  PRIMARY KEY (kind, id)
) COMMENT 'all events';
CREATE TABLE a.b.users (id BIGINT PRIMARY KEY, name TEXT);
CREATE TABLE IF NOT EXISTS a.b.users (other INT);
CREATE TABLE a.b.users (other INT);
SHOW TABLES FROM a.b;
SHOW FULL TABLES FROM a.b;
SHOW TABLES FROM a.b LIKE 'e%';
SHOW TABLES FROM a.b WHERE `Tables_in_a.b` = 'users';
SHOW TABLE STATUS FROM a.b;
SHOW TABLE STATUS FROM a.b LIKE 'u%';
SHOW COLUMNS FROM a.b.events;
SHOW FULL COLUMNS FROM events FROM a.b;
SHOW COLUMNS FROM a.b.events LIKE 'p%';
SHOW COLUMNS FROM a.b.events WHERE `Key` = 'PRI';
DESCRIBE a.b.events;
DESC a.b.events kind;
SHOW CREATE TABLE a.b.events;
SHOW INDEX FROM a.b.events;
SHOW INDEXES FROM users FROM a.b;
-- CREATE TABLE LIKE copies the schema (with primary key and comments) and the table properties.
USE a.b;
CREATE TABLE events_copy LIKE events;
SHOW CREATE TABLE events_copy;
CREATE TABLE x LIKE nosuch;
-- Errors while creating.
CREATE TABLE a.nosuch.t (id INT);
CREATE TABLE a.b.dup (id INT, id BIGINT);
CREATE TABLE a.b.pk (id INT, PRIMARY KEY (nope));
CREATE TABLE a.b.pk (v VECTOR(2), PRIMARY KEY (v));
CREATE TABLE `a.b.bad$name` (id INT);
CREATE TEMPORARY TABLE tmp (id INT);
CREATE TABLE a.b.sel AS SELECT 1;
-- RENAME TABLE, within and across namespaces; ALTER TABLE RENAME.
RENAME TABLE a.b.users TO a.b.people;
ALTER TABLE a.b.people RENAME TO a.people;
SHOW TABLES FROM a.b;
SHOW TABLES FROM a;
RENAME TABLE a.people TO a.b.people, a.b.events_copy TO a.b.ev2;
SHOW TABLES FROM a.b;
RENAME TABLE a.b.people TO a.b.events;
RENAME TABLE a.b.nosuch TO a.b.other;
-- A failed multi-rename applies nothing.
RENAME TABLE a.b.people TO a.b.p2, a.b.nosuch TO a.b.other;
SHOW TABLES FROM a.b;
-- ALTER TABLE: add, drop and rename columns.
ALTER TABLE a.b.people ADD COLUMN email VARCHAR(100) COMMENT 'contact';
ALTER TABLE a.b.people ADD age INT, ADD COLUMN tags JSON;
ALTER TABLE a.b.people DROP COLUMN age;
ALTER TABLE a.b.people RENAME COLUMN email TO mail;
SHOW FULL COLUMNS FROM a.b.people;
ALTER TABLE a.b.people ADD COLUMN mail TEXT;
ALTER TABLE a.b.people ADD COLUMN IF NOT EXISTS mail TEXT;
ALTER TABLE a.b.people ADD COLUMN req INT NOT NULL;
ALTER TABLE a.b.people DROP COLUMN nosuch;
ALTER TABLE a.b.people DROP COLUMN IF EXISTS nosuch;
ALTER TABLE a.b.people RENAME COLUMN nosuch TO x;
ALTER TABLE a.b.people RENAME COLUMN mail TO name;
-- An invalid action later in the statement applies nothing.
ALTER TABLE a.b.people ADD COLUMN ok1 INT, DROP COLUMN nosuch;
SHOW COLUMNS FROM a.b.people;
ALTER TABLE a.b.nosuch ADD COLUMN c INT;
ALTER TABLE a.b.people MODIFY COLUMN name INT;
-- DROP TABLE: several at once, IF EXISTS.
DROP TABLE a.b.nosuch;
DROP TABLE a.b.people, a.b.nosuch;
SHOW TABLES FROM a.b;
DROP TABLE IF EXISTS a.b.people, a.b.nosuch;
DROP TABLE a.b.events, a.b.ev2;
SHOW TABLES FROM a.b;
DESCRIBE a.b.people;
SHOW CREATE TABLE a.b.people;
SHOW TABLE STATUS FROM nosuch;
