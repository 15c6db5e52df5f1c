package io.switchboard.bench.workload;

/** A workload file that cannot be used; the message names the file, the field and the fix. */
public final class WorkloadException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Creates the exception. */
    public WorkloadException(String message) {
        super(message);
    }

    /** Creates the exception with a cause. */
    public WorkloadException(String message, Throwable cause) {
        super(message, cause);
    }
}
