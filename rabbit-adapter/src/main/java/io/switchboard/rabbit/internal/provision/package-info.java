/**
 * Exchanges, queues and bindings: the topology of a destination and group, declared and checked.
 * Implementation of the RabbitMQ adapter: not part of the public API and may change without notice.
 */
package io.switchboard.rabbit.internal.provision;
