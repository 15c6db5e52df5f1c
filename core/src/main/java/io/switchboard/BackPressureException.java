package io.switchboard;

/** The broker or client buffer stayed full for longer than the configured wait. */
public class BackPressureException extends PublishException {
    private static final long serialVersionUID = 1L;

    /**
     * With a message naming the value and the fix.
     *
     * @param message the detail message, naming the bad value and the fix
     */
    public BackPressureException(String message) {
        super(message);
    }

    /**
     * With a message and a cause.
     *
     * @param message the detail message
     * @param cause the failure that caused this one
     */
    public BackPressureException(String message, Throwable cause) {
        super(message, cause);
    }
}
