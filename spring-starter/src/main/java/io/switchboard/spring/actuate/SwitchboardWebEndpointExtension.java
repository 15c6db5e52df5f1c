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

    /** An extension over the endpoint it answers for. */
    public SwitchboardWebEndpointExtension(SwitchboardEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /** {@link SwitchboardEndpoint#changeRoute}, with a refusal as a 400 body. */
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

    /** {@link SwitchboardEndpoint#changeDefaultRoute}, with a refusal as a 400 body. */
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
