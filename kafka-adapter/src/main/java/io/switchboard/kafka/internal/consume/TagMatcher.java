package io.switchboard.kafka.internal.consume;

import io.switchboard.spi.TagFilter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * A subscription's tag filter as the poll thread applies it, before a record is decoded: the record's
 * {@value TagFilter#TAG_HEADER} header value is compared as bytes with the UTF-8 of each tag, so no {@code String}
 * is made of it. A record without that header matches no tag. Immutable.
 */
final class TagMatcher {

    private final byte[][] tags;

    private TagMatcher(byte[][] tags) {
        this.tags = tags;
    }

    /** {@return the matcher of a subscription's filter expression, or null when it lets everything through} */
    static TagMatcher of(String expression) {
        TagFilter filter = TagFilter.parse(expression);
        if (filter.matchesAll()) {
            return null;
        }
        return new TagMatcher(filter.tags().stream().map(tag -> tag.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new));
    }

    boolean matches(ConsumerRecord<byte[], byte[]> record) {
        Header header = record.headers().lastHeader(TagFilter.TAG_HEADER);
        byte[] value = header == null ? null : header.value();
        if (value == null) {
            return false;
        }
        for (byte[] tag : tags) {
            if (Arrays.equals(tag, value)) {
                return true;
            }
        }
        return false;
    }
}
