-- Join strategies (issue 15): FULL [OUTER] JOIN (hash and nested loop), `<=>` keys, the index
-- nested-loop join; EXPLAIN names the strategy and the build side's budget.
CREATE SCHEMA js;
USE js;
CREATE TABLE a (id BIGINT, name VARCHAR(8));
CREATE TABLE b (id BIGINT, qty BIGINT);
INSERT INTO a VALUES (1, 'one'), (2, 'two'), (2, 'deux'), (NULL, 'none'), (5, 'five');
INSERT INTO b VALUES (1, 10), (2, 20), (NULL, 0), (7, 70), (7, 71);
SELECT a.id, a.name, b.id, b.qty FROM a FULL OUTER JOIN b ON a.id = b.id ORDER BY a.name, b.qty;
SELECT a.name, b.qty FROM a FULL JOIN b ON a.id < b.id AND b.qty > 20 ORDER BY a.name, b.qty;
SELECT COALESCE(a.id, b.id) AS k, COUNT(*) FROM a FULL JOIN b ON a.id = b.id GROUP BY k ORDER BY k;
SELECT a.name, b.qty FROM a FULL JOIN b ON a.id = b.id WHERE b.qty IS NULL ORDER BY 1;
EXPLAIN SELECT a.name, b.qty FROM a FULL OUTER JOIN b ON a.id = b.id;
EXPLAIN SELECT a.name, b.qty FROM a FULL JOIN b ON a.id < b.id;
SELECT 1 FROM a FULL JOIN b USING (id);
-- `<=>` keys hash NULLs: NULL <=> NULL joins.
SELECT a.name, b.qty FROM a JOIN b ON a.id <=> b.id ORDER BY 1, 2;
SELECT a.name, b.qty FROM a LEFT JOIN b ON b.id <=> a.id WHERE b.qty IS NULL OR b.qty < 5 ORDER BY 1;
EXPLAIN SELECT a.name, b.qty FROM a JOIN b ON a.id <=> b.id;
-- Index nested-loop join: a small outer side, an inner side 8 times bigger with a BTREE on the key.
CREATE TABLE d (k BIGINT, v VARCHAR(8));
INSERT INTO d VALUES (1, 'd1'), (2, 'd2'), (3, 'd3'), (4, 'd4'), (5, 'd5'), (6, 'd6'), (7, 'd7'), (8, 'd8'), (9, 'd9'), (10, 'd10'), (1, 'e1'), (2, 'e2'), (3, 'e3'), (4, 'e4'), (5, 'e5'), (6, 'e6'), (7, 'e7'), (8, 'e8'), (NULL, 'n1'), (NULL, 'n2');
CREATE INDEX d_k ON d (k);
CREATE TABLE two (k BIGINT, label VARCHAR(8));
INSERT INTO two VALUES (2, 'two'), (NULL, 'none');
EXPLAIN SELECT two.label, d.v FROM two JOIN d ON two.k = d.k;
SELECT two.label, d.v FROM two JOIN d ON two.k = d.k ORDER BY 2;
SELECT two.label, d.v FROM two LEFT JOIN d ON d.k = two.k AND d.v LIKE 'e%' ORDER BY 1, 2;
SELECT two.label, d.v FROM d RIGHT JOIN two ON two.k = d.k ORDER BY 1, 2;
