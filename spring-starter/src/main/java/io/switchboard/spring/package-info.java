/**
 * Spring Boot auto-configuration of Switchboard: {@code switchboard.*} properties to a
 * {@link io.switchboard.Switchboard} bean, {@link io.switchboard.spring.Publishers},
 * {@link io.switchboard.spring.SwitchboardListener} methods, health and the actuator endpoint.
 */
package io.switchboard.spring;
