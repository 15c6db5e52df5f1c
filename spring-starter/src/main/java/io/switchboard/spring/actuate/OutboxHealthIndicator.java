package io.switchboard.spring.actuate;

import io.switchboard.outbox.Outbox;
import io.switchboard.spi.BrokerHealth;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The transactional outbox's health, under {@code /actuator/health/switchboard/outbox}, as the outbox reads it from
 * its table: UP; {@code DEGRADED} (status code {@value FleetHealthIndicator#DEGRADED_CODE}) while the oldest unsent
 * message is older than {@code switchboard.outbox.degraded-after} (the relay is stopped, or a broker refuses its
 * messages; they wait in the table, nothing is lost); DOWN when the table cannot be read. Details: the table, whether
 * the relay runs, the backlog, the oldest unsent age in milliseconds and the reason.
 */
public final class OutboxHealthIndicator implements HealthIndicator {

    private final Outbox outbox;

    /**
     * An indicator over the application's outbox.
     *
     * @param outbox the outbox
     */
    public OutboxHealthIndicator(Outbox outbox) {
        this.outbox = outbox;
    }

    @Override
    public Health health() {
        BrokerHealth health;
        try {
            health = outbox.health();
        } catch (RuntimeException e) {
            health = BrokerHealth.down("the outbox's health check failed with " + e.getClass().getName());
        }
        return Health.status(BrokerInstanceHealthIndicator.status(health)).withDetail("table", outbox.table())
                .withDetail("relay", outbox.isRunning() ? "running" : "stopped").withDetail("backlog", outbox.backlog())
                .withDetail("oldestUnsentAgeMs", outbox.oldestUnsentAge().toMillis()).withDetail("reason", health.reason())
                .build();
    }
}
