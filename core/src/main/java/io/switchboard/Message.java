package io.switchboard;

import io.switchboard.internal.envelope.Envelopes;
import io.switchboard.internal.envelope.MessageAccess;
import io.switchboard.internal.envelope.MessageIds;
import io.switchboard.spi.InboundRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A message: payload, optional key, application headers, id and timestamp. Immutable.
 *
 * <p>On publishing, the id is generated (time-ordered UUID version 7) and the timestamp taken when
 * absent. On receiving, they come from the envelope, or from the broker for a message published
 * by a plain client. {@link #headers()} holds only application headers; envelope headers are
 * read through the dedicated accessors and {@link DeliveryContext}.
 *
 * @param <T> payload type
 */
public final class Message<T> {

    /** The longest header name accepted (AMQP's short-string limit). */
    public static final int MAX_HEADER_NAME_LENGTH = 255;
    /** The longest message id accepted. */
    public static final int MAX_ID_LENGTH = 255;

    private final T payload;
    // key, id and timestamp of a received message are read from its record when first asked for, and kept: a race
    // between two threads reading one makes the same immutable value twice
    private String key;
    /** Null on a received message until {@link #headers()} first reads them from its record. */
    private Map<String, String> headers;
    private String id;
    private Instant timestamp;
    private final Duration delay;
    private final Instant deliverAt;
    /** The record a received message came from, while one of the four above may still be read from it; else null. */
    private final InboundRecord record;

    private Message(T payload, String key, Map<String, String> headers, String id, Instant timestamp, Duration delay,
            Instant deliverAt) {
        this(payload, key, headers, id, timestamp, delay, deliverAt, null);
    }

    private Message(T payload, String key, Map<String, String> headers, String id, Instant timestamp, Duration delay,
            Instant deliverAt, InboundRecord record) {
        this.payload = payload;
        this.key = key;
        this.headers = headers;
        this.id = id;
        this.timestamp = timestamp;
        this.delay = delay;
        this.deliverAt = deliverAt;
        this.record = record;
    }

    static {
        MessageAccess.install(new MessageAccess() {
            @Override
            protected <P> Message<P> newReceived(P payload, InboundRecord record, Map<String, String> headers, String id,
                    Instant timestamp) {
                return new Message<>(payload, null, headers == null ? null : readOnly(headers), id, timestamp, null, null,
                        record);
            }

            @Override
            protected <P> Message<P> newForwarded(P payload, String key, Map<String, String> headers, String id,
                    Instant timestamp, Instant deliverAt) {
                return new Message<>(payload, key, headers == null ? Map.of() : readOnly(headers), id, timestamp, null,
                        deliverAt);
            }
        });
    }

    /**
     * {@return a message with only a payload}
     *
     * @param <T> the payload type
     * @param payload the payload, not null
     */
    public static <T> Message<T> of(T payload) {
        return new Message<>(payload, null, Map.of(), null, null, null, null);
    }

    /**
     * {@return a message with a payload and a key}
     *
     * @param <T> the payload type
     * @param key the key, which keeps messages of one key in order
     * @param payload the payload, not null
     */
    public static <T> Message<T> of(String key, T payload) {
        return new Message<>(payload, key, Map.of(), null, null, null, null);
    }

    /**
     * Starts a builder.
     *
     * @param <T> the payload type
     * @param payload the payload, not null
     * @return a builder of a message with this payload
     */
    public static <T> Builder<T> builder(T payload) {
        return new Builder<>(payload);
    }

    /** {@return the payload; never null on a received message} */
    public T payload() {
        return payload;
    }

    /** {@return the key, or null} Messages with the same key keep their order where the broker orders per key. */
    public String key() {
        String k = key;
        if (k == null && record != null) {
            k = record.key();
            key = k;
        }
        return k;
    }

    /** {@return application headers, unmodifiable} */
    public Map<String, String> headers() {
        Map<String, String> h = headers;
        if (h == null) {
            h = readOnly(Envelopes.userHeaders(record.headers()));
            headers = h;
        }
        return h;
    }

    private static Map<String, String> readOnly(Map<String, String> headers) {
        return headers.isEmpty() ? Map.of() : Collections.unmodifiableMap(headers);
    }

    /** {@return the id, or null on a message that has not been published yet and was given none} */
    public String id() {
        String i = id;
        if (i == null && record != null) {
            i = Envelopes.id(record);
            id = i;
        }
        return i;
    }

    /** {@return the publish time, or null on a message not published yet and given none} */
    public Instant timestamp() {
        Instant t = timestamp;
        if (t == null && record != null) {
            t = Envelopes.time(record);
            timestamp = t;
        }
        return t;
    }

    /** {@return the requested delivery delay, or null} */
    public Duration delay() {
        return delay;
    }

    /** {@return the requested delivery instant, or null} */
    public Instant deliverAt() {
        return deliverAt;
    }

    /**
     * {@return the tag of this message (header {@value io.switchboard.spi.TagFilter#TAG_HEADER}), or null}
     * Subscriptions with a {@code filter(..)} receive only messages whose tag it matches.
     */
    public String tag() {
        return headers().get(io.switchboard.spi.TagFilter.TAG_HEADER);
    }

    /** {@return a copy with the id and timestamp filled in when they are absent} */
    public Message<T> stamped() {
        String i = id();
        Instant t = timestamp();
        if (i != null && t != null) {
            return this;
        }
        return new Message<>(payload, key(), headers(), i != null ? i : MessageIds.next(), t != null ? t : MessageIds.now(),
                delay, deliverAt);
    }

    /**
     * {@return this message with another payload: the same key, headers, id, time, delay and delivery instant} A
     * received message's fields are still read from its record when first asked for, by either message.
     *
     * @param <P> the new payload's type
     * @param newPayload the payload, not null
     */
    public <P> Message<P> withPayload(P newPayload) {
        Objects.requireNonNull(newPayload, "payload");
        return new Message<>(newPayload, key, headers, id, timestamp, delay, deliverAt, record);
    }

    /** {@return a builder holding this message's fields} */
    public Builder<T> toBuilder() {
        Builder<T> b = new Builder<>(payload).key(key()).id(id()).timestamp(timestamp());
        b.delay = delay;
        b.deliverAt = deliverAt;
        if (!headers().isEmpty()) {
            b.headers = new LinkedHashMap<>(headers());
        }
        return b;
    }

    @Override
    public String toString() {
        return "Message[id=" + id() + ", key=" + key() + ", headers=" + headers().keySet() + ", timestamp=" + timestamp() + "]";
    }

    /** Builds a {@link Message}. */
    public static final class Builder<T> {
        private final T payload;
        private String key;
        /** Made on the first header: most messages have none. */
        private Map<String, String> headers;
        private String id;
        private Instant timestamp;
        private Duration delay;
        private Instant deliverAt;

        private Builder(T payload) {
            this.payload = payload;
        }

        /**
         * The key (partition or queue selection, per-key order).
         *
         * @param key the key, or null
         * @return this builder
         */
        public Builder<T> key(String key) {
            this.key = key;
            return this;
        }

        /**
         * An application header. Names are 1 to {@value #MAX_HEADER_NAME_LENGTH} characters without
         * control characters; names starting with {@code ce_} or {@code sb_}, and {@code content-type},
         * are reserved, except {@code ce_<name>} for a CloudEvents extension attribute
         * ({@link Envelope#isExtension(String)}: {@code ce_region}), which is written as an extension
         * in the broker's CloudEvents binding. Values must not be null and must not hold control characters other than tab
         * (RocketMQ separates properties with them).
         *
         * @param name the header name
         * @param value the header value
         * @return this builder
         * @throws InvalidMessageException naming the header and the fix when a rule is broken
         */
        public Builder<T> header(String name, String value) {
            if (name == null || name.isEmpty()) {
                throw new InvalidMessageException("A header name is " + (name == null ? "null" : "empty")
                        + "; give every header a name of 1 to " + MAX_HEADER_NAME_LENGTH + " characters");
            }
            if (name.length() > MAX_HEADER_NAME_LENGTH) {
                throw new InvalidMessageException("Header name '" + name.substring(0, 32) + "...' has " + name.length()
                        + " characters but at most " + MAX_HEADER_NAME_LENGTH + " are allowed (AMQP's limit); use a shorter name");
            }
            if (Envelope.isEnvelopeHeader(name)) {
                throw new InvalidMessageException("Header '" + name + "' is reserved for Switchboard's envelope "
                        + "(the CloudEvents attributes it writes, other 'ce_' names that are not a CloudEvents extension "
                        + "name of 1 to 20 lowercase letters and digits, names starting with 'sb_', and 'content-type'); "
                        + "choose another name, or 'ce_<name>' with such a name for a CloudEvents extension");
            }
            int badName = controlCharacter(name, false);
            if (badName >= 0) {
                throw new InvalidMessageException("Header name '" + printable(name) + "' holds control character U+"
                        + String.format("%04X", (int) name.charAt(badName)) + " at index " + badName
                        + "; use printable characters in header names");
            }
            if (value == null) {
                throw new InvalidMessageException("Header '" + name + "' has a null value; leave the header out, "
                        + "or give it an empty value");
            }
            int badValue = controlCharacter(value, true);
            if (badValue >= 0) {
                throw new InvalidMessageException("Value of header '" + name + "' holds control character U+"
                        + String.format("%04X", (int) value.charAt(badValue)) + " at index " + badValue
                        + "; encode the value (for example Base64 or percent-encoding) before putting it in a header");
            }
            if (headers == null) {
                headers = new LinkedHashMap<>();
            }
            headers.put(name, value);
            return this;
        }

        private static int controlCharacter(String text, boolean allowTab) {
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if ((c < 0x20 && !(allowTab && c == '\t')) || c == 0x7f) {
                    return i;
                }
            }
            return -1;
        }

        private static String printable(String text) {
            StringBuilder out = new StringBuilder(text.length() + 8);
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                out.append(c < 0x20 || c == 0x7f ? String.format("\\u%04x", (int) c) : String.valueOf(c));
            }
            return out.toString();
        }

        /**
         * Several application headers.
         *
         * @param values the headers, by name
         * @return this builder
         */
        public Builder<T> headers(Map<String, String> values) {
            values.forEach(this::header);
            return this;
        }

        /**
         * The id; give one to make re-publishing idempotent for exactly-once consumers. At most
         * {@value #MAX_ID_LENGTH} printable characters, not blank; null means "generate one".
         *
         * @param id the id, or null
         * @return this builder
         * @throws InvalidMessageException naming the id and the fix when it is blank, too long or not printable
         */
        public Builder<T> id(String id) {
            if (id != null) {
                if (id.isBlank()) {
                    throw new InvalidMessageException("Message id '" + id + "' is blank; give a non-blank id, or none "
                            + "(null) to have a time-ordered UUID generated");
                }
                if (id.length() > MAX_ID_LENGTH) {
                    throw new InvalidMessageException("Message id '" + id.substring(0, 32) + "...' has " + id.length()
                            + " characters but at most " + MAX_ID_LENGTH + " are allowed; use a shorter id, such as a UUID or a hash");
                }
                int bad = controlCharacter(id, false);
                if (bad >= 0) {
                    throw new InvalidMessageException("Message id '" + printable(id) + "' holds control character U+"
                            + String.format("%04X", (int) id.charAt(bad)) + " at index " + bad + "; use printable characters");
                }
            }
            this.id = id;
            return this;
        }

        /**
         * The timestamp.
         *
         * @param timestamp the publish time, or null for the time of publishing
         * @return this builder
         */
        public Builder<T> timestamp(Instant timestamp) {
            this.timestamp = timestamp;
            return this;
        }

        /**
         * Deliver no earlier than this delay after publishing; needs a broker with delayed delivery.
         *
         * @param delay the delay, or null for none
         * @return this builder
         */
        public Builder<T> delay(Duration delay) {
            if (delay != null && delay.isNegative()) {
                throw new InvalidMessageException("Delay " + delay + " is negative; give zero (deliver now) or a positive delay");
            }
            if (delay != null && deliverAt != null) {
                throw new InvalidMessageException("Delay " + delay + " given after deliverAt(" + deliverAt + "); give one of "
                        + "delay(..) and deliverAt(..)");
            }
            this.delay = delay;
            return this;
        }

        /**
         * Deliver no earlier than this instant; an instant already past means now. Needs a broker with delayed
         * delivery (every built-in adapter has it). One of this and {@link #delay(Duration)}.
         *
         * @param instant the earliest delivery time, or null for none
         * @return this builder
         */
        public Builder<T> deliverAt(Instant instant) {
            if (instant != null && delay != null) {
                throw new InvalidMessageException("deliverAt(" + instant + ") given after delay " + delay + "; give one of "
                        + "delay(..) and deliverAt(..)");
            }
            this.deliverAt = instant;
            return this;
        }

        /**
         * The message's tag (header {@value io.switchboard.spi.TagFilter#TAG_HEADER}, RocketMQ's tag), which a
         * subscription's {@code filter("paid || shipped")} selects on, broker-side where the broker can.
         *
         * @param tag the tag: printable, without spaces or {@code ||}; null removes it
         * @return this builder
         * @throws InvalidMessageException naming the tag when it is not a legal tag
         */
        public Builder<T> tag(String tag) {
            if (tag == null) {
                if (headers != null) {
                    headers.remove(io.switchboard.spi.TagFilter.TAG_HEADER);
                }
                return this;
            }
            io.switchboard.spi.TagFilter.checkTag(tag).ifPresent(why -> {
                throw new InvalidMessageException("Tag '" + printable(tag) + "' " + why);
            });
            return header(io.switchboard.spi.TagFilter.TAG_HEADER, tag);
        }

        /** {@return the message} */
        public Message<T> build() {
            Map<String, String> h = headers == null || headers.isEmpty() ? Map.of()
                    : Collections.unmodifiableMap(new LinkedHashMap<>(headers));
            return new Message<>(payload, key, h, id, timestamp, delay, deliverAt);
        }
    }
}
