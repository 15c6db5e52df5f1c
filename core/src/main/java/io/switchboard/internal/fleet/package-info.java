/**
 * The fleet control plane: route and gate records on the control instance's log, the broadcast
 * bus of heartbeats and traffic figures, the followers' view, leadership, and the promotion gate
 * runner. It reaches the router only through {@link io.switchboard.internal.fleet.FleetControl.Routes}.
 * Implementation of core: not part of the public API and may change without notice.
 */
package io.switchboard.internal.fleet;
