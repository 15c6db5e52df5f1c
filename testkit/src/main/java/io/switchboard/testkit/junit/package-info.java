/**
 * JUnit 5 support for testing applications on real brokers: {@link
 * io.switchboard.testkit.junit.EmbeddedBrokersExtension} starts an embedded Kafka or RocketMQ for a
 * test class and hands it to the tests that declare it as a parameter.
 */
package io.switchboard.testkit.junit;
