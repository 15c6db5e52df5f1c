package io.switchboard.spi;

import io.switchboard.Envelope;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The names a CloudEvents protocol binding gives the envelope's headers on a broker whose binding
 * uses a prefix of its own instead of {@link Envelope#PREFIX}: {@code ce_x} travels as
 * {@code <prefix>x} (AMQP's {@code cloudEvents_x}, RocketMQ's {@code CE_x}), other headers under
 * their own names. The envelope's attributes are looked up in a table built once, so that mapping
 * them allocates nothing; any other {@code ce_} header (an extension) has its prefix swapped.
 * Immutable and thread-safe.
 */
public final class BindingNames {

    /** The envelope attributes the table holds: every {@code ce_} header core writes itself. */
    public static final List<String> ATTRIBUTES = List.of(Envelope.SPEC_VERSION, Envelope.ID, Envelope.SOURCE,
            Envelope.TYPE, Envelope.TIME, Envelope.SUBJECT, Envelope.ATTEMPT, Envelope.TRACEPARENT, Envelope.COMPACT);

    private final String prefix;
    private final Map<String, String> toBinding;
    private final Map<String, String> fromBinding;
    /** Every binding name in the table starts with the prefix: other names need not be hashed to miss it. */
    private final boolean allPrefixed;

    /**
     * Builds the table of a binding.
     *
     * @param prefix the binding's prefix in place of {@code ce_}, such as {@code cloudEvents_}
     * @param others envelope headers the binding names otherwise, by envelope name (such as
     *     {@code content-type} as {@code CE_contenttype}); empty when none
     * @param reserved binding names the table must not hold because the broker uses them itself;
     *     an attribute whose binding name is reserved is left out of the table
     */
    public BindingNames(String prefix, Map<String, String> others, Predicate<String> reserved) {
        this.prefix = prefix;
        Map<String, String> to = new HashMap<>(others);
        for (String attribute : ATTRIBUTES) {
            String name = prefix + attribute.substring(Envelope.PREFIX.length());
            if (!reserved.test(name)) {
                to.put(attribute, name);
            }
        }
        Map<String, String> from = new HashMap<>();
        to.forEach((envelope, binding) -> from.put(binding, envelope));
        this.toBinding = Map.copyOf(to);
        this.fromBinding = Map.copyOf(from);
        this.allPrefixed = from.keySet().stream().allMatch(name -> name.startsWith(prefix));
    }

    /**
     * {@return the binding's name for a header: from the table, else {@code ce_x} as
     * {@code <prefix>x}, else {@code header} itself}
     *
     * @param header an envelope or application header's name
     */
    public String toBinding(String header) {
        String known = toBinding.get(header);
        if (known != null) {
            return known;
        }
        return header.startsWith(Envelope.PREFIX) ? prefix + header.substring(Envelope.PREFIX.length()) : header;
    }

    /**
     * {@return the envelope's name for a binding name: from the table, else {@code <prefix>x} as
     * {@code ce_x}, else {@code name} itself}
     *
     * @param name a header's name as the broker carries it
     */
    public String fromBinding(String name) {
        if (allPrefixed && !name.startsWith(prefix)) {
            return name;
        }
        String known = fromBinding.get(name);
        if (known != null) {
            return known;
        }
        return name.startsWith(prefix) ? Envelope.PREFIX + name.substring(prefix.length()) : name;
    }

    /**
     * {@return the envelope's name for a binding name in the table, or null when it is not in it}
     * A name without the binding's prefix is not hashed when no name in the table lacks it: a
     * received header's name is a new string, whose hash would be computed for each message.
     *
     * @param name a header's name as the broker carries it
     */
    public String knownFromBinding(String name) {
        if (allPrefixed && !name.startsWith(prefix)) {
            return null;
        }
        return fromBinding.get(name);
    }
}
