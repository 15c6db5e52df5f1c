/**
 * Implementation of the RocketMQ adapter: {@link io.switchboard.rocketmq.internal.RocketMqAdapter},
 * its settings and the name rules at this level; by concern below it, the shared clients
 * ({@code client}), the envelope's mapping to message properties ({@code mapping}), publishing
 * ({@code publish}), consuming ({@code consume}), topics and groups ({@code provision}), and the
 * fleet control plane's log and leadership ({@code control}). Not an API.
 */
package io.switchboard.rocketmq.internal;
