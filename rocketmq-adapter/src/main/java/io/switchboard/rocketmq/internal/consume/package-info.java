/**
 * Consuming: the push consumer, its concurrent and orderly listeners, the hand-off of batches to
 * the SDK, the inbound record, in-memory offsets for broadcast, and the client-instance rules.
 * Implementation of the RocketMQ adapter: not part of the public API and may change without notice.
 */
package io.switchboard.rocketmq.internal.consume;
