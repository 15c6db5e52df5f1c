package io.switchboard;

import io.switchboard.internal.envelope.MessageIds;
import java.time.Instant;
import java.util.Map;

/**
 * The header names of Switchboard's envelope, which every message carries on every broker.
 *
 * <p>They follow the CloudEvents binary content mode with the Kafka protocol binding's names
 * ({@code ce_} prefix, {@code content-type}); each adapter maps them to its broker's binding
 * (AMQP application properties, RocketMQ user properties) and back, so core always sees these
 * names. A consumer that does not know Switchboard can read a message as a CloudEvent, unless
 * its publisher's broker instance writes the {@link #COMPACT} form ({@code switchboard.envelope=compact}).
 * The default writes the required attributes ({@link #SPEC_VERSION}, {@link #ID}, {@link #SOURCE},
 * {@link #TYPE}) and {@link #CONTENT_TYPE}, and {@link #TIME} and {@link #SUBJECT} only where the
 * broker does not carry them; {@code switchboard.envelope=cloudevents-full} writes every attribute.
 */
public final class Envelope {

    /** Prefix of every CloudEvents attribute header. */
    public static final String PREFIX = "ce_";
    /** CloudEvents {@code specversion}, always {@value #SPEC_VERSION_VALUE}. */
    public static final String SPEC_VERSION = "ce_specversion";
    /** The value of {@link #SPEC_VERSION}. */
    public static final String SPEC_VERSION_VALUE = "1.0";
    /**
     * CloudEvents {@code id}: the message id unless set by the publisher, time-ordered (a UUID version 7: its 22-character
     * form by default, the 36-character one with {@code switchboard.envelope=cloudevents-full}).
     */
    public static final String ID = "ce_id";
    /** CloudEvents {@code source}: the publishing application, from property {@code switchboard.source}. */
    public static final String SOURCE = "ce_source";
    /**
     * CloudEvents {@code type}: from property {@code switchboard.type}, or {@code message} ({@code io.switchboard.message}
     * with {@code switchboard.envelope=cloudevents-full}).
     */
    public static final String TYPE = "ce_type";
    /**
     * CloudEvents {@code time}: the publish time, RFC 3339 with microseconds. The default envelope leaves it out where
     * the broker stamps each record's send time itself (Kafka's {@code CreateTime}, milliseconds) and the message has
     * no explicit timestamp; consumers then take the time from the broker.
     */
    public static final String TIME = "ce_time";
    /** CloudEvents {@code datacontenttype}, under the binding's {@code content-type} header. */
    public static final String CONTENT_TYPE = "content-type";
    /**
     * CloudEvents {@code subject}: the message key when there is one, written where the broker has no key of its own
     * (RabbitMQ) or with {@code switchboard.envelope=cloudevents-full}; elsewhere the key travels as the broker's key.
     */
    public static final String SUBJECT = "ce_subject";
    /**
     * Extension {@code attempt}: the delivery attempt that produced this record, written (as 1) only with
     * {@code switchboard.envelope=cloudevents-full}; absent means a first publish.
     */
    public static final String ATTEMPT = "ce_attempt";
    /** Distributed-tracing extension {@code traceparent} (W3C Trace Context). */
    public static final String TRACEPARENT = "ce_traceparent";
    /**
     * The compact envelope, written instead of every attribute above but the trace headers by a
     * broker instance with property {@code switchboard.envelope=compact}: one header whose value is
     * {@code <publish time as epoch microseconds, decimal>;<message id>}, for example
     * {@code 1767225600123456;0198f3c2-7a4e-7b1d-9c3e-5f2a1b0c4d6e}. The id comes last, so it may
     * itself hold {@code ;}. Every Switchboard consumer reads both forms ({@link #id(Map)},
     * {@link #compactTime(String)}); the name has the {@code ce_} prefix, so adapters carry it
     * through their CloudEvents binding and handlers never see it in {@link Message#headers()}.
     * A consumer that does not know Switchboard no longer sees a valid CloudEvent.
     */
    public static final String COMPACT = "ce_sb";

    /** On a dead-lettered record: the class of the last error. */
    public static final String ERROR_TYPE = "sb_error_type";
    /** On a dead-lettered record: the message of the last error (at most 1,000 characters). */
    public static final String ERROR_MESSAGE = "sb_error_message";
    /** On a dead-lettered record: the destination it was consumed from. */
    public static final String ORIGINAL_DESTINATION = "sb_original_destination";
    /** On a dead-lettered record: the consumer group that gave up on it. */
    public static final String DEAD_LETTER_GROUP = "sb_group";
    /** On a record retried through the broker ({@code RetryPolicy.viaBroker}): the attempts that failed before it. */
    public static final String RETRY_ATTEMPTS = "sb_retry_attempts";
    /** On a dead-lettered record: how many attempts were made. */
    public static final String DEAD_LETTER_ATTEMPTS = "sb_attempts";
    /**
     * On a dead-lettered record: why ({@code handler-failed}: the last attempt failed; {@code non-retryable}: the
     * handler threw an exception its {@link RetryPolicy} does not retry; {@code undecodable}).
     */
    public static final String DEAD_LETTER_REASON = "sb_dead_letter_reason";

