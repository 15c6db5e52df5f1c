package io.switchboard;

/** A publisher or subscription asked for something the broker cannot do; the message names the broker, the feature and the alternative. */
public class UnsupportedCapabilityException extends SwitchboardException {
    private static final long serialVersionUID = 1L;

    /**
     * With a message naming the value and the fix.
     *
     * @param message the detail message, naming the bad value and the fix
     */
    public UnsupportedCapabilityException(String message) {
        super(message);
    }

    /**
     * With a message and a cause.
     *
     * @param message the detail message
     * @param cause the failure that caused this one
     */
    public UnsupportedCapabilityException(String message, Throwable cause) {
        super(message, cause);
    }
}
