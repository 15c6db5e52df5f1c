/**
 * The CloudEvents Kafka binding: SDK records to producer records and consumer records' headers
 * back, decoded lazily. Implementation of the Kafka adapter: not part of the public API and may
 * change without notice.
 */
package io.switchboard.kafka.internal.mapping;
