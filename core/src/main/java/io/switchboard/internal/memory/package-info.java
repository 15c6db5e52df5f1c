/**
 * The in-memory broker (adapter id {@code memory}): the embedded default and the test broker for
 * applications' own unit tests. Topics with partitions chosen by key, consumer groups and
 * broadcast, ack/nack with redelivery, bounded memory with back-pressure. Applications use it
 * through its adapter id; the classes here are not part of the public API and may change without
 * notice.
 */
package io.switchboard.internal.memory;
