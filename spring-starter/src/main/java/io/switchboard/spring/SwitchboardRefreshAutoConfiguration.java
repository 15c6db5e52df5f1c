package io.switchboard.spring;

import io.switchboard.Switchboard;
import io.switchboard.spring.internal.RouteRefresher;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * With Spring Cloud's {@code spring-cloud-context} on the classpath: {@code switchboard.routes.*}
 * and {@code switchboard.default-route.*} changed at run time (a refresh, a config server push)
 * are applied through {@code Switchboard.routing()}, the same path as the actuator's writes, so
 * with a control channel the change reaches every replica.
 */
@AutoConfiguration(after = SwitchboardAutoConfiguration.class)
@ConditionalOnClass(EnvironmentChangeEvent.class)
@ConditionalOnBean(Switchboard.class)
public class SwitchboardRefreshAutoConfiguration {

    @Bean
    ApplicationListener<EnvironmentChangeEvent> switchboardRouteRefresher(Switchboard switchboard, Environment environment) {
        RouteRefresher refresher = new RouteRefresher(switchboard, environment);
        return event -> refresher.changed(event.getKeys());
    }
}
