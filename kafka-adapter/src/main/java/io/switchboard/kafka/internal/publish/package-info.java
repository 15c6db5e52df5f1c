/**
 * Publishing: the raw publisher, the producers it shares by configuration and the send futures.
 * Implementation of the Kafka adapter: not part of the public API and may change without notice.
 */
package io.switchboard.kafka.internal.publish;
