package io.switchboard;

/** A payload could not be encoded or decoded. */
public class CodecException extends SwitchboardException {
    private static final long serialVersionUID = 1L;

    /**
     * With a message naming the value and the fix.
     *
     * @param message the detail message, naming the bad value and the fix
     */
    public CodecException(String message) {
        super(message);
    }

    /**
     * With a message and a cause.
     *
     * @param message the detail message
     * @param cause the failure that caused this one
     */
    public CodecException(String message, Throwable cause) {
        super(message, cause);
    }
}
