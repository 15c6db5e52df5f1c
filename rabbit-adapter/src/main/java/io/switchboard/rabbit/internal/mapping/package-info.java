/**
 * The CloudEvents AMQP binding: envelope headers to AMQP properties and application headers, and back.
 * Implementation of the RabbitMQ adapter: not part of the public API and may change without notice.
 */
package io.switchboard.rabbit.internal.mapping;
