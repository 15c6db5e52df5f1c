/**
 * A real Apache Kafka broker (KRaft) embedded in the test JVM: {@link io.switchboard.testkit.kafka.EmbeddedKafka}.
 */
package io.switchboard.testkit.kafka;
