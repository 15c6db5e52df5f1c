/**
 * The routing layer's implementation: the router and its one-second ticker, a binding per
 * destination with its route state, publishers and subscriptions that span instances, and the
 * shadow mirror and check. Depends on {@code internal.fleet} and {@code internal.comparison}, never
 * the other way round. Implementation of core: not part of the public API and may change without
 * notice.
 */
package io.switchboard.internal.routing;
