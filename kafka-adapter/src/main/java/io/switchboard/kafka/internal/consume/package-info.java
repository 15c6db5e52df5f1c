/**
 * Consuming: the poll loop, the inbound record, per-partition state and the offset committer.
 * Implementation of the Kafka adapter: not part of the public API and may change without notice.
 */
package io.switchboard.kafka.internal.consume;
