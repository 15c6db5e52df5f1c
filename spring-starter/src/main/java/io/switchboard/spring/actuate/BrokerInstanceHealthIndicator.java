package io.switchboard.spring.actuate;

import io.switchboard.spi.BrokerHealth;
import java.time.Duration;
import java.util.function.Function;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The health of one broker instance, as its adapter checks it: UP or DOWN with the reason
 * (never a secret), plus the instance's broker type. Shown under {@code /actuator/health/switchboard/<instance>}.
 */
public final class BrokerInstanceHealthIndicator implements HealthIndicator {

    private final String brokerId;
    private final Function<Duration, BrokerHealth> check;
    private final Duration timeout;

    /**
     * Creates the indicator.
     *
     * @param brokerId the adapter id, shown as detail {@code broker}
     * @param check the instance's health check
     * @param timeout how long one check may wait for the broker
     */
    public BrokerInstanceHealthIndicator(String brokerId, Function<Duration, BrokerHealth> check, Duration timeout) {
        this.brokerId = brokerId;
        this.check = check;
        this.timeout = timeout;
    }

    @Override
    public Health health() {
        BrokerHealth health;
        try {
            health = check.apply(timeout);
        } catch (RuntimeException e) {
            // an adapter must not throw; if one does, say so without its message, which might hold anything
            health = BrokerHealth.down("the health check failed with " + e.getClass().getName());
        }
        return Health.status(status(health)).withDetail("broker", brokerId).withDetail("reason", health.reason()).build();
    }

    /** Spring Boot's status of a Switchboard health: DEGRADED as status code {@value FleetHealthIndicator#DEGRADED_CODE}. */
    static Status status(BrokerHealth health) {
        return switch (health.status()) {
            case UP -> Status.UP;
            case DOWN -> Status.DOWN;
            case UNKNOWN -> Status.UNKNOWN;
            case DEGRADED -> new Status(FleetHealthIndicator.DEGRADED_CODE, health.reason());
        };
    }
}
