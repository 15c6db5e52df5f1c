package io.switchboard.spring.actuate;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

/**
 * An actuator write to the {@code switchboard} endpoint that was refused: names the property (or
 * request field), the value it had and the fix. Over HTTP {@link SwitchboardWebEndpointExtension}
 * answers it as a 400 whose JSON body holds these fields, whatever {@code server.error.include-message}
 * says; over JMX it is the operation's error, its message holding the same.
 */
public class RouteChangeRejectedException extends InvalidEndpointRequestException {
    private static final long serialVersionUID = 1L;

    /** The property or request field that was wrong. */
    private final String property;
    /** Its value, or null when it was missing. */
    private final @Nullable String value;
    /** What to send instead. */
    private final String fix;

    /**
     * Creates the exception.
     *
     * @param property the property or request field that was wrong, for example
     *     {@code switchboard.routes.orders.weights.c}
     * @param value its value, or null when it was missing
     * @param reason why it was refused
     * @param fix what to send instead
     * @param cause the underlying exception, or null
     */
    public RouteChangeRejectedException(String property, @Nullable String value, String reason, String fix,
            @Nullable Throwable cause) {
        super("Property '" + property + "' " + (value == null ? "is not set" : "is '" + value + "'") + ": " + reason
                + ". " + fix, reason, cause);
        this.property = property;
        this.value = value;
        this.fix = fix;
    }

    /** {@return the property or request field that was wrong} */
    public String property() {
        return property;
    }

    /** {@return its value, or null when it was missing} */
    public @Nullable String value() {
        return value;
    }

    /** {@return what to send instead} */
    public String fix() {
        return fix;
    }

    /** {@return the JSON body an HTTP client gets: status, error, message, property, value, reason and fix} */
    public Map<String, Object> body() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", 400);
        body.put("error", "Bad Request");
        body.put("message", getMessage());
        body.put("property", property);
        body.put("value", value);
        body.put("reason", getReason());
        body.put("fix", fix);
        return body;
    }
}
