/**
 * Exactly-once handling on the consume side: the in-memory idempotency store and the wait for a
 * claim another consumer holds. Implementation of core: not part of the public API and may change
 * without notice.
 */
package io.switchboard.internal.idempotency;
