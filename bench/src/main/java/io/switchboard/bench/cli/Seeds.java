package io.switchboard.bench.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** The seed workloads on the classpath, in the order the suite runs them ({@code suite.txt}). */
final class Seeds {

    static final String DIRECTORY = "workloads/seeds/";

    private Seeds() {}

    static List<String> files() {
        try (InputStream in = Seeds.class.getClassLoader().getResourceAsStream(DIRECTORY + "suite.txt")) {
            if (in == null) {
                throw new IllegalStateException("No " + DIRECTORY + "suite.txt on the classpath; rebuild the bench module");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::trim)
                    .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
