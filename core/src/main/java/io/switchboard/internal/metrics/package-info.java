/**
 * Micrometer meters and observations around publishing and handling; created once, never looked
 * up per message. Implementation of core: not part of the public API and may change without
 * notice.
 */
package io.switchboard.internal.metrics;
