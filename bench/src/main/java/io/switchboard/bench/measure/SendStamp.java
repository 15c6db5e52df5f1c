package io.switchboard.bench.measure;

/**
 * The bench's send time, carried in the first 8 bytes of every payload (big-endian microseconds
 * since the epoch), the same way through the SDK and through every native client: no header,
 * property or message timestamp of the bench's own, so the SDK publishes the envelope its users get
 * by default (on Kafka, no {@code ce_time} for a message without an explicit timestamp) and both
 * sides pay the same for the clock: one copy of the payload per send and one read per receipt.
 * A workload's payload size stays as stated: the stamp overwrites its first 8 bytes.
 */
public final class SendStamp {

    /** The smallest payload that carries a stamp. */
    public static final int BYTES = Long.BYTES;

    private SendStamp() {}

    /** A copy of {@code template} with {@code sendMicros} in its first 8 bytes. */
    public static byte[] stamped(byte[] template, long sendMicros) {
        if (template.length < BYTES) {
            throw new IllegalArgumentException("A payload of " + template.length + " bytes cannot carry the bench's "
                    + BYTES + "-byte send time; use a messageSize (or payloadFile) of at least " + BYTES + " bytes");
        }
        byte[] payload = template.clone();
        for (int i = BYTES - 1; i >= 0; i--) {
            payload[i] = (byte) sendMicros;
            sendMicros >>>= 8;
        }
        return payload;
    }

    /** The send time in the first 8 bytes of {@code payload}, microseconds since the epoch. */
    public static long read(byte[] payload) {
        long micros = 0;
        for (int i = 0; i < BYTES; i++) {
            micros = (micros << 8) | (payload[i] & 0xFF);
        }
        return micros;
    }
}
