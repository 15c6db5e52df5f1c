/**
 * Topics and groups through the admin tool: creation, checks (replication), and health.
 * Implementation of the RocketMQ adapter: not part of the public API and may change without notice.
 */
package io.switchboard.rocketmq.internal.provision;
