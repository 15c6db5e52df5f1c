/**
 * Implementation of the RabbitMQ adapter: publishers with asynchronous confirms and resend after
 * recovery, consumers with manual acks, the topology (exchanges, group and partition queues) and
 * the envelope's mapping to AMQP headers, and the fleet control plane's log (a stream queue) and
 * leadership (an exclusive queue). Not a public API.
 */
package io.switchboard.rabbit.internal;
