/**
 * The RocketMQ adapter ({@code rocketmq}): {@link io.switchboard.rocketmq.RocketMqAdapterFactory}
 * is found through {@link java.util.ServiceLoader}; {@link io.switchboard.rocketmq.RocketMqTransactions}
 * and {@link io.switchboard.rocketmq.TransactionHandler} add RocketMQ's transactional messages.
 */
package io.switchboard.rocketmq;
