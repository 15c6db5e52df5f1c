/**
 * Transactions: the transactional publisher and the consume-transform-produce pipeline.
 * Implementation of the Kafka adapter: not part of the public API and may change without notice.
 */
package io.switchboard.kafka.internal.tx;
