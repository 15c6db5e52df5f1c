/**
 * The transactional outbox and inbox: {@link io.switchboard.outbox.Outbox} writes messages in the application's own
 * database transaction and relays the committed ones through the routing layer; {@link
 * io.switchboard.outbox.TransactionalInbox} runs a handler and its processed mark in one transaction. Core needs only
 * {@code java.sql}; the PostgreSQL driver is used for LISTEN/NOTIFY when it is the application's driver.
 */
package io.switchboard.outbox;
