/**
 * JUnit 5 support for testing applications on real brokers: {@link
 * io.switchboard.testkit.junit.EmbeddedBrokersExtension} starts an embedded Kafka or RocketMQ for a
 * test class and hands it to the tests that declare it as a parameter; {@link
 * io.switchboard.testkit.junit.HangReportExtension} puts a thread dump into the failure of a test
 * that passed its timeout, and writes one to a file when the whole test JVM runs too long.
 */
package io.switchboard.testkit.junit;
