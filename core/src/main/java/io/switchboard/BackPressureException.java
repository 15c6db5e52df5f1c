package io.switchboard;

/** The broker or client buffer stayed full for longer than the configured wait. */
public class BackPressureException extends PublishException {
    private static final long serialVersionUID = 1L;

    /** With a message naming the value and the fix. */
    public BackPressureException(String message) {
        super(message);
    }

    /** With a message and a cause. */
    public BackPressureException(String message, Throwable cause) {
        super(message, cause);
    }
}
