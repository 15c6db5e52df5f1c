package io.switchboard.outbox;

import io.switchboard.SwitchboardException;

/** The outbox refused a call or could not use its table; the message names the table, the cause and the fix. */
public class OutboxException extends SwitchboardException {

    private static final long serialVersionUID = 1L;

    /**
     * An outbox error.
     *
     * @param message what went wrong and the fix
     */
    public OutboxException(String message) {
        super(message);
    }

    /**
     * An outbox error with its cause.
     *
     * @param message what went wrong and the fix
     * @param cause the underlying error
     */
    public OutboxException(String message, Throwable cause) {
        super(message, cause);
    }
}
