package io.switchboard;

/** No adapter with the requested id is on the classpath; the message lists the ids that are. */
public class UnknownBrokerException extends SwitchboardException {
    private static final long serialVersionUID = 1L;

    /**
     * With a message naming the value and the fix.
     *
     * @param message the detail message, naming the bad value and the fix
     */
    public UnknownBrokerException(String message) {
        super(message);
    }

    /**
     * With a message and a cause.
     *
     * @param message the detail message
     * @param cause the failure that caused this one
     */
    public UnknownBrokerException(String message, Throwable cause) {
        super(message, cause);
    }
}
