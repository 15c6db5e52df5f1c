-- Switchboard transactional outbox, MariaDB 10.6+ and MySQL 8.0+ (SKIP LOCKED), InnoDB. The outbox runs these
-- statements itself on start when the table is missing (Outbox.builder(..).createSchema(true), the default); for
-- Flyway or Liquibase, copy this file into a migration and replace 'switchboard_outbox' by your table name everywhere.
-- The relay fills switchboard_outbox_lock with one row per bucket on start. The application's user needs SELECT,
-- INSERT, UPDATE and DELETE on both tables.

CREATE TABLE IF NOT EXISTS switchboard_outbox (
    id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    bucket INT NOT NULL,
    destination VARCHAR(255) NOT NULL,
    message_key VARCHAR(1024) NULL,
    message_id VARCHAR(255) NOT NULL,
    content_type VARCHAR(255) NULL,
    headers MEDIUMTEXT NULL,
    payload LONGBLOB NOT NULL,
    created_micros BIGINT NOT NULL,
    deliver_at_millis BIGINT NULL,
    sent_micros BIGINT NULL,
    attempts INT NULL,
    retry_at_millis BIGINT NULL,
    last_error VARCHAR(1000) NULL,
    written_micros BIGINT NULL,
    INDEX switchboard_outbox_pending (sent_micros, id),
    INDEX switchboard_outbox_bucket (bucket, sent_micros)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE IF NOT EXISTS switchboard_outbox_parked (
    id BIGINT NOT NULL PRIMARY KEY,
    bucket INT NOT NULL,
    destination VARCHAR(255) NOT NULL,
    message_key VARCHAR(1024) NULL,
    message_id VARCHAR(255) NOT NULL,
    content_type VARCHAR(255) NULL,
    headers MEDIUMTEXT NULL,
    payload LONGBLOB NOT NULL,
    created_micros BIGINT NOT NULL,
    deliver_at_millis BIGINT NULL,
    attempts INT NOT NULL,
    last_error VARCHAR(1000) NULL,
    parked_micros BIGINT NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE IF NOT EXISTS switchboard_outbox_lock (
    bucket INT NOT NULL PRIMARY KEY
) ENGINE=InnoDB;
