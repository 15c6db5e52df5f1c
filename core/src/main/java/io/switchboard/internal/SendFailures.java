package io.switchboard.internal;

import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log of {@link io.switchboard.Publisher#send}'s failures for publishers that only implement {@code publish}, and
 * of publish callbacks that threw.
 */
public final class SendFailures {

    private static final Logger log = LoggerFactory.getLogger(SendFailures.class);

    private SendFailures() {}

    /** Logs at ERROR when {@code published} fails: nobody else holds it. */
    public static void watch(CompletionStage<?> published, String destination) {
        published.whenComplete((receipt, error) -> {
            if (error != null) {
                log.error("A message to '{}' sent with send(..), which returns no receipt, was not acknowledged by the "
                        + "broker and may be LOST: {}. Use publish(..) where a failure must be handled", destination,
                        error.toString());
            }
        });
    }

    /** Logs a publish callback's exception: it must not reach the broker client's thread. */
    public static void callbackFailed(String destination, RuntimeException error) {
        log.error("The callback of a publish to '{}' threw; the exception is dropped (a callback must handle its own "
                + "errors)", destination, error);
    }
}
