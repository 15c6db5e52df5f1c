package io.switchboard;

/** A configuration value is missing or malformed; the message names the key, the value and the expected form. */
public class ConfigurationException extends SwitchboardException {
    private static final long serialVersionUID = 1L;

    /**
     * With a message naming the value and the fix.
     *
     * @param message the detail message, naming the bad value and the fix
     */
    public ConfigurationException(String message) {
        super(message);
    }

    /**
     * With a message and a cause.
     *
     * @param message the detail message
     * @param cause the failure that caused this one
     */
    public ConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
