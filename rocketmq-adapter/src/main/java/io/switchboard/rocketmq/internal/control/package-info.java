/**
 * The fleet's control log (one queue of a topic, read from its minimum offset) and leadership
 * (the broker's queue lock).
 * Implementation of the RocketMQ adapter: not part of the public API and may change without notice.
 */
package io.switchboard.rocketmq.internal.control;
