package io.switchboard;

/** An encoded message is larger than the broker accepts; the message names the size and the limit. */
public class MessageTooLargeException extends InvalidMessageException {
    private static final long serialVersionUID = 1L;

    /**
     * With a message naming the value and the fix.
     *
     * @param message the detail message, naming the bad value and the fix
     */
    public MessageTooLargeException(String message) {
        super(message);
    }

    /**
     * With a message and a cause.
     *
     * @param message the detail message
     * @param cause the failure that caused this one
     */
    public MessageTooLargeException(String message, Throwable cause) {
        super(message, cause);
    }
}
