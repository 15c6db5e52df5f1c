package io.switchboard;

/** No codec is registered under the requested name; the message lists those that are. */
public class UnknownCodecException extends SwitchboardException {
    private static final long serialVersionUID = 1L;

    /**
     * With a message naming the value and the fix.
     *
     * @param message the detail message, naming the bad value and the fix
     */
    public UnknownCodecException(String message) {
        super(message);
    }

    /**
     * With a message and a cause.
     *
     * @param message the detail message
     * @param cause the failure that caused this one
     */
    public UnknownCodecException(String message, Throwable cause) {
        super(message, cause);
    }
}
