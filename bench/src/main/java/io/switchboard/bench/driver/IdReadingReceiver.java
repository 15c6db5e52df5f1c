package io.switchboard.bench.driver;

import java.util.function.ToIntFunction;

/**
 * What a Spring peer's listener does with each message: in envelope runs it first reads the
 * envelope's id as the SDK does (the sum keeps the JIT from dropping the decoding), then hands the
 * payload to the bench's {@link ReceiveListener}.
 *
 * @param <T> the client's message type
 */
final class IdReadingReceiver<T> {

    private final ReceiveListener listener;
    private final ToIntFunction<T> idLength;
    private long idLengths;

    /**
     * @param idLength the length of a message's id as the SDK decodes it, or null when the run carries no envelope
     */
    IdReadingReceiver(ReceiveListener listener, ToIntFunction<T> idLength) {
        this.listener = listener;
        this.idLength = idLength;
    }

    /** One message with this payload arrived, on the consumer's thread. */
    void received(T message, byte[] payload) {
        if (idLength != null) {
            idLengths += idLength.applyAsInt(message);
        }
        listener.received(payload);
    }
}
