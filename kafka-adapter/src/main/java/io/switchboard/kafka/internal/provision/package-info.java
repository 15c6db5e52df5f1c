/**
 * Topics and groups through the admin client: creation, checks, lag and health. Implementation
 * of the Kafka adapter: not part of the public API and may change without notice.
 */
package io.switchboard.kafka.internal.provision;
