/**
 * Publishing: the raw publisher, per-key lanes for ordered sends, transactional sends and the
 * classification of send failures.
 * Implementation of the RocketMQ adapter: not part of the public API and may change without notice.
 */
package io.switchboard.rocketmq.internal.publish;
