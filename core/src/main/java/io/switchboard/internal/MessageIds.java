package io.switchboard.internal;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/** Message ids (UUID version 7: time-ordered), timestamps with microsecond precision, W3C trace ids. */
public final class MessageIds {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private MessageIds() {}

    /** A new UUID version 7 string: 48 bits of Unix milliseconds, then random bits. */
    public static String next() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long millis = System.currentTimeMillis();
        long high = (millis << 16) | 0x7000L | (random.nextLong() & 0x0FFFL);
        long low = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(high, low).toString();
    }

    /** Now, truncated to microseconds. */
    public static Instant now() {
        return Instant.now().truncatedTo(ChronoUnit.MICROS);
    }

    /** A new W3C traceparent: version 00, random trace and span ids, sampled. */
    public static String newTraceparent() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        char[] out = new char[55];
        out[0] = '0';
        out[1] = '0';
        out[2] = '-';
        hex(random.nextLong() | 1L, out, 3);
        hex(random.nextLong(), out, 19);
        out[35] = '-';
        hex(random.nextLong() | 1L, out, 36);
        out[52] = '-';
        out[53] = '0';
        out[54] = '1';
        return new String(out);
    }

    private static void hex(long value, char[] out, int at) {
        for (int i = 15; i >= 0; i--) {
            out[at + i] = HEX[(int) (value & 0xF)];
            value >>>= 4;
        }
    }
}
