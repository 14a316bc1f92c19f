-- +goose Up
CREATE SCHEMA shop;
CREATE TABLE shop.orders (id BIGINT NOT NULL, customer VARCHAR(64) NOT NULL, total BIGINT, PRIMARY KEY (id));

-- +goose Down
DROP TABLE shop.orders;
DROP SCHEMA shop;
