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
