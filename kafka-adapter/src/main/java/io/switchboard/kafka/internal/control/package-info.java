/**
 * The fleet's control log (a compacted topic) and leadership (a consumer group's assignment).
 * Implementation of the Kafka adapter: not part of the public API and may change without notice.
 */
package io.switchboard.kafka.internal.control;
