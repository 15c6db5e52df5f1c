package io.switchboard.spring;

import io.switchboard.Switchboard;
import io.switchboard.outbox.Outbox;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spring.actuate.SwitchboardEndpoint;
import io.switchboard.spring.actuate.SwitchboardWebEndpointExtension;
import java.util.Locale;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code switchboard} actuator endpoint (when the application has the actuator and exposes the
 * endpoint), and a sanitizing function that masks Switchboard's secrets in {@code /actuator/env}
 * and {@code /actuator/configprops} beyond Spring Boot's own rules (for example a SASL JAAS config
 * in an instance's properties, or a password inside a RabbitMQ URI).
 */
@AutoConfiguration(after = {SwitchboardAutoConfiguration.class, SwitchboardOutboxAutoConfiguration.class})
@ConditionalOnClass({Endpoint.class, Switchboard.class})
public class SwitchboardEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(Switchboard.class)
    @ConditionalOnAvailableEndpoint
    SwitchboardEndpoint switchboardEndpoint(Switchboard switchboard, ObjectProvider<Outbox> outbox) {
        return new SwitchboardEndpoint(switchboard, outbox.getIfUnique());
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(SwitchboardEndpoint.class)
    SwitchboardWebEndpointExtension switchboardWebEndpointExtension(SwitchboardEndpoint endpoint) {
        return new SwitchboardWebEndpointExtension(endpoint);
    }

    @Bean
    SanitizingFunction switchboardSanitizingFunction() {
        return SwitchboardEndpointAutoConfiguration::sanitize;
    }

    /** Masks values of switchboard.* keys that name a secret, and passwords inside URIs. */
    static SanitizableData sanitize(SanitizableData data) {
        String key = data.getLowerCaseKey();
        if (!key.startsWith("switchboard.") && !key.startsWith("switchboard_")) {
            return data;
        }
        String normalized = key.replace('_', '.').toLowerCase(Locale.ROOT);
        if (BrokerConfig.isSecretKey(normalized)) {
            return data.withSanitizedValue();
        }
        if (data.getValue() instanceof CharSequence value) {
            String printable = BrokerConfig.printable(normalized, value.toString());
            if (!printable.contentEquals(value)) {
                return data.withValue(printable);
            }
        }
        return data;
    }
}
