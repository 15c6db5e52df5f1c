package io.switchboard.outbox;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A message's application headers in one text column. Written as U+0001 followed by pairs {@code name U+001F value},
 * separated by U+001E, where a backslash, U+0000, U+001E and U+001F inside a name or value are escaped ({@code \\},
 * {@code \0}, {@code \p}, {@code \n}), so any value round-trips and none can split into other headers; a database text
 * column never sees U+0000. Rows written before the escape (no leading U+0001) are read as they were written: pairs
 * split at the separators, nothing unescaped.
 */
final class HeaderText {

    private static final char MARK = '\u0001';
    private static final char NAME_END = '\u001f';
    private static final char PAIR_END = '\u001e';
    private static final char ESCAPE = '\\';

    private HeaderText() {}

    static String encode(Map<String, String> headers) {
        StringBuilder out = new StringBuilder(16 + headers.size() * 24);
        out.append(MARK);
        boolean first = true;
        for (Map.Entry<String, String> e : headers.entrySet()) {
            if (!first) {
                out.append(PAIR_END);
            }
            first = false;
            escape(e.getKey(), out);
            out.append(NAME_END);
            escape(e.getValue(), out);
        }
        return out.toString();
    }

    private static void escape(String text, StringBuilder out) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case ESCAPE -> out.append(ESCAPE).append(ESCAPE);
                case '\u0000' -> out.append(ESCAPE).append('0');
                case PAIR_END -> out.append(ESCAPE).append('p');
                case NAME_END -> out.append(ESCAPE).append('n');
                default -> out.append(c);
            }
        }
    }

    static Map<String, String> decode(String text) {
        if (text == null || text.isEmpty()) {
            return Map.of();
        }
        if (text.charAt(0) != MARK) {
            return decodeUnescaped(text);
        }
        Map<String, String> headers = new LinkedHashMap<>();
        StringBuilder name = new StringBuilder();
        StringBuilder value = new StringBuilder();
        StringBuilder current = name;
        for (int i = 1; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == ESCAPE && i + 1 < text.length()) {
                char next = text.charAt(++i);
                current.append(switch (next) {
                    case '0' -> '\u0000';
                    case 'p' -> PAIR_END;
                    case 'n' -> NAME_END;
                    default -> next;
                });
            } else if (c == NAME_END && current == name) {
                current = value;
            } else if (c == PAIR_END) {
                put(headers, name, value, current);
                name.setLength(0);
                value.setLength(0);
                current = name;
            } else {
                current.append(c);
            }
        }
        put(headers, name, value, current);
        return headers;
    }

    private static void put(Map<String, String> headers, StringBuilder name, StringBuilder value, StringBuilder current) {
        if (current == value && name.length() > 0) {
            headers.put(name.toString(), value.toString());
        }
    }

    /** The format of rows written before the escape. */
    private static Map<String, String> decodeUnescaped(String text) {
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
