-- JSON columns (stored as Lance's JSONB, lance.json) and MySQL 8's JSON functions.
CREATE SCHEMA js;
USE js;
CREATE TABLE docs (id INT NOT NULL, doc JSON, PRIMARY KEY (id));
INSERT INTO docs VALUES
  (1, '{"name": "Alice", "age": 30, "tags": ["a", "b"], "addr": {"city": "Paris"}}'),
  (2, '{"name":"Bob","age":25,"tags":[],"addr":{"city":"Oslo","zip":"0150"}}'),
  (3, '[1, 2.5, "three", null, true]'),
  (4, 'null'),
  (5, NULL);
-- Invalid JSON text is MySQL's error 3140 and writes nothing.
INSERT INTO docs VALUES (6, '{"name": }');
INSERT INTO docs VALUES (6, 'not json');
-- A number is not JSON text (MySQL asks for CAST(x AS JSON)).
INSERT INTO docs VALUES (6, 1);
SELECT id, doc FROM docs ORDER BY id;
-- SQL NULL and JSON null.
SELECT id, doc IS NULL, JSON_TYPE(doc) FROM docs ORDER BY id;
SELECT id, doc->'$.name', doc->>'$.name', JSON_UNQUOTE(JSON_EXTRACT(doc, '$.addr.city')) AS city FROM docs ORDER BY id;
SELECT id, JSON_LENGTH(doc), JSON_KEYS(doc), JSON_DEPTH(doc) FROM docs WHERE doc IS NOT NULL ORDER BY id;
SELECT id, JSON_EXTRACT(doc, '$.tags[*]'), JSON_EXTRACT(doc, '$[last]'), JSON_EXTRACT(doc, '$**.city') FROM docs ORDER BY id;
-- JSON in WHERE.
SELECT id FROM docs WHERE doc->'$.age' > 26;
SELECT id FROM docs WHERE doc->>'$.addr.city' = 'Oslo';
-- A JSON operand compares and computes as its scalar (MySQL 8).
SELECT id FROM docs WHERE doc->'$.name' = 'Alice';
CREATE TABLE nums (id INT, j JSON);
INSERT INTO nums VALUES (1, '{"n": 100}'), (2, '{"n": 25}'), (3, '{"n": 3.5}'), (4, '{}');
SELECT id, j->'$.n' AS n FROM nums ORDER BY n DESC;
SELECT id, j->'$.n' FROM nums ORDER BY 2;
SELECT id, doc->'$.age' * 2, doc->'$.age' + 0.5 FROM docs WHERE doc->'$.age' IS NOT NULL ORDER BY id;
SELECT id FROM docs WHERE JSON_CONTAINS(doc, '"a"', '$.tags');
SELECT id FROM docs WHERE JSON_CONTAINS_PATH(doc, 'one', '$.addr.zip', '$[2]') ORDER BY id;
SELECT id FROM docs WHERE JSON_TYPE(doc) = 'ARRAY';
SELECT id FROM docs WHERE 'b' MEMBER OF (doc->'$.tags');
SELECT 17 MEMBER OF ('[23, "abc", 17]'), '[4,5]' MEMBER OF ('[[3,4],[4,5]]'), CAST('[4,5]' AS JSON) MEMBER OF ('[[3,4],[4,5]]');
-- Building and changing documents.
SELECT JSON_OBJECT('id', 87, 'name', 'carrot', 'ok', TRUE, 'none', NULL), JSON_ARRAY(1, 'abc', NULL, FALSE, 1.5e0);
SELECT JSON_OBJECT('nested', JSON_ARRAY(1, JSON_OBJECT('k', 'v')), 'text', '[1, 2]');
SELECT JSON_SET(doc, '$.age', 31, '$.email', 'a@x'), JSON_INSERT(doc, '$.age', 99, '$.new', 1), JSON_REPLACE(doc, '$.age', 32, '$.none', 1) FROM docs WHERE id = 1;
SELECT JSON_REMOVE(doc, '$.tags[0]', '$.addr'), JSON_ARRAY_APPEND(doc, '$.tags', 'c') FROM docs WHERE id = 1;
SELECT CAST('{"b": 1, "a": [true]}' AS JSON), CAST(42 AS JSON), JSON_VALID('{"a": 1}'), JSON_VALID('{a}'), JSON_QUOTE('x"y');
UPDATE docs SET doc = JSON_SET(doc, '$.age', doc->'$.age' + 1) WHERE doc->>'$.name' = 'Bob';
UPDATE docs SET doc = '{"replaced": true}' WHERE id = 4;
SELECT id, doc FROM docs WHERE id IN (2, 4) ORDER BY id;
DESCRIBE docs;
-- Errors with MySQL's numbers.
SELECT JSON_EXTRACT('{"a": 1}', '$a');
SELECT JSON_SET('{}', '$.*', 1);
SELECT JSON_REMOVE('{}', '$');
SELECT JSON_CONTAINS_PATH('{}', 'some', '$');
SELECT JSON_OBJECT(NULL, 1);
SELECT JSON_EXTRACT(1, '$');
SELECT CAST('[1,' AS JSON);
-- CREATE TABLE ... AS SELECT keeps JSON columns and makes computed JSON values JSON columns.
CREATE TABLE derived AS SELECT id, doc->'$.tags' AS tags, JSON_OBJECT('id', id) AS o FROM docs WHERE id < 3;
DESCRIBE derived;
INSERT INTO derived SELECT 9, JSON_ARRAY('z'), CAST('{"id": 9}' AS JSON);
SELECT * FROM derived ORDER BY id;
INSERT INTO docs SELECT 6, CAST(1 AS JSON) UNION ALL SELECT 7, JSON_QUOTE('q');
SELECT id, doc, JSON_TYPE(doc) FROM docs WHERE id > 5 ORDER BY id;
