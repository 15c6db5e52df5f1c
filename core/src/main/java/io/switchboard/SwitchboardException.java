package io.switchboard;

/** Base of every exception Switchboard throws; its message names the bad value and the fix. */
public class SwitchboardException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** With a message. */
    public SwitchboardException(String message) {
        super(message);
    }

    /** With a message and a cause. */
    public SwitchboardException(String message, Throwable cause) {
        super(message, cause);
    }
}
