/**
 * Consuming: the queue consumer and the inbound record with its ack and nack.
 * Implementation of the RabbitMQ adapter: not part of the public API and may change without notice.
 */
package io.switchboard.rabbit.internal.consume;
