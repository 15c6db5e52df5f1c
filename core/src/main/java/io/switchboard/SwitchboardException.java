package io.switchboard;

/** Base of every exception Switchboard throws; its message names the bad value and the fix. */
public class SwitchboardException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * With a message.
     *
     * @param message the detail message, naming the bad value and the fix
     */
    public SwitchboardException(String message) {
        super(message);
    }

    /**
     * With a message and a cause.
     *
     * @param message the detail message
     * @param cause the failure that caused this one
     */
    public SwitchboardException(String message, Throwable cause) {
        super(message, cause);
    }
}
