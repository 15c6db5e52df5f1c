/** The brokers of a run: external clusters, Kafka and RocketMQ in-process or in child JVMs, the local RabbitMQ. */
package io.switchboard.bench.env;
