package io.switchboard.internal.resilience;

import io.switchboard.BackPressureException;
import io.switchboard.CircuitOpenException;
import io.switchboard.InvalidMessageException;
import io.switchboard.SwitchboardClosedException;
import java.io.IOException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * Which publish failures are worth retrying: time-outs, back-pressure, I/O errors and client
 * exceptions the broker's client itself marks retriable (Kafka's {@code RetriableException}
 * family, found by class name so core needs no broker client). Never retried: invalid messages,
 * a closed publisher, an open circuit.
 */
final class Retriability {

    private Retriability() {}

    /** True when a publish that failed with {@code error} may succeed if tried again. */
    public static boolean isRetriable(Throwable error) {
        Throwable e = unwrap(error);
        if (e instanceof InvalidMessageException || e instanceof SwitchboardClosedException || e instanceof CircuitOpenException) {
            return false;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof TimeoutException || t instanceof BackPressureException || t instanceof IOException
                    || namedRetriable(t.getClass())) {
                return true;
            }
        }
        return false;
    }

    private static boolean namedRetriable(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            String name = c.getSimpleName();
            if (name.equals("RetriableException") || name.equals("TimeoutException")) {
                return true;
            }
        }
        return false;
    }

    /** The cause inside a {@link CompletionException} or {@link ExecutionException}. */
    public static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
