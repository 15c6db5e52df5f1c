/** Resilience4j policies applied around an adapter's raw publisher. */
package io.switchboard.internal.resilience;
