package io.switchboard.bench.reply;

/** One side of the request/reply bench: requesters and responders on one broker, through the SDK or a plain client. */
interface Rig extends AutoCloseable {

    /** The outcome of one request; exactly one of its methods is called, once. */
    interface Outcome {
        void replied();

        void failed(Throwable error);
    }

    /** Tells {@code outcome} how {@code stage} ended. */
    static void completes(java.util.concurrent.CompletionStage<?> stage, Outcome outcome) {
        stage.whenComplete((reply, error) -> {
            if (error == null) {
                outcome.replied();
            } else {
                outcome.failed(error);
            }
        });
    }

    /** {@return what the rig is, for the report: broker and mode} */
    String name();

    /** Sends one request; {@code outcome} hears of its reply, failure or time-out. Must not block for long. */
    void request(byte[] payload, Outcome outcome);

    /** {@return the requests the requester still holds state for (pending replies)} */
    int pending();

    @Override
    void close() throws Exception;
}
