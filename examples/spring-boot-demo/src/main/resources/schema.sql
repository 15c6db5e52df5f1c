-- The demo's orders (OrderService writes one row per order, with its message, in one transaction).
CREATE TABLE IF NOT EXISTS demo_order (
    id           VARCHAR(36) PRIMARY KEY,
    customer_id  VARCHAR(64) NOT NULL,
    amount_cents BIGINT      NOT NULL,
    placed_at    TIMESTAMP   NOT NULL
);
