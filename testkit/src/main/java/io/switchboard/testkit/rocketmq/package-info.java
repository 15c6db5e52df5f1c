/**
 * A real Apache RocketMQ name server and broker for tests, in-process:
 * {@link io.switchboard.testkit.rocketmq.EmbeddedRocketMq}.
 */
package io.switchboard.testkit.rocketmq;
