/**
 * Clients: the producers shared by the adapter's parts, their orderly shutdown, and the
 * transaction check handlers the transactional producer calls.
 * Implementation of the RocketMQ adapter: not part of the public API and may change without notice.
 */
package io.switchboard.rocketmq.internal.client;
