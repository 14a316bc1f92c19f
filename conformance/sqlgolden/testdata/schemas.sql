-- Namespaces: CREATE / DROP / ALTER SCHEMA (SCHEMA, DATABASE and NAMESPACE are synonyms).
SHOW SCHEMAS;
CREATE SCHEMA prod COMMENT 'production data' WITH PROPERTIES (owner = 'ml-team', tier = 'gold');
CREATE DATABASE staging;
CREATE NAMESPACE prod.ml;
CREATE SCHEMA prod.ml.features;
CREATE SCHEMA IF NOT EXISTS prod;
SHOW DATABASES;
SHOW SCHEMAS FROM prod;
SHOW NAMESPACES FROM prod.ml;
SHOW SCHEMAS LIKE 'p%';
SHOW SCHEMAS WHERE `Database` <> 'prod';
SHOW CREATE SCHEMA prod;
SHOW CREATE DATABASE prod.ml;
-- Backquoted parts may hold dots and quotes.
CREATE SCHEMA `we.ird`;
CREATE SCHEMA `we.ird`.`it's`;
SHOW SCHEMAS FROM `we.ird`;
SHOW CREATE SCHEMA `we.ird`.`it's`;
-- Errors.
CREATE SCHEMA prod;
CREATE SCHEMA nosuch.child;
CREATE SCHEMA `a$b`;
CREATE SCHEMA prod WITH PROPERTIES (k = 'v', k = 'w');
SHOW SCHEMAS FROM nosuch;
SHOW CREATE SCHEMA nosuch;
-- ALTER SCHEMA sets properties.
ALTER SCHEMA prod SET PROPERTIES (tier = 'platinum', region = 'eu');
SHOW CREATE SCHEMA prod;
ALTER DATABASE nosuch SET PROPERTIES (a = 'b');
-- USE sets the current namespace.
USE prod.ml;
CREATE TABLE t1 (id INT);
SHOW TABLES;
USE nosuch;
SHOW TABLES;
-- DROP SCHEMA: RESTRICT (the default) refuses a namespace that is not empty.
DROP SCHEMA prod.ml;
DROP SCHEMA prod.ml RESTRICT;
DROP SCHEMA nosuch;
DROP SCHEMA IF EXISTS nosuch;
DROP SCHEMA staging;
SHOW SCHEMAS;
-- CASCADE drops children and tables; the current namespace inside it is reset to the root.
DROP SCHEMA prod CASCADE;
SHOW SCHEMAS;
SHOW TABLES;
SHOW TABLES FROM prod.ml;
