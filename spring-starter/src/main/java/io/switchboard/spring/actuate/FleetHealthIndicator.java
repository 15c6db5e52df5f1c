package io.switchboard.spring.actuate;

import io.switchboard.routing.Fleet;
import java.util.function.Supplier;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The fleet control channel's health, under {@code /actuator/health/switchboard/fleet}: UP while
 * this replica follows the fleet's routes, {@code DEGRADED} (status code {@value #DEGRADED_CODE})
 * while the control instance is unreachable, naming it (the replica keeps its last routes, so
 * traffic flows; add {@code DEGRADED} to {@code management.endpoint.health.status.order} to rank it).
 */
public final class FleetHealthIndicator implements HealthIndicator {

    /** The status code of a replica whose control channel is unreachable. */
    public static final String DEGRADED_CODE = "DEGRADED";

    private final Supplier<Fleet> fleet;

    /**
     * An indicator over the Switchboard's fleet view.
     *
     * @param fleet gives the Switchboard's fleet view
     */
    public FleetHealthIndicator(Supplier<Fleet> fleet) {
        this.fleet = fleet;
    }

    @Override
    public Health health() {
        Fleet f = fleet.get();
        Status status = f.status() == Fleet.Status.DEGRADED ? new Status(DEGRADED_CODE, f.reason()) : Status.UP;
        return Health.status(status).withDetail("fleet", f.fleetName()).withDetail("replica", f.replica())
                .withDetail("controlInstance", f.controlInstance()).withDetail("routeVersion", f.routeVersion())
                .withDetail("leader", f.leader()).withDetail("replicas", f.replicas().size()).withDetail("reason", f.reason()).build();
    }
}
