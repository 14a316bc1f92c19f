-- Subqueries (issue 9): EXISTS, scalar subqueries and IN (SELECT ...), uncorrelated, over
-- information_schema and table data.
CREATE SCHEMA shop;
CREATE TABLE shop.orders (id BIGINT NOT NULL, customer VARCHAR(16) NOT NULL, total BIGINT, PRIMARY KEY (id));
CREATE TABLE shop.vip (name VARCHAR(16));
INSERT INTO shop.orders VALUES (1, 'ada', 1200), (2, 'grace', 450), (3, 'ada', NULL), (4, 'linus', 75);
INSERT INTO shop.vip VALUES ('ada'), ('linus');
-- goose v3's table-exists query (MySQL dialect).
SELECT EXISTS ( SELECT 1 FROM information_schema.tables WHERE (database() IS NULL OR table_schema = database()) AND table_name = 'goose_db_version' );
SELECT EXISTS ( SELECT 1 FROM information_schema.tables WHERE table_schema = 'shop' AND table_name = 'orders' );
SELECT NOT EXISTS (SELECT 1 FROM shop.orders WHERE total > 5000) AS none_big;
-- Scalar subqueries in the select list and WHERE.
SELECT (SELECT MAX(total) FROM shop.orders) AS top, (SELECT COUNT(*) FROM shop.vip) AS vips;
SELECT id, customer FROM shop.orders WHERE total = (SELECT MAX(total) FROM shop.orders);
SELECT id, (SELECT name FROM shop.vip WHERE name = 'linus') AS v FROM shop.orders WHERE id < 3 ORDER BY id;
SELECT id FROM shop.orders WHERE total > (SELECT total FROM shop.orders WHERE id = 99);
-- IN (SELECT ...) and NOT IN.
SELECT id, customer FROM shop.orders WHERE customer IN (SELECT name FROM shop.vip) ORDER BY id;
SELECT id FROM shop.orders WHERE customer NOT IN (SELECT name FROM shop.vip);
SELECT customer, SUM(total) AS s FROM shop.orders WHERE EXISTS (SELECT 1 FROM shop.vip) GROUP BY customer HAVING customer IN (SELECT name FROM shop.vip) ORDER BY customer;
SELECT table_name FROM information_schema.tables WHERE table_name IN (SELECT 'vip') ;
-- In DELETE and UPDATE.
UPDATE shop.orders SET total = 0 WHERE customer IN (SELECT name FROM shop.vip WHERE name = 'linus');
DELETE FROM shop.orders WHERE total < (SELECT MIN(total) FROM shop.orders WHERE total > 0);
SELECT id, customer, total FROM shop.orders ORDER BY id;
EXPLAIN SELECT id FROM shop.orders WHERE customer IN (SELECT name FROM shop.vip) AND total > (SELECT MIN(total) FROM shop.orders);
-- Errors.
SELECT (SELECT id FROM shop.orders);
SELECT (SELECT id, customer FROM shop.orders WHERE id = 1);
SELECT id FROM shop.orders WHERE id IN (SELECT id, total FROM shop.orders);
SELECT id FROM shop.orders o WHERE EXISTS (SELECT 1 FROM shop.vip WHERE name = o.customer);
SELECT id FROM shop.orders WHERE EXISTS (SELECT 1 FROM shop.nope);
-- Correlated subqueries: the outer row's columns, by alias or by an unqualified name the inner FROM lacks.
SELECT id, customer FROM shop.orders AS o WHERE EXISTS (SELECT 1 FROM shop.vip AS v WHERE v.name = o.customer) ORDER BY id;
SELECT id FROM shop.orders AS o WHERE NOT EXISTS (SELECT 1 FROM shop.vip WHERE name = customer) ORDER BY id;
SELECT id, (SELECT COUNT(*) FROM shop.orders AS i WHERE i.customer = o.customer) AS same FROM shop.orders AS o ORDER BY id;
SELECT id FROM shop.orders AS o WHERE total >= (SELECT MAX(i.total) FROM shop.orders AS i WHERE i.customer = o.customer);
SELECT id, customer IN (SELECT name FROM shop.vip WHERE name <> o.customer) AS other_vip FROM shop.orders AS o ORDER BY id;
SELECT id, (SELECT i.id FROM shop.orders AS i WHERE i.customer = o.customer) FROM shop.orders AS o;
SELECT customer, (SELECT COUNT(*) FROM shop.vip WHERE name = o.customer) FROM shop.orders AS o GROUP BY customer;
EXPLAIN SELECT id FROM shop.orders AS o WHERE EXISTS (SELECT 1 FROM shop.orders AS i WHERE i.id = o.id + 1);
-- IN, NOT IN, ANY and ALL with NULLs: SQL's three-valued logic.
CREATE TABLE shop.n (x INT);
INSERT INTO shop.n VALUES (1), (NULL), (5);
SELECT 1 IN (SELECT x FROM shop.n) AS a, 3 IN (SELECT x FROM shop.n) AS b, 3 NOT IN (SELECT x FROM shop.n) AS c, NULL IN (SELECT x FROM shop.n WHERE x > 9) AS d;
SELECT 6 > ANY (SELECT x FROM shop.n) AS a, 0 > ANY (SELECT x FROM shop.n) AS b, 6 > ALL (SELECT x FROM shop.n) AS c, 0 < ALL (SELECT x FROM shop.n WHERE x > 9) AS d, 2 <> ALL (SELECT x FROM shop.n WHERE x IS NOT NULL) AS e;
SELECT id FROM shop.orders WHERE total > ALL (SELECT x FROM shop.n WHERE x IS NOT NULL) ORDER BY id;
-- Derived tables: streamed into the outer query.
SELECT * FROM (SELECT customer AS who, SUM(total) AS spent FROM shop.orders GROUP BY customer) AS s WHERE spent > 0 ORDER BY who;
SELECT s.who FROM (SELECT customer AS who FROM shop.orders WHERE id < 3) AS s;
SELECT COUNT(*) AS n FROM (SELECT table_name FROM information_schema.tables WHERE table_schema = 'shop') AS t;
EXPLAIN SELECT who FROM (SELECT customer AS who FROM shop.orders WHERE id = 1) AS s;
SELECT DISTINCT * FROM (SELECT customer FROM shop.orders) AS s ORDER BY customer;
SELECT * FROM (SELECT id, id FROM shop.orders) AS s;
SELECT nope FROM (SELECT id FROM shop.orders) AS s;
SELECT * FROM (SELECT id FROM shop.orders);
EXPLAIN DELETE FROM shop.orders WHERE NOT EXISTS (SELECT 1 FROM shop.vip WHERE name = customer) AND id > (SELECT COUNT(*) FROM shop.n);
-- Correlated over information_schema and over a derived table.
SELECT t.table_name, (SELECT COUNT(*) FROM information_schema.columns AS c WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name) AS ncols FROM information_schema.tables AS t WHERE t.table_schema = 'shop' ORDER BY t.table_name;
SELECT d.who, EXISTS (SELECT 1 FROM shop.vip WHERE name = d.who) AS vip FROM (SELECT customer AS who FROM shop.orders) AS d ORDER BY d.who;
-- Two levels: the innermost subquery reads the middle query's row and the outer one's.
SELECT id FROM shop.orders AS o WHERE EXISTS (SELECT 1 FROM shop.vip AS v WHERE EXISTS (SELECT 1 FROM shop.orders AS i WHERE i.customer = v.name AND i.id = o.id)) ORDER BY id;
SELECT customer, (SELECT COUNT(*) FROM shop.vip WHERE name = o.customer OR o.total > 0) FROM shop.orders AS o GROUP BY customer;
