/** The brokers of a run: external clusters, in-process Kafka and RocketMQ, the local RabbitMQ. */
package io.switchboard.bench.env;
