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

    /** {@return the HTTP status of the registry's answer, or {@code -1} when there was none (timeout, refused)} */
    public int status() {
        return status;
    }
}
