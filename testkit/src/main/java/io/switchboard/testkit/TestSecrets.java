package io.switchboard.testkit;

import java.security.SecureRandom;
import java.util.HexFormat;

/** Secrets for tests that check credentials are never shown: random passwords, and exceptions as text to search. */
public final class TestSecrets {

    private static final SecureRandom RANDOM = new SecureRandom();

    private TestSecrets() {}

    /**
     * A random password of letters and digits ({@code pw} and 24 hex digits), distinct enough that
     * finding it in a text means it leaked there.
     *
     * @return a new password
     */
    public static String randomPassword() {
        byte[] bytes = new byte[12];
        RANDOM.nextBytes(bytes);
        return "pw" + HexFormat.of().formatHex(bytes);
    }

    /**
     * The {@code toString()} of an exception, of each of its causes and of every suppressed exception
     * among them, one per line.
     *
     * @param failure the exception, or null
     * @return everything the exception chain says
     */
    public static String allMessages(Throwable failure) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            text.append(t).append('\n');
            for (Throwable suppressed : t.getSuppressed()) {
                text.append(allMessages(suppressed));
            }
        }
        return text.toString();
    }
}
