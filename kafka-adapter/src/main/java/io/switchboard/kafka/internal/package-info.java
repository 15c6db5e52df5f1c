/**
 * The Kafka adapter: {@link io.switchboard.kafka.internal.KafkaAdapter} and its client settings at
 * this level, the rest by concern in sub-packages ({@code mapping}, {@code publish}, {@code consume},
 * {@code provision}, {@code control}, {@code tx}, {@code delay}). Implementation of the Kafka adapter: not part of
 * the public API and may change without notice.
 */
package io.switchboard.kafka.internal;
