package io.switchboard.outbox;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A message's application headers in one text column: name U+001F value, pairs separated by U+001E. Header names and
 * values cannot hold control characters ({@link io.switchboard.Message.Builder#header}), so the separators never occur
 * in them.
 */
final class HeaderText {

    private static final char NAME_END = '\u001f';
    private static final char PAIR_END = '\u001e';

    private HeaderText() {}

    static String encode(Map<String, String> headers) {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, String> e : headers.entrySet()) {
            if (out.length() > 0) {
                out.append(PAIR_END);
            }
            out.append(e.getKey()).append(NAME_END).append(e.getValue());
        }
        return out.toString();
    }

    static Map<String, String> decode(String text) {
        if (text == null || text.isEmpty()) {
            return Map.of();
        }
        Map<String, String> headers = new LinkedHashMap<>();
        int start = 0;
        while (start <= text.length()) {
            int end = text.indexOf(PAIR_END, start);
            if (end < 0) {
                end = text.length();
            }
            int split = text.indexOf(NAME_END, start);
            if (split > start && split < end) {
                headers.put(text.substring(start, split), text.substring(split + 1, end));
            }
            start = end + 1;
        }
        return headers;
    }
}
