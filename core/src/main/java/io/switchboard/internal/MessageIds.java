package io.switchboard.internal;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Message ids (UUID version 7: time-ordered), RFC 3339 timestamps with microsecond precision and
 * W3C traceparents, each written straight into one Latin-1 string: these run once per published
 * message, so they avoid intermediate objects.
 */
public final class MessageIds {

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private MessageIds() {}

    /** A new UUID version 7 string: 48 bits of Unix milliseconds, version, then random bits. */
    public static String next() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long high = (System.currentTimeMillis() << 16) | 0x7000L | (random.nextLong() & 0x0FFFL);
        long low = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        byte[] out = new byte[36];
        hex(high >>> 32, 8, out, 0);
        out[8] = '-';
        hex(high >>> 16, 4, out, 9);
        out[13] = '-';
        hex(high, 4, out, 14);
        out[18] = '-';
        hex(low >>> 48, 4, out, 19);
        out[23] = '-';
        hex(low, 12, out, 24);
        return new String(out, StandardCharsets.ISO_8859_1);
    }

    /** Now, truncated to microseconds. */
    public static Instant now() {
        return Instant.now().truncatedTo(ChronoUnit.MICROS);
    }

    /** A new W3C traceparent: version 00, random trace and span ids, sampled. */
    public static String newTraceparent() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        byte[] out = new byte[55];
        out[0] = '0';
        out[1] = '0';
        out[2] = '-';
        hex(random.nextLong() | 1L, 16, out, 3);
        hex(random.nextLong(), 16, out, 19);
        out[35] = '-';
        hex(random.nextLong() | 1L, 16, out, 36);
        out[52] = '-';
        out[53] = '0';
        out[54] = '1';
        return new String(out, StandardCharsets.ISO_8859_1);
    }

    /** RFC 3339 UTC with exactly six fraction digits, e.g. {@code 2026-11-22T02:59:00.123456Z}. */
    public static String formatMicros(long epochSecond, int nanos) {
        long days = Math.floorDiv(epochSecond, 86_400L);
        int secondOfDay = (int) Math.floorMod(epochSecond, 86_400L);
        // civil date from days since 1970-01-01 (proleptic Gregorian)
        long z = days + 719_468;
        long era = Math.floorDiv(z, 146_097);
        long doe = z - era * 146_097;
        long yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        long mp = (5 * doy + 2) / 153;
        int day = (int) (doy - (153 * mp + 2) / 5 + 1);
        int month = (int) (mp < 10 ? mp + 3 : mp - 9);
        long year = yoe + era * 400 + (month <= 2 ? 1 : 0);
        byte[] out = new byte[27];
        digits(year, 4, out, 0);
        out[4] = '-';
        digits(month, 2, out, 5);
        out[7] = '-';
        digits(day, 2, out, 8);
        out[10] = 'T';
        digits(secondOfDay / 3600, 2, out, 11);
        out[13] = ':';
        digits(secondOfDay / 60 % 60, 2, out, 14);
        out[16] = ':';
        digits(secondOfDay % 60, 2, out, 17);
        out[19] = '.';
        digits(nanos / 1000, 6, out, 20);
        out[26] = 'Z';
        return new String(out, StandardCharsets.ISO_8859_1);
    }

    private static void digits(long value, int width, byte[] out, int at) {
        for (int i = at + width - 1; i >= at; i--) {
            out[i] = (byte) ('0' + value % 10);
            value /= 10;
        }
    }

    private static void hex(long value, int width, byte[] out, int at) {
        for (int i = at + width - 1; i >= at; i--) {
            out[i] = HEX[(int) (value & 0xF)];
            value >>>= 4;
        }
    }
}
