package io.switchboard.schemaregistry;

import io.switchboard.CodecException;

/**
 * The schema registry refused a request, answered something unreadable, or did not answer in time. A {@link
 * CodecException}, so a payload whose schema cannot be registered fails to publish and one whose schema id the
 * registry does not know goes to the dead-letter destination like any other undecodable payload.
 */
public class SchemaRegistryException extends CodecException {
    private static final long serialVersionUID = 1L;

    /** The HTTP status, or {@code -1} when there was no answer. */
    private final int status;

    /**
     * With a message naming the URL, the subject or id, and the fix.
     *
     * @param message the detail message
     * @param status the HTTP status, or {@code -1} when there was no answer
     * @param cause the failure that caused this one, or null
     */
    public SchemaRegistryException(String message, int status, Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    /**
     * {@return true when the registry did not answer (time-out, connection refused), answered 5xx or 429 (too many
     * requests): a payload waiting on it is returned to the broker and read again after the subscription's back-off,
     * not dead-lettered}
     */
    @Override
    public boolean isTransient() {
        return status == -1 || status >= 500 || status == 429;
    }

    /** {@return the HTTP status of the registry's answer, or {@code -1} when there was none (timeout, refused)} */
    public int status() {
        return status;
    }
}
