package io.switchboard.spring;

import io.switchboard.BrokerInstance;
import io.switchboard.Switchboard;
import io.switchboard.outbox.Outbox;
import io.switchboard.spring.actuate.BrokerInstanceHealthIndicator;
import io.switchboard.spring.actuate.OutboxHealthIndicator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * One health indicator per broker instance, grouped as {@code switchboard}
 * ({@code /actuator/health/switchboard/<instance>}), plus the fleet's and the transactional outbox's
 * ({@code /actuator/health/switchboard/outbox}) when the application has them, when spring-boot-health is on the
 * classpath; {@code management.health.switchboard.enabled=false} turns it off.
 */
@AutoConfiguration(after = {SwitchboardAutoConfiguration.class, SwitchboardOutboxAutoConfiguration.class})
@ConditionalOnClass({HealthIndicator.class, Switchboard.class})
@ConditionalOnBean(Switchboard.class)
@ConditionalOnEnabledHealthIndicator("switchboard")
public class SwitchboardHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "switchboardHealthContributor")
    HealthContributor switchboardHealthContributor(Switchboard switchboard, SwitchboardProperties properties,
            ObjectProvider<Outbox> outbox) {
        Map<String, HealthIndicator> indicators = new LinkedHashMap<>();
        for (String name : switchboard.instances()) {
            BrokerInstance instance = switchboard.instance(name);
            indicators.put(name, new BrokerInstanceHealthIndicator(instance.brokerId(), instance::health,
                    properties.getHealth().getTimeout()));
        }
        if (switchboard.instances().size() > 1 && switchboard.routing().fleet().status() != io.switchboard.routing.Fleet.Status.LOCAL) {
            indicators.put("fleet", new io.switchboard.spring.actuate.FleetHealthIndicator(() -> switchboard.routing().fleet()));
        }
        Outbox theOutbox = outbox.getIfUnique();
        if (theOutbox != null) {
            indicators.put("outbox", new OutboxHealthIndicator(theOutbox));
        }
        return CompositeHealthContributor.fromMap(indicators);
    }
}
