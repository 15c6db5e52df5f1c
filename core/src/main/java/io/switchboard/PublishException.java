package io.switchboard;

/** The broker rejected a message or could not route it. */
public class PublishException extends SwitchboardException {
    private static final long serialVersionUID = 1L;

    /**
     * With a message naming the value and the fix.
     *
     * @param message the detail message, naming the bad value and the fix
     */
    public PublishException(String message) {
        super(message);
    }

    /**
     * With a message and a cause.
     *
     * @param message the detail message
     * @param cause the failure that caused this one
     */
    public PublishException(String message, Throwable cause) {
        super(message, cause);
    }
}
