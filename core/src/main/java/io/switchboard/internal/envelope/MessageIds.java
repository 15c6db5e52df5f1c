package io.switchboard.internal.envelope;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Message ids (UUID version 7: time-ordered), RFC 3339 timestamps with microsecond precision,
 * compact envelope values ({@code <epoch microseconds>;<id>}) and W3C traceparents, each written
 * straight into one string, and their parsers: these run once per message, so they avoid
 * intermediate objects and exceptions.
 */
public final class MessageIds {

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    /** What {@link #compactMicros} returns for a value that is not well-formed (no valid value is this small). */
    public static final long NOT_COMPACT = Long.MIN_VALUE;
    /** The earliest epoch second whose microseconds fit in a long, with room for the fraction. */
    public static final long MIN_COMPACT_SECOND = Long.MIN_VALUE / 1_000_000L + 1;
    /** The latest epoch second whose microseconds fit in a long, with room for the fraction. */
    public static final long MAX_COMPACT_SECOND = Long.MAX_VALUE / 1_000_000L - 1;
    /** The largest magnitude that one more digit can be appended to without passing {@link Long#MAX_VALUE}'s last digit. */
    private static final long LAST_DIGIT_LIMIT = Long.MAX_VALUE / 10;

    private MessageIds() {}

    /** A new UUID version 7 string: 48 bits of Unix milliseconds, version, then random bits. */
    public static String next() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return ascii(uuid(idHigh(System.currentTimeMillis(), random), idLow(random)));
    }

    /**
     * A new UUID version 7 in 22 characters instead of 36: its 128 bits, most significant first, six
     * bits a character (the last character carries two), in an alphabet in ASCII order
     * ({@code -}, digits, upper case, {@code _}, lower case), so that ids sort by time as the UUIDs
     * do, and are safe in URLs, file names and every broker's header values.
     */
    public static String nextShort() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return ascii(shortId(idHigh(System.currentTimeMillis(), random), idLow(random)));
    }

    /** The most significant 64 bits of a new UUID version 7: {@code millis} in 48 bits, the version, 12 random bits. */
    public static long idHigh(long millis, ThreadLocalRandom random) {
        return (millis << 16) | 0x7000L | (random.nextLong() & 0x0FFFL);
    }

    /** The least significant 64 bits of a new UUID version 7: the variant, then 62 random bits. */
    public static long idLow(ThreadLocalRandom random) {
        return (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    }

    /** The 36 ASCII characters of the UUID with these bits (as {@link #next()} writes it). */
    public static byte[] uuid(long high, long low) {
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
        return out;
    }

    /** The 22 ASCII characters of the short id with these bits (as {@link #nextShort()} writes it). */
    public static byte[] shortId(long high, long low) {
        byte[] out = new byte[SHORT_ID_LENGTH];
        for (int i = 0; i < 10; i++) { // 60 bits of high
            out[i] = SORTABLE_64[(int) (high >>> (58 - 6 * i)) & 63];
        }
        // the last 4 bits of high and the first 2 of low
        out[10] = SORTABLE_64[(int) (((high & 0xF) << 2) | (low >>> 62))];
        for (int i = 0; i < 10; i++) { // 60 more bits of low
            out[11 + i] = SORTABLE_64[(int) (low >>> (56 - 6 * i)) & 63];
        }
        out[21] = SORTABLE_64[(int) (low & 3) << 4]; // the last 2 bits, then 4 zero bits
        return out;
    }

    /** The string of ASCII characters, without a copy into a UTF-16 array. */
    public static String ascii(byte[] characters) {
        return new String(characters, StandardCharsets.ISO_8859_1);
    }

    /** The length of {@link #nextShort()}'s ids. */
    public static final int SHORT_ID_LENGTH = 22;
    private static final byte[] SORTABLE_64 =
            "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz".getBytes(StandardCharsets.US_ASCII);

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
        return ascii(micros(epochSecond, nanos));
    }

    /** {@link #formatMicros}'s 27 ASCII characters of a time in epoch microseconds. */
    public static byte[] micros(long epochMicros) {
        return micros(Math.floorDiv(epochMicros, 1_000_000L), (int) Math.floorMod(epochMicros, 1_000_000L) * 1000);
    }

    /** The epoch microseconds of an instant whose epoch second is within {@link #MIN_COMPACT_SECOND} and {@link #MAX_COMPACT_SECOND}. */
    public static long epochMicros(long epochSecond, int nanos) {
        return epochSecond * 1_000_000L + nanos / 1000;
    }

    private static byte[] micros(long epochSecond, int nanos) {
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
        return out;
    }

    /**
     * The instant of a time in exactly the form {@link #formatMicros} writes (27 characters, UTC,
     * six fraction digits), without the general parser; null for any other form, which callers
     * then give to {@link Instant#parse}.
     */
    public static Instant parseMicros(String text) {
        if (text.length() != 27 || text.charAt(4) != '-' || text.charAt(7) != '-' || text.charAt(10) != 'T'
                || text.charAt(13) != ':' || text.charAt(16) != ':' || text.charAt(19) != '.' || text.charAt(26) != 'Z') {
            return null;
        }
        int year = number(text, 0, 4);
        int month = number(text, 5, 2);
        int day = number(text, 8, 2);
        int hour = number(text, 11, 2);
        int minute = number(text, 14, 2);
        int second = number(text, 17, 2);
        int micros = number(text, 20, 6);
        if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59
                || second > 59 || micros < 0) {
            return null;
        }
        // days since 1970-01-01 from the civil date (proleptic Gregorian), the inverse of formatMicros
        long y = month <= 2 ? year - 1 : year;
        long era = Math.floorDiv(y, 400);
        long yoe = y - era * 400;
        long mp = month > 2 ? month - 3 : month + 9;
        long doy = (153 * mp + 2) / 5 + day - 1;
        long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        long days = era * 146_097 + doe - 719_468;
        return Instant.ofEpochSecond(days * 86_400L + hour * 3600L + minute * 60L + second, micros * 1000L);
    }

    /**
     * The compact envelope value {@code <epoch microseconds>;<id>}. javac compiles the concatenation
     * to one {@code invokedynamic} that sizes a single byte array, writes the digits of the long
     * straight into it and wraps it without a copy: no StringBuilder, no temporary string for the
     * number. The caller keeps {@code epochSecond} within {@link #MIN_COMPACT_SECOND} and
     * {@link #MAX_COMPACT_SECOND}.
     */
    public static String formatCompact(long epochSecond, int nanos, String id) {
        return epochMicros(epochSecond, nanos) + ";" + id;
    }

    /**
     * The ASCII characters of the compact envelope value {@code <epochMicros>;<id>} for an id given
     * as its ASCII characters ({@link #shortId} or {@link #uuid}): the same characters as
     * {@link #formatCompact}, in one array.
     */
    public static byte[] compact(long epochMicros, byte[] id) {
        int digits = decimalLength(epochMicros);
        byte[] out = new byte[digits + 1 + id.length];
        long rest = epochMicros;
        for (int i = digits - 1; i >= (epochMicros < 0 ? 1 : 0); i--) {
            out[i] = (byte) ('0' + Math.abs(rest % 10));
            rest /= 10;
        }
        if (epochMicros < 0) {
            out[0] = '-';
        }
        out[digits] = ';';
        System.arraycopy(id, 0, out, digits + 1, id.length);
        return out;
    }

    /** The characters of {@code value} in decimal, the minus sign included. */
    private static int decimalLength(long value) {
        int length = value < 0 ? 2 : 1;
        for (long rest = value / 10; rest != 0; rest /= 10) {
            length++;
        }
        return length;
    }

    /**
     * The epoch microseconds of a compact envelope value, or {@link #NOT_COMPACT} when the value is
     * not an optional {@code -}, one or more decimal digits within the range of a long, {@code ;}
     * and a non-empty id. One pass over the digits, no exception on any input.
     */
    public static long compactMicros(String value) {
        int length = value.length();
        boolean negative = length > 0 && value.charAt(0) == '-';
        int i = negative ? 1 : 0;
        int first = i;
        long magnitude = 0;
        for (; i < length; i++) {
            int d = value.charAt(i) - '0';
            if (d < 0 || d > 9) {
                break;
            }
            if (magnitude > LAST_DIGIT_LIMIT || (magnitude == LAST_DIGIT_LIMIT && d > 7)) {
                return NOT_COMPACT; // beyond a long (Long.MIN_VALUE itself included: it is the marker)
            }
            magnitude = magnitude * 10 + d;
        }
        if (i == first || i >= length - 1 || value.charAt(i) != ';') {
            return NOT_COMPACT;
        }
        return negative ? -magnitude : magnitude;
    }

    /** The id of a compact envelope value (everything after its first {@code ;}), or null when it is not well-formed. */
    public static String compactId(String value) {
        return compactMicros(value) == NOT_COMPACT ? null : value.substring(value.indexOf(';') + 1);
    }

    /** The instant of a compact envelope value, or null when it is not well-formed. */
    public static Instant compactTime(String value) {
        long micros = compactMicros(value);
        if (micros == NOT_COMPACT) {
            return null;
        }
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
    }

    private static int daysIn(int year, int month) {
        if (month == 2) {
            boolean leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
            return leap ? 29 : 28;
        }
        return month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31;
    }

    /** The decimal number in {@code width} characters at {@code at}, or -1 when one is not a digit. */
    private static int number(String text, int at, int width) {
        int value = 0;
        for (int i = at; i < at + width; i++) {
            int d = text.charAt(i) - '0';
            if (d < 0 || d > 9) {
                return -1;
            }
            value = value * 10 + d;
        }
        return value;
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
