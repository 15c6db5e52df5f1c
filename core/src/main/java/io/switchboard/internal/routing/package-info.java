/**
 * The routing layer's implementation: the router and its one-second ticker, a binding per
 * destination, publishers and subscriptions that span instances, the shadow mirror and check, the
 * promotion gate runner, and the windowed traffic statistics the comparison reads. Not API.
 */
package io.switchboard.internal.routing;
