/**
 * Topics and groups through the admin tool: creation and checks (the broker group's replication).
 * Implementation of the RocketMQ adapter: not part of the public API and may change without notice.
 */
package io.switchboard.rocketmq.internal.provision;
