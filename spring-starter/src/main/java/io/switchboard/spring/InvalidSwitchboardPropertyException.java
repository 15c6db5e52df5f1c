package io.switchboard.spring;

import io.switchboard.ConfigurationException;

/**
 * A {@code switchboard.*} property is missing or wrong. Names the property, its value (masked when
 * it is a secret) and the fix; the starter's failure analyzer turns it into the startup report.
 */
public class InvalidSwitchboardPropertyException extends ConfigurationException {
    private static final long serialVersionUID = 1L;

    /** The full property name. */
    private final String property;
    /** The value as it may be shown, or null. */
    private final String value;
    /** Why the value cannot be used. */
    private final String reason;
    /** What to change. */
    private final String action;

    /**
     * Creates the exception.
     *
     * @param property the full property name, for example {@code switchboard.instances.main.type}
     * @param value the value as it may be shown (secrets masked), or null when the property is missing
     * @param reason why the value cannot be used
     * @param action what to change
     */
    public InvalidSwitchboardPropertyException(String property, String value, String reason, String action) {
        super("Property '" + property + "' " + (value == null ? "is not set" : "is '" + value + "'") + ": " + reason
                + ". " + action);
        this.property = property;
        this.value = value;
        this.reason = reason;
        this.action = action;
    }

    /** {@return the full property name} */
    public String property() {
        return property;
    }

    /** {@return the value as it may be shown (secrets masked), or null when the property is missing} */
    public String value() {
        return value;
    }

    /** {@return why the value cannot be used} */
    public String reason() {
        return reason;
    }

    /** {@return what to change} */
    public String action() {
        return action;
    }
}
