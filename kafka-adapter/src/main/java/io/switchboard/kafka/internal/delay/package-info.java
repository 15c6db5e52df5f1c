/**
 * Delayed delivery: the delay tiers and their topics, the publishers' routing into them, and the forwarders that
 * move due records on to their destination. Implementation of the Kafka adapter: not part of the public API and may
 * change without notice.
 */
package io.switchboard.kafka.internal.delay;
