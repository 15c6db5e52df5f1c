/** Drivers: the generic SDK driver over any adapter id and the native Kafka, RabbitMQ and RocketMQ drivers. */
package io.switchboard.bench.driver;
