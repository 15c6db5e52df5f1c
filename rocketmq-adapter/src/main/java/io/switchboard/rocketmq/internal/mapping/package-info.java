/**
 * The envelope's mapping to RocketMQ message properties, and back.
 * Implementation of the RocketMQ adapter: not part of the public API and may change without notice.
 */
package io.switchboard.rocketmq.internal.mapping;
