package io.switchboard.spi;

import io.switchboard.ConfigurationException;
import io.switchboard.InvalidMessageException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;

/**
 * What a message key means as bytes, chosen by name with property {@value #PROPERTY} per broker
 * instance, per publisher or per subscription (the publisher's or subscription's own setting wins).
 * {@link io.switchboard.Message#key()} is always text; a format says which text is a key and which
 * bytes a broker with binary keys (Kafka) puts on the wire for it, exactly as kafka-clients'
 * serializer of the same type does, so that a neighbouring plain producer or consumer agrees on the
 * bytes and Kafka's default partitioner on the partition:
 *
 * <ul>
 *   <li>{@code string} (the default): any text, written in UTF-8, as {@code StringSerializer};
 *   <li>{@code long}: the decimal text of a {@code long} ({@code Long.toString}: "42", "-7"),
 *       written as 8 bytes big-endian, as {@code LongSerializer};
 *   <li>{@code integer}: the decimal text of an {@code int}, written as 4 bytes big-endian, as
 *       {@code IntegerSerializer};
 *   <li>{@code uuid}: the text of {@code UUID.toString()} (36 characters, lowercase), written in
 *       UTF-8, as {@code UUIDSerializer};
 *   <li>{@code bytes}: standard base64 with padding (RFC 4648) of the key bytes, whose decoded bytes
 *       are written, as {@code ByteArraySerializer}.
 * </ul>
 *
 * <p>Key bytes that do not fit a {@code long}, {@code integer} or {@code uuid} format (a record
 * with a 3-byte key under {@code long}) are not refused on the way in: the key's text is
 * {@value #RAW_PREFIX} followed by the bytes in base64, and that text, published again (a dead
 * letter, a broker-side retry, a handler passing the message on), writes the same bytes. Brokers
 * whose keys are text (RabbitMQ, RocketMQ) carry the key's text as it is; core checks a published
 * key against the format on every broker, so a key means the same everywhere.
 */
public enum KeyFormat {
    /** Any text, as UTF-8 bytes: the default and the behaviour before formats existed. */
    STRING("string"),
    /** The decimal text of a {@code long}, as 8 bytes big-endian. */
    LONG("long"),
    /** The decimal text of an {@code int}, as 4 bytes big-endian. */
    INTEGER("integer"),
    /** The 36-character lowercase text of a UUID, as its UTF-8 bytes. */
    UUID("uuid"),
    /** Base64 text, whose decoded bytes are the key. */
    BYTES("bytes");

    /** The property that chooses, per broker instance, publisher or subscription. */
    public static final String PROPERTY = "switchboard.key-format";

    /** The start of the text of key bytes that do not fit the format; base64 of the bytes follows. */
    public static final String RAW_PREFIX = "base64:";

    private static final String LONG_MAX = "9223372036854775807";
    private static final String LONG_MIN = "9223372036854775808";
    private static final String INT_MAX = "2147483647";
    private static final String INT_MIN = "2147483648";

    private final String id;

    KeyFormat(String id) {
        this.id = id;
    }

    /** {@return the name that selects this format in {@value #PROPERTY}} */
    public String id() {
        return id;
    }

    /**
     * The format of a broker instance.
     *
     * @param config the instance's properties
     * @return the format, {@link #STRING} when the property is not set
     * @throws ConfigurationException naming the value and the known names when it is none of them
     */
    public static KeyFormat of(BrokerConfig config) {
        return of(Map.of(), config);
    }

    /**
     * The format of a publisher or subscription: its own properties first, then the instance's.
     *
     * @param own the publisher's or subscription's properties
     * @param config the instance's properties
     * @return the format, {@link #STRING} when neither sets the property
     * @throws ConfigurationException naming the value and the known names when it is none of them
     */
    public static KeyFormat of(Map<String, String> own, BrokerConfig config) {
        String value = own.get(PROPERTY);
        if (value == null) {
            value = config.get(PROPERTY);
        }
        if (value == null) {
            return STRING;
        }
        String name = value.trim().toLowerCase(Locale.ROOT);
        for (KeyFormat format : values()) {
            if (format.id.equals(name)) {
                return format;
            }
        }
        throw new ConfigurationException("Property '" + PROPERTY + "' of broker instance '" + config.instanceName()
                + "' is '" + value + "'; use one of 'string' (the default: any text, UTF-8 on the wire), 'long' (8 bytes "
                + "big-endian, as Kafka's LongSerializer), 'integer' (4 bytes big-endian, as IntegerSerializer), 'uuid' "
                + "(the UUID's text, as UUIDSerializer) or 'bytes' (the key's text is base64 of the bytes)");
    }