    /**
     * On a request ({@link Requester}): the destination its reply goes to. A CloudEvents extension attribute, so every
     * adapter carries it through its binding ({@code ce_replyto} on Kafka, {@code cloudEvents_replyto} on AMQP,
     * {@code CE_replyto} on RocketMQ) and a responder on a plain client can read it and answer.
     */
    public static final String REPLY_TO = "ce_replyto";
    /**
     * On a request and on its reply: the id that pairs them ({@link Requester}). A CloudEvents extension attribute, as
     * {@link #REPLY_TO}; a reply echoes the request's value.
     */
    public static final String CORRELATION_ID = "ce_correlationid";

    private Envelope() {}

    /**
     * {@return the instant of a {@link #TIME} value: the form Switchboard writes is read without the general RFC
     * 3339 parser (it runs for every message); any other RFC 3339 form through {@link Instant#parse}}
     *
     * @param text the header value
     * @throws java.time.format.DateTimeParseException when the text is not an RFC 3339 time
     */
    public static Instant parseTime(String text) {
        Instant ours = MessageIds.parseMicros(text);
        return ours != null ? ours : Instant.parse(text);
    }

    /**
     * {@return the message id carried by envelope headers: the id of a well-formed {@link #COMPACT} header, else
     * the {@link #ID} header, else null (a record from a plain client)} For adapters that read an id from a broker
     * message's headers, so that both envelope forms give the same id.
     *
     * @param headers the headers under their logical names
     */
    public static String id(Map<String, String> headers) {
        String compact = headers.get(COMPACT);
        if (compact != null) {
            String id = MessageIds.compactId(compact);
            if (id != null) {
                return id;
            }
        }
        return headers.get(ID);
    }

    /**
     * {@return the id of a {@link #COMPACT} value: everything after its first {@code ;}; null when the value is not
     * well-formed (an optional {@code -}, decimal digits within the range of a long, {@code ;} and a non-empty id)}
     * Never throws.
     *
     * @param value the header value
     */
    public static String compactId(String value) {
        return MessageIds.compactId(value);
    }

    /**
     * {@return the publish time of a {@link #COMPACT} value, with microsecond precision; null when the value is not
     * well-formed (see {@link #compactId(String)})} Never throws.
     *
     * @param value the header value
     */
    public static Instant compactTime(String value) {
        return MessageIds.compactTime(value);
    }

    /**
     * {@return true for a header name reserved for Switchboard: applications may not set it}
     *
     * @param name the header name
     */
    public static boolean isEnvelopeHeader(String name) {
        return (isCloudEventsHeader(name) && !isExtension(name)) || name.startsWith("sb_");
    }

    /**
     * {@return true for a CloudEvents header, which handlers see through {@link Message} and {@link
     * DeliveryContext} rather than in {@link Message#headers()}, extensions excepted ({@link
     * #isExtension(String)})} The {@code sb_} headers of a dead-lettered record stay visible in {@link
     * Message#headers()} so that a dead-letter consumer can read why the record failed.
     *
     * @param name the header name
     */
    public static boolean isCloudEventsHeader(String name) {
        return name.startsWith(PREFIX) || name.equals(CONTENT_TYPE);
    }

    /**
     * {@return true for a CloudEvents extension attribute (or an optional attribute Switchboard does not set, such
     * as {@code dataschema}) in its binary-mode header form {@code ce_<name>}: a name of 1 to 20 lowercase letters
     * and digits, as the CloudEvents specification has attribute names, that is not one of the attributes
     * Switchboard writes itself ({@code specversion}, {@code id}, {@code source}, {@code type}, {@code time},
     * {@code subject}, {@code datacontenttype}, {@code attempt}, {@code traceparent}, {@code tracestate}, {@code
     * sb})} Extensions are application data: a handler finds them in {@link Message#headers()} under that name
     * ({@code ce_region}), an application sets them as headers under it, each adapter carries them in its
     * CloudEvents binding's form ({@code ce_region} on Kafka, {@code cloudEvents_region} on AMQP, {@code CE_region}
     * on RocketMQ), and dead-lettering and republishing keep them.
     *
     * @param name the header name
     */
    public static boolean isExtension(String name) {
        if (!name.startsWith(PREFIX)) {
            return false;
        }
        int length = name.length() - PREFIX.length();
        if (length < 1 || length > 20) {
            return false;
        }
        for (int i = PREFIX.length(); i < name.length(); i++) {
            char c = name.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
                return false;
            }
        }
        return !OWN_ATTRIBUTES.contains(name);
    }

    /** The attributes Switchboard writes, in header form. */
    private static final java.util.Set<String> OWN_ATTRIBUTES = java.util.Set.of(SPEC_VERSION, ID, SOURCE, TYPE, TIME,
            SUBJECT, PREFIX + "datacontenttype", ATTEMPT, TRACEPARENT, PREFIX + "tracestate", COMPACT);
}
