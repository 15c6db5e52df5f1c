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

    /**
     * Whether the payload may well decode later: the codec depends on something outside the message that did not
     * answer (a schema registry that timed out or was unreachable), not on the bytes. A subscription then waits its
     * retry back-off and returns the message to the broker instead of sending it to the dead-letter destination.
     *
     * @return false here: a payload that cannot be decoded is a poison message
     */
    public boolean isTransient() {
        return false;
    }
}
