/**
 * A/B routing between broker instances and the live comparison that decides it: {@link
 * io.switchboard.routing.Route} (single, split, mirror, failover, migrate), {@link
 * io.switchboard.routing.Routing} (change routes while traffic flows), {@link
 * io.switchboard.routing.PromotionGate} (a guarded ramp of weights), {@link
 * io.switchboard.routing.BrokerComparison} and {@link io.switchboard.routing.ComparisonReport}
 * (per-instance figures and a verdict), {@link io.switchboard.routing.ShadowReport} (what a
 * mirror's shadow missed). Instances are the brokers; routes say which carries what.
 */
package io.switchboard.routing;
