package io.switchboard;

/** A publisher, subscription or Switchboard was used after close. */
public class SwitchboardClosedException extends SwitchboardException {
    private static final long serialVersionUID = 1L;

    /**
     * With a message naming the value and the fix.
     *
     * @param message the detail message, naming the bad value and the fix
     */
    public SwitchboardClosedException(String message) {
        super(message);
    }

    /**
     * With a message and a cause.
     *
     * @param message the detail message
     * @param cause the failure that caused this one
     */
    public SwitchboardClosedException(String message, Throwable cause) {
        super(message, cause);
    }
}
