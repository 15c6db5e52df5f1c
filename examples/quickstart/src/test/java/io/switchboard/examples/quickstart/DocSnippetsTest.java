package io.switchboard.examples.quickstart;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The docs cannot rot: every {@code ```java} block in README.md and docs/*.md must be, line for
 * line (indentation aside), a region of compiled source marked {@code // tag::name[]} ...
 * {@code // end::name[]}, which a test runs. Change the API and the tagged code stops compiling;
 * change the tagged code and this test names the doc block to update.
 */
@DisplayName("Java snippets in the docs are compiled, tested code")
class DocSnippetsTest {

    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern TAG = Pattern.compile("// tag::([\\w-]+)\\[]\\n(.*?)\\n\\s*// end::\\1\\[]", Pattern.DOTALL);

    @Test
    @DisplayName("every java block of README.md and docs/ is a tagged region of compiled source")
    void everyJavaBlockIsTaggedSource() throws IOException {
        Path root = repositoryRoot();
        Map<String, String> regions = taggedRegions(root);
        List<String> docs = new ArrayList<>();
        docs.add("README.md");
        if (Files.isDirectory(root.resolve("docs"))) {
            try (Stream<Path> files = Files.walk(root.resolve("docs"))) {
                files.filter(f -> f.toString().endsWith(".md")).forEach(f -> docs.add(root.relativize(f).toString()));
            }
        }
        List<String> rotten = new ArrayList<>();
        int blocks = 0;
        for (String doc : docs) {
            Matcher m = JAVA_BLOCK.matcher(Files.readString(root.resolve(doc)));
            while (m.find()) {
                blocks++;
                String block = normalize(m.group(1));
                if (regions.values().stream().noneMatch(block::equals)) {
                    rotten.add(doc + ": block starting '" + m.group(1).lines().findFirst().orElse("") + "'");
                }
            }
        }
        assertThat(blocks).as("java blocks found").isPositive();
        assertThat(rotten).as("java blocks that are not a tagged region of compiled source (tags: " + regions.keySet() + ")")
                .isEmpty();
    }

    static Path repositoryRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.exists(p.resolve(".ci/run"))) {
            p = p.getParent();
        }
        assertThat(p).as("repository root (the folder with .ci/run)").isNotNull();
        return p;
    }

    private static Map<String, String> taggedRegions(Path root) throws IOException {
        Map<String, String> regions = new LinkedHashMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".java") && f.toString().contains("/src/")
                    && !f.toString().contains("/target/")).toList()) {
                Matcher m = TAG.matcher(Files.readString(f));
                while (m.find()) {
                    regions.put(root.relativize(f) + "#" + m.group(1), normalize(m.group(2)));
                }
            }
        }
        return regions;
    }

    /** Lines with their common indentation removed, trailing blanks dropped. */
    static String normalize(String text) {
        List<String> lines = text.lines().map(l -> l.replaceAll("\\s+$", "")).toList();
        int indent = lines.stream().filter(l -> !l.isBlank()).mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        StringBuilder b = new StringBuilder();
        for (String l : lines) {
            b.append(l.isBlank() ? "" : l.substring(indent)).append('\n');
        }
        return b.toString().strip();
    }
}
