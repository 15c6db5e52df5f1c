/**
 * Connections: the publishing and consuming connections, their recovery and the TLS setup.
 * Implementation of the RabbitMQ adapter: not part of the public API and may change without notice.
 */
package io.switchboard.rabbit.internal.connection;
