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
