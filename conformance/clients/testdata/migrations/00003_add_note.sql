-- +goose Up
ALTER TABLE shop.orders ADD COLUMN note VARCHAR(255);
CREATE TABLE shop.audit (id BIGINT NOT NULL, what VARCHAR(64), PRIMARY KEY (id));

-- +goose Down
DROP TABLE shop.audit;
ALTER TABLE shop.orders DROP COLUMN note;
