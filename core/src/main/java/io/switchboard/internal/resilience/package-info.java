/**
 * Resilience4j policies applied around an adapter's raw publisher. Implementation of core: not
 * part of the public API and may change without notice.
 */
package io.switchboard.internal.resilience;
