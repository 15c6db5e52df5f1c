/** Micrometer meters and observations around publishing and handling; created once, never looked up per message. */
package io.switchboard.internal.metrics;
