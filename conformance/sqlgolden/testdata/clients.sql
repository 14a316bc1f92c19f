-- What GORM, goose and sqlx send (issue 9): column options, index clauses, their errors.
CREATE TABLE users (id BIGINT UNSIGNED AUTO_INCREMENT, email VARCHAR(191) NOT NULL, age INT DEFAULT 18, joined DATETIME(3) NULL DEFAULT CURRENT_TIMESTAMP(3), note TEXT DEFAULT 'none', PRIMARY KEY (id), INDEX idx_age (age), UNIQUE INDEX idx_email (email));
DESCRIBE users;
SHOW CREATE TABLE users;
SHOW INDEX FROM users;
SELECT COLUMN_NAME, COLUMN_DEFAULT, COLUMN_KEY, EXTRA FROM information_schema.columns WHERE TABLE_NAME = 'users';
SELECT CONSTRAINT_NAME, TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, REFERENCED_TABLE_NAME FROM information_schema.key_column_usage WHERE TABLE_NAME = 'users' ORDER BY CONSTRAINT_NAME;
-- CREATE TABLE ... LIKE copies the schema (UNIQUE included) and builds the same scalar indices.
CREATE TABLE users_copy LIKE users;
SHOW INDEX FROM users_copy;
DESCRIBE users_copy;
INSERT INTO users_copy (email) VALUES ('a@x'), ('a@x');
CREATE TABLE goose (id SERIAL NOT NULL, version_id BIGINT NOT NULL, tstamp TIMESTAMP NULL DEFAULT now(), PRIMARY KEY (id));
DESCRIBE goose;
-- Errors.
CREATE TABLE e1 (a INT DEFAULT rand());
CREATE TABLE e2 (a INT DEFAULT 'x');
CREATE TABLE e3 (a INT NOT NULL DEFAULT NULL);
CREATE TABLE e4 (a VARCHAR(3) AUTO_INCREMENT);
CREATE TABLE e5 (a INT DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE e6 (a INT, b INT, UNIQUE KEY (a, b));
CREATE TABLE e7 (a INT, KEY k (a), KEY k (a));
CREATE TABLE e8 (a INT, b INT, FOREIGN KEY (a) REFERENCES users (id));
CREATE TABLE e9 (a INT ON UPDATE CURRENT_TIMESTAMP);
CREATE UNIQUE INDEX idx_email2 ON users (email);
-- INSERT applies DEFAULTs, assigns AUTO_INCREMENT ids and enforces UNIQUE.
INSERT INTO users (email) VALUES ('a@x'), ('b@x');
INSERT INTO users (id, email, age, note) VALUES (10, 'c@x', DEFAULT, NULL);
INSERT INTO users (email) VALUES ('d@x');
SELECT id, email, age, note FROM users ORDER BY id;
INSERT INTO users (email) VALUES ('a@x');
INSERT INTO users (email) VALUES ('e@x'), ('e@x');
INSERT INTO users (email, age) VALUES ('f@x', 'old');
SELECT COUNT(*) FROM users;
SHOW TABLES;
-- Session statements.
SET NAMES utf8mb4;
SET SESSION sql_mode = 'STRICT_TRANS_TABLES', time_zone = '+00:00';
SHOW VARIABLES LIKE 'sql_mode';
SELECT DATABASE(), VERSION();
SELECT @@sql_mode, @@session.time_zone, @@autocommit AS ac, @@SESSION.character_set_client, @@version;
SELECT COUNT(*) FROM users WHERE @@autocommit = 1;
SELECT @@nosuch;
SELECT @@global.sql_mode;
SELECT @uservar;
SELECT GROUP_CONCAT(email) FROM users;
SELECT email FROM users WINDOW w AS (ORDER BY id);
SET NAMES latin1;
SET GLOBAL sql_mode = '';
SET autocommit = 0;
-- DELETE and UPDATE.
UPDATE users SET age = 30, note = DEFAULT WHERE email LIKE 'a%' OR id = 10;
DELETE FROM users WHERE id = 2;
SELECT id, email, age, note FROM users ORDER BY id;
UPDATE users SET email = 'd@x' WHERE id = 1;
UPDATE users SET nosuch = 1;
SELECT id, age FROM users ORDER BY id;
UPDATE users SET age = age + 1;
UPDATE users SET age = age * 2 - id WHERE id > (SELECT MIN(id) FROM users);
SELECT id, age FROM users ORDER BY id;
UPDATE users SET age = -9223372036854775807 - age;
UPDATE users SET age = age + 3000000000;
UPDATE users SET note = CONCAT(note, '!');
UPDATE users SET age = age DIV 0 WHERE id = 1;
SELECT id, age FROM users ORDER BY id;
DELETE FROM information_schema.tables;
-- Row changes inside a transaction apply at once (a non-transactional engine, as MyISAM); an INSERT
-- into a table the transaction creates waits for COMMIT (ROLLBACK drops both).
BEGIN;
INSERT INTO users (email) VALUES ('tx@x');
CREATE TABLE made_in_tx (id INT);
INSERT INTO made_in_tx VALUES (1);
ROLLBACK;
SELECT id, email FROM users WHERE email = 'tx@x';
START TRANSACTION READ ONLY;
DELETE FROM users;
ROLLBACK;
