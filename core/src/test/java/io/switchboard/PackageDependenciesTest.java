package io.switchboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The package rules of docs/architecture.md, read from core's sources (imports and fully qualified names in code,
 * comments left out): the SPI
 * depends on nothing internal; below the public API package {@code io.switchboard} the packages form no cycle; and the
 * API package reaches into {@code internal} only from its entry points, which assemble the implementation.
 */
@DisplayName("Core's package dependencies")
class PackageDependenciesTest {

    private static final String ROOT = "io.switchboard";
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
    private static final Pattern COMMENT = Pattern.compile("/\\*.*?\\*/|//[^\n]*", Pattern.DOTALL);
    private static final Pattern REFERENCE = Pattern.compile("\\b(io\\.switchboard(?:\\.[a-z]\\w*)*)\\.[A-Z]");
    /** The API classes that build or reach the implementation; no other API class may name an internal package. */
    private static final Set<String> API_ENTRY_POINTS = Set.of("Switchboard", "SwitchboardAssembly", "SubscriberBuilder",
            "Publisher", "Message", "Envelope", "Codec");

    private final Map<String, Map<String, Set<String>>> deps = read(Path.of("src/main/java"));

    @Test
    @DisplayName("the SPI imports nothing internal")
    void spiIndependentOfInternals() {
        assertThat(uses(ROOT + ".spi", ROOT + ".internal")).as("spi -> internal, by file").isEmpty();
    }

    @Test
    @DisplayName("below the API package, no import cycle between packages")
    void noCycleBelowTheApi() {
        Map<String, Set<String>> graph = new TreeMap<>();
        deps.forEach((from, to) -> {
            if (!from.equals(ROOT)) {
                graph.put(from, new TreeSet<>(to.keySet()));
                graph.get(from).remove(ROOT);
            }
        });
        assertThat(cycles(graph)).as("package cycles (strongly connected groups)").isEmpty();
    }

    @Test
    @DisplayName("the API package names internal packages only in its entry points")
    void apiReachesInternalsOnlyFromEntryPoints() {
        Set<String> files = new TreeSet<>();
        deps.getOrDefault(ROOT, Map.of()).forEach((to, from) -> {
            if (to.startsWith(ROOT + ".internal")) {
                files.addAll(from);
            }
        });
        files.removeIf(f -> API_ENTRY_POINTS.contains(f.replace(".java", "")));
        assertThat(files).as("API classes naming an internal package (move the logic behind an entry point)").isEmpty();
    }

    private Map<String, Set<String>> uses(String from, String toPrefix) {
        Map<String, Set<String>> found = new TreeMap<>();
        deps.forEach((pkg, to) -> {
            if (pkg.equals(from) || pkg.startsWith(from + ".")) {
                to.forEach((target, files) -> {
                    if (target.startsWith(toPrefix)) {
                        found.put(pkg + " -> " + target, files);
                    }
                });
            }
        });
        return found;
    }

    /** Package -> (package it names -> files naming it), for packages of core. */
    private static Map<String, Map<String, Set<String>>> read(Path sources) {
        Map<String, Map<String, Set<String>>> deps = new HashMap<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String src = Files.readString(file);
                Matcher p = PACKAGE.matcher(src);
                if (!p.find()) {
                    continue;
                }
                String pkg = p.group(1);
                Map<String, Set<String>> to = deps.computeIfAbsent(pkg, k -> new HashMap<>());
                Matcher r = REFERENCE.matcher(COMMENT.matcher(src.substring(p.end())).replaceAll(" "));
                while (r.find()) {
                    if (!r.group(1).equals(pkg)) {
                        to.computeIfAbsent(r.group(1), k -> new TreeSet<>()).add(file.getFileName().toString());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Reading core's sources under " + sources.toAbsolutePath(), e);
        }
        deps.values().forEach(to -> to.keySet().retainAll(deps.keySet()));
        return deps;
    }

    /** Tarjan's strongly connected components of more than one package. */
    private static List<Set<String>> cycles(Map<String, Set<String>> graph) {
        List<Set<String>> result = new ArrayList<>();
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        List<String> stack = new ArrayList<>();
        Set<String> onStack = new HashSet<>();
        int[] counter = {0};
        for (String v : graph.keySet()) {
            if (!index.containsKey(v)) {
                connect(v, graph, index, low, stack, onStack, counter, result);
            }
        }
        return result;
    }

    private static void connect(String v, Map<String, Set<String>> graph, Map<String, Integer> index, Map<String, Integer> low,
            List<String> stack, Set<String> onStack, int[] counter, List<Set<String>> result) {
        index.put(v, counter[0]);
        low.put(v, counter[0]++);
        stack.add(v);
        onStack.add(v);
        for (String w : graph.getOrDefault(v, Set.of())) {
            if (!graph.containsKey(w)) {
                continue;
            }
            if (!index.containsKey(w)) {
                connect(w, graph, index, low, stack, onStack, counter, result);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> component = new TreeSet<>();
            String w;
            do {
                w = stack.remove(stack.size() - 1);
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            if (component.size() > 1) {
                result.add(component);
            }
        }
    }
}
