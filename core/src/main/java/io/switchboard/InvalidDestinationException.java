package io.switchboard;

/** A destination name breaks the broker's naming rule; the message names the name and the rule. */
public class InvalidDestinationException extends SwitchboardException {
    private static final long serialVersionUID = 1L;

    /**
     * With a message naming the value and the fix.
     *
     * @param message the detail message, naming the bad value and the fix
     */
    public InvalidDestinationException(String message) {
        super(message);
    }

    /**
     * With a message and a cause.
     *
     * @param message the detail message
     * @param cause the failure that caused this one
     */
    public InvalidDestinationException(String message, Throwable cause) {
        super(message, cause);
    }
}
