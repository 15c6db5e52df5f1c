package io.switchboard.spring.actuate;

import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The {@code switchboard} endpoint's writes over HTTP: a refused change answers 400 with a JSON body
 * that names the property, the value, the reason and the fix ({@link RouteChangeRejectedException#body()}).
 * Spring Boot's own error body leaves the exception's message out unless
 * {@code server.error.include-message} is set, which left a client with a bare 400.
 */
@EndpointWebExtension(endpoint = SwitchboardEndpoint.class)
public class SwitchboardWebEndpointExtension {

    private final SwitchboardEndpoint endpoint;

    /**
     * An extension over the endpoint it answers for.
     *
     * @param endpoint the endpoint
     */
    public SwitchboardWebEndpointExtension(SwitchboardEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /**
     * {@link SwitchboardEndpoint#changeRoute}, with a refusal as a 400 body.
     *
     * @param destination the destination's name
     * @param mode single, split, mirror, failover or migrate; inferred from the other fields when null
     * @param instance for single: the instance
     * @param weights for split: {@code a=90,b=10}
     * @param primary for mirror and failover: the primary instance
     * @param shadow for mirror: the shadow instance
     * @param observeOnly for mirror: whether the shadow only observes
     * @param secondary for failover: the secondary instance
     * @param from for migrate: the instance moved away from
     * @param to for migrate: the instance moved to
     * @param scope {@code local} for this replica only; the fleet otherwise
     * @return the route now in force, or a 400 response whose body names the property, value, reason and fix
     */
    @WriteOperation
    public WebEndpointResponse<Map<String, Object>> changeRoute(@Selector String destination, @Nullable String mode,
            @Nullable String instance, @Nullable String weights, @Nullable String primary, @Nullable String shadow,
            @Nullable Boolean observeOnly, @Nullable String secondary, @Nullable String from, @Nullable String to,
            @Nullable String scope) {
        try {
            return new WebEndpointResponse<>(endpoint.changeRoute(destination, mode, instance, weights, primary, shadow,
                    observeOnly, secondary, from, to, scope));
        } catch (RouteChangeRejectedException e) {
            return new WebEndpointResponse<>(e.body(), WebEndpointResponse.STATUS_BAD_REQUEST);
        }
    }

    /**
     * {@link SwitchboardEndpoint#changeDefaultRoute}, with a refusal as a 400 body.
     *
     * @param mode single, split, mirror, failover or migrate; inferred from the other fields when null
     * @param instance for single: the instance
     * @param weights for split: {@code a=90,b=10}
     * @param primary for mirror and failover: the primary instance
     * @param shadow for mirror: the shadow instance
     * @param observeOnly for mirror: whether the shadow only observes
     * @param secondary for failover: the secondary instance
     * @param from for migrate: the instance moved away from
     * @param to for migrate: the instance moved to
     * @return the whole view, or a 400 response whose body names the property, value, reason and fix
     */
    @WriteOperation
    public WebEndpointResponse<Map<String, Object>> changeDefaultRoute(@Nullable String mode, @Nullable String instance,
            @Nullable String weights, @Nullable String primary, @Nullable String shadow, @Nullable Boolean observeOnly,
            @Nullable String secondary, @Nullable String from, @Nullable String to) {
        try {
            return new WebEndpointResponse<>(endpoint.changeDefaultRoute(mode, instance, weights, primary, shadow,
                    observeOnly, secondary, from, to));
        } catch (RouteChangeRejectedException e) {
            return new WebEndpointResponse<>(e.body(), WebEndpointResponse.STATUS_BAD_REQUEST);
        }
    }
}
