/** Implementation of the RocketMQ adapter; not an API. */
package io.switchboard.rocketmq.internal;
