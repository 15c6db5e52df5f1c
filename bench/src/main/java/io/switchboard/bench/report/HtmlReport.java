package io.switchboard.bench.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * A self-contained HTML page: Chart.js (inlined from its WebJar, so the page works offline), the
 * results as JSON, and a script that draws per workload point the throughput over time and the
 * latency percentiles of each broker and mode, plus the tables.
 */
public final class HtmlReport {

    /** Chart.js inside its WebJar ({@code org.webjars.npm:chart.js}). */
    static final String CHART_JS = "META-INF/resources/webjars/chart.js/4.5.1/dist/chart.umd.min.js";
    private static final String TEMPLATE = "io/switchboard/bench/report/report.html";

    private HtmlReport() {}

    /** The page for a JSON document from {@link JsonReport}. */
    public static String render(String json) {
        return resource(TEMPLATE)
                .replace("/*CHART_JS*/", scriptSafe(resource(CHART_JS)))
                .replace("/*RESULTS_JSON*/", scriptSafe(json));
    }

    private static String scriptSafe(String text) {
        return text.replace("</script", "<\\/script").replace("<!--", "<\\!--");
    }

    private static String resource(String name) {
        try (InputStream in = HtmlReport.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("Missing " + name + " on the classpath; rebuild the bench module (the "
                        + "Chart.js WebJar org.webjars.npm:chart.js must be a dependency)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
