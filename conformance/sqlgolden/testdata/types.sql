-- Every SQL type and the Lance/Arrow type it maps to, as DESCRIBE, SHOW CREATE TABLE and
-- information_schema.columns show it.
CREATE SCHEMA ty;
USE ty;
CREATE TABLE all_types (
  c_bool BOOLEAN,
  c_bool2 BOOL,
  c_i8 TINYINT,
  c_i16 SMALLINT,
  c_i32 INT,
  c_i32b INTEGER,
  c_i64 BIGINT,
  c_u8 TINYINT UNSIGNED,
  c_u16 SMALLINT UNSIGNED,
  c_u32 INT UNSIGNED,
  c_u64 BIGINT UNSIGNED,
  c_f32 FLOAT,
  c_f64 DOUBLE,
  c_dec DECIMAL(10,2),
  c_dec_default DECIMAL,
  c_dec38 DECIMAL(38,10),
  c_char CHAR(3),
  c_varchar VARCHAR(255),
  c_text TEXT,
  c_binary BINARY(4),
  c_varbinary VARBINARY(16),
  c_blob BLOB,
  c_date DATE,
  c_time TIME,
  c_time6 TIME(6),
  c_datetime DATETIME,
  c_datetime3 DATETIME(3),
  c_datetime6 DATETIME(6),
  c_ts TIMESTAMP,
  c_ts3 TIMESTAMP(3),
  c_ts6 TIMESTAMP(6),
  c_json JSON,
  c_vec VECTOR(3),
  c_vecf VECTOR<FLOAT>(128),
  c_not_null BIGINT NOT NULL COMMENT 'required',
  PRIMARY KEY (c_not_null, c_varchar)
);
DESCRIBE all_types;
SHOW CREATE TABLE all_types;
SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, ARROW_TYPE, IS_NULLABLE, FIELD_METADATA FROM information_schema.columns WHERE TABLE_SCHEMA = 'ty' AND TABLE_NAME = 'all_types' ORDER BY ORDINAL_POSITION;
-- (planner.TestShowCreateTableRoundTrip runs SHOW CREATE TABLE output again and compares the schemas.)
CREATE TABLE copy_types (c_i64 BIGINT, c_json JSON, c_vec VECTOR(3), c_ts3 TIMESTAMP(3), c_dec DECIMAL(10,2));
SHOW CREATE TABLE copy_types;
-- Types that are not supported, or invalid.
CREATE TABLE bad (c DECIMAL(40,2));
CREATE TABLE bad (c DECIMAL(5,6));
CREATE TABLE bad (c ENUM('a','b'));
CREATE TABLE bad (c SET('a','b'));
CREATE TABLE bad (c GEOMETRY);
CREATE TABLE bad (c VECTOR);
CREATE TABLE bad (c FLOAT UNSIGNED);
SHOW TABLES;
