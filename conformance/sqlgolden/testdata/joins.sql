-- Joins (issue 15): INNER, LEFT, RIGHT, CROSS, commas with WHERE, USING, NATURAL, self joins,
-- several tables, qualified names; EXPLAIN names the join strategy.
CREATE SCHEMA shop;
CREATE TABLE shop.customers (id BIGINT NOT NULL, name VARCHAR(16), city VARCHAR(16), PRIMARY KEY (id));
CREATE TABLE shop.orders (oid BIGINT NOT NULL, id BIGINT, total BIGINT, PRIMARY KEY (oid));
CREATE TABLE shop.empty (id BIGINT, note VARCHAR(8));
INSERT INTO shop.customers VALUES (1, 'ada', 'london'), (2, 'grace', 'nyc'), (3, 'linus', 'helsinki'), (4, 'ada', 'paris');
INSERT INTO shop.orders VALUES (10, 1, 1200), (11, 1, 30), (12, 2, 450), (13, NULL, 5), (14, 9, 75);
USE shop;
SELECT c.name, o.oid, o.total FROM customers c JOIN orders o ON c.id = o.id ORDER BY o.oid;
SELECT c.name, o.oid FROM customers AS c LEFT JOIN orders AS o ON c.id = o.id ORDER BY c.id, o.oid;
SELECT c.name, o.oid FROM customers c RIGHT JOIN orders o ON c.id = o.id ORDER BY o.oid;
SELECT c.name FROM customers c LEFT JOIN orders o ON c.id = o.id WHERE o.oid IS NULL;
SELECT name, oid FROM customers, orders WHERE customers.id = orders.id AND total > 100 ORDER BY oid;
SELECT COUNT(*) FROM customers CROSS JOIN orders;
SELECT * FROM customers JOIN orders USING (id) ORDER BY oid;
SELECT * FROM customers NATURAL LEFT JOIN orders ORDER BY id, oid;
SELECT a.id, b.id FROM customers a JOIN customers b ON a.name = b.name AND a.id < b.id;
SELECT c.city, SUM(o.total) AS spent FROM customers c JOIN orders o ON c.id = o.id JOIN customers d ON d.id = o.id GROUP BY c.city ORDER BY spent DESC;
SELECT c.name, e.note FROM customers c LEFT JOIN empty e ON c.id = e.id WHERE c.id < 3 ORDER BY c.id;
SELECT t.TABLE_NAME, s.SCHEMA_NAME FROM information_schema.tables t JOIN information_schema.schemata s ON t.TABLE_SCHEMA = s.SCHEMA_NAME ORDER BY 1;
SELECT c.name, x.n FROM customers c JOIN (SELECT id, COUNT(*) AS n FROM orders GROUP BY id) AS x ON x.id = c.id ORDER BY c.name;
EXPLAIN SELECT c.name FROM customers c JOIN orders o ON c.id = o.id WHERE c.id = 1;
EXPLAIN SELECT c.name FROM customers c, orders o WHERE c.id < o.id;
-- Errors: MySQL's 1052 (ambiguous), 1054 (unknown), 1066 (not unique alias).
SELECT id FROM customers c JOIN orders o ON c.id = o.id;
SELECT c.nosuch FROM customers c JOIN orders o ON c.id = o.id;
SELECT 1 FROM customers JOIN customers ON 1 = 1;
SELECT 1 FROM customers c JOIN orders o USING (name);
-- Set operations: INTERSECT binds tighter; NULLs are equal; ORDER BY and LIMIT apply to the result.
SELECT city FROM customers UNION SELECT 'nyc' UNION ALL SELECT 'rome' ORDER BY 1;
SELECT id FROM customers INTERSECT SELECT id FROM orders ORDER BY 1;
SELECT id FROM customers EXCEPT SELECT id FROM orders ORDER BY id DESC LIMIT 1;
SELECT id FROM orders EXCEPT ALL SELECT id FROM customers ORDER BY 1;
EXPLAIN SELECT id FROM customers UNION SELECT id FROM orders;
-- Common table expressions: one referenced twice, one reading another, a column list.
WITH spend (cid, amount) AS (SELECT id, SUM(total) FROM orders GROUP BY id), top AS (SELECT cid FROM spend WHERE amount > 400) SELECT c.name, s.amount FROM customers c JOIN spend s ON s.cid = c.id JOIN top t ON t.cid = s.cid ORDER BY 2 DESC;
WITH n AS (SELECT id FROM customers) SELECT a.id, b.id FROM n a JOIN n b ON b.id = a.id + 1 ORDER BY 1;
-- ORDER BY positions over computed select items.
SELECT oid + total, (oid + total) / 5 FROM orders ORDER BY 1, 2;
