-- +goose Up
INSERT INTO shop.orders (id, customer, total) VALUES (1, 'ada', 1200), (2, 'grace', 450);

-- +goose Down
DELETE FROM shop.orders WHERE id IN (1, 2);
