/**
 * The in-memory broker (adapter id {@code memory}): the embedded default and the test broker for
 * applications' own unit tests. Topics with partitions chosen by key, consumer groups and
 * broadcast, ack/nack with redelivery, bounded memory with back-pressure.
 */
package io.switchboard.internal.memory;
