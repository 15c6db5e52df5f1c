package io.switchboard;

/** A subscription failed in a way it cannot recover from by itself (for example its queue was deleted). */
public class SubscriptionException extends SwitchboardException {
    private static final long serialVersionUID = 1L;

    /**
     * With a message naming the value and the fix.
     *
     * @param message the detail message, naming the bad value and the fix
     */
    public SubscriptionException(String message) {
        super(message);
    }

    /**
     * With a message and a cause.
     *
     * @param message the detail message
     * @param cause the failure that caused this one
     */
    public SubscriptionException(String message, Throwable cause) {
        super(message, cause);
    }
}
