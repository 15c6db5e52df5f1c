package io.switchboard.spi;

import io.switchboard.ConfigurationException;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A subscription's tag filter, the broker-neutral form of RocketMQ's tag expression: {@code *} (every message) or
 * tags joined by {@code ||} ({@code "paid || shipped"}). A message's tag is its {@value #TAG_HEADER} header
 * ({@code Message.Builder.tag(..)}); a message without a tag matches only {@code *}. Each adapter applies it the
 * broker's way (RocketMQ tags, RabbitMQ bindings, Kafka in the consumer before decoding, memory in the topic) and
 * counts what it filters out; a filtered-out message never reaches the handler and is never dead-lettered.
 * Immutable and thread-safe.
 */
public final class TagFilter {

    /** The header that carries a message's tag (RocketMQ's name, kept for compatibility). */
    public static final String TAG_HEADER = "rocketmq.tag";
    /** The longest tag accepted. */
    public static final int MAX_TAG_LENGTH = 128;

    private static final Pattern TAG = Pattern.compile("[A-Za-z0-9._:-]+");
    private static final TagFilter ALL = new TagFilter("*", Set.of());

    private final String expression;
    private final Set<String> tags;

    private TagFilter(String expression, Set<String> tags) {
        this.expression = expression;
        this.tags = tags;
    }

    /**
     * Parses a filter expression.
     *
     * @param expression {@code *}, or one or more tags joined by {@code ||}; null or blank means {@code *}
     * @return the filter
     * @throws ConfigurationException naming the expression and the fix when it is malformed
     */
    public static TagFilter parse(String expression) {
        if (expression == null || expression.isBlank() || expression.trim().equals("*")) {
            return ALL;
        }
        Set<String> tags = new LinkedHashSet<>();
        for (String part : expression.split("\\|\\|", -1)) {
            String tag = part.trim();
            Optional<String> why = checkTag(tag);
            if (why.isPresent()) {
                throw new ConfigurationException("Filter '" + expression + "' is malformed: tag '" + tag + "' " + why.get()
                        + "; write '*' or tags joined by '||', such as 'paid || shipped'");
            }
            tags.add(tag);
        }
        return new TagFilter(String.join(" || ", tags), Collections.unmodifiableSet(tags));
    }

    /**
     * Checks a tag.
     *
     * @param tag the tag
     * @return empty when legal, else the rule it breaks, as a sentence's end
     */
    public static Optional<String> checkTag(String tag) {
        if (tag == null || tag.isEmpty()) {
            return Optional.of("is empty; a tag has 1 to " + MAX_TAG_LENGTH + " characters");
        }
        if (tag.length() > MAX_TAG_LENGTH) {
            return Optional.of("has " + tag.length() + " characters but at most " + MAX_TAG_LENGTH + " are allowed");
        }
        if (!TAG.matcher(tag).matches()) {
            return Optional.of("may hold only letters, digits and '.', '_', ':', '-'");
        }
        return Optional.empty();
    }

    /** {@return true when this filter lets every message through ({@code *})} */
    public boolean matchesAll() {
        return tags.isEmpty();
    }

    /** {@return the tags this filter selects, in the order given; empty for {@code *}} */
    public Set<String> tags() {
        return tags;
    }

    /**
     * {@return true when a message with this tag passes}
     *
     * @param tag the message's tag, or null when it has none
     */
    public boolean matches(String tag) {
        return tags.isEmpty() || (tag != null && tags.contains(tag));
    }

    /** {@return the normalised expression: {@code *} or the tags joined by {@code " || "}} */
    public String expression() {
        return expression;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TagFilter other && other.tags.equals(tags);
    }

    @Override
    public int hashCode() {
        return tags.hashCode();
    }

    @Override
    public String toString() {
        return expression;
    }
}
