-- Aggregates over table data: GROUP BY, HAVING, ORDER BY over aggregates and aliases.
CREATE SCHEMA agg;
USE agg;
CREATE TABLE m (version_id BIGINT, g VARCHAR(8), x INT, f DOUBLE);
SELECT MAX(version_id) FROM m;
SELECT COUNT(*), COUNT(x), SUM(x), AVG(x), MIN(g), MAX(f) FROM m;
INSERT INTO m VALUES (1, 'a', 10, 0.5), (2, 'a', NULL, 1.5), (3, 'b', 7, NULL), (4, 'b', 7, 2.5), (5, NULL, -3, 4.0);
SELECT MAX(version_id) FROM m;
SELECT g, COUNT(*) AS n, COUNT(x), COUNT(DISTINCT x), SUM(x), AVG(x), MIN(f), MAX(f) FROM m GROUP BY g ORDER BY g;
SELECT g, SUM(x) AS s FROM m GROUP BY g HAVING SUM(x) > 5 ORDER BY s DESC;
-- SELECT DISTINCT (one row per distinct combination, as GROUP BY).
SELECT DISTINCT g FROM m ORDER BY g;
SELECT DISTINCT g, x FROM m WHERE version_id > 1 ORDER BY g DESC, x;
SELECT DISTINCT x % 2 AS parity FROM m ORDER BY parity;
SELECT DISTINCT COUNT(*) FROM m;
SELECT DISTINCT table_schema FROM information_schema.tables;
SELECT DISTINCT g FROM m ORDER BY x;
SELECT DISTINCT g, COUNT(*) FROM m GROUP BY g;
-- Aggregates over expressions.
SELECT g, SUM(x + 1), SUM(x * version_id) AS w, MIN(-x), MAX(f * 2), AVG(x / 2), COUNT(DISTINCT x % 2) FROM m GROUP BY g ORDER BY g;
SELECT SUM(x) + 1, SUM(x + 1) - COUNT(x) FROM m;
SELECT COUNT(x + 1), COUNT(x * NULL), COUNT(f > 1) FROM m WHERE version_id > 1;
SELECT g, COUNT(*) FROM m WHERE version_id > 1 GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 2;
EXPLAIN SELECT g, SUM(x) AS s FROM m WHERE version_id > 1 GROUP BY g HAVING COUNT(*) > 1 ORDER BY s;
-- Errors: an aggregate in WHERE, a column neither grouped nor aggregated.
SELECT g FROM m WHERE MAX(x) > 1;
SELECT g, x, COUNT(*) FROM m GROUP BY g;
SELECT x, COUNT(*) FROM m;
SELECT g, COUNT(*) FROM m GROUP BY g HAVING x > 1;
-- SELECT DISTINCT * and DISTINCT with GROUP BY.
SELECT DISTINCT * FROM m WHERE version_id > 2 ORDER BY version_id;
SELECT DISTINCT COUNT(*) AS n FROM m GROUP BY g ORDER BY n;