    /**
     * Whether {@code key} is a key of this format: its text, or {@value #RAW_PREFIX} and base64
     * for bytes that do not fit it. Allocates nothing.
     *
     * @param key the key's text, not null
     * @return true when {@link #toBytes(String)} accepts it
     */
    public boolean fits(String key) {
        switch (this) {
            case STRING:
                return true;
            case LONG:
                return isDecimal(key, LONG_MIN, LONG_MAX) || isRaw(key);
            case INTEGER:
                return isDecimal(key, INT_MIN, INT_MAX) || isRaw(key);
            case UUID:
                return isUuid(key) || isRaw(key);
            default:
                return isBase64(key, 0);
        }
    }

    /**
     * Refuses a published key that is not of this format, before anything is sent.
     *
     * @param key the key, not null
     * @param destination the destination, named in the error
     * @param instance the broker instance, named in the error
     * @throws InvalidMessageException naming the key, the format and the fix
     */
    public void check(String key, String destination, String instance) {
        if (!fits(key)) {
            throw refused(key, " to '" + destination + "' on broker '" + instance + "'");
        }
    }

    /**
     * The key's bytes on a broker with binary keys.
     *
     * @param key the key's text, not null
     * @return the bytes kafka-clients' serializer of this format writes for the same key
     * @throws InvalidMessageException naming the key, the format and the fix when the key is not of this format
     */
    public byte[] toBytes(String key) {
        switch (this) {
            case STRING:
                return key.getBytes(StandardCharsets.UTF_8);
            case LONG:
                if (isDecimal(key, LONG_MIN, LONG_MAX)) {
                    long v = Long.parseLong(key);
                    return new byte[] {(byte) (v >>> 56), (byte) (v >>> 48), (byte) (v >>> 40), (byte) (v >>> 32),
                            (byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
                }
                break;
            case INTEGER:
                if (isDecimal(key, INT_MIN, INT_MAX)) {
                    int v = Integer.parseInt(key);
                    return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
                }
                break;
            case UUID:
                if (isUuid(key)) {
                    return key.getBytes(StandardCharsets.US_ASCII);
                }
                break;
            default:
                if (isBase64(key, 0)) {
                    return Base64.getDecoder().decode(key);
                }
                throw refused(key, "");
        }
        if (isRaw(key)) {
            return Base64.getDecoder().decode(key.substring(RAW_PREFIX.length()));
        }
        throw refused(key, "");
    }

    /**
     * The key's text from its bytes on a broker with binary keys; never fails.
     *
     * @param bytes the key bytes, not null
     * @return the text of this format, or for bytes that do not fit it {@value #RAW_PREFIX} and their base64
     *     ({@link #STRING}: the bytes decoded as UTF-8, as before formats existed)
     */
    public String fromBytes(byte[] bytes) {
        switch (this) {
            case STRING:
                return new String(bytes, StandardCharsets.UTF_8);
            case LONG:
                if (bytes.length == 8) {
                    long v = 0;
                    for (byte b : bytes) {
                        v = (v << 8) | (b & 0xFF);
                    }
                    return Long.toString(v);
                }
                break;
            case INTEGER:
                if (bytes.length == 4) {
                    return Integer.toString((bytes[0] & 0xFF) << 24 | (bytes[1] & 0xFF) << 16 | (bytes[2] & 0xFF) << 8
                            | (bytes[3] & 0xFF));
                }
                break;
            case UUID:
                if (isUuid(bytes)) {
                    return new String(bytes, StandardCharsets.US_ASCII);
                }
                break;
            default:
                return Base64.getEncoder().encodeToString(bytes);
        }
        return RAW_PREFIX + Base64.getEncoder().encodeToString(bytes);
    }

    /**
     * Whether {@code text} is key bytes that did not fit this format ({@value #RAW_PREFIX}); never for string or bytes.
     *
     * @param text a key's text
     * @return true when it is {@value #RAW_PREFIX} followed by base64 under a format whose keys are not text
     */
    public boolean isRaw(String text) {
        return this != STRING && this != BYTES && text.startsWith(RAW_PREFIX) && isBase64(text, RAW_PREFIX.length());
    }

    private InvalidMessageException refused(String key, String where) {
        String shown = key.length() > 64 ? key.substring(0, 64) + "..." : key;
        return new InvalidMessageException("Message key '" + shown + "'" + where + " is not a key of key format '" + id
                + "' (property " + PROPERTY + "); " + fix() + ", or set " + PROPERTY + " to the format the key has "
                + "('string' for any text)");
    }

    private String fix() {
        switch (this) {
            case LONG:
                return "give the decimal text of a long, as Long.toString(value) writes it (such as 42 or -7: no '+', no "
                        + "leading zeros)";
            case INTEGER:
                return "give the decimal text of an int, as Integer.toString(value) writes it (such as 42 or -7: no '+', "
                        + "no leading zeros, between -2147483648 and 2147483647)";
            case UUID:
                return "give the text UUID.toString() writes (36 characters, lowercase, such as "
                        + "123e4567-e89b-12d3-a456-426614174000)";
            default:
                return "give the key bytes in standard base64 with padding, as Base64.getEncoder().encodeToString(bytes) "
                        + "writes them";
        }
    }

    /** Canonical decimal text ({@code Long.toString}'s form) of a number between -{@code min} and {@code max}. */
    private static boolean isDecimal(String s, String min, String max) {
        int length = s.length();
        boolean negative = length > 0 && s.charAt(0) == '-';
        int start = negative ? 1 : 0;
        int digits = length - start;
        if (digits == 0 || s.charAt(start) == '0' && (digits > 1 || negative)) {
            return false;
        }
        for (int i = start; i < length; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        String limit = negative ? min : max;
        if (digits != limit.length()) {
            return digits < limit.length();
        }
        for (int i = 0; i < digits; i++) {
            int d = s.charAt(start + i) - limit.charAt(i);
            if (d != 0) {
                return d < 0;
            }
        }
        return true;
    }

    private static boolean isUuid(String s) {
        if (s.length() != 36) {
            return false;
        }
        for (int i = 0; i < 36; i++) {
            if (!uuidChar(i, s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean isUuid(byte[] b) {
        if (b.length != 36) {
            return false;
        }
        for (int i = 0; i < 36; i++) {
            if (!uuidChar(i, (char) (b[i] & 0xFF))) {
                return false;
            }
        }
        return true;
    }

    private static boolean uuidChar(int i, char c) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            return c == '-';
        }
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f';
    }

    /**
     * Whether {@code s} from {@code from} on is standard base64 with padding as {@link Base64.Encoder} writes it
     * (the unused bits of the last character zero), so that its bytes turn back into the same text.
     */
    private static boolean isBase64(String s, int from) {
        int length = s.length() - from;
        if (length % 4 != 0) {
            return false;
        }
        int padding = length == 0 ? 0 : s.charAt(s.length() - 1) != '=' ? 0 : s.charAt(s.length() - 2) == '=' ? 2 : 1;
        int end = s.length() - padding;
        for (int i = from; i < end; i++) {
            if (base64Value(s.charAt(i)) < 0) {
                return false;
            }
        }
        if (padding == 2) {
            return (base64Value(s.charAt(end - 1)) & 0x0F) == 0;
        }
        if (padding == 1) {
            return (base64Value(s.charAt(end - 1)) & 0x03) == 0;
        }
        return true;
    }

    private static int base64Value(char c) {
        if (c >= 'A' && c <= 'Z') {
            return c - 'A';
        }
        if (c >= 'a' && c <= 'z') {
            return c - 'a' + 26;
        }
        if (c >= '0' && c <= '9') {
            return c - '0' + 52;
        }
        return c == '+' ? 62 : c == '/' ? 63 : -1;
    }
}
