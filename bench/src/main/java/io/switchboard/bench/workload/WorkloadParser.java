package io.switchboard.bench.workload;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Reads workload files. A file holds one workload; its optional {@code grid} (or, with
 * {@code --full}, its {@code fullGrid}) expands it into one workload per grid point:
 *
 * <pre>{@code
 * grid:                                   # a mapping, or a list of mappings whose points are joined
 *   - {partitionsPerTopic: [5, 50], kafka.batch.size: [10000, 200000]}   # a Cartesian product
 *   - {kafka.linger.ms: [10, 100]}
 * fullGrid:
 *   - {kafka.batch.size: "10000..200000/10000"}                          # a range: from..to/step
 * }</pre>
 *
 * A grid key is a workload field, or {@code <broker>.<property>} for a broker property.
 */
public final class WorkloadParser {

    private static final Pattern RANGE = Pattern.compile("^\\s*(\\d+)\\s*\\.\\.\\s*(\\d+)\\s*/\\s*(\\d+)\\s*$");

    private WorkloadParser() {}

    /** Reads a workload file; a payload file is resolved beside it. */
    public static List<Workload> parse(Path file, boolean full) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new WorkloadException("Cannot read workload file " + file + ": " + e.getMessage()
                    + "; give the path of a readable YAML file", e);
        }
        Path dir = file.toAbsolutePath().getParent();
        return parse(file.getFileName().toString(), text, name -> readFile(dir.resolve(name)), full);
    }

    /** Reads a workload from the classpath (the seeds in the jar); a payload file is resolved beside it. */
    public static List<Workload> parseResource(String resource, boolean full) {
        String dir = resource.contains("/") ? resource.substring(0, resource.lastIndexOf('/') + 1) : "";
        byte[] bytes = readResource(resource);
        if (bytes == null) {
            throw new WorkloadException("No workload '" + resource + "' on the classpath; run `list` for the seeds");
        }
        String name = resource.substring(dir.length());
        return parse(name, new String(bytes, StandardCharsets.UTF_8), file -> readResource(dir + file), full);
    }

    /**
     * Parses workload text.
     *
     * @param source the file name, used in error messages
     * @param payloadFiles reads a payload file by its name as written in the workload; null when missing
     */
    public static List<Workload> parse(String source, String text, Function<String, byte[]> payloadFiles, boolean full) {
        Map<String, Object> raw = load(source, text);
        List<Map<String, Object>> blocks = gridBlocks(source, raw, full);
        List<Workload> result = new ArrayList<>();
        if (blocks.isEmpty()) {
            result.add(new WorkloadFields(source, withoutGrids(raw)).toWorkload("", payloadFiles));
            return result;
        }
        for (Map<String, Object> block : blocks) {
            for (Map<String, Object> point : product(source, block)) {
                Map<String, Object> expanded = withoutGrids(raw);
                StringBuilder label = new StringBuilder();
                point.forEach((key, value) -> {
                    apply(source, expanded, key, value);
                    label.append(label.length() == 0 ? "" : " ").append(key).append('=').append(value);
                });
                result.add(new WorkloadFields(source + " (grid point " + label + ")", expanded)
                        .toWorkload(label.toString(), payloadFiles));
            }
        }
        return result;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> load(String source, String text) {
        Object document;
        try {
            document = new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
        } catch (YAMLException e) {
            throw new WorkloadException(source + " is not valid YAML: " + e.getMessage().replace('\n', ' ')
                    + "; fix the syntax at the line shown", e);
        }
        if (!(document instanceof Map)) {
            throw new WorkloadException(source + ": a workload file must be a YAML mapping of fields (name: ..., "
                    + "topics: ..., ...), but it is " + (document == null ? "empty" : "a " + document.getClass().getSimpleName()));
        }
        Map<String, Object> map = new LinkedHashMap<>();
        ((Map<Object, Object>) document).forEach((k, v) -> map.put(String.valueOf(k), v));
        return map;
    }

    private static Map<String, Object> withoutGrids(Map<String, Object> raw) {
        Map<String, Object> copy = new LinkedHashMap<>(raw);
        copy.remove("grid");
        copy.remove("fullGrid");
        return copy;
    }

    private static List<Map<String, Object>> gridBlocks(String source, Map<String, Object> raw, boolean full) {
        String field = full && raw.containsKey("fullGrid") ? "fullGrid" : "grid";
        Object grid = raw.get(field);
        if (grid == null) {
            return List.of();
        }
        List<Map<String, Object>> blocks = new ArrayList<>();
        for (Object block : grid instanceof List<?> list ? list : List.of(grid)) {
            if (!(block instanceof Map<?, ?> map) || map.isEmpty()) {
                throw new WorkloadException(source + ": field '" + field + "' must be a mapping of field or "
                        + "<broker>.<property> to a list of values, or a list of such mappings, but has '" + block + "'");
            }
            Map<String, Object> copy = new LinkedHashMap<>();
            map.forEach((k, v) -> copy.put(String.valueOf(k), v));
            blocks.add(copy);
        }
        return blocks;
    }

    private static List<Map<String, Object>> product(String source, Map<String, Object> block) {
        List<Map<String, Object>> points = new ArrayList<>();
        points.add(new LinkedHashMap<>());
        block.forEach((key, values) -> {
            List<Object> options = values(source, key, values);
            List<Map<String, Object>> next = new ArrayList<>();
            for (Map<String, Object> point : points) {
                for (Object option : options) {
                    Map<String, Object> extended = new LinkedHashMap<>(point);
                    extended.put(key, option);
                    next.add(extended);
                }
            }
            points.clear();
            points.addAll(next);
        });
        return points;
    }

    private static List<Object> values(String source, String key, Object values) {
        if (values instanceof List<?> list && !list.isEmpty()) {
            return new ArrayList<>(list);
        }
        if (values instanceof String text) {
            Matcher m = RANGE.matcher(text);
            if (m.matches()) {
                long from = Long.parseLong(m.group(1));
                long to = Long.parseLong(m.group(2));
                long step = Long.parseLong(m.group(3));
                if (step < 1 || to < from) {
                    throw new WorkloadException(source + ": grid range '" + text + "' for '" + key
                            + "' must read from..to/step with from <= to and step >= 1");
                }
                List<Object> range = new ArrayList<>();
                for (long v = from; v <= to; v += step) {
                    range.add(v);
                }
                return range;
            }
        }
        if (values == null || values instanceof Map || values instanceof List) {
            throw new WorkloadException(source + ": grid key '" + key + "' has '" + values
                    + "' but must have a list of values such as [5, 50] or a range such as \"10000..200000/10000\"");
        }
        return List.of(values);
    }

    @SuppressWarnings("unchecked")
    private static void apply(String source, Map<String, Object> workload, String key, Object value) {
        int dot = key.indexOf('.');
        String broker = dot > 0 ? key.substring(0, dot) : "";
        if (WorkloadFields.BROKERS.contains(broker)) {
            Object existing = workload.get("brokerProperties");
            Map<String, Object> perBroker = new LinkedHashMap<>();
            if (existing instanceof Map<?, ?> map) {
                map.forEach((k, v) -> perBroker.put(String.valueOf(k), v));
            }
            Map<String, Object> props = new LinkedHashMap<>();
            if (perBroker.get(broker) instanceof Map<?, ?> map) {
                map.forEach((k, v) -> props.put(String.valueOf(k), v));
            }
            props.put(key.substring(dot + 1), value);
            perBroker.put(broker, props);
            workload.put("brokerProperties", perBroker);
        } else if (WorkloadFields.KNOWN.contains(key) && !List.of("name", "grid", "fullGrid", "study", "brokerProperties").contains(key)) {
            workload.put(key, value);
        } else {
            throw new WorkloadException(source + ": grid key '" + key + "' is neither a workload field that can vary "
                    + "(such as partitionsPerTopic or delivery) nor <broker>.<property> with a broker from "
                    + WorkloadFields.BROKERS + " (such as kafka.batch.size)");
        }
    }

    private static byte[] readFile(Path path) {
        try {
            return Files.exists(path) ? Files.readAllBytes(path) : null;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read payload file " + path, e);
        }
    }

    private static byte[] readResource(String resource) {
        try (InputStream in = WorkloadParser.class.getClassLoader().getResourceAsStream(resource)) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + resource + " from the classpath", e);
        }
    }
}
