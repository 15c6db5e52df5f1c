/**
 * Implementation of the RabbitMQ adapter: {@link io.switchboard.rabbit.internal.RabbitAdapter},
 * its settings and the AMQP error helpers at this level; by concern below it, the connections
 * ({@code connection}), the envelope's mapping to AMQP headers ({@code mapping}), publishers with
 * asynchronous confirms and resend after recovery ({@code publish}), consumers with manual acks
 * ({@code consume}), the topology of exchanges, group and partition queues ({@code provision}),
 * and the fleet control plane's log (a stream queue) and leadership (an exclusive queue)
 * ({@code control}). Not a public API.
 */
package io.switchboard.rabbit.internal;
