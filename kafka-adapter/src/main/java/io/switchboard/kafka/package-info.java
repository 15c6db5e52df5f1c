/**
 * The Kafka adapter (id {@code kafka}): {@link io.switchboard.kafka.KafkaAdapterFactory} documents its
 * properties and guarantees, {@link io.switchboard.kafka.KafkaPipeline} runs exactly-once
 * consume-transform-publish pipelines.
 */
package io.switchboard.kafka;
