package io.switchboard;

/** A message cannot be published as it is (for example a null payload). */
public class InvalidMessageException extends SwitchboardException {
    private static final long serialVersionUID = 1L;

    /**
     * With a message naming the value and the fix.
     *
     * @param message the detail message, naming the bad value and the fix
     */
    public InvalidMessageException(String message) {
        super(message);
    }

    /**
     * With a message and a cause.
     *
     * @param message the detail message
     * @param cause the failure that caused this one
     */
    public InvalidMessageException(String message, Throwable cause) {
        super(message, cause);
    }
}
